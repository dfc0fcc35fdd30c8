#pragma once
/* Shared by the Vulkan intercept files. */
#include "attr_device.h"
#include "attr_record.h"
#include "gpu_vk_timer.h"
#include "layer_internal.h"
#include "pp_clock.h"
#include "pp_renderdoc_frames.h"

static inline struct pp_device *pp_vk_device_of(const void *dispatchable)
{
	return pp_layer_registry_device_lookup(pp_dispatch_key(dispatchable));
}

/* The device a command buffer's hook calls down through: its record's when passprobe follows
 * the command buffer (no lookup), else looked up. Every pass-through of a command is
 * pp_vk_cb_device(c, cb)->vk.CmdX(cb, ...). */
static inline struct pp_device *pp_vk_cb_device(const struct pp_command_buffer *c, VkCommandBuffer cb)
{
	return c ? c->device : pp_vk_device_of(cb);
}

uint32_t pp_vk_profiling_thread_id(void);

/* Frame debuggers and other layers' work (vk_renderdoc.c). pp_vk_renderdoc_foreign_caller: the library of
 * the layer above passprobe whose own work a call returning to `ra` is, NULL for the
 * application's (pp_callers.h). pp_vk_renderdoc_between: at the application's calls between
 * frames that no RenderDoc lock covers (fence waits and resets, idle waits, command buffer
 * begins), where passprobe starts and ends the captures renderdoc_frames asks for.
 * pp_vk_renderdoc_poll: pairs the capture files RenderDoc wrote with their frames. */
const char *pp_vk_renderdoc_foreign_caller(const void *ra);
void pp_vk_renderdoc_between_slow(struct pp_device *dev);
static inline void pp_vk_renderdoc_between(struct pp_device *dev)
{
	if (pp_renderdoc_frames_driving())
		pp_vk_renderdoc_between_slow(dev);
}
void pp_vk_renderdoc_poll(struct pp_device *dev, bool final);
/* The application's code location calling a hook (vk_blocking.c): a key (0: not found) and
 * "module+0x..." in buf. */
uint64_t pp_vk_blocking_call_site(void *hook_return, char *buf, size_t len);
const char *pp_vk_profiling_format_name(VkFormat f);
/* At vkDestroyDevice, before the layer frees its tables: command buffers, the diagnostics'
 * and attribution's queue state of the device go (vk_objects.c). */
void pp_vk_objects_release(struct pp_device *dev);
const char *pp_vk_profiling_load_op_name(VkAttachmentLoadOp op);
const char *pp_vk_profiling_store_op_name(VkAttachmentStoreOp op);

/* The experiment (vk_experiment.c, docs/diagnostics.md "Experiment mode"): a barrier call held
 * back to be merged with the next one is recorded before any other command of the recording
 * (binds and draws aside: a held call is outside render passes, and binds are state), and
 * forgotten with its recording (pp_vk_experiment_held_drop). */
void pp_vk_experiment_flush_slow(struct pp_command_buffer *c);
static inline void pp_vk_experiment_flush(struct pp_command_buffer *c)
{
	if (__builtin_expect(c->exp_held != NULL, 0))
		pp_vk_experiment_flush_slow(c);
}
void pp_vk_experiment_held_drop(struct pp_command_buffer *c);

/* A query slot of the recording's chunks for injected commands (vk_cmd.c). PP_NO_SLOT when
 * the budget is spent. */
uint32_t pp_vk_cmd_slot_take(struct pp_command_buffer *c, enum pp_gpu_slot_kind kind);

/* quirk_uniforms_before_pipeline (vk_cmd.c), from the bind hooks (vk_diag_state.c, vk_descriptors.c): a pipeline was
 * bound; uniforms (stageFlags `stages`: uniform buffers, inline uniform blocks, push constants)
 * were set. The bind point is the command's; push constants have none (PP_VK_ANY_BIND_POINT:
 * the stages decide). */
#define PP_VK_ANY_BIND_POINT ((VkPipelineBindPoint)0x7fffffff)
static inline void pp_vk_quirks_pipeline_bound(struct pp_command_buffer *c, VkPipelineBindPoint bp)
{
	if (c && (bp == VK_PIPELINE_BIND_POINT_GRAPHICS || bp == VK_PIPELINE_BIND_POINT_COMPUTE))
		c->pipeline_bound[bp] = true;
}
/* Engines set uniforms before every draw: inline, so that once the bind point has a pipeline
 * the hooks pay a few compares, not a call. */
static inline void pp_vk_quirks_uniforms_set(struct pp_command_buffer *c, VkPipelineBindPoint bp,
					    VkShaderStageFlags stages)
{
	if (!c || !c->device->quirk_uniforms_before_pipeline)
		return;
	if ((bp == VK_PIPELINE_BIND_POINT_GRAPHICS || bp == PP_VK_ANY_BIND_POINT) &&
	    (stages & VK_SHADER_STAGE_ALL_GRAPHICS) && !c->pipeline_bound[VK_PIPELINE_BIND_POINT_GRAPHICS])
		c->uniforms_unbound[VK_PIPELINE_BIND_POINT_GRAPHICS] = true;
	if ((bp == VK_PIPELINE_BIND_POINT_COMPUTE || bp == PP_VK_ANY_BIND_POINT) &&
	    (stages & VK_SHADER_STAGE_COMPUTE_BIT) && !c->pipeline_bound[VK_PIPELINE_BIND_POINT_COMPUTE])
		c->uniforms_unbound[VK_PIPELINE_BIND_POINT_COMPUTE] = true;
}
/* Whether a bind on bp must tell the quirk about the uniforms it sets. */
static inline bool pp_vk_quirks_watches(const struct pp_command_buffer *c, VkPipelineBindPoint bp)
{
	return c && c->device->quirk_uniforms_before_pipeline &&
	       (bp == VK_PIPELINE_BIND_POINT_GRAPHICS || bp == VK_PIPELINE_BIND_POINT_COMPUTE) && !c->pipeline_bound[bp];
}
/* The same, worked out from the bound sets' layouts / the pushed descriptors' types. */
void pp_vk_quirks_sets_bound_slow(struct pp_command_buffer *c, VkPipelineBindPoint bp, VkPipelineLayout layout,
				 uint32_t first, uint32_t n);
static inline void pp_vk_quirks_sets_bound(struct pp_command_buffer *c, VkPipelineBindPoint bp,
					  VkPipelineLayout layout, uint32_t first, uint32_t n)
{
	if (n && pp_vk_quirks_watches(c, bp))
		pp_vk_quirks_sets_bound_slow(c, bp, layout, first, n);
}
void pp_vk_quirks_descriptors_pushed(struct pp_command_buffer *c, VkPipelineBindPoint bp, VkPipelineLayout layout,
				    uint32_t set, uint32_t nw, const VkWriteDescriptorSet *writes);

/* SIMULTANEOUS_USE recordings (vk_simultaneous.c): each execution is reset on the GPU before
 * and copied into a ring entry after, by command buffers of passprobe's own. On a device
 * without host query reset every primary recording gets the reset before each execution (and
 * copies its own results at its end, vk_cmd.c). */
struct pp_sim_ring;
struct pp_vk_sim_exec {
	struct pp_sim_ring *ring;
	VkCommandBuffer before, after; /* to submit right before / after the application's; may be NULL */
	uint32_t entry;
	bool simultaneous_use;              /* else: a device without host query reset */
	const struct pp_attr_slot_map *map; /* where attribution reads this execution's results */
};
/* Whether a recording begun now in c can be timed that way. */
bool pp_vk_simultaneous_possible(const struct pp_command_buffer *c);

/* Hardware counters of VK_KHR_performance_query (vk_perf.c). */
void pp_vk_perf_device_init(struct pp_device *dev);
void pp_vk_perf_device_finish(struct pp_device *dev);
/* Mali kbase: its sampler per device (also ended by pp_vk_perf_device_finish), a sample asked
 * for at each submission. */
void pp_vk_perf_kbase_device_init(struct pp_device *dev);
void pp_vk_perf_kbase_submitted(struct pp_device *dev);
/* At a pass's begin and end, where its statistics query begins and ends. */
void pp_vk_perf_begin(struct pp_command_buffer *c, struct pp_pass_rec *p, bool allowed, const char *why_not);
void pp_vk_perf_end(struct pp_command_buffer *c, struct pp_pass_rec *p);
/* The recording is submitted again (its last result read): its queries are reset. */
void pp_vk_perf_recording_reset(struct pp_device *dev, struct pp_recording *r);
/* The recording is released: its slots go back. */
void pp_vk_perf_recording_free(struct pp_device *dev, struct pp_recording *r);
const char *pp_vk_simultaneous_suspended_reason(bool simultaneous_use);
/* At the end of a SIMULTANEOUS_USE recording (or of any primary recording without host
 * query reset): records its reset and (SIMULTANEOUS_USE) ring of copies. */
void pp_vk_simultaneous_build(struct pp_device *dev, struct pp_command_buffer *c);
/* When the recording is reset, re-recorded, freed or the device destroyed (none pending). */
void pp_vk_simultaneous_release(struct pp_device *dev, struct pp_command_buffer *c);
void pp_vk_simultaneous_device_finish(struct pp_device *dev);
/* For one execution of c being submitted: false when c has no ring (neither SIMULTANEOUS_USE
 * nor on a device without host query reset, or nothing to reset). Each true call is paired with pp_vk_simultaneous_execution_done once the
 * submission has been handed to attribution. */
bool pp_vk_simultaneous_execution(struct pp_device *dev, struct pp_command_buffer *c, struct pp_vk_sim_exec *out);
void pp_vk_simultaneous_execution_done(struct pp_device *dev, const struct pp_vk_sim_exec *x);

/* Descriptor types naming an image (through a view) / a buffer (texel buffers through a
 * buffer view): the diagnostics follow these (vk_objects.c, vk_descriptors.c). */
static inline bool pp_vk_descriptor_is_image(VkDescriptorType t)
{
	return t == VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE || t == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER ||
	       t == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE || t == VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT;
}

static inline bool pp_vk_descriptor_is_buffer(VkDescriptorType t)
{
	return t == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER || t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ||
	       t == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC || t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC ||
	       t == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER || t == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
}

/* Diagnostics (vk_diag_submit.c; docs/diagnostics.md). Called by the queue hooks after
 * attribution saw the submission / present: counts findings, delivers messages to the application's
 * debug messengers, reads barrier-cost timestamps that are ready. */
struct pp_diag_device;
/* A successful submit call with batches: cb_handles[n], every batch's, in order, and tracked[n]
 * their records (NULL where not tracked), as the submit looked them up; frame: the
 * model's frame of the submission (pp_attr_device_submit); renderdoc: RenderDoc captures that frame;
 * ended: its frame clock's "every frame below this has ended" after the call
 * (pp_attr_device_submit_done, pp_attr_device_present); submits / submits2: the call's batches (for the
 * semaphores they signal). */
void pp_vk_diag_submit_submitted(struct pp_device *dev, struct pp_queue *q, uint32_t n, const uint64_t *cb_handles,
			  struct pp_command_buffer *const *tracked, VkFence fence, uint64_t frame, bool renderdoc,
			  uint64_t ended, uint32_t nsubmits, const VkSubmitInfo *submits, const VkSubmitInfo2 *submits2);
void pp_vk_diag_submit_presented(struct pp_device *dev, uint64_t ended);
/* A submit call without batches ended a frame (a fence-only submit). */
void pp_vk_diag_submit_frames_ended(struct pp_device *dev, uint64_t ended);
/* The device's diagnostics state; NULL when the diagnostics setting is off. */
struct pp_diag_device *pp_vk_diag_state_device(struct pp_device *dev);
/* A wait that left the GPU idle returned (queue: the queue waited on, or NULL for the whole
 * device): GPU idle time is measured from the last pass end to the next submission's first
 * pass begin, and credited to the site. */
void pp_vk_diag_submit_waited(struct pp_device *dev, uint64_t site_key, uint64_t frame);
/* The timeline semaphore values a successful vkQueueSubmit (submits) or vkQueueSubmit2
 * (submits2) signals, for the rules (vk_blocking.c): up to max written, the count returned. */
struct pp_diag_signal;
uint32_t pp_vk_blocking_diag_signals_of(uint32_t nsubmits, const VkSubmitInfo *submits, const VkSubmitInfo2 *submits2,
			       struct pp_diag_signal *out, uint32_t max);

/* Timestamp reads of the diagnostics waiting on c's recording are dropped: its slots are about
 * to be reset or freed (vk_diag_submit.c). On the thread that owns c. */
void pp_vk_diag_submit_recording_forget(struct pp_device *dev, struct pp_command_buffer *c);
/* Frees a command buffer's diagnostics state (vk_diag_state.c); called when it is destroyed. */
void pp_vk_diag_state_cb_release(struct pp_device *dev, struct pp_command_buffer *c);
