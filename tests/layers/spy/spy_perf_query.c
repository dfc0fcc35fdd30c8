/* VK_KHR_performance_query emulated below passprobe (spy_perf_query.h). The counters count
 * what the spy sees recorded between a query's begin and end, so a test can check them
 * against the work it recorded:
 *   0 "draws"            vkCmdDraw and vkCmdDrawIndexed calls             (COMMAND scope)
 *   1 "vertices"         vertexCount x instanceCount of vkCmdDraw          (RENDER_PASS scope)
 *   2 "indices"          indexCount x instanceCount of vkCmdDrawIndexed    (COMMAND scope)
 *   3 "command buffers"  (COMMAND_BUFFER scope: cannot bracket a pass)
 * Counter i is counted in hardware pass i % N, N from $SPY_PERF_ENV, so a set needs as many
 * passes as it has distinct i % N. Results become available when a command buffer holding
 * the query's end is submitted. Misuse the real extension forbids (a query begun without the
 * profiling lock or without a reset, a pool needing several passes, result flags performance
 * queries do not allow, two performance queries open at once) is said on stderr as
 * "spy perf error: ...", which the tests look for. */
#include "spy_perf_query.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SPY_PERF_ENV
#error "SPY_PERF_ENV must be defined by the build"
#endif

#define NCOUNTERS 4
#define MAX_POOLS 64
#define MAX_CBS 256
#define MAX_DONE 4096

static const struct {
	const char *name;
	VkPerformanceCounterScopeKHR scope;
} k_counters[NCOUNTERS] = {
	{ "draws", VK_PERFORMANCE_COUNTER_SCOPE_COMMAND_KHR },
	{ "vertices", VK_PERFORMANCE_COUNTER_SCOPE_RENDER_PASS_KHR },
	{ "indices", VK_PERFORMANCE_COUNTER_SCOPE_COMMAND_KHR },
	{ "command buffers", VK_PERFORMANCE_COUNTER_SCOPE_COMMAND_BUFFER_KHR },
};

struct query_state {
	bool reset, available;
	uint64_t value[NCOUNTERS];
};

struct perf_pool {
	uint32_t ncounters;
	uint32_t counters[NCOUNTERS];
	uint32_t nqueries;
	struct query_state *q;
};

struct done_query {
	struct perf_pool *pool;
	uint32_t query;
	uint64_t value[NCOUNTERS];
};

struct cb_state {
	VkCommandBuffer cb;
	bool active;
	struct perf_pool *pool;
	uint32_t query;
	uint64_t value[NCOUNTERS];
	uint32_t ndone;
	struct done_query done[64];
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct perf_pool *g_pools[MAX_POOLS];
static struct cb_state g_cbs[MAX_CBS];
static bool g_locked;
static int g_passes = -1;

static void error(const char *fmt, const char *what, unsigned long a)
{
	fprintf(stderr, "spy perf error: ");
	fprintf(stderr, fmt, what, a);
	fputc('\n', stderr);
}

bool spy_perf_on(void)
{
	if (g_passes < 0) {
		const char *e = getenv(SPY_PERF_ENV);
		int n = e ? atoi(e) : 0;
		g_passes = n > 0 && n <= NCOUNTERS ? n : 0;
	}
	return g_passes > 0;
}

static uint32_t passes_of(const uint32_t *idx, uint32_t n)
{
	bool used[NCOUNTERS] = { false };
	uint32_t passes = 0;
	for (uint32_t i = 0; i < n; i++)
		if (idx[i] < NCOUNTERS && !used[idx[i] % g_passes]) {
			used[idx[i] % g_passes] = true;
			passes++;
		}
	return passes;
}

/* ---- instance level ------------------------------------------------------------------- */

VkResult spy_perf_extensions(spy_ext_list_fn list, PFN_vkEnumerateDeviceExtensionProperties down, VkPhysicalDevice pd,
			     uint32_t *n, VkExtensionProperties *props)
{
	uint32_t total = 0;
	VkResult r = list(down, pd, NULL, &total, NULL);
	if (r != VK_SUCCESS)
		return r;
	VkExtensionProperties *all = calloc(total + 1, sizeof(*all));
	if (!all)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	r = list(down, pd, NULL, &total, all);
	if (r != VK_SUCCESS) {
		free(all);
		return r;
	}
	snprintf(all[total].extensionName, sizeof(all[total].extensionName), "%s", VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME);
	all[total].specVersion = VK_KHR_PERFORMANCE_QUERY_SPEC_VERSION;
	total++;
	uint32_t written = 0;
	for (uint32_t i = 0; props && i < total && written < *n; i++)
		props[written++] = all[i];
	free(all);
	*n = props ? written : total;
	return props && written < total ? VK_INCOMPLETE : VK_SUCCESS;
}

void spy_perf_features(VkPhysicalDeviceFeatures2 *f)
{
	for (VkBaseOutStructure *s = (VkBaseOutStructure *)f; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PERFORMANCE_QUERY_FEATURES_KHR) {
			((VkPhysicalDevicePerformanceQueryFeaturesKHR *)s)->performanceCounterQueryPools = VK_TRUE;
			((VkPhysicalDevicePerformanceQueryFeaturesKHR *)s)->performanceCounterMultipleQueryPools = VK_FALSE;
		}
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_EnumerateCounters(VkPhysicalDevice pd, uint32_t family, uint32_t *n,
							     VkPerformanceCounterKHR *counters,
							     VkPerformanceCounterDescriptionKHR *descs)
{
	(void)pd;
	(void)family;
	if (!counters && !descs) {
		*n = NCOUNTERS;
		return VK_SUCCESS;
	}
	uint32_t w = *n < NCOUNTERS ? *n : NCOUNTERS;
	for (uint32_t i = 0; i < w; i++) {
		if (counters) {
			counters[i].unit = VK_PERFORMANCE_COUNTER_UNIT_GENERIC_KHR;
			counters[i].scope = k_counters[i].scope;
			counters[i].storage = VK_PERFORMANCE_COUNTER_STORAGE_UINT64_KHR;
			memset(counters[i].uuid, (int)i + 1, sizeof(counters[i].uuid));
		}
		if (descs) {
			descs[i].flags = 0;
			snprintf(descs[i].name, sizeof(descs[i].name), "%s", k_counters[i].name);
			snprintf(descs[i].category, sizeof(descs[i].category), "spy");
			snprintf(descs[i].description, sizeof(descs[i].description), "counted by the test spy layer");
		}
	}
	*n = w;
	return w < NCOUNTERS ? VK_INCOMPLETE : VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL spy_GetPasses(VkPhysicalDevice pd, const VkQueryPoolPerformanceCreateInfoKHR *info,
						 uint32_t *passes)
{
	(void)pd;
	*passes = passes_of(info->pCounterIndices, info->counterIndexCount);
}

PFN_vkVoidFunction spy_perf_instance_proc(const char *name)
{
	if (!spy_perf_on())
		return NULL;
	if (!strcmp(name, "vkEnumeratePhysicalDeviceQueueFamilyPerformanceQueryCountersKHR"))
		return (PFN_vkVoidFunction)spy_EnumerateCounters;
	if (!strcmp(name, "vkGetPhysicalDeviceQueueFamilyPerformanceQueryPassesKHR"))
		return (PFN_vkVoidFunction)spy_GetPasses;
	return NULL;
}

/* The feature struct is unlinked from the (caller's) chain for the call down and put back by
 * spy_perf_create_done: the driver does not know it. */
static VkBaseOutStructure *g_unlinked_prev, *g_unlinked;

void spy_perf_create_strip(VkDeviceCreateInfo *info, const char **names, uint32_t cap)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < info->enabledExtensionCount && k < cap; i++)
		if (strcmp(info->ppEnabledExtensionNames[i], VK_KHR_PERFORMANCE_QUERY_EXTENSION_NAME))
			names[k++] = info->ppEnabledExtensionNames[i];
	info->ppEnabledExtensionNames = names;
	info->enabledExtensionCount = k;
	g_unlinked_prev = g_unlinked = NULL;
	VkBaseOutStructure *prev = NULL;
	for (VkBaseOutStructure *s = (VkBaseOutStructure *)info->pNext; s; prev = s, s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PERFORMANCE_QUERY_FEATURES_KHR) {
			if (prev)
				prev->pNext = s->pNext;
			else
				info->pNext = s->pNext;
			g_unlinked_prev = prev;
			g_unlinked = s;
			break;
		}
}

void spy_perf_create_done(void)
{
	if (g_unlinked_prev)
		g_unlinked_prev->pNext = g_unlinked;
	g_unlinked_prev = g_unlinked = NULL;
}

/* ---- device level ---------------------------------------------------------------------- */

static VKAPI_ATTR VkResult VKAPI_CALL spy_AcquireProfilingLockKHR(VkDevice device, const VkAcquireProfilingLockInfoKHR *info)
{
	(void)device;
	(void)info;
	pthread_mutex_lock(&g_lock);
	VkResult r = g_locked ? VK_TIMEOUT : VK_SUCCESS;
	g_locked = true;
	pthread_mutex_unlock(&g_lock);
	return r;
}

static VKAPI_ATTR void VKAPI_CALL spy_ReleaseProfilingLockKHR(VkDevice device)
{
	(void)device;
	pthread_mutex_lock(&g_lock);
	if (!g_locked)
		error("%s: the profiling lock was not held%lu", "vkReleaseProfilingLockKHR", 0);
	g_locked = false;
	pthread_mutex_unlock(&g_lock);
}

PFN_vkVoidFunction spy_perf_device_proc(const char *name)
{
	if (!spy_perf_on())
		return NULL;
	if (!strcmp(name, "vkAcquireProfilingLockKHR"))
		return (PFN_vkVoidFunction)spy_AcquireProfilingLockKHR;
	if (!strcmp(name, "vkReleaseProfilingLockKHR"))
		return (PFN_vkVoidFunction)spy_ReleaseProfilingLockKHR;
	return NULL;
}

static struct perf_pool *pool_of(VkQueryPool pool)
{
	for (int i = 0; i < MAX_POOLS; i++)
		if (g_pools[i] && (VkQueryPool)(uintptr_t)g_pools[i] == pool)
			return g_pools[i];
	return NULL;
}

bool spy_perf_create_pool(const VkQueryPoolCreateInfo *info, VkQueryPool *out, VkResult *r)
{
	if (!spy_perf_on() || info->queryType != VK_QUERY_TYPE_PERFORMANCE_QUERY_KHR)
		return false;
	const VkQueryPoolPerformanceCreateInfoKHR *perf = NULL;
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_QUERY_POOL_PERFORMANCE_CREATE_INFO_KHR)
			perf = (const VkQueryPoolPerformanceCreateInfoKHR *)s;
	*r = VK_ERROR_INITIALIZATION_FAILED;
	if (!perf || perf->counterIndexCount == 0 || perf->counterIndexCount > NCOUNTERS) {
		error("%s: a performance query pool without a valid counter list%lu", "vkCreateQueryPool", 0);
		return true;
	}
	if (passes_of(perf->pCounterIndices, perf->counterIndexCount) != 1)
		error("%s: a pool whose counters need %lu passes (passprobe makes one-pass pools)", "vkCreateQueryPool",
		      passes_of(perf->pCounterIndices, perf->counterIndexCount));
	struct perf_pool *p = calloc(1, sizeof(*p));
	if (p)
		p->q = calloc(info->queryCount, sizeof(*p->q));
	if (!p || !p->q) {
		free(p);
		*r = VK_ERROR_OUT_OF_HOST_MEMORY;
		return true;
	}
	p->ncounters = perf->counterIndexCount;
	for (uint32_t i = 0; i < p->ncounters; i++) {
		p->counters[i] = perf->pCounterIndices[i] < NCOUNTERS ? perf->pCounterIndices[i] : 0;
		if (k_counters[p->counters[i]].scope == VK_PERFORMANCE_COUNTER_SCOPE_COMMAND_BUFFER_KHR)
			error("%s: counter %lu has COMMAND_BUFFER scope: it cannot bracket passes", "vkCreateQueryPool",
			      p->counters[i]);
	}
	p->nqueries = info->queryCount;
	pthread_mutex_lock(&g_lock);
	int slot = -1;
	for (int i = 0; i < MAX_POOLS && slot < 0; i++)
		if (!g_pools[i])
			slot = i;
	if (slot >= 0)
		g_pools[slot] = p;
	pthread_mutex_unlock(&g_lock);
	if (slot < 0) {
		free(p->q);
		free(p);
		*r = VK_ERROR_OUT_OF_HOST_MEMORY;
		return true;
	}
	*out = (VkQueryPool)(uintptr_t)p;
	*r = VK_SUCCESS;
	return true;
}

bool spy_perf_destroy_pool(VkQueryPool pool)
{
	pthread_mutex_lock(&g_lock);
	struct perf_pool *p = pool_of(pool);
	for (int i = 0; p && i < MAX_POOLS; i++)
		if (g_pools[i] == p)
			g_pools[i] = NULL;
	pthread_mutex_unlock(&g_lock);
	if (p) {
		free(p->q);
		free(p);
	}
	return p != NULL;
}

bool spy_perf_reset(VkQueryPool pool, uint32_t first, uint32_t n)
{
	pthread_mutex_lock(&g_lock);
	struct perf_pool *p = pool_of(pool);
	for (uint32_t i = first; p && i < first + n && i < p->nqueries; i++)
		p->q[i] = (struct query_state){ .reset = true };
	pthread_mutex_unlock(&g_lock);
	return p != NULL;
}

bool spy_perf_results(VkQueryPool pool, uint32_t first, uint32_t n, size_t size, void *data, VkDeviceSize stride,
		      VkQueryResultFlags flags, VkResult *r)
{
	pthread_mutex_lock(&g_lock);
	struct perf_pool *p = pool_of(pool);
	if (!p) {
		pthread_mutex_unlock(&g_lock);
		return false;
	}
	if (flags & (VK_QUERY_RESULT_WITH_AVAILABILITY_BIT | VK_QUERY_RESULT_PARTIAL_BIT | VK_QUERY_RESULT_64_BIT))
		error("%s: flags 0x%lx not allowed for performance queries", "vkGetQueryPoolResults", flags);
	if (flags & VK_QUERY_RESULT_WAIT_BIT)
		error("%s: WAIT_BIT (%lu): passprobe must never wait", "vkGetQueryPoolResults", flags);
	*r = VK_SUCCESS;
	for (uint32_t i = 0; i < n && first + i < p->nqueries; i++) {
		const struct query_state *q = &p->q[first + i];
		if (!q->available) {
			*r = VK_NOT_READY;
			continue;
		}
		if ((i + 1) * stride > size || stride < p->ncounters * sizeof(VkPerformanceCounterResultKHR))
			break;
		VkPerformanceCounterResultKHR *out = (VkPerformanceCounterResultKHR *)((char *)data + i * stride);
		for (uint32_t k = 0; k < p->ncounters; k++)
			out[k].uint64 = q->value[p->counters[k]];
	}
	pthread_mutex_unlock(&g_lock);
	return true;
}

static struct cb_state *cb_find(VkCommandBuffer cb, bool create)
{
	for (int i = 0; i < MAX_CBS; i++)
		if (g_cbs[i].cb == cb)
			return &g_cbs[i];
	for (int i = 0; create && i < MAX_CBS; i++)
		if (!g_cbs[i].cb) {
			memset(&g_cbs[i], 0, sizeof(g_cbs[i]));
			g_cbs[i].cb = cb;
			return &g_cbs[i];
		}
	return NULL;
}

bool spy_perf_begin(VkCommandBuffer cb, VkQueryPool pool, uint32_t query)
{
	pthread_mutex_lock(&g_lock);
	struct perf_pool *p = pool_of(pool);
	if (p) {
		struct cb_state *c = cb_find(cb, true);
		if (!g_locked)
			error("%s: query %lu begun without the profiling lock held", "vkCmdBeginQuery", query);
		if (query >= p->nqueries || !p->q[query].reset)
			error("%s: query %lu begun without a reset since its last use", "vkCmdBeginQuery", query);
		else
			p->q[query].reset = false;
		if (c && c->active)
			error("%s: a second performance query (%lu) while one is active", "vkCmdBeginQuery", query);
		if (c) {
			c->active = true;
			c->pool = p;
			c->query = query;
			memset(c->value, 0, sizeof(c->value));
		}
	}
	pthread_mutex_unlock(&g_lock);
	return p != NULL;
}

bool spy_perf_end(VkCommandBuffer cb, VkQueryPool pool, uint32_t query)
{
	pthread_mutex_lock(&g_lock);
	struct perf_pool *p = pool_of(pool);
	if (p) {
		struct cb_state *c = cb_find(cb, false);
		if (!c || !c->active || c->pool != p || c->query != query)
			error("%s: query %lu ended but not active in this command buffer", "vkCmdEndQuery", query);
		else if (c->ndone == sizeof(c->done) / sizeof(c->done[0]))
			error("%s: more than %lu queries in one command buffer (the spy's limit)", "vkCmdEndQuery",
			      sizeof(c->done) / sizeof(c->done[0]));
		else {
			c->value[3] = 1;
			c->done[c->ndone++] = (struct done_query){ p, query, { c->value[0], c->value[1], c->value[2], 1 } };
			c->active = false;
		}
	}
	pthread_mutex_unlock(&g_lock);
	return p != NULL;
}

void spy_perf_draw(VkCommandBuffer cb, uint64_t vertices, uint64_t indices)
{
	pthread_mutex_lock(&g_lock);
	struct cb_state *c = cb_find(cb, false);
	if (c && c->active) {
		c->value[0]++;
		c->value[1] += vertices;
		c->value[2] += indices;
	}
	pthread_mutex_unlock(&g_lock);
}

void spy_perf_cb_reset(VkCommandBuffer cb)
{
	pthread_mutex_lock(&g_lock);
	struct cb_state *c = cb_find(cb, false);
	if (c)
		memset(c, 0, sizeof(*c));
	pthread_mutex_unlock(&g_lock);
}

/* Executing a command buffer writes its queries' results (the emulation completes them at the
 * submit: the test app waits for its fences anyway). */
void spy_perf_submitted(uint32_t n, const VkCommandBuffer *cbs)
{
	pthread_mutex_lock(&g_lock);
	for (uint32_t i = 0; i < n; i++) {
		struct cb_state *c = cb_find(cbs[i], false);
		for (uint32_t k = 0; c && k < c->ndone; k++) {
			struct done_query *d = &c->done[k];
			bool live = false;
			for (int j = 0; j < MAX_POOLS; j++)
				live |= g_pools[j] == d->pool;
			if (!live || d->query >= d->pool->nqueries)
				continue;
			struct query_state *q = &d->pool->q[d->query];
			if (q->available)
				error("%s: query %lu executed again without a reset", "vkQueueSubmit", d->query);
			q->available = true;
			memcpy(q->value, d->value, sizeof(q->value));
		}
	}
	pthread_mutex_unlock(&g_lock);
}
