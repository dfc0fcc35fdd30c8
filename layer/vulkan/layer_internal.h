#pragma once
/* Layer-internal records and dispatch tables. Everything here is per-process state owned by
 * layer/; intercept/vulkan reads it through these types. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "pp_hash.h"
#include "pp_settings.h"
#include "vk_functions.h"

#define PP_LAYER_NAME "VK_LAYER_PASSPROBE_profiler"
#define PP_LAYER_DESCRIPTION "passprobe: per-pass GPU/CPU timing and synchronization diagnostics"

struct pp_recording;
struct pp_gpu_timer;
struct pp_gpu_perf;
struct pp_kbase;
struct pp_attr_device;
struct pp_attr_queue;

/* The dispatch key of a dispatchable handle: the loader's dispatch table pointer it stores in
 * the object's first word. Queues and command buffers carry their device's key. */
static inline void *pp_dispatch_key(const void *handle)
{
	return *(void *const *)handle;
}

/* The dispatch tables: a slot for every function of the list (vk_functions.h). */
#define PP_DECLARE_PFN(member, alias, kind) PFN_vk##member member;

struct pp_instance_dispatch {
	PFN_vkGetInstanceProcAddr GetInstanceProcAddr;
	PP_VK_INSTANCE_FUNCTIONS(PP_DECLARE_PFN)
};

struct pp_device_dispatch {
	PP_VK_DEVICE_FUNCTIONS(PP_DECLARE_PFN)
};

struct pp_instance {
	void *key;
	UT_hash_handle hh;
	VkInstance handle;
	uint32_t api_version;
	/* vkGetPhysicalDeviceFeatures2/Properties2 (or their KHR aliases) work on this instance:
	 * 1.1, or VK_KHR_get_physical_device_properties2 enabled by the application or by us. */
	bool gpdp2;
	bool added_gpdp2; /* enabled by passprobe, not the application: its functions stay hidden */
	struct pp_instance_dispatch vk;
	struct pp_messengers *messengers; /* the application's debug messengers (layer_messengers.c) */
};

struct pp_queue {
	uint64_t handle;
	UT_hash_handle hh;
	VkQueue vk_queue;
	uint32_t family, index;
	struct pp_attr_queue *attr;   /* label stack and ordering on this queue */
};

struct pp_command_buffer;

struct pp_command_pool {
	uint64_t handle;
	UT_hash_handle hh;
	uint32_t family;
	bool protected_pool;               /* VK_COMMAND_POOL_CREATE_PROTECTED_BIT */
	/* NULL: the application's pool. Else created by a layer above passprobe for work of its
	 * own (pp_vk_renderdoc_foreign_caller): that layer's library; its command buffers' passes are
	 * marked recorded_by. Static. */
	const char *recorded_by;
	struct pp_command_buffer *buffers; /* doubly linked through pool_prev/pool_next */
};

struct pp_command_buffer {
	uint64_t handle;
	UT_hash_handle hh;
	VkCommandBuffer vk_cb;
	struct pp_device *device;
	struct pp_command_pool *pool;
	struct pp_command_buffer *pool_prev, *pool_next;
	VkCommandBufferLevel level;
	uint32_t family;
	bool simultaneous_use;        /* of the current recording */
	bool sim_suspended;           /* SIMULTANEOUS_USE with rendering suspended/resumed: untimed */
	struct pp_sim_ring *sim_ring; /* SIMULTANEOUS_USE: per-execution reset and copies */
	uint32_t multiview_mask;      /* of the open render pass; timestamps inside need care */
	bool in_render_pass;
	bool timestamps;              /* this recording writes timestamps */
	bool statistics;              /* this recording measures pipeline statistics */
	bool per_draw;                /* per_draw_timing in the open pass */
	bool app_stats_query_active;  /* the app's own pipeline statistics query is open */
	/* quirk_uniforms_before_pipeline, per bind point (graphics, compute): a pipeline was
	 * bound in this recording / uniforms were set while none was (vk_cmd.c). */
	bool pipeline_bound[2];
	bool uniforms_unbound[2];
	VkRenderingFlags rendering_flags; /* of the open dynamic render pass */
	bool suspended;               /* the last render pass was suspended: nothing may follow it */
	const char *ts_reason;        /* why this recording has no timestamps */
	uint32_t submissions;         /* of the current recording */
	uint32_t recording;           /* counts vkBeginCommandBuffer calls: which recording is current */
	uint32_t ts_chunk, ts_next;   /* slot allocation in the current chunks */
	uint32_t stats_chunk, stats_next;
	struct pp_recording *rec;     /* API-neutral recording: passes, workload, labels */
	struct pp_vk_diag_cb *diag;   /* diagnostics state of the recording (vk_diag_state.c) */
	/* The experiment (vk_experiment.c): a barrier call held back to be merged with the next
	 * one; every command hook but binds and draws records it first (pp_vk_experiment_flush). */
	struct vk_exp_held *exp_held;
};

/* Non-dispatchable objects whose properties the profiler needs later: every tracked kind
 * lives in the device's one `objects` table (layer_objects.c), keyed by (type, handle).
 * Descriptor sets are not objects here: mutable and high-churn, they stay with the
 * diagnostics (vk_descriptors.c, struct dset). */
struct pp_object_key {
	uint64_t handle;
	VkObjectType type;
};

struct pp_rp_attachment {
	VkFormat format;
	VkSampleCountFlagBits samples;
	VkAttachmentLoadOp load_op;
	VkAttachmentStoreOp store_op;
	/* What a pass records of it (pp_vk_profiling_format_name ...), found once when the render pass is
	 * created rather than at every vkCmdBeginRenderPass. */
	const char *format_name, *load_op_name, *store_op_name;
	bool depth_stencil;
};

/* A subpass dependency between two subpasses without VK_DEPENDENCY_BY_REGION_BIT: what the
 * diagnostics judge when the render pass begins (vk_barriers.c). Masks as the application gave
 * them (VkMemoryBarrier2 in a VkSubpassDependency2's pNext replaces the struct's). */
struct pp_rp_dependency {
	uint32_t index, src_subpass, dst_subpass;
	VkPipelineStageFlags2 src_stages, dst_stages;
	VkAccessFlags2 src_access, dst_access;
	bool dst_multisampled_input; /* the destination subpass reads a multisampled input attachment */
};
#define PP_RP_MAX_DEPENDENCIES 32

/* One binding of a descriptor set layout as the diagnostics read it (vk_descriptors.c), sorted by
 * binding number; a set of the layout lays its descriptors out in that order. */
struct pp_dsl_binding {
	uint32_t binding, count, base; /* count: descriptors passprobe follows (0: none) */
	uint32_t stages;               /* PP_STAGE_* (attr_diag.h) of stageFlags */
	bool write;                    /* storage descriptors may be written */
	uint8_t kind;                  /* enum pp_diag_res_kind (attr_diag.h) */
};
/* Descriptors followed per set; a layout with more is partial (docs/diagnostics.md). */
#define PP_DSL_MAX_DESCRIPTORS 4096
/* Set layouts of a pipeline layout followed for push descriptors. */
#define PP_PIPELINE_LAYOUT_MAX_SETS 32

/* What passprobe keeps of one object, by its type (the key's). */
union pp_object_desc {
		struct {
			uint32_t nattachments;
			struct pp_rp_attachment *attachments;
			uint32_t subpasses;
			uint32_t multiview_mask; /* union of subpass view masks */
			uint32_t ndependencies;  /* at most PP_RP_MAX_DEPENDENCIES */
			struct pp_rp_dependency *dependencies; /* NULL when none */
		} render_pass;
		struct {
			uint32_t width, height, layers;
			uint64_t render_pass;
			/* its image views, while the experiment is on (NULL: not kept, or imageless) */
			uint32_t nviews;
			uint64_t *views;
		} framebuffer;
		struct {
			VkFormat format;
			VkSampleCountFlagBits samples;
			VkExtent3D extent;
			uint32_t layers;
		} image;
		struct {
			uint64_t image;
			VkFormat format;
			VkImageSubresourceRange range; /* as created (VK_REMAINING_* kept) */
		} image_view;
		struct {
			VkQueryType type;
			uint32_t count;
		} query_pool;
		/* The next four only while the diagnostics are on (created once their device
		 * state exists); set and pipeline layouts also under quirk_uniforms_before_pipeline.
		 * Variable-size parts are owned: object_free frees them. */
		struct {
			uint32_t nbindings, total; /* total: descriptors followed */
			/* stageFlags of its uniform buffer and inline uniform block bindings
			 * (quirk_uniforms_before_pipeline) */
			VkShaderStageFlags uniform_stages;
			bool partial; /* descriptors not followed: beyond PP_DSL_MAX_DESCRIPTORS,
				       * unfollowed types, update-after-bind */
			struct pp_dsl_binding *bindings; /* nbindings; never NULL */
		} set_layout;
		struct {
			uint32_t nsets; /* at most PP_PIPELINE_LAYOUT_MAX_SETS */
			uint64_t *set_layouts; /* NULL when nsets is 0 */
		} pipeline_layout;
		struct {
			uint32_t stages; /* PP_STAGE_* of its shaders */
		} pipeline;
		struct {
			uint64_t buffer;
			VkDeviceSize offset, range;
		} buffer_view;
};

struct pp_object {
	struct pp_object_key key;
	UT_hash_handle hh;
	char name[64];
	union pp_object_desc u;
};

struct pp_queue_family_info {
	VkQueueFlags flags;
	uint32_t timestamp_valid_bits;
};

struct pp_device {
	void *key;
	UT_hash_handle hh;
	VkDevice handle;
	VkPhysicalDevice physical_device;
	struct pp_instance *instance;
	uint32_t api_version; /* min(instance, physical device) */
	struct pp_device_dispatch vk;
	PFN_vkSetDeviceLoaderData set_loader_data;
	VkPhysicalDeviceProperties props;
	uint32_t nfamilies;
	struct pp_queue_family_info *families;

	/* What the layer could enable on its copy of the create-info. */
	bool host_query_reset;
	/* No host reset, but timestamps: queries are reset by command buffers of passprobe's
	 * own submitted before each execution (vk_simultaneous.c), results copied on the GPU. */
	bool gpu_query_reset;
	bool gpu_query_reset_possible;
	/* Extensions passprobe enabled that the application did not: their functions stay
	 * hidden from it (vkGetDeviceProcAddr). */
	bool added_host_query_reset;
	bool added_calibrated_timestamps;
	bool pipeline_statistics;
	bool calibrated_timestamps;
	/* VK_KHR_performance_query enabled by passprobe for its hardware counters (gpu_counters
	 * setting), never where the application enables it itself; its functions stay hidden
	 * from the application. */
	bool perf_query;
	struct pp_gpu_perf *perf;         /* counters/gpu: the backend, NULL when not running */
	struct pp_kbase *kbase;           /* counters/gpu: Mali kbase sampling, NULL when not running */
	uint32_t perf_family;             /* the queue family its pools count on */
	/* The copy_results setting decided for this device (auto: docs/timing.md, "Never waiting"). */
	bool copy_results;
	/* lavapipe: beginning a query after uniform buffers or push constants were set for a bind
	 * point with no pipeline bound there yet dereferences the missing pipeline (Mesa 22.3
	 * lvp_execute.c, update_inline_shader_state): such passes go without statistics
	 * (docs/timing.md, "Driver quirks"). */
	bool quirk_uniforms_before_pipeline;
	/* The experiment (docs/diagnostics.md, "Experiment mode"), decided at creation from the
	 * application's create-info: whether it enabled synchronization2 (a merge into one
	 * vkCmdPipelineBarrier2 needs it), and the first extension it enabled that may add commands
	 * passprobe does not hook (a barrier held back for a merge could move past one), "" none. */
	bool exp_sync2;
	char exp_unhooked_extension[64];

	/* A device passprobe could not track (out of memory): a static record with only the
	 * dispatch table, so every hook passes straight through; its tables stay empty. */
	bool untracked;

	pthread_rwlock_t lock; /* protects the tables below; never held across a call down */
	struct pp_queue *queues;
	struct pp_command_pool *pools;
	struct pp_command_buffer *command_buffers;
	struct pp_object *objects;

	struct pp_gpu_timer *timer;       /* counters/gpu: layer-owned query pools */
	/* The timer's two backends (pp_gpu_vk_timer_backend), looked up once: every pass boundary
	 * goes through them. [0] timestamps, [1] pipeline statistics; NULL without a timer. */
	const struct pp_gpu_counter_backend *timer_backends[2];
	struct pp_attr_device *attr;      /* attribution: submissions, frames */
	uint32_t sink_id;                 /* the sinks' id of this device (pp_attr_sink_device_register) */
	struct pp_vk_diag *diag;          /* diagnostics: descriptor, pipeline, wait state (vk_diag_state.c) */

	/* Command pools of passprobe's own, per queue family, for SIMULTANEOUS_USE executions
	 * (vk_simultaneous.c); sim_lock guards them, their command buffers and the rings. */
	pthread_mutex_t sim_lock;
	VkCommandPool *sim_pools;
};

/* Process-wide state. */
extern struct pp_settings pp_layer_registry_settings;
void pp_layer_init_once(void);

/* The instance and device tables (layer_registry.c), by dispatch key. register: false when out
 * of memory (the record is the caller's still); unregister: the record, out of the table, or
 * NULL. A device passprobe could not allocate a record for is kept in a small static table
 * instead: pp_layer_registry_device_untracked_add has fill (under the table's lock) load its dispatch table;
 * false when that table is full. pp_layer_registry_device_lookup finds both kinds. */
struct pp_instance *pp_layer_registry_instance_lookup(void *key);
bool pp_layer_registry_instance_register(struct pp_instance *inst);
struct pp_instance *pp_layer_registry_instance_unregister(void *key);
struct pp_device *pp_layer_registry_device_lookup(void *key);
bool pp_layer_registry_device_register(struct pp_device *dev);
struct pp_device *pp_layer_registry_device_unregister(void *key);
bool pp_layer_registry_device_untracked_add(VkDevice device, void (*fill)(struct pp_device *dev, void *ctx), void *ctx);
/* The untracked device's vkDestroyDevice below, its slot freed; NULL when key is not one. */
PFN_vkDestroyDevice pp_layer_registry_device_untracked_remove(void *key);

/* Per-device object tables (layer_objects.c). */
struct pp_queue *pp_layer_objects_queue_lookup(struct pp_device *dev, VkQueue queue);
/* A queue the application got: a new record is handed to created (under the device lock,
 * before any other thread can find it). */
void pp_layer_objects_queue_track(struct pp_device *dev, VkQueue queue, uint32_t family, uint32_t index,
		    void (*created)(struct pp_device *dev, struct pp_queue *q));
/* Command pools and the command buffers they list. The records of command buffers are the
 * caller's (intercept/vulkan/vk_objects.c): it allocates them, and frees them when release is
 * called or untrack returns them. */
bool pp_layer_objects_command_pool_track(struct pp_device *dev, VkCommandPool pool, uint32_t family, bool protected_pool,
			   const char *recorded_by);
void pp_layer_objects_command_pool_untrack(struct pp_device *dev, VkCommandPool pool,
			    void (*release)(struct pp_device *dev, struct pp_command_buffer *c));
/* The pool's command buffers (linked through pool_next); they stay in the tables. */
struct pp_command_buffer *pp_layer_objects_command_pool_buffers(struct pp_device *dev, VkCommandPool pool);
/* Inserts c (handle set) into the device table and its pool's list; false when out of memory. */
bool pp_layer_objects_command_buffer_track(struct pp_device *dev, VkCommandPool pool, struct pp_command_buffer *c);
/* Takes cb's record out of the tables; NULL when not tracked. */
struct pp_command_buffer *pp_layer_objects_command_buffer_untrack(struct pp_device *dev, VkCommandBuffer cb);
/* At vkDestroyDevice: every command buffer left leaves the tables, each handed to release. */
void pp_layer_objects_command_buffers_untrack_all(struct pp_device *dev,
				    void (*release)(struct pp_device *dev, struct pp_command_buffer *c));
struct pp_command_buffer *pp_layer_objects_command_buffer_lookup(struct pp_device *dev, VkCommandBuffer cb);
/* The record stays valid while the object is (the application may not destroy it meanwhile);
 * read fields another thread may rewrite (a re-created handle) under the lock instead, with
 * pp_layer_objects_find_locked. Answered from a per-thread cache while no object table changed
 * (pp_layer_objects_epoch): no lock, no hash on the pass boundaries' repeated lookups. */
extern uint64_t pp_layer_objects_epoch;
/* A frame's passes bind dozens to hundreds of objects (render passes, framebuffers, pipelines):
 * 128 sets of two entries of 40 bytes, 10 KiB per recording thread, made at its first lookup.
 * With 32 sets, a frame cycling through 64 pipelines missed at 77% of its binds (about 215
 * instructions each: the table's read lock and hash); a lookup touches one set whatever the
 * size, so a larger cache costs memory only. */
#define PP_OBJECT_CACHE_SIZE 256
struct pp_object_cache_entry {
	const struct pp_device *dev;
	uint64_t handle;
	uint64_t epoch;
	VkObjectType type;
	struct pp_object *object;
};
/* On the heap, one per thread, reached through a thread-local pointer: the layer has an
 * initial-exec variable (pp_layer_objects_command_buffer_cache_tls), so glibc puts the module's whole TLS
 * block in the static TLS surplus it keeps for libraries loaded with dlopen (the loader
 * dlopens the layer). 640 bytes there made dlopen fail ("cannot allocate memory in static TLS
 * block") in a program that had used up most of the surplus (gfxrecon-replay beside a
 * preloaded sanitizer runtime). A key's destructor frees a thread's cache at its exit. The
 * pointer is initial-exec too: it is in that block already, and a lookup then makes no
 * __tls_get_addr call. */
extern _Thread_local struct pp_object_cache_entry *pp_layer_objects_cache __attribute__((tls_model("initial-exec")));
struct pp_object *pp_layer_objects_lookup_slow(struct pp_device *dev, VkObjectType type, uint64_t handle);

/* Two ways per set: a frame's few dozen objects then rarely evict each other. Handles are
 * often addresses of equal-sized driver objects, alike in their low bits: a multiplicative
 * (Fibonacci) hash takes the set from the product's top bits, which every bit of the handle
 * reaches. */
static inline uint32_t pp_layer_objects_cache_set(VkObjectType type, uint64_t handle)
{
	_Static_assert((PP_OBJECT_CACHE_SIZE & (PP_OBJECT_CACHE_SIZE - 1)) == 0, "a power of two");
	return (uint32_t)(((handle ^ (uint64_t)type) * 0x9E3779B97F4A7C15ull) >>
			  (64 - __builtin_ctz(PP_OBJECT_CACHE_SIZE / 2)));
}

static inline bool pp_layer_objects_cache_hit(const struct pp_object_cache_entry *e, const struct pp_device *dev,
				       VkObjectType type, uint64_t handle, uint64_t epoch)
{
	return e->epoch == epoch && e->handle == handle && e->type == type && e->dev == dev;
}

/* Inline: a hit is a dozen instructions with no call, and pass boundaries make two or three. */
static inline struct pp_object *pp_layer_objects_lookup(struct pp_device *dev, VkObjectType type, uint64_t handle)
{
	struct pp_object_cache_entry *cache = pp_layer_objects_cache;
	if (__builtin_expect(cache != NULL, 1)) {
		struct pp_object_cache_entry *e = &cache[2 * pp_layer_objects_cache_set(type, handle)];
		uint64_t epoch = __atomic_load_n(&pp_layer_objects_epoch, __ATOMIC_ACQUIRE);
		if (pp_layer_objects_cache_hit(&e[0], dev, type, handle, epoch))
			return e[0].object;
		if (pp_layer_objects_cache_hit(&e[1], dev, type, handle, epoch))
			return e[1].object;
	}
	return pp_layer_objects_lookup_slow(dev, type, handle);
}
/* Caller holds the device lock (for reading or writing). */
struct pp_object *pp_layer_objects_find_locked(struct pp_device *dev, VkObjectType type, uint64_t handle);
/* Inserts (or returns the existing) object record; NULL on allocation failure. Caller holds
 * the device lock for writing. */
struct pp_object *pp_layer_objects_insert_locked(struct pp_device *dev, VkObjectType type,
					  uint64_t handle);
/* Records a created object's description, replacing any earlier one of the handle (the name
 * stays). Takes ownership of desc's variable-size parts, freeing them when not recorded. */
void pp_layer_objects_record(struct pp_device *dev, VkObjectType type, uint64_t handle, union pp_object_desc *desc);
void pp_layer_objects_remove(struct pp_device *dev, VkObjectType type, uint64_t handle);
/* Frees the tables at vkDestroyDevice, after the command buffers left them. */
void pp_layer_objects_device_destroy(struct pp_device *dev);

/* The per-draw hooks' cheap path: the command buffer this thread used last, valid while no
 * command buffer anywhere was freed since (pp_layer_objects_command_buffer_epoch). Only a
 * command buffer with a record is kept, so a hit's record is never NULL: the per-draw hooks
 * do not test it (an untracked one, which passprobe could not allocate a record for, is
 * looked up at every call instead). */
struct pp_command_buffer_cache {
	VkCommandBuffer handle;
	struct pp_command_buffer *record;
	uint64_t epoch;
};
extern uint64_t pp_layer_objects_command_buffer_epoch;
extern _Thread_local struct pp_command_buffer_cache pp_layer_objects_command_buffer_cache_tls
	__attribute__((tls_model("initial-exec")));
struct pp_command_buffer *pp_layer_objects_command_buffer_get_slow(VkCommandBuffer cb);

/* Whether c holds cb's record (never NULL then). No call, so hooks that use it keep a
 * call-free fast path. */
static inline bool pp_layer_objects_command_buffer_hit(const struct pp_command_buffer_cache *c, VkCommandBuffer cb)
{
	return __builtin_expect(c->handle == cb &&
					c->epoch == __atomic_load_n(&pp_layer_objects_command_buffer_epoch, __ATOMIC_RELAXED),
				1);
}

/* The record (NULL for an untracked command buffer), looked up on a miss. */
static inline struct pp_command_buffer *pp_layer_objects_command_buffer_get(VkCommandBuffer cb)
{
	const struct pp_command_buffer_cache *c = &pp_layer_objects_command_buffer_cache_tls;
	return pp_layer_objects_command_buffer_hit(c, cb) ? c->record : pp_layer_objects_command_buffer_get_slow(cb);
}

/* The application's VK_EXT_debug_utils messengers and VK_EXT_debug_report callbacks
 * (layer_messengers.c): instance hooks, and delivery of passprobe's own messages (PERFORMANCE
 * type, WARNING severity) from the application thread. */
VKAPI_ATTR VkResult VKAPI_CALL pp_CreateDebugUtilsMessengerEXT(VkInstance instance,
							       const VkDebugUtilsMessengerCreateInfoEXT *info,
							       const VkAllocationCallbacks *alloc,
							       VkDebugUtilsMessengerEXT *out);
VKAPI_ATTR void VKAPI_CALL pp_DestroyDebugUtilsMessengerEXT(VkInstance instance, VkDebugUtilsMessengerEXT m,
							    const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL pp_CreateDebugReportCallbackEXT(VkInstance instance,
							       const VkDebugReportCallbackCreateInfoEXT *info,
							       const VkAllocationCallbacks *alloc,
							       VkDebugReportCallbackEXT *out);
VKAPI_ATTR void VKAPI_CALL pp_DestroyDebugReportCallbackEXT(VkInstance instance, VkDebugReportCallbackEXT cb,
							    const VkAllocationCallbacks *alloc);
struct pp_messenger_object {
	VkObjectType type;
	uint64_t handle;
};
/* A performance message to the application's messengers: at warning severity (debug-utils
 * WARNING, debug-report PERFORMANCE_WARNING), or information (INFO, INFORMATION). */
void pp_layer_messengers_deliver(struct pp_instance *inst, const char *id, bool info, const char *text, uint32_t nobjects,
			   const struct pp_messenger_object *objects);
bool pp_layer_messengers_any(struct pp_instance *inst);

/* A hook as vkGet*ProcAddr hands it out: for name, and for alias where not NULL. */
struct pp_hook {
	const char *name, *alias;
	PFN_vkVoidFunction fn;
};
/* The HOOK entries of PP_VK_DEVICE_FUNCTIONS, made where their hooks are
 * (intercept/vulkan/vk_hooks.c), so that this layer needs none of their symbols itself. */
extern const struct pp_hook pp_vk_hooks_device[];
extern const size_t pp_vk_hooks_device_count;
/* Whether one of those hooks serves this device (vk_hooks.c): where it does not,
 * vkGetDeviceProcAddr answers the function below. */
bool pp_vk_hooks_serves(const struct pp_device *dev, PFN_vkVoidFunction hook);
