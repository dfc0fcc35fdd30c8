/* Per-device object tables and the hooks that keep them: queues, command pools and their
 * command buffers, and the non-dispatchable objects the profiler describes (render passes,
 * framebuffers, images, image views, query pools; for the diagnostics also descriptor set
 * layouts, pipeline layouts, pipelines and buffer views), all in the one `objects` table.
 * Descriptor sets are the diagnostics' own (vk_sync.c): see struct pp_object.
 * Insert after the call down succeeds; remove before the destroy goes down; never hold a
 * table lock across a call down. */
#include <stdlib.h>
#include <string.h>

#include "layer_internal.h"
#include "pp_log.h"
#include "attr_diag.h"
#include "attr_record.h"
#include "vk_hooks.h"
#include "vk_intercept.h"

static struct pp_device *device_of(const void *dispatchable)
{
	return pp_device_lookup(pp_dispatch_key(dispatchable));
}

/* ---- the per-draw fast path ----------------------------------------------------------- */

/* Bumped whenever any command buffer record is freed, so a thread's cached record can never
 * outlive the command buffer it describes. */
uint64_t pp_command_buffer_epoch;
_Thread_local struct pp_command_buffer_cache pp_command_buffer_cache_tls
	__attribute__((tls_model("initial-exec")));

struct pp_command_buffer *pp_command_buffer_get_slow(VkCommandBuffer cb)
{
	uint64_t epoch = __atomic_load_n(&pp_command_buffer_epoch, __ATOMIC_ACQUIRE);
	struct pp_device *dev = device_of(cb);
	struct pp_command_buffer *rec = dev ? pp_command_buffer_lookup(dev, cb) : NULL;
	pp_command_buffer_cache_tls.handle = cb;
	pp_command_buffer_cache_tls.record = rec;
	pp_command_buffer_cache_tls.epoch = epoch;
	return rec;
}

/* ---- lookups -------------------------------------------------------------------------- */

struct pp_queue *pp_queue_lookup(struct pp_device *dev, VkQueue queue)
{
	struct pp_queue *q;
	uint64_t key = (uint64_t)(uintptr_t)queue;
	pthread_rwlock_rdlock(&dev->lock);
	HASH_FIND(hh, dev->queues, &key, sizeof(key), q);
	pthread_rwlock_unlock(&dev->lock);
	return q;
}

struct pp_command_buffer *pp_command_buffer_lookup(struct pp_device *dev, VkCommandBuffer cb)
{
	struct pp_command_buffer *c;
	uint64_t key = (uint64_t)(uintptr_t)cb;
	pthread_rwlock_rdlock(&dev->lock);
	HASH_FIND(hh, dev->command_buffers, &key, sizeof(key), c);
	pthread_rwlock_unlock(&dev->lock);
	return c;
}

struct pp_object *pp_object_find_locked(struct pp_device *dev, VkObjectType type, uint64_t handle)
{
	struct pp_object *o;
	struct pp_object_key key;
	memset(&key, 0, sizeof(key)); /* padding is part of the hashed key */
	key.handle = handle;
	key.type = type;
	HASH_FIND(hh, dev->objects, &key, sizeof(key), o);
	return o;
}

struct pp_object *pp_object_lookup(struct pp_device *dev, VkObjectType type, uint64_t handle)
{
	pthread_rwlock_rdlock(&dev->lock);
	struct pp_object *o = pp_object_find_locked(dev, type, handle);
	pthread_rwlock_unlock(&dev->lock);
	return o;
}

struct pp_object *pp_object_insert_locked(struct pp_device *dev, VkObjectType type, uint64_t handle)
{
	if (dev->untracked)
		return NULL;
	struct pp_object *o = pp_object_find_locked(dev, type, handle);
	if (o)
		return o;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->key.handle = handle;
	o->key.type = type;
	pp_hash_oom_ = false;
	HASH_ADD(hh, dev->objects, key, sizeof(o->key), o);
	if (pp_hash_oom_) {
		free(o);
		return NULL;
	}
	return o;
}

static void object_free(struct pp_object *o)
{
	switch (o->key.type) {
	case VK_OBJECT_TYPE_RENDER_PASS:
		free(o->u.render_pass.attachments);
		free(o->u.render_pass.dependencies);
		break;
	case VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT:
		free(o->u.set_layout.bindings);
		break;
	case VK_OBJECT_TYPE_PIPELINE_LAYOUT:
		free(o->u.pipeline_layout.set_layouts);
		break;
	default:
		break;
	}
	free(o);
}

void pp_object_remove(struct pp_device *dev, VkObjectType type, uint64_t handle)
{
	pthread_rwlock_wrlock(&dev->lock);
	struct pp_object *o = pp_object_find_locked(dev, type, handle);
	if (o)
		HASH_DEL(dev->objects, o);
	pthread_rwlock_unlock(&dev->lock);
	if (o)
		object_free(o);
}

/* The destroy hook of a tracked non-dispatchable object: its record goes before the object. */
#define OBJECT_DESTROY_HOOK(name, handle_type, object_type)                                         \
	VKAPI_ATTR void VKAPI_CALL pp_Destroy##name(VkDevice device, handle_type handle,              \
						    const VkAllocationCallbacks *alloc)                 \
	{                                                                                             \
		struct pp_device *dev = device_of(device);                                            \
		if (handle)                                                                           \
			pp_object_remove(dev, object_type, (uint64_t)handle);                          \
		dev->vk.Destroy##name(device, handle, alloc);                                         \
	}

/* ---- queues --------------------------------------------------------------------------- */

void pp_queue_track(struct pp_device *dev, VkQueue queue, uint32_t family, uint32_t index)
{
	if (dev->untracked)
		return;
	uint64_t key = (uint64_t)(uintptr_t)queue;
	struct pp_queue *q;
	pthread_rwlock_wrlock(&dev->lock);
	HASH_FIND(hh, dev->queues, &key, sizeof(key), q);
	if (!q && (q = calloc(1, sizeof(*q)))) {
		q->handle = key;
		q->vk_queue = queue;
		q->family = family;
		q->index = index;
		pp_hash_oom_ = false;
		HASH_ADD(hh, dev->queues, handle, sizeof(q->handle), q);
		if (pp_hash_oom_) {
			free(q);
			q = NULL;
		} else {
			pp_vk_queue_created(dev, q);
		}
	}
	pthread_rwlock_unlock(&dev->lock);
}

VKAPI_ATTR void VKAPI_CALL pp_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *out)
{
	struct pp_device *dev = device_of(device);
	dev->vk.GetDeviceQueue(device, family, index, out);
	/* The loader stamps the queue's dispatch pointer after we return: key it by the device. */
	if (*out)
		pp_queue_track(dev, *out, family, index);
}

VKAPI_ATTR void VKAPI_CALL pp_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *out)
{
	struct pp_device *dev = device_of(device);
	dev->vk.GetDeviceQueue2(device, info, out);
	if (*out)
		pp_queue_track(dev, *out, info->queueFamilyIndex, info->queueIndex);
}

/* ---- command pools and buffers -------------------------------------------------------- */

static struct pp_command_pool *pool_find_locked(struct pp_device *dev, VkCommandPool pool)
{
	struct pp_command_pool *p;
	uint64_t key = (uint64_t)pool;
	HASH_FIND(hh, dev->pools, &key, sizeof(key), p);
	return p;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
						    const VkAllocationCallbacks *alloc, VkCommandPool *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreateCommandPool(device, info, alloc, out);
	if (r != VK_SUCCESS || dev->untracked)
		return r;
	struct pp_command_pool *p = calloc(1, sizeof(*p));
	if (!p) {
		pp_log_once(PP_LOG_ERROR, "out of memory tracking a command pool; its work is not measured");
		return r;
	}
	p->handle = (uint64_t)*out;
	p->family = info->queueFamilyIndex;
	p->protected_pool = info->flags & VK_COMMAND_POOL_CREATE_PROTECTED_BIT;
	pthread_rwlock_wrlock(&dev->lock);
	pp_hash_oom_ = false;
	HASH_ADD(hh, dev->pools, handle, sizeof(p->handle), p);
	pthread_rwlock_unlock(&dev->lock);
	if (pp_hash_oom_)
		free(p);
	return r;
}

/* Unlinks a command buffer record from its pool and the device table. Caller holds the
 * device lock for writing. */
static void command_buffer_unlink_locked(struct pp_device *dev, struct pp_command_buffer *c)
{
	if (c->pool) {
		if (c->pool_prev)
			c->pool_prev->pool_next = c->pool_next;
		else
			c->pool->buffers = c->pool_next;
		if (c->pool_next)
			c->pool_next->pool_prev = c->pool_prev;
	}
	HASH_DEL(dev->command_buffers, c);
	__atomic_add_fetch(&pp_command_buffer_epoch, 1, __ATOMIC_ACQ_REL);
}

VKAPI_ATTR void VKAPI_CALL pp_DestroyCommandPool(VkDevice device, VkCommandPool pool, const VkAllocationCallbacks *alloc)
{
	struct pp_device *dev = device_of(device);
	struct pp_command_buffer *list = NULL;
	pthread_rwlock_wrlock(&dev->lock);
	struct pp_command_pool *p = pool ? pool_find_locked(dev, pool) : NULL;
	if (p) {
		HASH_DEL(dev->pools, p);
		list = p->buffers;
		for (struct pp_command_buffer *c = list; c; c = c->pool_next)
			HASH_DEL(dev->command_buffers, c);
		__atomic_add_fetch(&pp_command_buffer_epoch, 1, __ATOMIC_ACQ_REL);
	}
	pthread_rwlock_unlock(&dev->lock);
	for (struct pp_command_buffer *c = list, *next; c; c = next) {
		next = c->pool_next;
		pp_vk_command_buffer_destroy(dev, c);
	}
	free(p);
	dev->vk.DestroyCommandPool(device, pool, alloc);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_ResetCommandPool(VkDevice device, VkCommandPool pool, VkCommandPoolResetFlags flags)
{
	struct pp_device *dev = device_of(device);
	/* Every command buffer of the pool goes back to the initial state: read what their last
	 * submissions left, then release their recordings. The records themselves stay. */
	pthread_rwlock_rdlock(&dev->lock);
	struct pp_command_pool *p = pool_find_locked(dev, pool);
	struct pp_command_buffer *list = p ? p->buffers : NULL;
	pthread_rwlock_unlock(&dev->lock);
	for (struct pp_command_buffer *c = list; c; c = c->pool_next)
		pp_vk_recording_release(dev, c);
	return dev->vk.ResetCommandPool(device, pool, flags);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
							 VkCommandBuffer *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.AllocateCommandBuffers(device, info, out);
	if (r != VK_SUCCESS || dev->untracked)
		return r;
	pthread_rwlock_wrlock(&dev->lock);
	struct pp_command_pool *p = pool_find_locked(dev, info->commandPool);
	for (uint32_t i = 0; i < info->commandBufferCount; i++) {
		struct pp_command_buffer *c = calloc(1, sizeof(*c));
		if (!c) {
			pp_log_once(PP_LOG_ERROR, "out of memory tracking command buffers; their work is not measured");
			break;
		}
		c->handle = (uint64_t)(uintptr_t)out[i];
		c->vk_cb = out[i];
		c->device = dev;
		c->pool = p;
		c->family = p ? p->family : 0;
		c->level = info->level;
		c->ts_chunk = c->stats_chunk = UINT32_MAX; /* no chunk yet */
		/* Every tracked command buffer has a recording, so the per-draw path never checks. */
		c->rec = pp_recording_create(info->level == VK_COMMAND_BUFFER_LEVEL_SECONDARY);
		if (!c->rec) {
			free(c);
			pp_log_once(PP_LOG_ERROR, "out of memory tracking command buffers; their work is not measured");
			break;
		}
		pp_hash_oom_ = false;
		HASH_ADD(hh, dev->command_buffers, handle, sizeof(c->handle), c);
		if (pp_hash_oom_) {
			pp_recording_destroy(c->rec);
			free(c);
			continue;
		}
		if (p) {
			c->pool_next = p->buffers;
			if (p->buffers)
				p->buffers->pool_prev = c;
			p->buffers = c;
		}
	}
	pthread_rwlock_unlock(&dev->lock);
	return r;
}

VKAPI_ATTR void VKAPI_CALL pp_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t n,
						 const VkCommandBuffer *cbs)
{
	struct pp_device *dev = device_of(device);
	for (uint32_t i = 0; i < n; i++) {
		if (!cbs[i])
			continue;
		uint64_t key = (uint64_t)(uintptr_t)cbs[i];
		struct pp_command_buffer *c;
		pthread_rwlock_wrlock(&dev->lock);
		HASH_FIND(hh, dev->command_buffers, &key, sizeof(key), c);
		if (c)
			command_buffer_unlink_locked(dev, c);
		pthread_rwlock_unlock(&dev->lock);
		if (c)
			pp_vk_command_buffer_destroy(dev, c);
	}
	dev->vk.FreeCommandBuffers(device, pool, n, cbs);
}

/* ---- described objects ---------------------------------------------------------------- */

/* The dependencies the diagnostics may flag: between two subpasses, without BY_REGION. */
static struct pp_rp_dependency *render_pass_dependencies(const VkRenderPassCreateInfo *v1,
							 const VkRenderPassCreateInfo2 *v2, uint32_t *n)
{
	uint32_t ndeps = v1 ? v1->dependencyCount : v2->dependencyCount;
	struct pp_rp_dependency *out = NULL;
	*n = 0;
	for (uint32_t i = 0; i < ndeps && *n < PP_RP_MAX_DEPENDENCIES; i++) {
		struct pp_rp_dependency d = { .index = i };
		VkDependencyFlags flags;
		if (v1) {
			const VkSubpassDependency *s = &v1->pDependencies[i];
			d.src_subpass = s->srcSubpass;
			d.dst_subpass = s->dstSubpass;
			d.src_stages = s->srcStageMask;
			d.dst_stages = s->dstStageMask;
			d.src_access = s->srcAccessMask;
			d.dst_access = s->dstAccessMask;
			flags = s->dependencyFlags;
		} else {
			const VkSubpassDependency2 *s = &v2->pDependencies[i];
			d.src_subpass = s->srcSubpass;
			d.dst_subpass = s->dstSubpass;
			d.src_stages = s->srcStageMask;
			d.dst_stages = s->dstStageMask;
			d.src_access = s->srcAccessMask;
			d.dst_access = s->dstAccessMask;
			flags = s->dependencyFlags;
			for (const VkBaseInStructure *p = s->pNext; p; p = p->pNext)
				if (p->sType == VK_STRUCTURE_TYPE_MEMORY_BARRIER_2) {
					const VkMemoryBarrier2 *m = (const void *)p;
					d.src_stages = m->srcStageMask;
					d.dst_stages = m->dstStageMask;
					d.src_access = m->srcAccessMask;
					d.dst_access = m->dstAccessMask;
				}
		}
		uint32_t nsub = v1 ? v1->subpassCount : v2->subpassCount;
		if ((flags & VK_DEPENDENCY_BY_REGION_BIT) || d.src_subpass >= nsub || d.dst_subpass >= nsub)
			continue;
		if (v1) {
			const VkSubpassDescription *sp = &v1->pSubpasses[d.dst_subpass];
			for (uint32_t k = 0; k < sp->inputAttachmentCount; k++) {
				uint32_t a = sp->pInputAttachments[k].attachment;
				d.dst_multisampled_input |= a < v1->attachmentCount &&
							    v1->pAttachments[a].samples != VK_SAMPLE_COUNT_1_BIT;
			}
		} else {
			const VkSubpassDescription2 *sp = &v2->pSubpasses[d.dst_subpass];
			for (uint32_t k = 0; k < sp->inputAttachmentCount; k++) {
				uint32_t a = sp->pInputAttachments[k].attachment;
				d.dst_multisampled_input |= a < v2->attachmentCount &&
							    v2->pAttachments[a].samples != VK_SAMPLE_COUNT_1_BIT;
			}
		}
		if (!out && !(out = calloc(PP_RP_MAX_DEPENDENCIES, sizeof(*out))))
			return NULL;
		out[(*n)++] = d;
	}
	return out;
}

static void render_pass_describe(struct pp_device *dev, VkRenderPass rp, uint32_t natt, const void *atts,
				 size_t stride, bool v2, uint32_t nsubpasses, uint32_t view_mask,
				 struct pp_rp_dependency *deps, uint32_t ndeps)
{
	struct pp_rp_attachment *a = natt ? calloc(natt, sizeof(*a)) : NULL;
	for (uint32_t i = 0; a && i < natt; i++) {
		const char *base = (const char *)atts + i * stride;
		if (v2) {
			const VkAttachmentDescription2 *d = (const void *)base;
			a[i] = (struct pp_rp_attachment){ d->format, d->samples, d->loadOp, d->storeOp };
		} else {
			const VkAttachmentDescription *d = (const void *)base;
			a[i] = (struct pp_rp_attachment){ d->format, d->samples, d->loadOp, d->storeOp };
		}
	}
	pthread_rwlock_wrlock(&dev->lock);
	struct pp_object *o = pp_object_insert_locked(dev, VK_OBJECT_TYPE_RENDER_PASS, (uint64_t)rp);
	if (o) {
		free(o->u.render_pass.attachments);
		o->u.render_pass.attachments = a;
		o->u.render_pass.nattachments = a ? natt : 0;
		o->u.render_pass.subpasses = nsubpasses;
		o->u.render_pass.multiview_mask = view_mask;
		free(o->u.render_pass.dependencies);
		o->u.render_pass.dependencies = deps;
		o->u.render_pass.ndependencies = deps ? ndeps : 0;
		a = NULL;
		deps = NULL;
	}
	pthread_rwlock_unlock(&dev->lock);
	free(a);
	free(deps);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateRenderPass(VkDevice device, const VkRenderPassCreateInfo *info,
						   const VkAllocationCallbacks *alloc, VkRenderPass *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreateRenderPass(device, info, alloc, out);
	if (r == VK_SUCCESS) {
		uint32_t view_mask = 0;
		for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext)
			if (s->sType == VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO) {
				const VkRenderPassMultiviewCreateInfo *mv = (const void *)s;
				for (uint32_t i = 0; i < mv->subpassCount; i++)
					view_mask |= mv->pViewMasks[i];
			}
		uint32_t ndeps;
		struct pp_rp_dependency *deps = render_pass_dependencies(info, NULL, &ndeps);
		render_pass_describe(dev, *out, info->attachmentCount, info->pAttachments, sizeof(VkAttachmentDescription),
				     false, info->subpassCount, view_mask, deps, ndeps);
	}
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateRenderPass2(VkDevice device, const VkRenderPassCreateInfo2 *info,
						    const VkAllocationCallbacks *alloc, VkRenderPass *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreateRenderPass2(device, info, alloc, out);
	if (r == VK_SUCCESS) {
		uint32_t view_mask = 0;
		for (uint32_t i = 0; i < info->subpassCount; i++)
			view_mask |= info->pSubpasses[i].viewMask;
		uint32_t ndeps;
		struct pp_rp_dependency *deps = render_pass_dependencies(NULL, info, &ndeps);
		render_pass_describe(dev, *out, info->attachmentCount, info->pAttachments,
				     sizeof(VkAttachmentDescription2), true, info->subpassCount, view_mask, deps, ndeps);
	}
	return r;
}

OBJECT_DESTROY_HOOK(RenderPass, VkRenderPass, VK_OBJECT_TYPE_RENDER_PASS)

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateFramebuffer(VkDevice device, const VkFramebufferCreateInfo *info,
						    const VkAllocationCallbacks *alloc, VkFramebuffer *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreateFramebuffer(device, info, alloc, out);
	if (r == VK_SUCCESS) {
		pthread_rwlock_wrlock(&dev->lock);
		struct pp_object *o = pp_object_insert_locked(dev, VK_OBJECT_TYPE_FRAMEBUFFER, (uint64_t)*out);
		if (o) {
			o->u.framebuffer.width = info->width;
			o->u.framebuffer.height = info->height;
			o->u.framebuffer.layers = info->layers;
			o->u.framebuffer.render_pass = (uint64_t)info->renderPass;
		}
		pthread_rwlock_unlock(&dev->lock);
	}
	return r;
}

OBJECT_DESTROY_HOOK(Framebuffer, VkFramebuffer, VK_OBJECT_TYPE_FRAMEBUFFER)

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateImage(VkDevice device, const VkImageCreateInfo *info,
					      const VkAllocationCallbacks *alloc, VkImage *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreateImage(device, info, alloc, out);
	if (r == VK_SUCCESS) {
		pthread_rwlock_wrlock(&dev->lock);
		struct pp_object *o = pp_object_insert_locked(dev, VK_OBJECT_TYPE_IMAGE, (uint64_t)*out);
		if (o) {
			o->u.image.format = info->format;
			o->u.image.samples = info->samples;
			o->u.image.extent = info->extent;
			o->u.image.layers = info->arrayLayers;
		}
		pthread_rwlock_unlock(&dev->lock);
	}
	return r;
}

OBJECT_DESTROY_HOOK(Image, VkImage, VK_OBJECT_TYPE_IMAGE)

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateImageView(VkDevice device, const VkImageViewCreateInfo *info,
						  const VkAllocationCallbacks *alloc, VkImageView *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreateImageView(device, info, alloc, out);
	if (r == VK_SUCCESS) {
		pthread_rwlock_wrlock(&dev->lock);
		struct pp_object *o = pp_object_insert_locked(dev, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)*out);
		if (o) {
			o->u.image_view.image = (uint64_t)info->image;
			o->u.image_view.format = info->format;
			o->u.image_view.range = info->subresourceRange;
		}
		pthread_rwlock_unlock(&dev->lock);
	}
	return r;
}

OBJECT_DESTROY_HOOK(ImageView, VkImageView, VK_OBJECT_TYPE_IMAGE_VIEW)

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateQueryPool(VkDevice device, const VkQueryPoolCreateInfo *info,
						  const VkAllocationCallbacks *alloc, VkQueryPool *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreateQueryPool(device, info, alloc, out);
	if (r == VK_SUCCESS) {
		pthread_rwlock_wrlock(&dev->lock);
		struct pp_object *o = pp_object_insert_locked(dev, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)*out);
		if (o) {
			o->u.query_pool.type = info->queryType;
			o->u.query_pool.count = info->queryCount;
		}
		pthread_rwlock_unlock(&dev->lock);
	}
	return r;
}

OBJECT_DESTROY_HOOK(QueryPool, VkQueryPool, VK_OBJECT_TYPE_QUERY_POOL)

/* ---- objects the diagnostics read (docs/diagnostics.md) ------------------------------------ */

/* Tracked only while the device has diagnostics state (the diagnostics setting on and the
 * device measured); creating one sets that state up, as the first such object always did. */
static bool diag_tracks(struct pp_device *dev)
{
	return pp_vk_diag_device(dev) != NULL;
}

static uint32_t shader_stages_of(VkShaderStageFlags f)
{
	uint32_t s = 0;
	if (f & VK_SHADER_STAGE_VERTEX_BIT)
		s |= PP_STAGE_VERTEX_SHADER;
	if (f & VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT)
		s |= PP_STAGE_TESS_CONTROL;
	if (f & VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT)
		s |= PP_STAGE_TESS_EVAL;
	if (f & VK_SHADER_STAGE_GEOMETRY_BIT)
		s |= PP_STAGE_GEOMETRY;
	if (f & VK_SHADER_STAGE_FRAGMENT_BIT)
		s |= PP_STAGE_FRAGMENT_SHADER;
	if (f & VK_SHADER_STAGE_COMPUTE_BIT)
		s |= PP_STAGE_COMPUTE;
	if (f & ~(VkShaderStageFlags)(VK_SHADER_STAGE_ALL_GRAPHICS | VK_SHADER_STAGE_COMPUTE_BIT))
		s |= PP_STAGE_OTHER;
	return s;
}

static bool descriptor_writes(VkDescriptorType t)
{
	return t == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE || t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ||
	       t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC || t == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateDescriptorSetLayout(VkDevice device, const VkDescriptorSetLayoutCreateInfo *info,
							    const VkAllocationCallbacks *alloc,
							    VkDescriptorSetLayout *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreateDescriptorSetLayout(device, info, alloc, out);
	if (r != VK_SUCCESS || !diag_tracks(dev))
		return r;
	struct pp_dsl_binding *b = calloc(info->bindingCount ? info->bindingCount : 1, sizeof(*b));
	if (!b)
		return r;
	uint32_t n = info->bindingCount, total = 0;
	/* Bindless: sets of such a layout may be written after they are bound, up to the submit,
	 * so what they held at the draw says nothing. */
	bool partial = info->flags & VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
	for (uint32_t i = 0; i < n; i++) {
		const VkDescriptorSetLayoutBinding *s = &info->pBindings[i];
		b[i].binding = s->binding;
		b[i].count = s->descriptorType == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK ? 0 : s->descriptorCount;
		b[i].stages = shader_stages_of(s->stageFlags);
		b[i].write = descriptor_writes(s->descriptorType);
		b[i].kind = pp_vk_descriptor_is_image(s->descriptorType)    ? PP_RES_IMAGE
			    : pp_vk_descriptor_is_buffer(s->descriptorType) ? PP_RES_BUFFER
									    : PP_RES_GLOBAL;
		if (b[i].kind == PP_RES_GLOBAL)
			b[i].count = 0; /* samplers, inline uniforms, acceleration structures: no resource */
		if (s->descriptorType != VK_DESCRIPTOR_TYPE_SAMPLER && b[i].kind == PP_RES_GLOBAL &&
		    s->descriptorType != VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK)
			partial = true;
	}
	/* Binding numbers may come in any order: lay the descriptors out by binding number. */
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && b[j - 1].binding > b[j].binding; j--) {
			struct pp_dsl_binding t = b[j];
			b[j] = b[j - 1];
			b[j - 1] = t;
		}
	for (uint32_t i = 0; i < n; i++) {
		b[i].base = total;
		if (total + b[i].count > PP_DSL_MAX_DESCRIPTORS) {
			b[i].count = total < PP_DSL_MAX_DESCRIPTORS ? PP_DSL_MAX_DESCRIPTORS - total : 0;
			partial = true;
		}
		total += b[i].count;
	}
	pthread_rwlock_wrlock(&dev->lock);
	struct pp_object *o = pp_object_insert_locked(dev, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, (uint64_t)*out);
	if (o) {
		free(o->u.set_layout.bindings);
		o->u.set_layout.bindings = b;
		o->u.set_layout.nbindings = n;
		o->u.set_layout.total = total;
		o->u.set_layout.partial = partial;
		b = NULL;
	}
	pthread_rwlock_unlock(&dev->lock);
	free(b);
	return r;
}

OBJECT_DESTROY_HOOK(DescriptorSetLayout, VkDescriptorSetLayout, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT)

VKAPI_ATTR VkResult VKAPI_CALL pp_CreatePipelineLayout(VkDevice device, const VkPipelineLayoutCreateInfo *info,
						       const VkAllocationCallbacks *alloc, VkPipelineLayout *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreatePipelineLayout(device, info, alloc, out);
	if (r != VK_SUCCESS || !diag_tracks(dev))
		return r;
	uint32_t n = info->setLayoutCount < PP_PIPELINE_LAYOUT_MAX_SETS ? info->setLayoutCount
									  : PP_PIPELINE_LAYOUT_MAX_SETS;
	uint64_t *sets = n ? malloc(n * sizeof(*sets)) : NULL;
	if (n && !sets)
		return r;
	for (uint32_t i = 0; i < n; i++)
		sets[i] = (uint64_t)info->pSetLayouts[i];
	pthread_rwlock_wrlock(&dev->lock);
	struct pp_object *o = pp_object_insert_locked(dev, VK_OBJECT_TYPE_PIPELINE_LAYOUT, (uint64_t)*out);
	if (o) {
		free(o->u.pipeline_layout.set_layouts);
		o->u.pipeline_layout.set_layouts = sets;
		o->u.pipeline_layout.nsets = n;
		sets = NULL;
	}
	pthread_rwlock_unlock(&dev->lock);
	free(sets);
	return r;
}

OBJECT_DESTROY_HOOK(PipelineLayout, VkPipelineLayout, VK_OBJECT_TYPE_PIPELINE_LAYOUT)

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateBufferView(VkDevice device, const VkBufferViewCreateInfo *info,
						   const VkAllocationCallbacks *alloc, VkBufferView *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreateBufferView(device, info, alloc, out);
	if (r != VK_SUCCESS || !diag_tracks(dev))
		return r;
	pthread_rwlock_wrlock(&dev->lock);
	struct pp_object *o = pp_object_insert_locked(dev, VK_OBJECT_TYPE_BUFFER_VIEW, (uint64_t)*out);
	if (o) {
		o->u.buffer_view.buffer = (uint64_t)info->buffer;
		o->u.buffer_view.offset = info->offset;
		o->u.buffer_view.range = info->range;
	}
	pthread_rwlock_unlock(&dev->lock);
	return r;
}

OBJECT_DESTROY_HOOK(BufferView, VkBufferView, VK_OBJECT_TYPE_BUFFER_VIEW)

static void pipelines_track(struct pp_device *dev, uint32_t n, const VkPipeline *out, const uint32_t *stages)
{
	if (!diag_tracks(dev))
		return;
	pthread_rwlock_wrlock(&dev->lock);
	for (uint32_t i = 0; i < n; i++) {
		if (!out[i])
			continue;
		struct pp_object *o = pp_object_insert_locked(dev, VK_OBJECT_TYPE_PIPELINE, (uint64_t)out[i]);
		if (o)
			o->u.pipeline.stages = stages[i];
	}
	pthread_rwlock_unlock(&dev->lock);
}

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateGraphicsPipelines(VkDevice device, VkPipelineCache cache, uint32_t n,
							  const VkGraphicsPipelineCreateInfo *info,
							  const VkAllocationCallbacks *alloc, VkPipeline *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreateGraphicsPipelines(device, cache, n, info, alloc, out);
	if (r < 0 || !pp_layer_settings.diagnostics)
		return r;
	uint32_t stack[16] = { 0 }, *stages = n <= 16 ? stack : calloc(n, sizeof(*stages));
	if (!stages)
		return r;
	for (uint32_t i = 0; i < n; i++) {
		VkShaderStageFlags f = 0;
		for (uint32_t k = 0; k < info[i].stageCount; k++)
			f |= info[i].pStages[k].stage;
		stages[i] = shader_stages_of(f);
		/* Pipeline libraries link stages passprobe does not see here: assume them all. */
		for (const VkBaseInStructure *e = info[i].pNext; e; e = e->pNext)
			if (e->sType == VK_STRUCTURE_TYPE_PIPELINE_LIBRARY_CREATE_INFO_KHR)
				stages[i] |= PP_STAGE_PRE_RASTER | PP_STAGE_FRAGMENT_SHADER;
		if (!stages[i])
			stages[i] = PP_STAGE_PRE_RASTER | PP_STAGE_FRAGMENT_SHADER;
	}
	pipelines_track(dev, n, out, stages);
	if (stages != stack)
		free(stages);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateComputePipelines(VkDevice device, VkPipelineCache cache, uint32_t n,
							 const VkComputePipelineCreateInfo *info,
							 const VkAllocationCallbacks *alloc, VkPipeline *out)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.CreateComputePipelines(device, cache, n, info, alloc, out);
	if (r < 0 || !pp_layer_settings.diagnostics)
		return r;
	uint32_t stack[16] = { 0 }, *stages = n <= 16 ? stack : calloc(n, sizeof(*stages));
	if (!stages)
		return r;
	for (uint32_t i = 0; i < n; i++)
		stages[i] = PP_STAGE_COMPUTE;
	pipelines_track(dev, n, out, stages);
	if (stages != stack)
		free(stages);
	return r;
}

OBJECT_DESTROY_HOOK(Pipeline, VkPipeline, VK_OBJECT_TYPE_PIPELINE)

VKAPI_ATTR VkResult VKAPI_CALL pp_SetDebugUtilsObjectNameEXT(VkDevice device, const VkDebugUtilsObjectNameInfoEXT *info)
{
	struct pp_device *dev = device_of(device);
	VkResult r = dev->vk.SetDebugUtilsObjectNameEXT(device, info);
	if (r != VK_SUCCESS)
		return r;
	switch (info->objectType) {
	case VK_OBJECT_TYPE_RENDER_PASS:
	case VK_OBJECT_TYPE_FRAMEBUFFER:
	case VK_OBJECT_TYPE_IMAGE:
	case VK_OBJECT_TYPE_IMAGE_VIEW: {
		pthread_rwlock_wrlock(&dev->lock);
		struct pp_object *o = pp_object_insert_locked(dev, info->objectType, info->objectHandle);
		if (o) {
			o->name[0] = '\0';
			if (info->pObjectName)
				strncat(o->name, info->pObjectName, sizeof(o->name) - 1);
		}
		pthread_rwlock_unlock(&dev->lock);
		break;
	}
	default:
		break;
	}
	return r;
}

void pp_device_objects_destroy(struct pp_device *dev)
{
	struct pp_object *o, *otmp;
	struct pp_command_pool *p, *ptmp;
	struct pp_command_buffer *c, *ctmp;
	struct pp_queue *q, *qtmp;

	/* Whatever the application did not free itself goes with the device. */
	HASH_ITER(hh, dev->command_buffers, c, ctmp) {
		HASH_DEL(dev->command_buffers, c);
		pp_vk_command_buffer_destroy(dev, c);
	}
	__atomic_add_fetch(&pp_command_buffer_epoch, 1, __ATOMIC_ACQ_REL);
	pp_vk_diag_device_destroy(dev);
	HASH_ITER(hh, dev->pools, p, ptmp) {
		HASH_DEL(dev->pools, p);
		free(p);
	}
	HASH_ITER(hh, dev->objects, o, otmp) {
		HASH_DEL(dev->objects, o);
		object_free(o);
	}
	HASH_ITER(hh, dev->queues, q, qtmp) {
		HASH_DEL(dev->queues, q);
		pp_attr_queue_destroy(q->attr);
		free(q);
	}
}
