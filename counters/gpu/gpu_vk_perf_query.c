/* VK_KHR_performance_query backend (gpu_vk_perf_query.h). */
#include "gpu_vk_perf_query.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_log.h"

struct perf_group {
	VkQueryPool pool;
	uint32_t n;                            /* counters of the set in this group */
	uint32_t index[PP_GPU_PERF_SET_MAX];   /* the driver's counter indices */
	uint32_t set_pos[PP_GPU_PERF_SET_MAX]; /* their positions in the set */
	uint32_t nfree;
	uint32_t *free_queries;
};

struct pp_gpu_perf {
	struct pp_gpu_counter_list list; /* first: the backend's ctx is also the list's (descs, ndescs) */
	struct pp_gpu_perf_config cfg;
	struct pp_gpu_counter_backend backend;
	pthread_mutex_t lock; /* the free lists */
	VkPerformanceCounterKHR *counters; /* list.ndescs of them, as enumerated */
	uint32_t set[PP_GPU_PERF_SET_MAX]; /* list.set: driver indices, in the set's order */
	uint32_t ngroups;
	struct perf_group groups[PP_GPU_PERF_GROUPS_MAX];
	bool locked;
};

static const char *unit_name(VkPerformanceCounterUnitKHR u)
{
	switch (u) {
	case VK_PERFORMANCE_COUNTER_UNIT_GENERIC_KHR: return "count";
	case VK_PERFORMANCE_COUNTER_UNIT_PERCENTAGE_KHR: return "%";
	case VK_PERFORMANCE_COUNTER_UNIT_NANOSECONDS_KHR: return "ns";
	case VK_PERFORMANCE_COUNTER_UNIT_BYTES_KHR: return "bytes";
	case VK_PERFORMANCE_COUNTER_UNIT_BYTES_PER_SECOND_KHR: return "bytes/s";
	case VK_PERFORMANCE_COUNTER_UNIT_KELVIN_KHR: return "K";
	case VK_PERFORMANCE_COUNTER_UNIT_WATTS_KHR: return "W";
	case VK_PERFORMANCE_COUNTER_UNIT_VOLTS_KHR: return "V";
	case VK_PERFORMANCE_COUNTER_UNIT_AMPS_KHR: return "A";
	case VK_PERFORMANCE_COUNTER_UNIT_HERTZ_KHR: return "Hz";
	case VK_PERFORMANCE_COUNTER_UNIT_CYCLES_KHR: return "cycles";
	default: return "unknown";
	}
}

/* ---- the backend interface --------------------------------------------------------------- */

static uint32_t be_passes(void *ctx)
{
	return ((struct pp_gpu_perf *)ctx)->ngroups;
}

static bool slot_split(const struct pp_gpu_perf *p, uint32_t slot, uint32_t *g, uint32_t *q)
{
	*g = slot / PP_GPU_PERF_POOL_QUERIES;
	*q = slot % PP_GPU_PERF_POOL_QUERIES;
	return slot != PP_GPU_PERF_NO_SLOT && *g < p->ngroups;
}

static void be_begin(void *ctx, void *cmd, uint32_t slot)
{
	struct pp_gpu_perf *p = ctx;
	uint32_t g, q;
	if (slot_split(p, slot, &g, &q))
		p->cfg.vk.CmdBeginQuery((VkCommandBuffer)cmd, p->groups[g].pool, q, 0);
}

static void be_end(void *ctx, void *cmd, uint32_t slot)
{
	struct pp_gpu_perf *p = ctx;
	uint32_t g, q;
	if (slot_split(p, slot, &g, &q))
		p->cfg.vk.CmdEndQuery((VkCommandBuffer)cmd, p->groups[g].pool, q);
}

static void value_from(struct pp_gpu_counter_value *v, VkPerformanceCounterStorageKHR storage,
		       const VkPerformanceCounterResultKHR *r)
{
	*v = (struct pp_gpu_counter_value){ .valid = true };
	switch (storage) {
	case VK_PERFORMANCE_COUNTER_STORAGE_INT32_KHR:
		v->is_float = r->int32 < 0;
		v->u = r->int32 < 0 ? 0 : (uint64_t)r->int32;
		v->f = r->int32;
		break;
	case VK_PERFORMANCE_COUNTER_STORAGE_INT64_KHR:
		v->is_float = r->int64 < 0;
		v->u = r->int64 < 0 ? 0 : (uint64_t)r->int64;
		v->f = (double)r->int64;
		break;
	case VK_PERFORMANCE_COUNTER_STORAGE_UINT32_KHR: v->u = r->uint32; break;
	case VK_PERFORMANCE_COUNTER_STORAGE_UINT64_KHR: v->u = r->uint64; break;
	case VK_PERFORMANCE_COUNTER_STORAGE_FLOAT32_KHR:
		v->is_float = true;
		v->f = r->float32;
		break;
	case VK_PERFORMANCE_COUNTER_STORAGE_FLOAT64_KHR:
		v->is_float = true;
		v->f = r->float64;
		break;
	default: v->valid = false; break;
	}
}

/* Without WAIT_BIT (never waiting) and without the availability, partial and 64-bit flags,
 * which performance queries do not allow: VK_NOT_READY says "not yet". */
static int be_read(void *ctx, uint32_t slot, struct pp_gpu_counter_value *out, uint32_t n)
{
	struct pp_gpu_perf *p = ctx;
	uint32_t g, q;
	if (!slot_split(p, slot, &g, &q))
		return -EINVAL;
	const struct perf_group *grp = &p->groups[g];
	VkPerformanceCounterResultKHR r[PP_GPU_PERF_SET_MAX];
	VkResult res = p->cfg.vk.GetQueryPoolResults(p->cfg.device, grp->pool, q, 1, grp->n * sizeof(r[0]), r,
						     grp->n * sizeof(r[0]), 0);
	if (res == VK_NOT_READY)
		return 0;
	if (res != VK_SUCCESS)
		return -EIO;
	for (uint32_t i = 0; i < n; i++)
		out[i] = (struct pp_gpu_counter_value){ .other_pass = true };
	for (uint32_t k = 0; k < grp->n; k++)
		if (grp->set_pos[k] < n)
			value_from(&out[grp->set_pos[k]], p->counters[grp->index[k]].storage, &r[k]);
	return 1;
}

/* ---- set-up ------------------------------------------------------------------------------ */

static uint32_t passes_of(struct pp_gpu_perf *p, const uint32_t *idx, uint32_t n)
{
	VkQueryPoolPerformanceCreateInfoKHR info = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_PERFORMANCE_CREATE_INFO_KHR,
		.queueFamilyIndex = p->cfg.queue_family,
		.counterIndexCount = n,
		.pCounterIndices = idx,
	};
	uint32_t passes = 0;
	p->cfg.vk.GetPasses(p->cfg.physical_device, &info, &passes);
	return passes;
}

static int enumerate(struct pp_gpu_perf *p, char *why, size_t len)
{
	uint32_t n = 0;
	VkResult r = p->cfg.vk.EnumerateCounters(p->cfg.physical_device, p->cfg.queue_family, &n, NULL, NULL);
	if (r != VK_SUCCESS || !n) {
		snprintf(why, len, "the driver lists no performance counters for queue family %u (%d)", p->cfg.queue_family,
			 r);
		return -ENOENT;
	}
	VkPerformanceCounterDescriptionKHR *d = calloc(n, sizeof(*d));
	p->counters = calloc(n, sizeof(*p->counters));
	p->list.descs = calloc(n, sizeof(*p->list.descs));
	if (!d || !p->counters || !p->list.descs) {
		free(d);
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		p->counters[i].sType = VK_STRUCTURE_TYPE_PERFORMANCE_COUNTER_KHR;
		d[i].sType = VK_STRUCTURE_TYPE_PERFORMANCE_COUNTER_DESCRIPTION_KHR;
	}
	r = p->cfg.vk.EnumerateCounters(p->cfg.physical_device, p->cfg.queue_family, &n, p->counters, d);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
		free(d);
		snprintf(why, len, "vkEnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR returned %d", r);
		return -EIO;
	}
	for (uint32_t i = 0; i < n; i++) {
		d[i].name[sizeof(d[i].name) - 1] = d[i].category[sizeof(d[i].category) - 1] = '\0';
		d[i].description[sizeof(d[i].description) - 1] = '\0';
		struct pp_gpu_counter_desc want = { "VK_KHR_performance_query", d[i].name,
						    unit_name(p->counters[i].unit), d[i].category, 1, false,
						    d[i].description };
		p->list.descs[i] = pp_gpu_counters_intern(&want);
		if (!p->list.descs[i]) {
			free(d);
			snprintf(why, len, "out of memory for the counters' names");
			return -ENOMEM;
		}
	}
	free(d);
	p->list.ndescs = n;
	return 0;
}

/* The setting's counters that can bracket a pass, split into one-pass groups, first fit. */
static int choose(struct pp_gpu_perf *p, char *why, size_t len)
{
	uint32_t picked[PP_GPU_PERF_SET_MAX];
	char missing[256];
	uint32_t n = pp_gpu_counters_select(&p->backend, p->cfg.setting, NULL, picked, PP_GPU_PERF_SET_MAX, missing,
					    sizeof(missing));
	if (missing[0])
		pp_log(PP_LOG_WARN, "gpu_counters: VK_KHR_performance_query of this device has no counter named %s",
		       missing);
	uint32_t skipped = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = picked[i];
		/* COMMAND_BUFFER scope: the query must span a whole command buffer. */
		if (p->counters[c].scope == VK_PERFORMANCE_COUNTER_SCOPE_COMMAND_BUFFER_KHR) {
			skipped++;
			if (pp_gpu_counters_setting_choice(p->cfg.setting) == PP_GPU_COUNTERS_LIST)
				pp_log(PP_LOG_WARN, "gpu_counters: %s counts whole command buffers (COMMAND_BUFFER "
						    "scope) and cannot be measured per pass; left out",
				       p->list.descs[c]->name);
			continue;
		}
		bool placed = false;
		for (uint32_t g = 0; g < p->ngroups && !placed; g++) {
			struct perf_group *grp = &p->groups[g];
			grp->index[grp->n] = c;
			if (passes_of(p, grp->index, grp->n + 1) == 1) {
				grp->set_pos[grp->n++] = p->list.nset;
				placed = true;
			}
		}
		if (!placed && p->ngroups < PP_GPU_PERF_GROUPS_MAX && passes_of(p, &c, 1) == 1) {
			struct perf_group *grp = &p->groups[p->ngroups++];
			grp->index[0] = c;
			grp->set_pos[0] = p->list.nset;
			grp->n = 1;
			placed = true;
		}
		if (placed)
			p->set[p->list.nset++] = c;
		else
			pp_log(PP_LOG_WARN, "gpu_counters: %s cannot be measured in one hardware pass of its own, or more "
					    "than %d passes would be needed; left out",
			       p->list.descs[c]->name, PP_GPU_PERF_GROUPS_MAX);
	}
	if (skipped && pp_gpu_counters_setting_choice(p->cfg.setting) == PP_GPU_COUNTERS_DEFAULT)
		pp_log(PP_LOG_INFO, "gpu_counters=default: %u counters of COMMAND_BUFFER scope left out (they cannot be "
				    "measured per pass)",
		       skipped);
	if (!p->list.nset) {
		snprintf(why, len, "none of the chosen counters can be measured per pass");
		return -ENOENT;
	}
	return 0;
}

static int pools_make(struct pp_gpu_perf *p, char *why, size_t len)
{
	for (uint32_t g = 0; g < p->ngroups; g++) {
		struct perf_group *grp = &p->groups[g];
		VkQueryPoolPerformanceCreateInfoKHR perf = {
			.sType = VK_STRUCTURE_TYPE_QUERY_POOL_PERFORMANCE_CREATE_INFO_KHR,
			.queueFamilyIndex = p->cfg.queue_family,
			.counterIndexCount = grp->n,
			.pCounterIndices = grp->index,
		};
		VkQueryPoolCreateInfo info = {
			.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
			.pNext = &perf,
			.queryType = VK_QUERY_TYPE_PERFORMANCE_QUERY_KHR,
			.queryCount = PP_GPU_PERF_POOL_QUERIES,
		};
		VkResult r = p->cfg.vk.CreateQueryPool(p->cfg.device, &info, NULL, &grp->pool);
		grp->free_queries = malloc(PP_GPU_PERF_POOL_QUERIES * sizeof(uint32_t));
		if (r != VK_SUCCESS || !grp->free_queries) {
			snprintf(why, len, "creating a performance query pool failed (%d)", r);
			return -EIO;
		}
		p->cfg.vk.ResetQueryPool(p->cfg.device, grp->pool, 0, PP_GPU_PERF_POOL_QUERIES);
		for (uint32_t q = 0; q < PP_GPU_PERF_POOL_QUERIES; q++)
			grp->free_queries[q] = PP_GPU_PERF_POOL_QUERIES - 1 - q;
		grp->nfree = PP_GPU_PERF_POOL_QUERIES;
	}
	return 0;
}

struct pp_gpu_perf *pp_gpu_vk_perf_query_create(const struct pp_gpu_perf_config *cfg, char *why, size_t why_len)
{
	const struct pp_gpu_perf_funcs *vk = &cfg->vk;
	if (!vk->EnumerateCounters || !vk->GetPasses || !vk->AcquireProfilingLock || !vk->ReleaseProfilingLock ||
	    !vk->CreateQueryPool || !vk->DestroyQueryPool || !vk->GetQueryPoolResults || !vk->ResetQueryPool ||
	    !vk->CmdBeginQuery || !vk->CmdEndQuery) {
		snprintf(why, why_len, "the chain below passprobe lacks a command of VK_KHR_performance_query or host "
				       "query reset");
		return NULL;
	}
	struct pp_gpu_perf *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, why_len, "out of memory");
		return NULL;
	}
	p->list.set = p->set;
	p->cfg = *cfg;
	pthread_mutex_init(&p->lock, NULL);
	p->backend = (struct pp_gpu_counter_backend){
		.name = "VK_KHR_performance_query",
		.method = PP_GPU_COUNTERS_BRACKET,
		.ctx = p,
		.counter_count = pp_gpu_counters_list_count,
		.counter_desc = pp_gpu_counters_list_desc,
		.set_count = pp_gpu_counters_list_set_count,
		.set_desc = pp_gpu_counters_list_set_desc,
		.passes = be_passes,
		.scope_begin = be_begin,
		.scope_end = be_end,
		.scope_read = be_read,
	};
	if (enumerate(p, why, why_len) || choose(p, why, why_len))
		goto fail;
	/* Never wait for it: another process (or the application) may hold it. */
	VkAcquireProfilingLockInfoKHR lock = { .sType = VK_STRUCTURE_TYPE_ACQUIRE_PROFILING_LOCK_INFO_KHR, .timeout = 0 };
	VkResult r = vk->AcquireProfilingLock(cfg->device, &lock);
	if (r != VK_SUCCESS) {
		snprintf(why, why_len, "vkAcquireProfilingLockKHR returned %d: the profiling lock is held elsewhere", r);
		goto fail;
	}
	p->locked = true;
	if (pools_make(p, why, why_len))
		goto fail;
	return p;
fail:
	pp_gpu_vk_perf_query_destroy(p);
	return NULL;
}

void pp_gpu_vk_perf_query_destroy(struct pp_gpu_perf *p)
{
	if (!p)
		return;
	for (uint32_t g = 0; g < p->ngroups; g++) {
		if (p->groups[g].pool)
			p->cfg.vk.DestroyQueryPool(p->cfg.device, p->groups[g].pool, NULL);
		free(p->groups[g].free_queries);
	}
	if (p->locked)
		p->cfg.vk.ReleaseProfilingLock(p->cfg.device);
	pthread_mutex_destroy(&p->lock);
	free(p->counters);
	free(p->list.descs);
	free(p);
}

const struct pp_gpu_counter_backend *pp_gpu_vk_perf_query_backend(struct pp_gpu_perf *p)
{
	return p ? &p->backend : NULL;
}

uint32_t pp_gpu_vk_perf_query_groups(const struct pp_gpu_perf *p)
{
	return p ? p->ngroups : 0;
}

uint32_t pp_gpu_vk_perf_query_slot_take(struct pp_gpu_perf *p, uint32_t group)
{
	if (!p || group >= p->ngroups)
		return PP_GPU_PERF_NO_SLOT;
	struct perf_group *grp = &p->groups[group];
	uint32_t slot = PP_GPU_PERF_NO_SLOT;
	pthread_mutex_lock(&p->lock);
	if (grp->nfree)
		slot = group * PP_GPU_PERF_POOL_QUERIES + grp->free_queries[--grp->nfree];
	pthread_mutex_unlock(&p->lock);
	return slot;
}

void pp_gpu_vk_perf_query_slot_reset(struct pp_gpu_perf *p, uint32_t slot)
{
	uint32_t g, q;
	if (p && slot_split(p, slot, &g, &q))
		p->cfg.vk.ResetQueryPool(p->cfg.device, p->groups[g].pool, q, 1);
}

void pp_gpu_vk_perf_query_slot_free(struct pp_gpu_perf *p, uint32_t slot)
{
	uint32_t g, q;
	if (!p || !slot_split(p, slot, &g, &q))
		return;
	p->cfg.vk.ResetQueryPool(p->cfg.device, p->groups[g].pool, q, 1);
	pthread_mutex_lock(&p->lock);
	if (p->groups[g].nfree < PP_GPU_PERF_POOL_QUERIES)
		p->groups[g].free_queries[p->groups[g].nfree++] = q;
	pthread_mutex_unlock(&p->lock);
}
