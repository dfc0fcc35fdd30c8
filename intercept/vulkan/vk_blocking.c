/* Blocking calls of the application: fence, idle and query waits, and polling loops
 * (docs/diagnostics.md). Each hook judges the call against the frame it happens in
 * (attribution/diag/), measures how long the call blocked, and reports what a rule
 * flags. passprobe itself never waits: these are the application's own calls, passed down
 * unchanged; the only extra call is a non-blocking query read that tells whether a
 * WAIT_BIT read of an older frame would have waited at all. */
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attr_cpu.h"
#include "attr_diag.h"
#include "pp_sink.h"
#include "pp_log.h"
#include "pp_module.h"
#include "pp_renderdoc.h"
#include "pp_thread.h"
#include "vk_hooks.h"
#include "vk_intercept.h"

#define PROBE_MAX_BYTES (64 * 1024)

/* The CPU side of an application's blocking call, whatever the
 * diagnostics setting: its wall and CPU time as a "wait" slice on the calling thread's trace
 * track, and in the totals of its frame. */
struct blocking_span {
	struct pp_cpu_snapshot before, after;
};

static inline void span_begin(struct blocking_span *s)
{
	pp_cpu_counters_snapshot_take(&s->before);
}

/* After the application's own wait returned. A device loss it was told of is ours too. With
 * copy_results the results it waited for are in host memory: reading them now costs nothing
 * and gets a frame out before a process that exits next (without it, a read could be a driver
 * idle wait: see docs/timing.md). */
static void after_wait(struct pp_device *dev, VkResult r, const char *name)
{
	if (r == VK_ERROR_DEVICE_LOST)
		pp_gpu_vk_timer_note_device_lost(dev->timer, name);
	if (dev->copy_results)
		pp_attr_device_poll(dev->attr);
}

/* Returns the wall time blocked. */
static uint64_t span_end(struct pp_device *dev, struct blocking_span *s, const char *name)
{
	pp_cpu_counters_snapshot_take(&s->after);
	struct pp_cpu_cost cost = { 0 };
	pp_attr_cpu_cost_add_span(&cost, &s->before, &s->after);
	struct pp_cpu_event ev = { .name = name, .category = "wait", .tid = s->after.tid,
				   .begin_ns = s->before.wall_ns, .end_ns = s->after.wall_ns };
	/* Outside capture windows the trace gets nothing (the diagnostics still get the time). */
	if (pp_attr_device_frame_building(dev->attr) & PP_FRAME_CAPTURED)
		pp_attr_sink_cpu_event(&ev);
	pp_attr_device_blocking(dev->attr, &cost);
	return s->after.wall_ns - s->before.wall_ns;
}

/* The one shape of a blocking hook's call down, with or without the diagnostics: the span
 * around the call (timed false: a zero timeout is a status poll, not a wait, and gets no
 * span), then, for waits on GPU work (after true), after_wait. Evaluates to the call's result;
 * *blocked_ns gets the wall time blocked (0 untimed). A macro because the call down differs
 * in every hook. */
#define BLOCKING_DOWN(dev, name, timed, after, blocked_ns, call)                        \
	__extension__({                                                                 \
		struct blocking_span sp_;                                               \
		span_begin(&sp_);                                                       \
		VkResult r_ = (call);                                                   \
		*(blocked_ns) = (timed) ? span_end((dev), &sp_, (name)) : 0;            \
		if (after)                                                              \
			after_wait((dev), r_, (name));                                  \
		r_;                                                                     \
	})

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return h;
}

/* The application's call site: the first frame outside passprobe, the Vulkan loader and
 * other layers (the return address of the hook itself is the loader's trampoline, the same
 * for every call). buf gets "module+0x..." or "module (symbol+0x...)". Returns a key for
 * the code location, or 0 (buf: the hook's return address) when no such frame was found.
 * Costs a stack walk: only for calls that are boundaries already (waits, barriers), never
 * on the per-draw path. */
/* The last code locations found, per thread: dladdr walks the loaded objects under the
 * loader's lock, and a loop records the same call over and over. */
#define CALL_SITE_CACHE 8
static __thread struct {
	void *pc;
	uint64_t key;
	char text[96];
} call_site_cache[CALL_SITE_CACHE];
static __thread uint32_t call_site_next;

/* passprobe's own load address: dladdr walks every loaded object (about 60,000 instructions
 * in a program with a driver loaded), so it is asked once. */
static void *self_base;
static pthread_once_t self_base_once = PTHREAD_ONCE_INIT;

static void self_base_find(void)
{
	Dl_info self;
	if (dladdr((void *)pp_vk_blocking_call_site, &self))
		self_base = self.dli_fbase;
}

static uint64_t call_site_walk(void **frames, int n, char *buf, size_t len, bool *found)
{
	pthread_once(&self_base_once, self_base_find);
	bool have_self = self_base != NULL;
	*found = false;
	for (int i = 1; i < n; i++) {
		/* Frames of passprobe itself: no dladdr needed once the cache knows them. */
		for (uint32_t k = 0; k < CALL_SITE_CACHE; k++)
			if (call_site_cache[k].pc == frames[i]) {
				snprintf(buf, len, "%s", call_site_cache[k].text);
				*found = true;
				return call_site_cache[k].key;
			}
		Dl_info info;
		if (!dladdr(frames[i], &info) || !info.dli_fname)
			continue;
		if (have_self && info.dli_fbase == self_base)
			continue;
		const char *base = pp_module_name(&info);
		if (!*base || !strncmp(base, "libvulkan", 9) || strstr(base, "VkLayer"))
			continue;
		uintptr_t off = (uintptr_t)frames[i] - (uintptr_t)info.dli_fbase;
		if (info.dli_sname && info.dli_saddr)
			snprintf(buf, len, "%s (%s+0x%lx)", base, info.dli_sname,
				 (unsigned long)((uintptr_t)frames[i] - (uintptr_t)info.dli_saddr));
		else
			snprintf(buf, len, "%s+0x%lx", base, (unsigned long)off);
		uint64_t key = (str_hash(base) ^ (off * 0x9e3779b97f4a7c15ull)) | 1;
		uint32_t slot = call_site_next++ % CALL_SITE_CACHE;
		call_site_cache[slot].pc = frames[i];
		call_site_cache[slot].key = key;
		snprintf(call_site_cache[slot].text, sizeof(call_site_cache[slot].text), "%s", buf);
		*found = true;
		return key;
	}
	return 0;
}

/* The application's call site: the first frame outside passprobe, the Vulkan loader and
 * other layers (the return address of the hook itself is the loader's trampoline, the same
 * for every call). buf gets "module+0x..." or "module (symbol+0x...)". Returns a key for
 * the code location, or 0 (buf: the hook's return address) when no such frame was found.
 * Costs a short stack walk: only for calls that are boundaries already (waits, barriers),
 * never on the per-draw path; a deeper walk only where layers above passprobe hide it. */
uint64_t pp_vk_blocking_call_site(void *hook_return, char *buf, size_t len)
{
	void *frames[24];
	bool found;
	/* Called directly (a pointer from vkGetDeviceProcAddr, or a loader trampoline that
	 * tail-calls): the hook's own return address is in the application, no walk needed. */
	if (hook_return) {
		frames[0] = NULL;
		frames[1] = hook_return;
		uint64_t key = call_site_walk(frames, 2, buf, len, &found);
		if (found)
			return key;
	}
	int n = backtrace(frames, 8);
	uint64_t key = call_site_walk(frames, n, buf, len, &found);
	if (!found && n == 8) {
		n = backtrace(frames, 24);
		key = call_site_walk(frames, n, buf, len, &found);
	}
	if (found)
		return key;
	snprintf(buf, len, "%p", hook_return);
	return 0;
}

/* The thread that waited, as the kernel names it: a wait found in a driver's or a
 * translation layer's worker thread (vkd3d's fence worker) is that thread's wait, not the
 * render thread's (docs/diagnostics.md). */
/* The name is read once per thread (three system calls at every report of a wait made in
 * every frame otherwise), keyed by the kernel's id so that a forked child reads its own; a
 * name the thread sets later is not seen, as on GLES. */
static void thread_describe(char *buf, size_t len, uint32_t *tid)
{
	static __thread uint32_t cached_tid;
	static __thread char cached[16]; /* the kernel's limit: 15 characters */
	*tid = pp_thread_id();
	if (cached_tid != *tid) {
		char name[32] = "";
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/task/%u/comm", *tid);
		FILE *f = fopen(path, "re");
		if (f) {
			if (fgets(name, sizeof(name), f))
				name[strcspn(name, "\n")] = 0;
			fclose(f);
		}
		snprintf(cached, sizeof(cached), "%s", name);
		cached_tid = *tid;
	}
	snprintf(buf, len, "%s", cached);
}

static uint64_t call_site(const char *fn, void *hook_return, char *buf, size_t len, const char *tname, uint32_t tid)
{
	char where[160];
	uint64_t loc = pp_vk_blocking_call_site(hook_return, where, sizeof(where));
	snprintf(buf, len, "%s called from %s on thread %u \"%s\"", fn, where, tid, tname);
	/* The key is the code location: the same call from several threads is one site. */
	return (loc ? loc : (uint64_t)(uintptr_t)hook_return) ^ str_hash(fn);
}

/* The calls a blocking finding sits on, counted per frame (pp_diag_waits_call_count). */
enum vk_counted_call {
	VK_CALL_WAIT_FOR_FENCES,
	VK_CALL_GET_FENCE_STATUS,
	VK_CALL_QUEUE_WAIT_IDLE,
	VK_CALL_DEVICE_WAIT_IDLE,
	VK_CALL_GET_QUERY_POOL_RESULTS,
	VK_CALL_GET_EVENT_STATUS,
	VK_CALL_WAIT_SEMAPHORES,
	VK_CALL_GET_SEMAPHORE_COUNTER_VALUE,
	VK_CALL_COUNT
};
_Static_assert(VK_CALL_COUNT <= PP_DIAG_COUNTED_CALLS, "more counted calls than pp_diag_waits_call_count keeps");

/* Where an application's call sits in its frame, taken as it begins (an idle wait may end the
 * frame): for a finding in a frame RenderDoc captures, the call's name (NULL in other frames)
 * and its index among the frame's calls of that name. */
struct call_mark {
	const char *call;
	uint32_t index;
	uint64_t frame;
};

static struct call_mark call_mark(struct pp_device *dev, struct pp_diag_device *dd, enum vk_counted_call k,
				  const char *name)
{
	struct call_mark m = { 0 };
	if (!dd)
		return m;
	m.frame = pp_diag_device_frame(dd);
	/* The index only serves frames RenderDoc captures: without RenderDoc, nothing is counted. */
	if (!pp_renderdoc_present())
		return m;
	m.index = pp_diag_waits_call_count(dd, k, m.frame);
	if (pp_attr_device_frame_building(dev->attr) & PP_FRAME_RENDERDOC)
		m.call = name;
	return m;
}

static uint64_t blocking_report(struct pp_diag_device *dd, enum pp_diag_rule rule, const char *fn,
				const struct call_mark *m, void *ra, const char *detail, uint64_t cpu_ns, bool steady,
				enum pp_diag_object_kind kind, uint64_t handle, uint64_t device)
{
	char site[192], tname[32];
	uint32_t tid;
	thread_describe(tname, sizeof(tname), &tid);
	uint64_t key = call_site(fn, ra, site, sizeof(site), tname, tid);
	struct pp_diag_blocking b = {
		.thread_id = tid,
		.thread_name = tname,
		.rule = rule,
		.site_key = key,
		.site = site,
		.detail = detail,
		.cpu_ns = cpu_ns,
		.steady_state = steady,
		/* Nothing recorded, submitted or presented on this thread: a worker's wait (vkd3d's
		 * fence thread), not the frame's. */
		.worker_thread = !(pp_thread_roles & (PP_THREAD_RECORDS | PP_THREAD_SUBMITS | PP_THREAD_PRESENTS)),
		.nobjects = 2,
		.objects = { { kind, handle }, { PP_OBJ_DEVICE, device } },
		.capture_call = m->call,
		.capture_call_index = m->index,
		.capture_frame = m->frame,
	};
	return pp_diag_waits_blocking_report(dd, &b);
}

/* A non-blocking status read that found the object not ready. */
static void poll_note(struct pp_diag_device *dd, enum pp_diag_object_kind kind, uint64_t handle, const char *fn,
		      const struct call_mark *m, void *ra, uint64_t device)
{
	uint64_t since;
	uint64_t now = pp_clock_now_ns();
	uint32_t n = pp_diag_waits_poll(dd, kind, handle, now, &since);
	if (n != pp_diag_device_poll_threshold(dd))
		return;
	char detail[96];
	snprintf(detail, sizeof(detail), "(%u polls of the same object not ready within one frame)", n);
	/* A loop at start-up or shutdown is not the frame loop's (libplacebo polls its first
	 * uploads' fence in mpv's first frame): steady state, as for waits. */
	blocking_report(dd, PP_DIAG_POLLING, fn, m, ra, detail, now - since, true, kind, handle, device);
}

/* ---- fences ---------------------------------------------------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL pp_WaitForFences(VkDevice device, uint32_t n, const VkFence *fences, VkBool32 all,
						uint64_t timeout)
{
	struct pp_device *dev = pp_vk_device_of(device);
	void *ra = __builtin_return_address(0);
	/* A layer above waiting for work of its own: not the application's wait. */
	if (pp_vk_renderdoc_foreign_caller(ra))
		return dev->vk.WaitForFences(device, n, fences, all, timeout);
	pp_vk_renderdoc_between(dev);
	struct pp_diag_device *dd = pp_vk_diag_state_device(dev);
	struct call_mark m = call_mark(dev, dd, VK_CALL_WAIT_FOR_FENCES, "vkWaitForFences");
	bool current = false;
	uint64_t max_seq = 0, cur_seq = 0;
	for (uint32_t i = 0; dd && i < n; i++) {
		uint64_t seq;
		if (pp_diag_waits_fence_check(dd, (uint64_t)fences[i], &seq) == PP_WAIT_CURRENT_FRAME && !current) {
			current = true;
			cur_seq = seq;
		}
		if (seq > max_seq)
			max_seq = seq;
	}
	uint64_t frame = m.frame, blocked_ns;
	VkResult r = BLOCKING_DOWN(dev, "vkWaitForFences", timeout != 0, true, &blocked_ns,
				   dev->vk.WaitForFences(device, n, fences, all, timeout));
	if (!dd)
		return r;
	if (r == VK_SUCCESS && (all || n == 1))
		pp_diag_waits_completed(dd, max_seq);
	if (timeout == 0) {
		/* A zero timeout is a status poll. */
		for (uint32_t i = 0; r == VK_TIMEOUT && i < n; i++)
			poll_note(dd, PP_OBJ_FENCE, (uint64_t)fences[i], "vkWaitForFences (timeout 0)", &m, ra,
				  (uint64_t)device);
		return r;
	}
	if (current) {
		char detail[128];
		snprintf(detail, sizeof(detail), "(the fence of submission %llu, frame %llu)", (unsigned long long)cur_seq,
			 (unsigned long long)frame);
		uint64_t key = blocking_report(dd, PP_DIAG_FENCE_WAIT, "vkWaitForFences", &m, ra, detail, blocked_ns, true,
					       PP_OBJ_FENCE, n ? (uint64_t)fences[0] : 0, (uint64_t)device);
		if (r == VK_SUCCESS && max_seq == pp_diag_device_last_seq(dd))
			pp_vk_diag_submit_waited(dev, key, frame);
	}
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_GetFenceStatus(VkDevice device, VkFence fence)
{
	struct pp_device *dev = pp_vk_device_of(device);
	struct pp_diag_device *dd = pp_vk_diag_state_device(dev);
	struct call_mark m = call_mark(dev, dd, VK_CALL_GET_FENCE_STATUS, "vkGetFenceStatus");
	VkResult r = dev->vk.GetFenceStatus(device, fence);
	if (!dd)
		return r;
	if (r == VK_SUCCESS) {
		uint64_t seq;
		pp_diag_waits_fence_check(dd, (uint64_t)fence, &seq);
		pp_diag_waits_completed(dd, seq);
	} else if (r == VK_NOT_READY) {
		poll_note(dd, PP_OBJ_FENCE, (uint64_t)fence, "vkGetFenceStatus", &m, __builtin_return_address(0),
			  (uint64_t)device);
	}
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_ResetFences(VkDevice device, uint32_t n, const VkFence *fences)
{
	struct pp_device *dev = pp_vk_device_of(device);
	if (pp_vk_renderdoc_foreign_caller(__builtin_return_address(0)))
		return dev->vk.ResetFences(device, n, fences);
	pp_vk_renderdoc_between(dev);
	struct pp_diag_device *dd = pp_vk_diag_state_device(dev);
	for (uint32_t i = 0; dd && i < n; i++)
		pp_diag_waits_fence_reset(dd, (uint64_t)fences[i]);
	return dev->vk.ResetFences(device, n, fences);
}

/* ---- idle waits ----------------------------------------------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL pp_QueueWaitIdle(VkQueue queue)
{
	struct pp_device *dev = pp_vk_device_of(queue);
	void *ra = __builtin_return_address(0);
	/* A layer above waiting for work of its own (RenderDoc while it captures): neither the
	 * application's wait nor the end of its frame. */
	if (pp_vk_renderdoc_foreign_caller(ra))
		return dev->vk.QueueWaitIdle(queue);
	pp_vk_renderdoc_between(dev);
	struct pp_diag_device *dd = pp_vk_diag_state_device(dev);
	struct call_mark m = call_mark(dev, dd, VK_CALL_QUEUE_WAIT_IDLE, "vkQueueWaitIdle");
	uint64_t frame = m.frame, blocked_ns;
	VkResult r = BLOCKING_DOWN(dev, "vkQueueWaitIdle", true, true, &blocked_ns, dev->vk.QueueWaitIdle(queue));
	if (r == VK_SUCCESS)
		pp_vk_diag_submit_frames_ended(dev, pp_attr_device_waited_idle(dev->attr));
	if (!dd)
		return r;
	if (r == VK_SUCCESS)
		pp_diag_waits_queue_idle(dd, (uint64_t)(uintptr_t)queue);
	/* Counted only once the same call site waits again in a later frame: start-up and
	 * shutdown waits happen once. */
	uint64_t key = blocking_report(dd, PP_DIAG_QUEUE_WAIT_IDLE, "vkQueueWaitIdle", &m, ra, NULL, blocked_ns, true,
				       PP_OBJ_QUEUE, (uint64_t)(uintptr_t)queue, (uint64_t)(uintptr_t)dev->handle);
	if (r == VK_SUCCESS)
		pp_vk_diag_submit_waited(dev, key, frame);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_DeviceWaitIdle(VkDevice device)
{
	struct pp_device *dev = pp_vk_device_of(device);
	void *ra = __builtin_return_address(0);
	if (pp_vk_renderdoc_foreign_caller(ra))
		return dev->vk.DeviceWaitIdle(device);
	pp_vk_renderdoc_between(dev);
	struct pp_diag_device *dd = pp_vk_diag_state_device(dev);
	struct call_mark m = call_mark(dev, dd, VK_CALL_DEVICE_WAIT_IDLE, "vkDeviceWaitIdle");
	uint64_t frame = m.frame, last = dd ? pp_diag_device_last_seq(dd) : 0, blocked_ns;
	VkResult r = BLOCKING_DOWN(dev, "vkDeviceWaitIdle", true, true, &blocked_ns, dev->vk.DeviceWaitIdle(device));
	if (r == VK_SUCCESS)
		pp_vk_diag_submit_frames_ended(dev, pp_attr_device_waited_idle(dev->attr));
	if (!dd)
		return r;
	if (r == VK_SUCCESS)
		pp_diag_waits_completed(dd, last);
	uint64_t key = blocking_report(dd, PP_DIAG_DEVICE_WAIT_IDLE, "vkDeviceWaitIdle", &m, ra, NULL, blocked_ns, true,
				       PP_OBJ_DEVICE, (uint64_t)(uintptr_t)device, 0);
	if (r == VK_SUCCESS)
		pp_vk_diag_submit_waited(dev, key, frame);
	return r;
}

/* ---- queries -------------------------------------------------------------------------------- */

/* Whether the results are there already: the same read without WAIT_BIT into scratch. */
static bool query_results_ready(struct pp_device *dev, VkDevice device, VkQueryPool pool, uint32_t first,
				uint32_t count, size_t size, VkDeviceSize stride, VkQueryResultFlags flags)
{
	if (size > PROBE_MAX_BYTES)
		return false;
	void *scratch = malloc(size ? size : 1);
	if (!scratch)
		return false;
	VkResult r = dev->vk.GetQueryPoolResults(device, pool, first, count, size, scratch, stride,
						 flags & ~(VkQueryResultFlags)(VK_QUERY_RESULT_WAIT_BIT | VK_QUERY_RESULT_PARTIAL_BIT));
	free(scratch);
	return r == VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_GetQueryPoolResults(VkDevice device, VkQueryPool pool, uint32_t first, uint32_t count,
						      size_t size, void *data, VkDeviceSize stride,
						      VkQueryResultFlags flags)
{
	struct pp_device *dev = pp_vk_device_of(device);
	struct pp_diag_device *dd = pp_vk_diag_state_device(dev);
	uint64_t blocked_ns;
	if (!dd) {
		if (!(flags & VK_QUERY_RESULT_WAIT_BIT))
			return dev->vk.GetQueryPoolResults(device, pool, first, count, size, data, stride, flags);
		return BLOCKING_DOWN(dev, "vkGetQueryPoolResults(WAIT_BIT)", true, false, &blocked_ns,
				     dev->vk.GetQueryPoolResults(device, pool, first, count, size, data, stride, flags));
	}
	void *ra = __builtin_return_address(0);
	struct call_mark m = call_mark(dev, dd, VK_CALL_GET_QUERY_POOL_RESULTS, "vkGetQueryPoolResults");
	if (!(flags & VK_QUERY_RESULT_WAIT_BIT)) {
		VkResult r = dev->vk.GetQueryPoolResults(device, pool, first, count, size, data, stride, flags);
		if (r == VK_NOT_READY)
			poll_note(dd, PP_OBJ_QUERY_POOL, (uint64_t)pool, "vkGetQueryPoolResults (no WAIT_BIT)", &m, ra,
				  (uint64_t)device);
		return r;
	}
	uint64_t seq;
	enum pp_diag_wait_verdict v = pp_diag_waits_query_check(dd, (uint64_t)pool, first, count, &seq);
	uint64_t frame = m.frame;
	if (v == PP_WAIT_UNSUBMITTED) {
		/* Said before going down: the call may never return. */
		char detail[128];
		snprintf(detail, sizeof(detail), "(queries %u..%u)", first, first + count - 1);
		blocking_report(dd, PP_DIAG_QUERY_WAIT_UNSUBMITTED, "vkGetQueryPoolResults(WAIT_BIT)", &m, ra, detail, 0,
				false, PP_OBJ_QUERY_POOL, (uint64_t)pool, (uint64_t)device);
	}
	if (v == PP_WAIT_NOT_COMPLETE &&
	    query_results_ready(dev, device, pool, first, count, size, stride, flags))
		v = PP_WAIT_FINE;
	VkResult r = BLOCKING_DOWN(dev, "vkGetQueryPoolResults(WAIT_BIT)", true, false, &blocked_ns,
				   dev->vk.GetQueryPoolResults(device, pool, first, count, size, data, stride, flags));
	if (v == PP_WAIT_CURRENT_FRAME || v == PP_WAIT_NOT_COMPLETE) {
		char detail[160];
		snprintf(detail, sizeof(detail), "(queries %u..%u written by submission %llu%s)", first, first + count - 1,
			 (unsigned long long)seq,
			 v == PP_WAIT_CURRENT_FRAME ? ", of the frame being waited in" : ", not yet complete");
		uint64_t key = blocking_report(dd, PP_DIAG_QUERY_WAIT, "vkGetQueryPoolResults(WAIT_BIT)", &m, ra, detail,
					       blocked_ns, false, PP_OBJ_QUERY_POOL, (uint64_t)pool, (uint64_t)device);
		if (r == VK_SUCCESS && seq == pp_diag_device_last_seq(dd))
			pp_vk_diag_submit_waited(dev, key, frame);
	}
	return r;
}

VKAPI_ATTR void VKAPI_CALL pp_ResetQueryPool(VkDevice device, VkQueryPool pool, uint32_t first, uint32_t count)
{
	struct pp_device *dev = pp_vk_device_of(device);
	struct pp_diag_device *dd = pp_vk_diag_state_device(dev);
	if (dd)
		pp_diag_waits_queries_host_reset(dd, (uint64_t)pool, first, count);
	dev->vk.ResetQueryPool(device, pool, first, count);
}

/* ---- events --------------------------------------------------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL pp_GetEventStatus(VkDevice device, VkEvent event)
{
	struct pp_device *dev = pp_vk_device_of(device);
	struct pp_diag_device *dd = pp_vk_diag_state_device(dev);
	struct call_mark m = call_mark(dev, dd, VK_CALL_GET_EVENT_STATUS, "vkGetEventStatus");
	VkResult r = dev->vk.GetEventStatus(device, event);
	if (dd && r == VK_EVENT_RESET)
		poll_note(dd, PP_OBJ_EVENT, (uint64_t)event, "vkGetEventStatus", &m, __builtin_return_address(0),
			  (uint64_t)device);
	return r;
}

/* ---- timeline semaphores ------------------------------------------------------------------- */

VKAPI_ATTR VkResult VKAPI_CALL pp_CreateSemaphore(VkDevice device, const VkSemaphoreCreateInfo *info,
						  const VkAllocationCallbacks *alloc, VkSemaphore *out)
{
	struct pp_device *dev = pp_vk_device_of(device);
	VkResult r = dev->vk.CreateSemaphore(device, info, alloc, out);
	struct pp_diag_device *dd = r == VK_SUCCESS ? pp_vk_diag_state_device(dev) : NULL;
	for (const VkBaseInStructure *s = dd ? info->pNext : NULL; s; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO) {
			const VkSemaphoreTypeCreateInfo *t = (const void *)s;
			if (t->semaphoreType == VK_SEMAPHORE_TYPE_TIMELINE)
				pp_diag_waits_semaphore_create(dd, (uint64_t)*out, t->initialValue);
			break;
		}
	return r;
}

VKAPI_ATTR void VKAPI_CALL pp_DestroySemaphore(VkDevice device, VkSemaphore sem, const VkAllocationCallbacks *alloc)
{
	struct pp_device *dev = pp_vk_device_of(device);
	struct pp_diag_device *dd = sem ? pp_vk_diag_state_device(dev) : NULL;
	if (dd)
		pp_diag_waits_semaphore_destroy(dd, (uint64_t)sem);
	dev->vk.DestroySemaphore(device, sem, alloc);
}

/* The timeline values a successful submission signals, translated for the rules (they belong
 * to it). Writes up to max; returns how many there are. */
uint32_t pp_vk_blocking_diag_signals_of(uint32_t nsubmits, const VkSubmitInfo *submits, const VkSubmitInfo2 *submits2,
			       struct pp_diag_signal *out, uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t b = 0; b < nsubmits; b++) {
		if (submits2) {
			for (uint32_t i = 0; i < submits2[b].signalSemaphoreInfoCount; i++, n++)
				if (n < max)
					out[n] = (struct pp_diag_signal){
						(uint64_t)submits2[b].pSignalSemaphoreInfos[i].semaphore,
						submits2[b].pSignalSemaphoreInfos[i].value };
			continue;
		}
		const VkTimelineSemaphoreSubmitInfo *t = NULL;
		for (const VkBaseInStructure *s = submits[b].pNext; s && !t; s = s->pNext)
			if (s->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO)
				t = (const void *)s;
		for (uint32_t i = 0; t && t->pSignalSemaphoreValues && i < submits[b].signalSemaphoreCount &&
				     i < t->signalSemaphoreValueCount; i++, n++)
			if (n < max)
				out[n] = (struct pp_diag_signal){ (uint64_t)submits[b].pSignalSemaphores[i],
								  t->pSignalSemaphoreValues[i] };
	}
	return n;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *info, uint64_t timeout)
{
	struct pp_device *dev = pp_vk_device_of(device);
	void *ra = __builtin_return_address(0);
	if (pp_vk_renderdoc_foreign_caller(ra))
		return dev->vk.WaitSemaphores(device, info, timeout);
	pp_vk_renderdoc_between(dev);
	struct pp_diag_device *dd = pp_vk_diag_state_device(dev);
	struct call_mark m = call_mark(dev, dd, VK_CALL_WAIT_SEMAPHORES, "vkWaitSemaphores");
	uint32_t n = info->semaphoreCount;
	bool any = (info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) && n > 1;
	/* Waiting for all: one value of the latest frame makes it a same-frame wait. Waiting for
	 * any: only when every value is of the latest frame (an older one may end it first). */
	uint32_t ncurrent = 0, first_current = 0;
	uint64_t max_seq = 0, cur_seq = 0;
	for (uint32_t i = 0; dd && i < n; i++) {
		uint64_t seq;
		if (pp_diag_waits_semaphore_check(dd, (uint64_t)info->pSemaphores[i], info->pValues[i], &seq) ==
		    PP_WAIT_CURRENT_FRAME) {
			if (!ncurrent++) {
				first_current = i;
				cur_seq = seq;
			}
		}
		if (seq > max_seq)
			max_seq = seq;
	}
	bool current = any ? ncurrent == n : ncurrent > 0;
	uint64_t frame = m.frame, blocked_ns;
	VkResult r = BLOCKING_DOWN(dev, "vkWaitSemaphores", timeout != 0, true, &blocked_ns,
				   dev->vk.WaitSemaphores(device, info, timeout));
	if (!dd)
		return r;
	if (r == VK_SUCCESS && !any)
		for (uint32_t i = 0; i < n; i++)
			pp_diag_waits_semaphore_reached(dd, (uint64_t)info->pSemaphores[i], info->pValues[i]);
	if (timeout == 0) {
		/* A zero timeout is a status poll. */
		for (uint32_t i = 0; r == VK_TIMEOUT && i < n; i++)
			poll_note(dd, PP_OBJ_SEMAPHORE, (uint64_t)info->pSemaphores[i], "vkWaitSemaphores (timeout 0)", &m, ra,
				  (uint64_t)device);
		return r;
	}
	if (current) {
		char detail[160];
		snprintf(detail, sizeof(detail), "(value %llu of semaphore 0x%llx, signalled by submission %llu, frame %llu)",
			 (unsigned long long)info->pValues[first_current],
			 (unsigned long long)info->pSemaphores[first_current], (unsigned long long)cur_seq,
			 (unsigned long long)frame);
		uint64_t key = blocking_report(dd, PP_DIAG_SEMAPHORE_WAIT, "vkWaitSemaphores", &m, ra, detail, blocked_ns, true,
					       PP_OBJ_SEMAPHORE, (uint64_t)info->pSemaphores[first_current],
					       (uint64_t)device);
		if (r == VK_SUCCESS && max_seq == pp_diag_device_last_seq(dd))
			pp_vk_diag_submit_waited(dev, key, frame);
	}
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_SignalSemaphore(VkDevice device, const VkSemaphoreSignalInfo *info)
{
	struct pp_device *dev = pp_vk_device_of(device);
	VkResult r = dev->vk.SignalSemaphore(device, info);
	struct pp_diag_device *dd = r == VK_SUCCESS ? pp_vk_diag_state_device(dev) : NULL;
	if (dd)
		pp_diag_waits_semaphore_signal(dd, (uint64_t)info->semaphore, info->value, true);
	return r;
}

VKAPI_ATTR VkResult VKAPI_CALL pp_GetSemaphoreCounterValue(VkDevice device, VkSemaphore sem, uint64_t *value)
{
	struct pp_device *dev = pp_vk_device_of(device);
	struct pp_diag_device *dd = pp_vk_diag_state_device(dev);
	struct call_mark m = call_mark(dev, dd, VK_CALL_GET_SEMAPHORE_COUNTER_VALUE, "vkGetSemaphoreCounterValue");
	VkResult r = dev->vk.GetSemaphoreCounterValue(device, sem, value);
	/* Below a value a submission signals: the GPU has not got there yet. */
	if (dd && r == VK_SUCCESS && pp_diag_waits_semaphore_reached(dd, (uint64_t)sem, *value))
		poll_note(dd, PP_OBJ_SEMAPHORE, (uint64_t)sem, "vkGetSemaphoreCounterValue", &m,
			  __builtin_return_address(0), (uint64_t)device);
	return r;
}
