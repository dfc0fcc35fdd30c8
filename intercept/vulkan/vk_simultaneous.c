/* SIMULTANEOUS_USE recordings: one recording whose executions may overlap.
 *
 * Their timestamp and statistics queries are written by the recording itself, so every
 * execution writes the same queries, and none can be host-reset (an execution may be pending).
 * Each execution of such a recording is therefore bracketed, in its own batch, by two
 * layer-owned command buffers recorded once when the recording ends:
 *
 *   [reset]  vkCmdResetQueryPool of the recording's chunks
 *   [the application's command buffer]
 *   [copy j] vkCmdCopyQueryPoolResults(WAIT_BIT) of those chunks into ring entry j's host
 *            memory, and a TRANSFER -> HOST barrier
 *
 * Query commands on one query and one queue execute in submission order, so execution n's copy
 * reads execution n's values before execution n+1's reset. The ring has PP_SIM_RING entries; an
 * entry is reused only after attribution has read it, so an execution that finds every entry
 * still waiting is reset but not timed (its passes say why). Both layer command buffers are
 * SIMULTANEOUS_USE themselves and belong to the recording: they are freed with it, when the
 * application resets, re-records or frees it, which it may do only once no batch holding it
 * is pending, so neither is pending then.
 *
 * Devices without host query reset (a Vulkan 1.0/1.1 driver without VK_EXT_host_query_reset,
 * or without the feature) use the same mechanism for every primary recording: each execution
 * is preceded by [reset]. An ordinary recording cannot be pending twice, so it needs no ring:
 * it copies its own results at its end (copy_results is on for such devices, vk_cmd.c), and
 * the host copy is cleared before each execution (pp_gpu_vk_timer_chunk_reset), so neither the
 * previous execution's values nor a previous owner's of a reused chunk, which the queries
 * keep until [reset] runs on the GPU, can be read as this execution's.
 *
 * Not timed (the passes say why): recordings with dynamic rendering suspended or resumed across
 * command buffers (nothing may be recorded between a suspended pass and its resumption, and
 * with its queries reset but never copied the recording stays valid); recordings on queue
 * families without graphics or compute; protected command buffers. */
#include <stdlib.h>
#include <string.h>

#include "pp_log.h"
#include "vk_intercept.h"

#define PP_SIM_RING 4

static const char *const reason_in_flight =
	"SIMULTANEOUS_USE command buffer with more than 4 executions not yet read: this execution is not timed";
static const char *const reason_setup = "could not set up per-execution result copies (out of memory or GPU "
					"query budget): this SIMULTANEOUS_USE execution is not timed";
static const char *const reason_suspended =
	"SIMULTANEOUS_USE command buffer with dynamic rendering suspended or resumed across command buffers: not timed";
static const char *const reason_gpu_reset_suspended =
	"no host query reset, and dynamic rendering suspended or resumed across command buffers: passprobe cannot "
	"reset this command buffer's queries before each execution; not timed";
static const char *const reason_reset_failed =
	"no host query reset, and passprobe could not record this command buffer's query reset (out of memory): not timed";
static const char *const reason_gpu_reset_uncopied =
	"no host query reset, and this command buffer's results could not be copied on the GPU (no host-visible "
	"memory for them, or it ends inside a suspended render pass): not timed";

struct sim_entry {
	struct pp_recording *owner; /* stands for this entry's copy in attribution */
	VkCommandBuffer copy_cb;
	uint32_t *chunks;           /* one per chunk of the recording, same kind */
	struct pp_attr_slot_map map;
};

struct pp_sim_ring {
	VkCommandPool pool;
	VkCommandBuffer reset_cb;   /* NULL when the recording owns no chunks */
	uint32_t nentries;          /* 0: executions are reset, not timed */
	uint32_t next;              /* where the search for a free entry starts */
	uint32_t claimed;           /* entries chosen by a submit call still in progress (sim_lock) */
	bool own_results;           /* not SIMULTANEOUS_USE: executions read the recording's own copies */
	struct sim_entry entries[PP_SIM_RING];
	struct pp_attr_slot_map untimed;
};

/* ---- layer-owned command buffers ----------------------------------------------------------- */

/* Caller holds dev->sim_lock. */
static VkCommandPool pool_of(struct pp_device *dev, uint32_t family)
{
	if (family >= dev->nfamilies)
		return VK_NULL_HANDLE;
	if (!dev->sim_pools) {
		dev->sim_pools = calloc(dev->nfamilies, sizeof(*dev->sim_pools));
		if (!dev->sim_pools)
			return VK_NULL_HANDLE;
	}
	if (!dev->sim_pools[family]) {
		VkCommandPoolCreateInfo info = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
						 .queueFamilyIndex = family };
		if (dev->vk.CreateCommandPool(dev->handle, &info, NULL, &dev->sim_pools[family]) != VK_SUCCESS)
			dev->sim_pools[family] = VK_NULL_HANDLE;
	}
	return dev->sim_pools[family];
}

/* A primary command buffer in the recording state, or NULL. Caller holds dev->sim_lock. */
static VkCommandBuffer cb_begin(struct pp_device *dev, VkCommandPool pool)
{
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
					   .commandPool = pool, .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
					   .commandBufferCount = 1 };
	VkCommandBuffer cb = VK_NULL_HANDLE;
	if (dev->vk.AllocateCommandBuffers(dev->handle, &ai, &cb) != VK_SUCCESS)
		return VK_NULL_HANDLE;
	/* A layer's own dispatchable objects need the loader's dispatch pointer. */
	if (dev->set_loader_data && dev->set_loader_data(dev->handle, cb) != VK_SUCCESS) {
		dev->vk.FreeCommandBuffers(dev->handle, pool, 1, &cb);
		return VK_NULL_HANDLE;
	}
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
					.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT };
	if (dev->vk.BeginCommandBuffer(cb, &bi) != VK_SUCCESS) {
		dev->vk.FreeCommandBuffers(dev->handle, pool, 1, &cb);
		return VK_NULL_HANDLE;
	}
	return cb;
}

static VkCommandBuffer cb_end(struct pp_device *dev, VkCommandPool pool, VkCommandBuffer cb)
{
	if (cb && dev->vk.EndCommandBuffer(cb) != VK_SUCCESS) {
		dev->vk.FreeCommandBuffers(dev->handle, pool, 1, &cb);
		return VK_NULL_HANDLE;
	}
	return cb;
}

/* ---- building and releasing a ring ------------------------------------------------------- */

bool pp_vk_simultaneous_possible(const struct pp_command_buffer *c)
{
	const struct pp_device *dev = c->device;
	return dev->timer && dev->vk.CmdResetQueryPool && dev->vk.CmdCopyQueryPoolResults &&
	       c->level == VK_COMMAND_BUFFER_LEVEL_PRIMARY && c->family < dev->nfamilies &&
	       (dev->families[c->family].flags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) && c->pool &&
	       !c->pool->protected_pool;
}

const char *pp_vk_simultaneous_suspended_reason(bool simultaneous_use)
{
	return simultaneous_use ? reason_suspended : reason_gpu_reset_suspended;
}

/* Slots of chunk k the recording used (the rest were never written). */
static uint32_t chunk_used(const struct pp_command_buffer *c, uint32_t k)
{
	return k == c->ts_chunk ? c->ts_next : k == c->stats_chunk ? c->stats_next : PP_GPU_CHUNK_SLOTS;
}

static bool entry_build(struct pp_device *dev, struct pp_command_buffer *c, struct pp_sim_ring *ring,
			struct sim_entry *e)
{
	struct pp_recording *r = c->rec;
	e->chunks = malloc(r->nchunks * sizeof(*e->chunks));
	e->owner = pp_attr_record_create(false);
	if (!e->chunks || !e->owner)
		return false;
	for (uint32_t i = 0; i < r->nchunks; i++)
		e->chunks[i] = PP_GPU_NO_SLOT;
	for (uint32_t i = 0; i < r->nchunks; i++) {
		e->chunks[i] = pp_gpu_vk_timer_chunk_alloc(dev->timer, pp_gpu_vk_timer_chunk_kind(dev->timer, r->chunks[i]));
		if (e->chunks[i] == PP_GPU_NO_SLOT || !pp_gpu_vk_timer_chunk_has_host_copy(dev->timer, e->chunks[i]))
			return false;
	}
	e->copy_cb = cb_begin(dev, ring->pool);
	if (!e->copy_cb)
		return false;
	for (uint32_t i = 0; i < r->nchunks; i++)
		pp_gpu_vk_timer_copy_chunk_to(dev->timer, e->copy_cb, r->chunks[i], chunk_used(c, r->chunks[i]),
					   e->chunks[i]);
	pp_gpu_vk_timer_copy_barrier(dev->timer, e->copy_cb);
	e->copy_cb = cb_end(dev, ring->pool, e->copy_cb);
	if (!e->copy_cb)
		return false;
	/* The recording's chunk list is fixed from now until the ring is released. */
	e->map = (struct pp_attr_slot_map){ .owner = e->owner, .nchunks = r->nchunks, .from = r->chunks,
					    .to = e->chunks, .chunk_slots = PP_GPU_CHUNK_SLOTS };
	return true;
}

static void entry_free(struct pp_device *dev, struct pp_sim_ring *ring, struct sim_entry *e, uint32_t nchunks)
{
	if (e->owner) {
		/* Its last execution completed (the caller's guarantee): read what it left. */
		pp_attr_device_recording_release(dev->attr, e->owner);
		pp_attr_record_destroy(e->owner);
	}
	if (e->copy_cb)
		dev->vk.FreeCommandBuffers(dev->handle, ring->pool, 1, &e->copy_cb);
	for (uint32_t i = 0; e->chunks && i < nchunks; i++)
		if (e->chunks[i] != PP_GPU_NO_SLOT)
			pp_gpu_vk_timer_chunk_free(dev->timer, e->chunks[i]);
	free(e->chunks);
	memset(e, 0, sizeof(*e));
}

void pp_vk_simultaneous_build(struct pp_device *dev, struct pp_command_buffer *c)
{
	struct pp_recording *r = c->rec;
	if (!r->nchunks)
		return; /* nothing written: nothing to reset or copy */
	struct pp_sim_ring *ring = calloc(1, sizeof(*ring));
	if (!ring) {
		pp_log_once(PP_LOG_ERROR, "out of memory setting up a SIMULTANEOUS_USE command buffer: its "
					  "queries cannot be reset per execution");
		return;
	}
	pthread_mutex_lock(&dev->sim_lock);
	ring->pool = pool_of(dev, c->family);
	if (ring->pool)
		ring->reset_cb = cb_begin(dev, ring->pool);
	if (ring->reset_cb) {
		for (uint32_t i = 0; i < r->nchunks; i++)
			pp_gpu_vk_timer_reset_cmd(dev->timer, ring->reset_cb, r->chunks[i]);
		ring->reset_cb = cb_end(dev, ring->pool, ring->reset_cb);
	}
	if (!ring->reset_cb && !c->simultaneous_use) {
		/* Without host query reset, under memory exhaustion: its queries are never reset, so
		 * what they hold (an earlier execution's, an earlier owner's) must not be read. */
		pthread_mutex_unlock(&dev->sim_lock);
		pp_log_once(PP_LOG_ERROR, "could not record a query reset (out of memory): command buffers recorded "
					  "then are not timed");
		ring->untimed = (struct pp_attr_slot_map){ .reason = reason_reset_failed };
		c->sim_ring = ring;
		return;
	}
	if (!ring->reset_cb) {
		pthread_mutex_unlock(&dev->sim_lock);
		free(ring);
		/* Only under memory exhaustion: its second execution writes queries not reset. */
		pp_log_once(PP_LOG_ERROR, "could not record the query reset for a SIMULTANEOUS_USE command buffer "
					  "(out of memory): its executions after the first are not measured");
		return;
	}
	const char *why = c->sim_suspended ? pp_vk_simultaneous_suspended_reason(c->simultaneous_use) : NULL;
	if (!c->simultaneous_use && !why) {
		/* Every result must come from the host copy the recording made at its end. */
		bool copied = !c->suspended;
		for (uint32_t i = 0; i < r->nchunks && copied; i++)
			copied = pp_gpu_vk_timer_chunk_has_host_copy(dev->timer, r->chunks[i]);
		if (!copied)
			why = reason_gpu_reset_uncopied;
		ring->own_results = copied;
	}
	for (uint32_t j = 0; !why && c->simultaneous_use && j < PP_SIM_RING; j++) {
		if (!entry_build(dev, c, ring, &ring->entries[j])) {
			entry_free(dev, ring, &ring->entries[j], r->nchunks);
			if (!j)
				why = reason_setup;
			break;
		}
		ring->nentries++;
	}
	pthread_mutex_unlock(&dev->sim_lock);
	ring->untimed = (struct pp_attr_slot_map){ .reason = why ? why : reason_in_flight };
	c->sim_ring = ring;
}

void pp_vk_simultaneous_release(struct pp_device *dev, struct pp_command_buffer *c)
{
	struct pp_sim_ring *ring = c->sim_ring;
	if (!ring)
		return;
	c->sim_ring = NULL;
	pthread_mutex_lock(&dev->sim_lock);
	for (uint32_t j = 0; j < ring->nentries; j++)
		entry_free(dev, ring, &ring->entries[j], c->rec->nchunks);
	if (ring->reset_cb)
		dev->vk.FreeCommandBuffers(dev->handle, ring->pool, 1, &ring->reset_cb);
	pthread_mutex_unlock(&dev->sim_lock);
	free(ring);
}

void pp_vk_simultaneous_device_finish(struct pp_device *dev)
{
	for (uint32_t i = 0; dev->sim_pools && i < dev->nfamilies; i++)
		if (dev->sim_pools[i])
			dev->vk.DestroyCommandPool(dev->handle, dev->sim_pools[i], NULL);
	free(dev->sim_pools);
	dev->sim_pools = NULL;
}

/* ---- submission ---------------------------------------------------------------------------- */

bool pp_vk_simultaneous_execution(struct pp_device *dev, struct pp_command_buffer *c, struct pp_vk_sim_exec *out)
{
	struct pp_sim_ring *ring = c ? c->sim_ring : NULL;
	*out = (struct pp_vk_sim_exec){ 0 };
	if (!ring)
		return false;
	out->ring = ring;
	out->simultaneous_use = c->simultaneous_use;
	out->before = ring->reset_cb;
	out->map = ring->own_results ? NULL : &ring->untimed;
	if (ring->own_results)
		return true;
	pthread_mutex_lock(&dev->sim_lock);
	for (uint32_t k = 0; k < ring->nentries; k++) {
		uint32_t j = (ring->next + k) % ring->nentries;
		struct sim_entry *e = &ring->entries[j];
		if ((ring->claimed & (1u << j)) || pp_attr_device_recording_pending(dev->attr, e->owner))
			continue;
		/* Read and done: its host memory takes this execution's copy. */
		for (uint32_t i = 0; i < e->map.nchunks; i++)
			pp_gpu_vk_timer_chunk_reset(dev->timer, e->chunks[i]);
		ring->claimed |= 1u << j;
		ring->next = j + 1;
		out->entry = j;
		out->after = e->copy_cb;
		out->map = &e->map;
		break;
	}
	pthread_mutex_unlock(&dev->sim_lock);
	return true;
}

void pp_vk_simultaneous_execution_done(struct pp_device *dev, const struct pp_vk_sim_exec *x)
{
	if (!x->ring || !x->after)
		return;
	pthread_mutex_lock(&dev->sim_lock);
	x->ring->claimed &= ~(1u << x->entry);
	pthread_mutex_unlock(&dev->sim_lock);
}
