#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_vk_timer.h"
#include "pp_log.h"

#define POOL_CHUNKS 32u /* chunks per VkQueryPool: 2048 queries */
#define RECALIBRATE_NS 500000000ull

/* Results in pool order, for VK_QUERY_PIPELINE_STATISTIC_* bits ascending. */
static const VkQueryPipelineStatisticFlags stats_flags =
	VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_VERTICES_BIT |
	VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_PRIMITIVES_BIT |
	VK_QUERY_PIPELINE_STATISTIC_VERTEX_SHADER_INVOCATIONS_BIT |
	VK_QUERY_PIPELINE_STATISTIC_CLIPPING_INVOCATIONS_BIT |
	VK_QUERY_PIPELINE_STATISTIC_CLIPPING_PRIMITIVES_BIT |
	VK_QUERY_PIPELINE_STATISTIC_FRAGMENT_SHADER_INVOCATIONS_BIT |
	VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT;

/* 64-bit words per query in a chunk's host copy: the value(s), then availability. */
#define TS_WORDS 2u
#define STATS_WORDS (PP_GPU_STAT_COUNT + 1u)

struct chunk {
	VkQueryPool pool;
	uint32_t first;
	uint8_t kind;
	bool used;
	bool copied;       /* its command buffer copies results to `map` (atomic) */
	uint64_t *map;     /* host copy of the chunk's results, NULL when none */
	VkBuffer buffer;
	VkDeviceSize offset;
};

struct pool_rec {
	VkQueryPool pool;
	VkBuffer buffer;  /* its host copy, in a results block; VK_NULL_HANDLE when none */
	uint64_t *map;
};

/* Host-visible, coherent, persistently mapped memory that pools' result buffers are carved
 * from: one allocation for several pools, as drivers and the validation layer's best
 * practices ask (allocations under 256 KiB, and buffers alone in their allocation, are
 * reported as worth sub-allocating, and the application would see those reports). Blocks
 * only grow: pools live as long as the timer. */
#define RESULTS_BLOCK_SIZE ((VkDeviceSize)256 * 1024)
struct results_block {
	VkDeviceMemory memory;
	uint8_t *map;
	uint32_t type;
	VkDeviceSize size, used;
};

struct pp_gpu_timer {
	struct pp_gpu_timer_config cfg;
	pthread_mutex_t lock;
	uint32_t nchunks, cap;
	struct chunk *chunks;
	uint32_t free_ts, free_stats; /* counts of free chunks per kind */
	/* Per kind, the chunk freed last: a command buffer recorded every frame frees its chunks
	 * and takes them again, so an allocation looks there before it searches. */
	uint32_t freed_last[2];
	uint32_t npools;
	struct pool_rec *pools;
	uint32_t nblocks;
	struct results_block *blocks; /* at most one per pool */
	bool budget_logged;

	/* Time line mapping. */
	pthread_mutex_t clock_lock;
	bool calibrated;
	uint64_t calib_tick, calib_host_ns, calib_at_ns;
	/* Uncalibrated: host = est_host_ns + (ticks - est_tick) x period, the tick difference
	 * taken modulo the valid bits as for calibration. est_host_ns only ever rises. */
	bool estimated_valid;
	uint64_t est_tick, est_host_ns;
	uint64_t first_submit_ns;
	uint64_t valid_mask;
	bool lost; /* a read returned VK_ERROR_DEVICE_LOST */
	bool pool_failed[2]; /* creating a query pool of that kind failed: not retried */
	struct pp_gpu_counter_backend backends[2]; /* by enum pp_gpu_slot_kind (gpu_vk_backends.c) */
};

static void note_result(struct pp_gpu_timer *t, VkResult r)
{
	if (r != VK_ERROR_DEVICE_LOST || __atomic_exchange_n(&t->lost, true, __ATOMIC_ACQ_REL))
		return;
	pp_log(PP_LOG_WARN, "device lost (VK_ERROR_DEVICE_LOST from vkGetQueryPoolResults): GPU times of "
			    "work not yet measured are unavailable from now on");
}

void pp_gpu_vk_timer_note_device_lost(struct pp_gpu_timer *t, const char *call)
{
	if (!t || __atomic_exchange_n(&t->lost, true, __ATOMIC_ACQ_REL))
		return;
	pp_log(PP_LOG_WARN, "device lost (VK_ERROR_DEVICE_LOST from %s): GPU times of work not yet measured are "
			    "unavailable from now on", call);
}

const char *pp_gpu_vk_timer_no_slot_reason(const struct pp_gpu_timer *t, enum pp_gpu_slot_kind kind)
{
	if (t && t->pool_failed[kind])
		return "passprobe's query pool could not be created";
	return "GPU query budget spent";
}

bool pp_gpu_vk_timer_lost(void *timer)
{
	struct pp_gpu_timer *t = timer;
	return t && __atomic_load_n(&t->lost, __ATOMIC_ACQUIRE);
}

static uint64_t host_now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void calibrate(struct pp_gpu_timer *t)
{
	VkCalibratedTimestampInfoEXT infos[2] = {
		{ .sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, .timeDomain = VK_TIME_DOMAIN_DEVICE_EXT },
		{ .sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT,
		  .timeDomain = t->cfg.host_time_domain_raw ? VK_TIME_DOMAIN_CLOCK_MONOTONIC_RAW_EXT
							    : VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT },
	};
	uint64_t ts[2], deviation = 0;
	if (!t->cfg.vk.GetCalibratedTimestampsEXT)
		return;
	if (t->cfg.vk.GetCalibratedTimestampsEXT(t->cfg.device, 2, infos, ts, &deviation) != VK_SUCCESS) {
		pp_log_once(PP_LOG_WARN, "vkGetCalibratedTimestampsEXT failed; GPU times are estimated");
		t->cfg.vk.GetCalibratedTimestampsEXT = NULL;
		return;
	}
	t->calib_tick = ts[0] & t->valid_mask;
	t->calib_host_ns = ts[1];
	t->calib_at_ns = host_now(CLOCK_MONOTONIC);
	/* Read without the lock by pp_gpu_vk_timer_note_submit and pp_gpu_vk_timer_time_domain. */
	__atomic_store_n(&t->calibrated, true, __ATOMIC_RELEASE);
}

struct pp_gpu_timer *pp_gpu_vk_timer_create(const struct pp_gpu_timer_config *cfg)
{
	struct pp_gpu_timer *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cfg = *cfg;
	if (!t->cfg.max_chunks)
		t->cfg.max_chunks = 4096;
	t->cap = t->cfg.max_chunks / POOL_CHUNKS * POOL_CHUNKS;
	t->chunks = calloc(t->cap ? t->cap : 1, sizeof(*t->chunks));
	t->pools = calloc(t->cap / POOL_CHUNKS + 1, sizeof(*t->pools));
	t->blocks = calloc(t->cap / POOL_CHUNKS + 1, sizeof(*t->blocks));
	if (!t->chunks || !t->pools || !t->blocks) {
		free(t->chunks);
		free(t->pools);
		free(t->blocks);
		free(t);
		return NULL;
	}
	t->valid_mask = cfg->timestamp_valid_bits >= 64 ? ~0ull : (1ull << cfg->timestamp_valid_bits) - 1;
	pthread_mutex_init(&t->lock, NULL);
	pthread_mutex_init(&t->clock_lock, NULL);
	calibrate(t);
	pp_gpu_vk_backends_init(t, t->backends);
	return t;
}

const struct pp_gpu_counter_backend *pp_gpu_vk_timer_backend(struct pp_gpu_timer *t, enum pp_gpu_slot_kind kind)
{
	return t ? &t->backends[kind == PP_GPU_STATISTICS] : NULL;
}

void pp_gpu_vk_timer_destroy(struct pp_gpu_timer *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->npools; i++) {
		t->cfg.vk.DestroyQueryPool(t->cfg.device, t->pools[i].pool, NULL);
		if (t->pools[i].buffer)
			t->cfg.vk.DestroyBuffer(t->cfg.device, t->pools[i].buffer, NULL);
	}
	for (uint32_t i = 0; i < t->nblocks; i++)
		t->cfg.vk.FreeMemory(t->cfg.device, t->blocks[i].memory, NULL); /* unmaps too */
	free(t->blocks);
	free(t->pools);
	free(t->chunks);
	pthread_mutex_destroy(&t->lock);
	pthread_mutex_destroy(&t->clock_lock);
	free(t);
}

bool pp_gpu_vk_timer_copies(const struct pp_gpu_timer *t)
{
	return t && t->cfg.copy_results && t->cfg.vk.CmdCopyQueryPoolResults && t->cfg.vk.CmdPipelineBarrier;
}

/* Room for a buffer of these requirements in a results block, allocating a block if none
 * has it. Returns the block's index, or -1. Caller holds the lock. */
static int results_block_place(struct pp_gpu_timer *t, const VkMemoryRequirements *req, VkDeviceSize *offset)
{
	const struct pp_gpu_timer_funcs *vk = &t->cfg.vk;
	VkDeviceSize align = req->alignment ? req->alignment : 1;
	for (uint32_t i = 0; i < t->nblocks; i++) {
		struct results_block *b = &t->blocks[i];
		VkDeviceSize at = (b->used + align - 1) / align * align;
		if ((req->memoryTypeBits & (1u << b->type)) && at + req->size <= b->size) {
			*offset = at;
			return (int)i;
		}
	}
	const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	uint32_t type = UINT32_MAX;
	for (uint32_t i = 0; i < t->cfg.memory.memoryTypeCount && type == UINT32_MAX; i++)
		if ((req->memoryTypeBits & (1u << i)) && (t->cfg.memory.memoryTypes[i].propertyFlags & want) == want)
			type = i;
	if (type == UINT32_MAX || !t->blocks)
		return -1;
	struct results_block b = { .type = type, .size = req->size > RESULTS_BLOCK_SIZE ? req->size : RESULTS_BLOCK_SIZE };
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = b.size,
				    .memoryTypeIndex = type };
	if (vk->AllocateMemory(t->cfg.device, &ai, NULL, &b.memory) != VK_SUCCESS)
		return -1;
	void *map = NULL;
	if (vk->MapMemory(t->cfg.device, b.memory, 0, VK_WHOLE_SIZE, 0, &map) != VK_SUCCESS) {
		vk->FreeMemory(t->cfg.device, b.memory, NULL);
		return -1;
	}
	b.map = map;
	t->blocks[t->nblocks] = b;
	*offset = 0;
	return (int)t->nblocks++;
}

/* A host-visible, coherent, persistently mapped buffer for a pool's copied results; none
 * (the pool's results are then read with vkGetQueryPoolResults) when anything fails. Caller
 * holds the lock. */
static void results_buffer(struct pp_gpu_timer *t, VkDeviceSize size, struct pool_rec *pr)
{
	const struct pp_gpu_timer_funcs *vk = &t->cfg.vk;
	if (!vk->CmdCopyQueryPoolResults || !vk->CmdPipelineBarrier || !vk->CreateBuffer || !vk->MapMemory ||
	    !vk->AllocateMemory || !vk->BindBufferMemory || !vk->GetBufferMemoryRequirements)
		return;
	VkBufferCreateInfo bi = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
				  .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT, .sharingMode = VK_SHARING_MODE_EXCLUSIVE };
	if (vk->CreateBuffer(t->cfg.device, &bi, NULL, &pr->buffer) != VK_SUCCESS) {
		pr->buffer = VK_NULL_HANDLE;
		return;
	}
	VkMemoryRequirements req;
	vk->GetBufferMemoryRequirements(t->cfg.device, pr->buffer, &req);
	VkDeviceSize offset = 0;
	int k = results_block_place(t, &req, &offset);
	if (k < 0 || vk->BindBufferMemory(t->cfg.device, pr->buffer, t->blocks[k].memory, offset) != VK_SUCCESS) {
		pp_log_once(PP_LOG_INFO, "no host-visible memory for copied query results; reading them with "
					 "vkGetQueryPoolResults");
		vk->DestroyBuffer(t->cfg.device, pr->buffer, NULL);
		pr->buffer = VK_NULL_HANDLE;
		return;
	}
	t->blocks[k].used = offset + req.size;
	pr->map = (uint64_t *)(t->blocks[k].map + offset);
	memset(pr->map, 0, size);
}

/* Adds one query pool of `kind` split into POOL_CHUNKS chunks. Caller holds the lock. The
 * chunk table is allocated once at its bound and never moves, and a chunk's pool and first
 * query never change once published (nchunks, release): writers of timestamps read them
 * without the lock. */
static bool pool_add(struct pp_gpu_timer *t, enum pp_gpu_slot_kind kind)
{
	if (t->nchunks + POOL_CHUNKS > t->cap)
		return false;
	VkQueryPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = kind == PP_GPU_TIMESTAMP ? VK_QUERY_TYPE_TIMESTAMP : VK_QUERY_TYPE_PIPELINE_STATISTICS,
		.queryCount = POOL_CHUNKS * PP_GPU_CHUNK_SLOTS,
		.pipelineStatistics = kind == PP_GPU_STATISTICS ? stats_flags : 0,
	};
	VkQueryPool pool;
	if (t->pool_failed[kind])
		return false;
	VkResult r = t->cfg.vk.CreateQueryPool(t->cfg.device, &info, NULL, &pool);
	if (r != VK_SUCCESS) {
		/* Not retried for every pass: the application's own allocations come first. Said
		 * once, for the first kind that fails. */
		if (!t->pool_failed[0] && !t->pool_failed[1])
			pp_log(PP_LOG_WARN, "query pool creation failed (vkCreateQueryPool returned %d for passprobe's "
					    "%s queries): passes recorded from now on go without what it would have measured",
			       r, kind == PP_GPU_TIMESTAMP ? "timestamp" : "pipeline statistics");
		t->pool_failed[kind] = true;
		return false;
	}
	/* Queries start in an undefined state and must be reset before first use. Without host
	 * resets, every execution that uses a chunk is preceded by a GPU-side reset of it. */
	if (t->cfg.vk.ResetQueryPool)
		t->cfg.vk.ResetQueryPool(t->cfg.device, pool, 0, info.queryCount);
	struct pool_rec *pr = &t->pools[t->npools++];
	*pr = (struct pool_rec){ .pool = pool };
	uint32_t words = kind == PP_GPU_TIMESTAMP ? TS_WORDS : STATS_WORDS;
	results_buffer(t, (VkDeviceSize)info.queryCount * words * sizeof(uint64_t), pr);
	uint32_t n = t->nchunks;
	for (uint32_t i = 0; i < POOL_CHUNKS; i++) {
		VkDeviceSize offset = (VkDeviceSize)i * PP_GPU_CHUNK_SLOTS * words * sizeof(uint64_t);
		t->chunks[n + i] = (struct chunk){ .pool = pool, .first = i * PP_GPU_CHUNK_SLOTS, .kind = (uint8_t)kind,
						   .buffer = pr->buffer, .offset = offset,
						   .map = pr->map ? pr->map + offset / sizeof(uint64_t) : NULL };
	}
	__atomic_store_n(&t->nchunks, n + POOL_CHUNKS, __ATOMIC_RELEASE);
	if (kind == PP_GPU_TIMESTAMP)
		t->free_ts += POOL_CHUNKS;
	else
		t->free_stats += POOL_CHUNKS;
	return true;
}

uint32_t pp_gpu_vk_timer_chunk_alloc(struct pp_gpu_timer *t, enum pp_gpu_slot_kind kind)
{
	uint32_t found = PP_GPU_NO_SLOT;
	if (!t || (kind == PP_GPU_TIMESTAMP && !t->cfg.timestamp_valid_bits) ||
	    (kind == PP_GPU_STATISTICS && !t->cfg.pipeline_statistics))
		return PP_GPU_NO_SLOT;
	pthread_mutex_lock(&t->lock);
	uint32_t *nfree = kind == PP_GPU_TIMESTAMP ? &t->free_ts : &t->free_stats;
	if (!*nfree && !pool_add(t, kind)) {
		if (!t->budget_logged && !t->pool_failed[kind])
			pp_log(PP_LOG_WARN, "GPU query budget spent (%u chunks of %u queries) or query pool creation "
					    "failed; further passes are recorded without GPU timing",
			       t->cfg.max_chunks, PP_GPU_CHUNK_SLOTS);
		t->budget_logged = true;
		goto out;
	}
	uint32_t hint = t->freed_last[kind == PP_GPU_STATISTICS];
	if (hint < t->nchunks && !t->chunks[hint].used && t->chunks[hint].kind == kind) {
		found = hint;
	} else {
		for (uint32_t i = 0; i < t->nchunks; i++)
			if (!t->chunks[i].used && t->chunks[i].kind == kind) {
				found = i;
				break;
			}
	}
	if (found != PP_GPU_NO_SLOT) {
		t->chunks[found].used = true;
		(*nfree)--;
	}
out:
	pthread_mutex_unlock(&t->lock);
	return found;
}

void pp_gpu_vk_timer_chunk_reset(struct pp_gpu_timer *t, uint32_t chunk)
{
	if (!t || chunk >= t->nchunks)
		return;
	struct chunk *c = &t->chunks[chunk];
	if (t->cfg.vk.ResetQueryPool)
		t->cfg.vk.ResetQueryPool(t->cfg.device, c->pool, c->first, PP_GPU_CHUNK_SLOTS);
	/* The next execution copies afresh: an old availability word must not pass for new.
	 * Without host resets this is what keeps a previous execution's (or a previous owner's)
	 * results from being read as the next one's: the queries keep them until the GPU-side
	 * reset in front of the next execution runs, but reads come from this memory only. */
	if (c->map)
		memset(c->map, 0, PP_GPU_CHUNK_SLOTS * (c->kind == PP_GPU_TIMESTAMP ? TS_WORDS : STATS_WORDS) *
					  sizeof(uint64_t));
}

void pp_gpu_vk_timer_chunk_free(struct pp_gpu_timer *t, uint32_t chunk)
{
	if (!t || chunk >= t->nchunks)
		return;
	pp_gpu_vk_timer_chunk_reset(t, chunk);
	pthread_mutex_lock(&t->lock);
	struct chunk *c = &t->chunks[chunk];
	__atomic_store_n(&c->copied, false, __ATOMIC_RELEASE);
	if (c->used) {
		c->used = false;
		t->freed_last[c->kind == PP_GPU_STATISTICS] = chunk;
		if (c->kind == PP_GPU_TIMESTAMP)
			t->free_ts++;
		else
			t->free_stats++;
	}
	pthread_mutex_unlock(&t->lock);
}

/* A slot's chunk record: lock-free (see pool_add). */
static struct chunk slot_chunk(struct pp_gpu_timer *t, uint32_t slot)
{
	struct chunk c = { 0 };
	if (slot / PP_GPU_CHUNK_SLOTS < __atomic_load_n(&t->nchunks, __ATOMIC_ACQUIRE)) {
		/* Only the immutable fields, and `copied` atomically: `used` changes under the lock. */
		const struct chunk *src = &t->chunks[slot / PP_GPU_CHUNK_SLOTS];
		c.pool = src->pool;
		c.first = src->first;
		c.map = src->map;
		c.copied = __atomic_load_n(&src->copied, __ATOMIC_ACQUIRE);
	}
	return c;
}

bool pp_gpu_vk_timer_copy_chunk_to(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t src, uint32_t count,
				uint32_t dst)
{
	uint32_t n = t ? __atomic_load_n(&t->nchunks, __ATOMIC_ACQUIRE) : 0;
	if (src >= n || dst >= n || !count || count > PP_GPU_CHUNK_SLOTS)
		return false;
	const struct chunk *from = &t->chunks[src];
	struct chunk *to = &t->chunks[dst];
	if (!to->map || from->kind != to->kind)
		return false;
	uint32_t words = from->kind == PP_GPU_TIMESTAMP ? TS_WORDS : STATS_WORDS;
	/* WAIT_BIT makes the GPU (never the host) wait for each query of this command buffer;
	 * later work does not wait for the copy. */
	t->cfg.vk.CmdCopyQueryPoolResults(cb, from->pool, from->first, count, to->buffer, to->offset,
					  words * sizeof(uint64_t),
					  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT |
						  VK_QUERY_RESULT_WAIT_BIT);
	/* Reads of dst's slots now come from its host memory. */
	__atomic_store_n(&to->copied, true, __ATOMIC_RELEASE);
	return true;
}

bool pp_gpu_vk_timer_copy_chunk(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t chunk, uint32_t count)
{
	return pp_gpu_vk_timer_copy_chunk_to(t, cb, chunk, count, chunk);
}

bool pp_gpu_vk_timer_reset_cmd(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t chunk)
{
	if (!t || !t->cfg.vk.CmdResetQueryPool || chunk >= __atomic_load_n(&t->nchunks, __ATOMIC_ACQUIRE))
		return false;
	const struct chunk *c = &t->chunks[chunk];
	t->cfg.vk.CmdResetQueryPool(cb, c->pool, c->first, PP_GPU_CHUNK_SLOTS);
	return true;
}

enum pp_gpu_slot_kind pp_gpu_vk_timer_chunk_kind(struct pp_gpu_timer *t, uint32_t chunk)
{
	return t && chunk < __atomic_load_n(&t->nchunks, __ATOMIC_ACQUIRE) ? (enum pp_gpu_slot_kind)t->chunks[chunk].kind
									       : PP_GPU_TIMESTAMP;
}

bool pp_gpu_vk_timer_chunk_has_host_copy(struct pp_gpu_timer *t, uint32_t chunk)
{
	return t && chunk < __atomic_load_n(&t->nchunks, __ATOMIC_ACQUIRE) && t->chunks[chunk].map;
}

void pp_gpu_vk_timer_copy_barrier(struct pp_gpu_timer *t, VkCommandBuffer cb)
{
	/* Transfer writes made available to host reads; the destination is the host stage, so no
	 * later GPU work of the application waits for it. */
	VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			       .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
	t->cfg.vk.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0,
				     NULL);
}

/* A slot's pool and query, for the commands recorded at every pass boundary: only the
 * chunk's immutable fields (slot_chunk's copy of the rest is for the readers). */
static inline VkQueryPool slot_query(const struct pp_gpu_timer *t, uint32_t slot, uint32_t *query)
{
	uint32_t k = slot / PP_GPU_CHUNK_SLOTS;
	if (k >= __atomic_load_n(&t->nchunks, __ATOMIC_ACQUIRE))
		return VK_NULL_HANDLE;
	*query = t->chunks[k].first + slot % PP_GPU_CHUNK_SLOTS;
	return t->chunks[k].pool;
}

void pp_gpu_vk_timer_write(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t slot, VkPipelineStageFlagBits stage)
{
	uint32_t query;
	VkQueryPool pool = slot_query(t, slot, &query);
	if (pool)
		t->cfg.vk.CmdWriteTimestamp(cb, stage, pool, query);
}

void pp_gpu_vk_timer_stats_begin(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t slot)
{
	uint32_t query;
	VkQueryPool pool = slot_query(t, slot, &query);
	if (pool)
		t->cfg.vk.CmdBeginQuery(cb, pool, query, 0);
}

void pp_gpu_vk_timer_stats_end(struct pp_gpu_timer *t, VkCommandBuffer cb, uint32_t slot)
{
	uint32_t query;
	VkQueryPool pool = slot_query(t, slot, &query);
	if (pool)
		t->cfg.vk.CmdEndQuery(cb, pool, query);
}

/* raw - ref in ticks, modulo the valid bits and signed: a counter wrap between the two is
 * handled as long as they are less than half the counter's range apart. */
static int64_t ticks_since(const struct pp_gpu_timer *t, uint64_t raw, uint64_t ref)
{
	uint64_t diff = (raw - ref) & t->valid_mask;
	if (t->valid_mask != ~0ull && diff > (t->valid_mask >> 1))
		return (int64_t)diff - (int64_t)t->valid_mask - 1;
	return (int64_t)diff;
}

/* Ticks to host ns, relative to the calibration point or to the estimate's reference. */
static uint64_t ticks_to_host(struct pp_gpu_timer *t, uint64_t raw)
{
	raw &= t->valid_mask;
	if (t->calibrated)
		return (uint64_t)((int64_t)t->calib_host_ns +
				  (int64_t)((double)ticks_since(t, raw, t->calib_tick) * t->cfg.timestamp_period));
	return (uint64_t)((int64_t)t->est_host_ns +
			  (int64_t)((double)ticks_since(t, raw, t->est_tick) * t->cfg.timestamp_period));
}

/* Uncalibrated: every bound is "this work began no earlier than host time not_before", so
 * the true offset is at least what it gives; the estimate is the largest bound seen, the
 * tightest placement that puts no work before its submit call. The first read sets it,
 * from the read's earliest timestamp (min_raw) and the submit call `not_before`; a later
 * read whose earliest timestamp would come before its own submit call (a submission that
 * reached the GPU sooner after its submit than the first did) raises it. Never lowered:
 * lowering it could put work read later before work already placed. */
static void estimate_bound(struct pp_gpu_timer *t, uint64_t min_raw, uint64_t not_before)
{
	if (!t->estimated_valid) {
		t->est_tick = min_raw;
		t->est_host_ns = not_before;
		t->estimated_valid = true;
		return;
	}
	int64_t since = ticks_since(t, min_raw, t->est_tick);
	/* Far from the reference (a quarter of the counter's range): move it, so that the modulo
	 * difference above stays unambiguous. Not on every read: each move may round by 1 ns. */
	if (t->valid_mask != ~0ull && (uint64_t)(since < 0 ? -since : since) > (t->valid_mask >> 2)) {
		t->est_host_ns = ticks_to_host(t, min_raw);
		t->est_tick = min_raw;
	}
	uint64_t h = ticks_to_host(t, min_raw);
	if (h < not_before)
		t->est_host_ns += not_before - h;
}

void pp_gpu_vk_timer_read_timestamps(void *timer, const uint32_t *slots, uint32_t n, uint64_t submitted_ns, uint64_t *ns,
				  uint8_t *avail)
{
	struct pp_gpu_timer *t = timer;
	uint64_t raw[2 * PP_GPU_CHUNK_SLOTS];

	pthread_mutex_lock(&t->clock_lock);
	if (t->calibrated && host_now(CLOCK_MONOTONIC) - t->calib_at_ns > RECALIBRATE_NS)
		calibrate(t);
	/* The read's earliest timestamp, for the estimate, compared modulo the valid bits: a
	 * counter wrap within the read does not make the later one look earlier. */
	bool have_min = false;
	uint64_t min_raw = 0;
	for (uint32_t i = 0; i < n;) {
		/* One vkGetQueryPoolResults per run of consecutive slots in one chunk. */
		uint32_t run = 1;
		while (i + run < n && slots[i + run] == slots[i] + run &&
		       slots[i + run] / PP_GPU_CHUNK_SLOTS == slots[i] / PP_GPU_CHUNK_SLOTS)
			run++;
		struct chunk c = slot_chunk(t, slots[i]);
		VkResult r = VK_ERROR_UNKNOWN;
		if (c.copied) {
			/* Copied by the GPU into host memory: reading it is not a driver call. */
			const uint64_t *src = c.map + (size_t)(slots[i] % PP_GPU_CHUNK_SLOTS) * TS_WORDS;
			for (uint32_t j = 0; j < run; j++) {
				raw[2 * j + 1] = __atomic_load_n(&src[TS_WORDS * j + 1], __ATOMIC_ACQUIRE);
				raw[2 * j] = __atomic_load_n(&src[TS_WORDS * j], __ATOMIC_RELAXED);
			}
			r = VK_SUCCESS;
		} else if (c.pool) {
			r = t->cfg.vk.GetQueryPoolResults(t->cfg.device, c.pool, c.first + slots[i] % PP_GPU_CHUNK_SLOTS,
							  run, sizeof(raw), raw, 2 * sizeof(uint64_t),
							  VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
			note_result(t, r);
		}
		for (uint32_t j = 0; j < run; j++) {
			bool ok = (r == VK_SUCCESS || r == VK_NOT_READY) && raw[2 * j + 1] != 0;
			avail[i + j] = ok;
			ns[i + j] = ok ? raw[2 * j] : 0;
			if (ok && !t->calibrated) {
				uint64_t g = raw[2 * j] & t->valid_mask;
				if (!have_min || ticks_since(t, g, min_raw) < 0)
					min_raw = g;
				have_min = true;
			}
		}
		i += run;
	}
	/* Uncalibrated: the slots' work began no earlier than its submit call (submitted_ns) when
	 * the caller knows it, and, in any case, no earlier than the first submit call. */
	if (!t->calibrated && have_min) {
		uint64_t not_before = submitted_ns ? submitted_ns : t->first_submit_ns;
		if (not_before && (submitted_ns || !t->estimated_valid))
			estimate_bound(t, min_raw, not_before);
	}
	for (uint32_t i = 0; i < n; i++)
		if (avail[i])
			ns[i] = ticks_to_host(t, ns[i]);
	pthread_mutex_unlock(&t->clock_lock);
}

bool pp_gpu_vk_timer_read_statistics(void *timer, uint32_t slot, uint64_t out[PP_GPU_STAT_COUNT], uint32_t *valid)
{
	struct pp_gpu_timer *t = timer;
	uint64_t raw[PP_GPU_STAT_COUNT + 1];
	struct chunk c = slot_chunk(t, slot);
	if (!c.pool)
		return false;
	if (c.copied) {
		const uint64_t *src = c.map + (size_t)(slot % PP_GPU_CHUNK_SLOTS) * STATS_WORDS;
		if (!__atomic_load_n(&src[PP_GPU_STAT_COUNT], __ATOMIC_ACQUIRE))
			return false;
		for (unsigned i = 0; i < PP_GPU_STAT_COUNT; i++)
			out[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
		*valid = (1u << PP_GPU_STAT_COUNT) - 1;
		return true;
	}
	VkResult r = t->cfg.vk.GetQueryPoolResults(t->cfg.device, c.pool, c.first + slot % PP_GPU_CHUNK_SLOTS, 1,
						   sizeof(raw), raw, sizeof(raw),
						   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
	note_result(t, r);
	if ((r != VK_SUCCESS && r != VK_NOT_READY) || !raw[PP_GPU_STAT_COUNT])
		return false;
	memcpy(out, raw, PP_GPU_STAT_COUNT * sizeof(uint64_t));
	*valid = (1u << PP_GPU_STAT_COUNT) - 1;
	return true;
}

void pp_gpu_vk_timer_note_submit(struct pp_gpu_timer *t, uint64_t host_ns)
{
	if (!t || __atomic_load_n(&t->calibrated, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&t->first_submit_ns, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&t->clock_lock);
	if (!t->first_submit_ns)
		__atomic_store_n(&t->first_submit_ns, host_ns, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&t->clock_lock);
}

const char *pp_gpu_vk_timer_time_domain(const struct pp_gpu_timer *t)
{
	if (!t || !t->cfg.timestamp_valid_bits)
		return "none";
	if (__atomic_load_n(&t->calibrated, __ATOMIC_ACQUIRE))
		return t->cfg.host_time_domain_raw ? "calibrated (VK_EXT_calibrated_timestamps, CLOCK_MONOTONIC_RAW)"
						   : "calibrated (VK_EXT_calibrated_timestamps, CLOCK_MONOTONIC)";
	return "estimated (no VK_EXT_calibrated_timestamps: GPU times aligned so no work starts before its submit)";
}
