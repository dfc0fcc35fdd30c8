/* A pass-through test layer that counts calls. Built twice from this source: as
 * VK_LAYER_PASSPROBE_test_spy_above (placed between the application and passprobe, it counts
 * what the application calls) and VK_LAYER_PASSPROBE_test_spy_below (placed between passprobe
 * and the driver, it counts what reaches the driver). SPY_LAYER_NAME and SPY_OUTPUT_ENV come
 * from the build. Output: JSON lines appended to the file named by $SPY_OUTPUT_ENV, one per
 * vkDestroyDevice ("event":"device") and one at process exit ("event":"exit"). A test in the
 * same process can also read the counts directly (spy_counts.h).
 *
 * The exit line also holds "results": for every hooked function that returns a VkResult, how
 * often each result came back ({"vkQueueSubmit":{"0":12,"-4":1}}), so a test can compare what
 * the application got above passprobe with what the driver returned below it.
 *
 * Fault injection (tests/reliability): $SPY_FAIL_ENV is a comma-separated list of
 * vkFunction:RESULT[@N[+]]; the spy then returns RESULT for that function without calling
 * down: on every call, on the Nth call only (@N), or on the Nth and every later one (@N+).
 * RESULT is a VkResult name with or without VK_ / VK_ERROR_ (DEVICE_LOST,
 * VK_ERROR_OUT_OF_DEVICE_MEMORY) or a number. Any function of SPY_RESULT_FUNCS can fail.
 *
 * Hidden device extensions (tests of passprobe without an optional extension):
 * $SPY_HIDE_ENV is a comma-separated list of device extension names. The spy leaves them out
 * of vkEnumerateDeviceExtensionProperties for the layers and the application above it, and,
 * as a driver without them would, fails a vkCreateDevice that enables one with
 * VK_ERROR_EXTENSION_NOT_PRESENT (said on stderr). Hiding VK_EXT_host_query_reset hides host
 * query reset altogether, the Vulkan 1.2 feature too: vkGetPhysicalDeviceFeatures2[KHR]
 * report hostQueryReset = VK_FALSE, and a vkCreateDevice that enables it fails with
 * VK_ERROR_FEATURE_NOT_PRESENT (passprobe's GPU-side query reset, docs/timing.md).
 *
 * Hidden functions (tests of a layer above whose chain lacks a command): $SPY_HIDE_FUNCS_ENV
 * is a comma-separated list of vkFunction names. The spy's vkGetDeviceProcAddr answers NULL
 * for them, as a driver without them does, and so does its vkGetInstanceProcAddr, except for
 * the device commands of VK_EXT_debug_utils, which the loader's own vkGetInstanceProcAddr
 * answers whether or not a driver has them (its terminators then do nothing). The list is
 * read at every vkCreateDevice, so one process can walk many functions, a device each.
 *
 * RenderDoc's pattern: with $SPY_NULL_INSTANCE_ENV set to 1, the spy's vkCreateDevice fetches
 * the next layer's vkCreateDevice with vkGetInstanceProcAddr(VK_NULL_HANDLE, ...), as
 * RenderDoc's capture layer and the loader's layer-interface examples do. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vulkan/vk_layer.h>

#include "spy_counts.h"
#include "spy_perf_query.h"
#include "vk_functions.h"

#ifndef SPY_LAYER_NAME
#error "SPY_LAYER_NAME must be defined by the build"
#endif
#ifndef SPY_OUTPUT_ENV
#error "SPY_OUTPUT_ENV must be defined by the build"
#endif
#ifndef SPY_FAIL_ENV
#error "SPY_FAIL_ENV must be defined by the build"
#endif
#ifndef SPY_HIDE_ENV
#error "SPY_HIDE_ENV must be defined by the build"
#endif
#ifndef SPY_HIDE_FUNCS_ENV
#error "SPY_HIDE_FUNCS_ENV must be defined by the build"
#endif
#ifndef SPY_NULL_INSTANCE_ENV
#error "SPY_NULL_INSTANCE_ENV must be defined by the build"
#endif

#define SPY_EXPORT __attribute__((visibility("default")))

/* X(member): the device functions the spy hooks (spy_<member>) and calls down to. Their names
 * and aliases are passprobe's (PP_VK_DEVICE_FUNCTIONS, layer/vulkan/vk_functions.h): a hook
 * is handed out under both, and the alias is loaded where the first name answers NULL. */
#define SPY_DEVICE_HOOKS(X) \
	X(DestroyDevice)              \
	X(WaitForFences)              \
	X(QueueWaitIdle)              \
	X(DeviceWaitIdle)             \
	X(GetQueryPoolResults)        \
	X(GetSemaphoreCounterValue)   \
	X(WaitSemaphores)             \
	X(QueueSubmit)                \
	X(QueueSubmit2)               \
	X(CmdWriteTimestamp)          \
	X(CmdWriteTimestamp2)         \
	X(CmdBeginQuery)              \
	X(CmdResetQueryPool)          \
	X(CmdCopyQueryPoolResults)    \
	X(CreateQueryPool)            \
	X(DestroyQueryPool)           \
	X(ResetQueryPool)             \
	X(AllocateCommandBuffers)     \
	X(CreateCommandPool)          \
	X(ResetCommandPool)           \
	X(BeginCommandBuffer)         \
	X(EndCommandBuffer)           \
	X(ResetCommandBuffer)         \
	X(CreateRenderPass)           \
	X(CreateRenderPass2)          \
	X(CreateFramebuffer)          \
	X(CreateImage)                \
	X(CreateImageView)            \
	X(SetDebugUtilsObjectNameEXT) \
	X(QueuePresentKHR)            \
	X(AllocateMemory)             \
	X(CreateFence)                \
	X(CmdEndQuery)                \
	X(CmdDraw)                    \
	X(CmdDrawIndexed)

struct spy_instance {
	void *key;
	VkInstance handle;
	PFN_vkGetInstanceProcAddr gipa;
	PFN_vkDestroyInstance DestroyInstance;
	PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
	PFN_vkGetPhysicalDeviceFeatures2 GetPhysicalDeviceFeatures2, GetPhysicalDeviceFeatures2KHR;
	struct spy_instance *next;
};

struct spy_device {
	void *key;
	VkDevice handle;
	uint32_t serial;
	PFN_vkGetDeviceProcAddr GetDeviceProcAddr;
#define SPY_DECLARE_PFN(member) PFN_vk##member member;
	SPY_DEVICE_HOOKS(SPY_DECLARE_PFN)
#undef SPY_DECLARE_PFN
	struct spy_device_record rec;
	struct spy_device *next;
};

/* Each hook has exactly the prototype of the Vulkan function it stands in for. */
#define SPY_DECLARE_HOOK(member) static __typeof__(vk##member) spy_##member;
SPY_DEVICE_HOOKS(SPY_DECLARE_HOOK)
#undef SPY_DECLARE_HOOK

/* The names of passprobe's list, for the aliases of the functions the spy hooks. */
static const struct {
	const char *name, *alias;
} g_names[] = {
#define SPY_NAMES(member, alias, kind) { "vk" #member, alias },
	PP_VK_DEVICE_FUNCTIONS(SPY_NAMES)
#undef SPY_NAMES
};

/* The alias of a function named by its first name; NULL if it has none. */
static const char *name_alias(const char *name)
{
	for (size_t i = 0; i < sizeof(g_names) / sizeof(g_names[0]); i++)
		if (!strcmp(g_names[i].name, name))
			return g_names[i].alias;
	return NULL;
}

/* The first name of the function name names (name itself unless it is an alias). */
static const char *name_first(const char *name)
{
	for (size_t i = 0; i < sizeof(g_names) / sizeof(g_names[0]); i++)
		if (g_names[i].alias && !strcmp(g_names[i].alias, name))
			return g_names[i].name;
	return name;
}

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct spy_instance *g_instances;
static struct spy_device *g_devices;
static uint32_t g_device_serial;
static uint64_t g_totals[SPY_COUNTER_COUNT];
static bool g_used;

static inline void *dispatch_key(const void *handle)
{
	return *(void *const *)handle;
}

static struct spy_instance *instance_find(const void *handle)
{
	void *key = dispatch_key(handle);
	pthread_mutex_lock(&g_lock);
	struct spy_instance *i = g_instances;
	while (i && i->key != key)
		i = i->next;
	pthread_mutex_unlock(&g_lock);
	return i;
}

static struct spy_device *device_find(const void *handle)
{
	void *key = dispatch_key(handle);
	pthread_mutex_lock(&g_lock);
	struct spy_device *d = g_devices;
	while (d && d->key != key)
		d = d->next;
	pthread_mutex_unlock(&g_lock);
	return d;
}

/* A device call for a device the spy never saw created: the chain is broken, and a test
 * layer must say so loudly rather than guess where to call down. */
static struct spy_device *device_get(const void *handle, const char *fn)
{
	struct spy_device *d = device_find(handle);
	if (!d) {
		fprintf(stderr, "%s: %s on an unknown device\n", SPY_LAYER_NAME, fn);
		abort();
	}
	return d;
}

static void count(struct spy_device *d, enum spy_counter c)
{
	__atomic_add_fetch(&d->rec.counts[c], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&g_totals[c], 1, __ATOMIC_RELAXED);
}

/* ---- results and fault injection ---------------------------------------------------------- */

/* X(enum suffix, key): every hooked function that returns a VkResult. The key is the name in
 * "results" and in $SPY_FAIL_ENV; vkGetQueryPoolResults is split as in the counters. */
#define SPY_RESULT_FUNCS(X)                                                              \
	X(CREATE_DEVICE, "vkCreateDevice")                                               \
	X(WAIT_FOR_FENCES, "vkWaitForFences")                                            \
	X(QUEUE_WAIT_IDLE, "vkQueueWaitIdle")                                            \
	X(DEVICE_WAIT_IDLE, "vkDeviceWaitIdle")                                          \
	X(QUERY_RESULTS_WAIT, "vkGetQueryPoolResults_wait")                              \
	X(QUERY_RESULTS_NOWAIT, "vkGetQueryPoolResults_nowait")                          \
	X(SEMAPHORE_COUNTER_VALUE, "vkGetSemaphoreCounterValue")                         \
	X(WAIT_SEMAPHORES, "vkWaitSemaphores")                                           \
	X(QUEUE_SUBMIT, "vkQueueSubmit")                                                 \
	X(QUEUE_SUBMIT2, "vkQueueSubmit2")                                               \
	X(CREATE_QUERY_POOL, "vkCreateQueryPool")                                        \
	X(ALLOCATE_COMMAND_BUFFERS, "vkAllocateCommandBuffers")                          \
	X(CREATE_COMMAND_POOL, "vkCreateCommandPool")                                    \
	X(RESET_COMMAND_POOL, "vkResetCommandPool")                                      \
	X(BEGIN_COMMAND_BUFFER, "vkBeginCommandBuffer")                                  \
	X(END_COMMAND_BUFFER, "vkEndCommandBuffer")                                      \
	X(RESET_COMMAND_BUFFER, "vkResetCommandBuffer")                                  \
	X(CREATE_RENDER_PASS, "vkCreateRenderPass")                                      \
	X(CREATE_RENDER_PASS2, "vkCreateRenderPass2")                                    \
	X(CREATE_FRAMEBUFFER, "vkCreateFramebuffer")                                     \
	X(CREATE_IMAGE, "vkCreateImage")                                                 \
	X(CREATE_IMAGE_VIEW, "vkCreateImageView")                                        \
	X(SET_OBJECT_NAME, "vkSetDebugUtilsObjectNameEXT")                               \
	X(QUEUE_PRESENT, "vkQueuePresentKHR")                                            \
	X(ALLOCATE_MEMORY, "vkAllocateMemory")                                           \
	X(CREATE_FENCE, "vkCreateFence")

enum spy_fn {
#define SPY_FN_ENUM(e, key) SPY_FN_##e,
	SPY_RESULT_FUNCS(SPY_FN_ENUM)
#undef SPY_FN_ENUM
	SPY_FN_COUNT
};

static const char *const g_fn_keys[] = {
#define SPY_FN_KEY(e, key) key,
	SPY_RESULT_FUNCS(SPY_FN_KEY)
#undef SPY_FN_KEY
};

/* Distinct results kept per function; more than this many different codes for one function
 * are counted under the last slot's code being 0x7fffffff ("other"). */
#define SPY_RESULT_SLOTS 8

struct spy_result_slot {
	int32_t code;
	uint64_t count;
};

/* under g_lock */
static struct spy_result_slot g_results[SPY_FN_COUNT][SPY_RESULT_SLOTS];
static uint32_t g_nresults[SPY_FN_COUNT];

static VkResult result_note(enum spy_fn f, VkResult r)
{
	pthread_mutex_lock(&g_lock);
	struct spy_result_slot *slots = g_results[f];
	uint32_t i = 0;
	while (i < g_nresults[f] && slots[i].code != (int32_t)r)
		i++;
	if (i == g_nresults[f]) {
		if (i == SPY_RESULT_SLOTS)
			i--, slots[i].code = 0x7fffffff;
		else
			slots[i].code = (int32_t)r, g_nresults[f]++;
	}
	slots[i].count++;
	pthread_mutex_unlock(&g_lock);
	return r;
}

struct spy_fault {
	enum spy_fn fn;
	VkResult result;
	uint64_t from, to; /* 1-based call numbers; 0 = unbounded */
	uint64_t calls;    /* atomic */
};

#define SPY_MAX_FAULTS 16
static struct spy_fault g_faults[SPY_MAX_FAULTS];
static uint32_t g_nfaults;
static pthread_once_t g_faults_once = PTHREAD_ONCE_INIT;

static bool result_parse(const char *s, VkResult *out)
{
	static const struct {
		const char *name;
		VkResult r;
	} names[] = {
		{ "SUCCESS", VK_SUCCESS },
		{ "NOT_READY", VK_NOT_READY },
		{ "TIMEOUT", VK_TIMEOUT },
		{ "INCOMPLETE", VK_INCOMPLETE },
		{ "OUT_OF_HOST_MEMORY", VK_ERROR_OUT_OF_HOST_MEMORY },
		{ "OUT_OF_DEVICE_MEMORY", VK_ERROR_OUT_OF_DEVICE_MEMORY },
		{ "INITIALIZATION_FAILED", VK_ERROR_INITIALIZATION_FAILED },
		{ "DEVICE_LOST", VK_ERROR_DEVICE_LOST },
		{ "MEMORY_MAP_FAILED", VK_ERROR_MEMORY_MAP_FAILED },
		{ "FEATURE_NOT_PRESENT", VK_ERROR_FEATURE_NOT_PRESENT },
		{ "TOO_MANY_OBJECTS", VK_ERROR_TOO_MANY_OBJECTS },
		{ "UNKNOWN", VK_ERROR_UNKNOWN },
		{ "OUT_OF_DATE_KHR", VK_ERROR_OUT_OF_DATE_KHR },
	};
	if (!strncmp(s, "VK_", 3))
		s += 3;
	if (!strncmp(s, "ERROR_", 6))
		s += 6;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			*out = names[i].r;
			return true;
		}
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*out = (VkResult)v;
	return true;
}

/* A malformed specification is a broken test: say so and stop. */
static void faults_parse(void)
{
	const char *env = getenv(SPY_FAIL_ENV);
	if (!env || !*env)
		return;
	char buf[1024];
	snprintf(buf, sizeof(buf), "%s", env);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		char *at = colon ? strchr(colon, '@') : NULL;
		if (!colon || g_nfaults == SPY_MAX_FAULTS)
			goto bad;
		*colon = '\0';
		if (at)
			*at = '\0';
		struct spy_fault *f = &g_faults[g_nfaults];
		memset(f, 0, sizeof(*f));
		f->fn = SPY_FN_COUNT;
		for (unsigned i = 0; i < SPY_FN_COUNT; i++)
			if (!strcmp(tok, g_fn_keys[i]))
				f->fn = (enum spy_fn)i;
		if (f->fn == SPY_FN_COUNT || !result_parse(colon + 1, &f->result))
			goto bad;
		if (at) {
			char *end;
			unsigned long long n = strtoull(at + 1, &end, 10);
			if (!n || (*end && strcmp(end, "+")))
				goto bad;
			f->from = n;
			f->to = *end ? 0 : n;
		}
		g_nfaults++;
	}
	return;
bad:
	fprintf(stderr, "%s: bad %s=%s (expected vkFunction:RESULT[@N[+]],...)\n", SPY_LAYER_NAME, SPY_FAIL_ENV, env);
	abort();
}

/* Whether this call of fn is to fail, and with what. */
static bool fault(enum spy_fn fn, VkResult *out)
{
	pthread_once(&g_faults_once, faults_parse);
	for (uint32_t i = 0; i < g_nfaults; i++) {
		struct spy_fault *f = &g_faults[i];
		if (f->fn != fn)
			continue;
		uint64_t n = __atomic_add_fetch(&f->calls, 1, __ATOMIC_RELAXED);
		if ((!f->from || n >= f->from) && (!f->to || n <= f->to)) {
			*out = f->result;
			return true;
		}
	}
	return false;
}

/* CALL_DOWN(fn, expression): the driver's result, or the injected one. */
#define CALL_DOWN(fn, expr)                             \
	do {                                            \
		VkResult spy_r_;                        \
		if (!fault(SPY_FN_##fn, &spy_r_))       \
			spy_r_ = (expr);                \
		return result_note(SPY_FN_##fn, spy_r_); \
	} while (0)

/* ---- hidden device extensions ------------------------------------------------------------- */

#define SPY_MAX_HIDDEN 8
static char g_hidden[SPY_MAX_HIDDEN][VK_MAX_EXTENSION_NAME_SIZE];
static uint32_t g_nhidden;
static pthread_once_t g_hidden_once = PTHREAD_ONCE_INIT;

/* A malformed list is a broken test, as for $SPY_FAIL_ENV: say so and stop. A name that does
 * not look like an extension name (a typo of the variable's syntax) would otherwise hide
 * nothing and let the test pass for the wrong reason. */
static void hidden_parse(void)
{
	const char *env = getenv(SPY_HIDE_ENV);
	if (!env || !*env)
		return;
	char buf[1024];
	if (strlen(env) >= sizeof(buf))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", env);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (g_nhidden == SPY_MAX_HIDDEN || strncmp(tok, "VK_", 3) || strlen(tok) >= VK_MAX_EXTENSION_NAME_SIZE ||
		    strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != strlen(tok))
			goto bad;
		snprintf(g_hidden[g_nhidden++], VK_MAX_EXTENSION_NAME_SIZE, "%s", tok);
	}
	if (g_nhidden)
		return;
bad:
	fprintf(stderr, "%s: bad %s=%s (expected VK_extension_name,... at most %d)\n", SPY_LAYER_NAME, SPY_HIDE_ENV,
		env, SPY_MAX_HIDDEN);
	abort();
}

static bool hidden(const char *name)
{
	pthread_once(&g_hidden_once, hidden_parse);
	for (uint32_t i = 0; i < g_nhidden; i++)
		if (!strcmp(g_hidden[i], name))
			return true;
	return false;
}

/* The next layer's (or the driver's) list, without the hidden extensions, with the usual
 * count/fill protocol: props NULL gives the count; otherwise at most *n are written, *n is
 * set to how many were, and VK_INCOMPLETE says some did not fit. */
static VkResult hidden_filter(PFN_vkEnumerateDeviceExtensionProperties down, VkPhysicalDevice pd, const char *layer,
			      uint32_t *n, VkExtensionProperties *props)
{
	pthread_once(&g_hidden_once, hidden_parse);
	if (!g_nhidden)
		return down(pd, layer, n, props);
	VkExtensionProperties *all = NULL;
	uint32_t total = 0;
	VkResult r;
	do { /* the list cannot grow between the calls, but VK_INCOMPLETE is the protocol's answer if it did */
		free(all);
		all = NULL;
		r = down(pd, layer, &total, NULL);
		if (r != VK_SUCCESS)
			return r;
		if (!total)
			break;
		all = calloc(total, sizeof(*all));
		if (!all)
			return VK_ERROR_OUT_OF_HOST_MEMORY;
		r = down(pd, layer, &total, all);
	} while (r == VK_INCOMPLETE);
	if (r != VK_SUCCESS) {
		free(all);
		return r;
	}
	uint32_t kept = 0, written = 0;
	for (uint32_t i = 0; i < total; i++) {
		if (hidden(all[i].extensionName))
			continue;
		if (props && written < *n)
			props[written++] = all[i];
		kept++;
	}
	free(all);
	*n = props ? written : kept;
	return props && written < kept ? VK_INCOMPLETE : VK_SUCCESS;
}

/* ---- hidden functions ----------------------------------------------------------------------- */

/* The list as last read (at vkCreateDevice), one string "vkA,vkB,..."; under g_lock. */
static char *g_hidden_funcs;

static void hidden_funcs_read(void)
{
	const char *env = getenv(SPY_HIDE_FUNCS_ENV);
	char *copy = env && *env ? strdup(env) : NULL;
	if (env && *env && !copy)
		abort(); /* a test layer: an out-of-memory here must not go unnoticed */
	pthread_mutex_lock(&g_lock);
	free(g_hidden_funcs);
	g_hidden_funcs = copy;
	pthread_mutex_unlock(&g_lock);
}

static bool hidden_func(const char *name)
{
	bool found = false;
	size_t n = strlen(name);
	pthread_mutex_lock(&g_lock);
	for (const char *p = g_hidden_funcs; p && *p && !found;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		found = len == n && !strncmp(p, name, n);
		p = comma ? comma + 1 : NULL;
	}
	pthread_mutex_unlock(&g_lock);
	return found;
}

/* What the loader's vkGetInstanceProcAddr answers without any driver support. */
static bool loader_answers_at_instance_level(const char *name)
{
	return !strncmp(name, "vkSetDebugUtilsObject", 21) || strstr(name, "DebugUtilsLabelEXT");
}

/* ---- output ------------------------------------------------------------------------------ */

struct spy_buf {
	char text[32768];
	size_t len;
};

__attribute__((format(printf, 2, 3))) static void buf_add(struct spy_buf *b, const char *fmt, ...)
{
	va_list ap;
	if (b->len >= sizeof(b->text))
		return;
	va_start(ap, fmt);
	int n = vsnprintf(b->text + b->len, sizeof(b->text) - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
	if (b->len >= sizeof(b->text))
		b->len = sizeof(b->text) - 1;
}

static void buf_add_counts(struct spy_buf *b, const uint64_t *counts)
{
	for (unsigned c = 0; c < SPY_COUNTER_COUNT; c++)
		buf_add(b, ",\"%s\":%llu", spy_counter_name(c),
			(unsigned long long)__atomic_load_n(&counts[c], __ATOMIC_RELAXED));
}

/* ,"results":{"vkFn":{"code":count,...},...}: functions never called are left out. */
static void buf_add_results(struct spy_buf *b)
{
	pthread_mutex_lock(&g_lock);
	buf_add(b, ",\"results\":{");
	bool first = true;
	for (unsigned f = 0; f < SPY_FN_COUNT; f++) {
		if (!g_nresults[f])
			continue;
		buf_add(b, "%s\"%s\":{", first ? "" : ",", g_fn_keys[f]);
		first = false;
		for (uint32_t i = 0; i < g_nresults[f]; i++)
			buf_add(b, "%s\"%d\":%llu", i ? "," : "", (int)g_results[f][i].code,
				(unsigned long long)g_results[f][i].count);
		buf_add(b, "}");
	}
	buf_add(b, "}");
	pthread_mutex_unlock(&g_lock);
}

static void buf_add_string(struct spy_buf *b, const char *s)
{
	buf_add(b, "\"");
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			buf_add(b, "\\%c", ch);
		else if (ch < 0x20)
			buf_add(b, "\\u%04x", ch);
		else
			buf_add(b, "%c", ch);
	}
	buf_add(b, "\"");
}

/* One write() per line, O_APPEND: lines of concurrent processes never interleave. */
static void output_line(struct spy_buf *b)
{
	const char *path = getenv(SPY_OUTPUT_ENV);
	if (!path || !*path)
		return;
	buf_add(b, "}\n");
	if (b->text[b->len - 1] != '\n') /* truncated: keep the line a line */
		b->text[b->len - 1] = '\n';
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s=%s\n", SPY_LAYER_NAME, SPY_OUTPUT_ENV, path);
		return;
	}
	if (write(fd, b->text, b->len) != (ssize_t)b->len)
		fprintf(stderr, "%s: short write to %s\n", SPY_LAYER_NAME, path);
	close(fd);
}

static void output_device(const struct spy_device *d)
{
	static struct spy_buf b; /* under g_lock: 32 KiB stays off the application's stack */
	const struct spy_create_record *cr = &d->rec.create;
	b.len = 0;
	buf_add(&b, "{\"layer\":\"%s\",\"event\":\"device\",\"pid\":%ld,\"device\":%u", SPY_LAYER_NAME,
		(long)getpid(), d->serial);
	buf_add_counts(&b, d->rec.counts);
	buf_add(&b, ",\"hostQueryReset\":%s,\"pipelineStatisticsQuery\":%s,\"pEnabledFeatures\":%s,"
		    "\"features2\":%s,\"chain\":%u,\"extensions\":[",
		cr->host_query_reset ? "true" : "false", cr->pipeline_statistics_query ? "true" : "false",
		cr->enabled_features_ptr ? "true" : "false", cr->features2_in_chain ? "true" : "false",
		cr->chain_length);
	for (uint32_t i = 0; i < cr->nextensions; i++) {
		if (i)
			buf_add(&b, ",");
		buf_add_string(&b, cr->extensions[i]);
	}
	buf_add(&b, "]");
	output_line(&b);
}

/* The library is linked -z nodelete: this runs once, at process exit. */
__attribute__((destructor)) static void spy_fini(void)
{
	static struct spy_buf b;
	if (!__atomic_load_n(&g_used, __ATOMIC_RELAXED))
		return;
	b.len = 0;
	buf_add(&b, "{\"layer\":\"%s\",\"event\":\"exit\",\"pid\":%ld,\"devices\":%u", SPY_LAYER_NAME,
		(long)getpid(), g_device_serial);
	buf_add_counts(&b, g_totals);
	buf_add_results(&b);
	output_line(&b);
}

/* ---- in-process access for tests ---------------------------------------------------------- */

SPY_EXPORT uint32_t passprobe_spy_totals(uint64_t *counts, uint32_t n)
{
	for (uint32_t c = 0; c < n && c < SPY_COUNTER_COUNT; c++)
		counts[c] = __atomic_load_n(&g_totals[c], __ATOMIC_RELAXED);
	return SPY_COUNTER_COUNT;
}

SPY_EXPORT int passprobe_spy_device(VkDevice device, struct spy_device_record *out)
{
	struct spy_device *d = device ? device_find(device) : NULL;
	if (!d)
		return -1;
	out->create = d->rec.create;
	for (unsigned c = 0; c < SPY_COUNTER_COUNT; c++)
		out->counts[c] = __atomic_load_n(&d->rec.counts[c], __ATOMIC_RELAXED);
	return 0;
}

/* ---- counted device functions --------------------------------------------------------------- */

static VKAPI_ATTR VkResult VKAPI_CALL spy_WaitForFences(VkDevice device, uint32_t n, const VkFence *fences,
							 VkBool32 all, uint64_t timeout)
{
	struct spy_device *d = device_get(device, __func__);
	count(d, SPY_WAIT_FOR_FENCES);
	CALL_DOWN(WAIT_FOR_FENCES, d->WaitForFences(device, n, fences, all, timeout));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_QueueWaitIdle(VkQueue queue)
{
	struct spy_device *d = device_get(queue, __func__);
	count(d, SPY_QUEUE_WAIT_IDLE);
	CALL_DOWN(QUEUE_WAIT_IDLE, d->QueueWaitIdle(queue));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_DeviceWaitIdle(VkDevice device)
{
	struct spy_device *d = device_get(device, __func__);
	count(d, SPY_DEVICE_WAIT_IDLE);
	CALL_DOWN(DEVICE_WAIT_IDLE, d->DeviceWaitIdle(device));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_GetQueryPoolResults(VkDevice device, VkQueryPool pool, uint32_t first,
							       uint32_t n, size_t size, void *data, VkDeviceSize stride,
							       VkQueryResultFlags flags)
{
	struct spy_device *d = device_get(device, __func__);
	VkResult perf_r;
	if (spy_perf_results(pool, first, n, size, data, stride, flags, &perf_r))
		return perf_r;
	if (flags & VK_QUERY_RESULT_WAIT_BIT) {
		count(d, SPY_QUERY_RESULTS_WAIT);
		CALL_DOWN(QUERY_RESULTS_WAIT, d->GetQueryPoolResults(device, pool, first, n, size, data, stride, flags));
	}
	count(d, SPY_QUERY_RESULTS_NOWAIT);
	CALL_DOWN(QUERY_RESULTS_NOWAIT, d->GetQueryPoolResults(device, pool, first, n, size, data, stride, flags));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_GetSemaphoreCounterValue(VkDevice device, VkSemaphore sem, uint64_t *value)
{
	struct spy_device *d = device_get(device, __func__);
	count(d, SPY_SEMAPHORE_COUNTER_VALUE);
	CALL_DOWN(SEMAPHORE_COUNTER_VALUE, d->GetSemaphoreCounterValue(device, sem, value));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo *info,
							  uint64_t timeout)
{
	struct spy_device *d = device_get(device, __func__);
	count(d, SPY_WAIT_SEMAPHORES);
	CALL_DOWN(WAIT_SEMAPHORES, d->WaitSemaphores(device, info, timeout));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_QueueSubmit(VkQueue queue, uint32_t n, const VkSubmitInfo *submits,
						       VkFence fence)
{
	struct spy_device *d = device_get(queue, __func__);
	count(d, SPY_QUEUE_SUBMIT);
	for (uint32_t i = 0; spy_perf_on() && i < n; i++)
		spy_perf_submitted(submits[i].commandBufferCount, submits[i].pCommandBuffers);
	CALL_DOWN(QUEUE_SUBMIT, d->QueueSubmit(queue, n, submits, fence));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_QueueSubmit2(VkQueue queue, uint32_t n, const VkSubmitInfo2 *submits,
							VkFence fence)
{
	struct spy_device *d = device_get(queue, __func__);
	count(d, SPY_QUEUE_SUBMIT2);
	for (uint32_t i = 0; spy_perf_on() && i < n; i++)
		for (uint32_t k = 0; k < submits[i].commandBufferInfoCount; k++)
			spy_perf_submitted(1, &submits[i].pCommandBufferInfos[k].commandBuffer);
	CALL_DOWN(QUEUE_SUBMIT2, d->QueueSubmit2(queue, n, submits, fence));
}

static VKAPI_ATTR void VKAPI_CALL spy_CmdWriteTimestamp(VkCommandBuffer cb, VkPipelineStageFlagBits stage,
							 VkQueryPool pool, uint32_t query)
{
	struct spy_device *d = device_get(cb, __func__);
	count(d, SPY_CMD_WRITE_TIMESTAMP);
	d->CmdWriteTimestamp(cb, stage, pool, query);
}

static VKAPI_ATTR void VKAPI_CALL spy_CmdWriteTimestamp2(VkCommandBuffer cb, VkPipelineStageFlags2 stage,
							  VkQueryPool pool, uint32_t query)
{
	struct spy_device *d = device_get(cb, __func__);
	count(d, SPY_CMD_WRITE_TIMESTAMP2);
	d->CmdWriteTimestamp2(cb, stage, pool, query);
}

/* Every query command passprobe may record is counted (capture windows: none outside them).
 * Begin and end are also fed to the VK_KHR_performance_query emulation (spy_perf_query.c). */
static VKAPI_ATTR void VKAPI_CALL spy_CmdBeginQuery(VkCommandBuffer cb, VkQueryPool pool, uint32_t query,
						     VkQueryControlFlags flags)
{
	struct spy_device *d = device_get(cb, __func__);
	count(d, SPY_CMD_BEGIN_QUERY);
	if (!spy_perf_begin(cb, pool, query))
		d->CmdBeginQuery(cb, pool, query, flags);
}

static VKAPI_ATTR void VKAPI_CALL spy_CmdResetQueryPool(VkCommandBuffer cb, VkQueryPool pool, uint32_t first,
							 uint32_t count_)
{
	struct spy_device *d = device_get(cb, __func__);
	count(d, SPY_CMD_RESET_QUERY_POOL);
	d->CmdResetQueryPool(cb, pool, first, count_);
}

static VKAPI_ATTR void VKAPI_CALL spy_CmdCopyQueryPoolResults(VkCommandBuffer cb, VkQueryPool pool, uint32_t first,
							       uint32_t n, VkBuffer dst, VkDeviceSize off,
							       VkDeviceSize stride, VkQueryResultFlags flags)
{
	struct spy_device *d = device_get(cb, __func__);
	count(d, SPY_CMD_COPY_QUERY_POOL_RESULTS);
	d->CmdCopyQueryPoolResults(cb, pool, first, n, dst, off, stride, flags);
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_CreateQueryPool(VkDevice device, const VkQueryPoolCreateInfo *info,
							   const VkAllocationCallbacks *alloc, VkQueryPool *out)
{
	struct spy_device *d = device_get(device, __func__);
	count(d, SPY_CREATE_QUERY_POOL);
	VkResult perf_r;
	if (spy_perf_create_pool(info, out, &perf_r))
		return perf_r;
	CALL_DOWN(CREATE_QUERY_POOL, d->CreateQueryPool(device, info, alloc, out));
}

static VKAPI_ATTR void VKAPI_CALL spy_DestroyQueryPool(VkDevice device, VkQueryPool pool,
							const VkAllocationCallbacks *alloc)
{
	struct spy_device *d = device_get(device, __func__);
	count(d, SPY_DESTROY_QUERY_POOL);
	if (!spy_perf_destroy_pool(pool))
		d->DestroyQueryPool(device, pool, alloc);
}

static VKAPI_ATTR void VKAPI_CALL spy_ResetQueryPool(VkDevice device, VkQueryPool pool, uint32_t first, uint32_t n)
{
	struct spy_device *d = device_get(device, __func__);
	count(d, SPY_RESET_QUERY_POOL);
	if (!spy_perf_reset(pool, first, n))
		d->ResetQueryPool(device, pool, first, n);
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_AllocateCommandBuffers(VkDevice device,
								  const VkCommandBufferAllocateInfo *info,
								  VkCommandBuffer *out)
{
	struct spy_device *d = device_get(device, __func__);
	count(d, SPY_ALLOCATE_COMMAND_BUFFERS);
	CALL_DOWN(ALLOCATE_COMMAND_BUFFERS, d->AllocateCommandBuffers(device, info, out));
}

static VKAPI_ATTR void VKAPI_CALL spy_CmdEndQuery(VkCommandBuffer cb, VkQueryPool pool, uint32_t query)
{
	struct spy_device *d = device_get(cb, __func__);
	if (!spy_perf_end(cb, pool, query))
		d->CmdEndQuery(cb, pool, query);
}

static VKAPI_ATTR void VKAPI_CALL spy_CmdDraw(VkCommandBuffer cb, uint32_t vertices, uint32_t instances,
					       uint32_t first_vertex, uint32_t first_instance)
{
	struct spy_device *d = device_get(cb, __func__);
	if (spy_perf_on())
		spy_perf_draw(cb, (uint64_t)vertices * instances, 0);
	d->CmdDraw(cb, vertices, instances, first_vertex, first_instance);
}

static VKAPI_ATTR void VKAPI_CALL spy_CmdDrawIndexed(VkCommandBuffer cb, uint32_t indices, uint32_t instances,
						      uint32_t first_index, int32_t vertex_offset, uint32_t first_instance)
{
	struct spy_device *d = device_get(cb, __func__);
	if (spy_perf_on())
		spy_perf_draw(cb, 0, (uint64_t)indices * instances);
	d->CmdDrawIndexed(cb, indices, instances, first_index, vertex_offset, first_instance);
}

/* ---- functions whose results are recorded (and may be failed), not counted --------------- */

static VKAPI_ATTR VkResult VKAPI_CALL spy_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *info,
							     const VkAllocationCallbacks *alloc, VkCommandPool *out)
{
	struct spy_device *d = device_get(device, __func__);
	CALL_DOWN(CREATE_COMMAND_POOL, d->CreateCommandPool(device, info, alloc, out));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_ResetCommandPool(VkDevice device, VkCommandPool pool,
							    VkCommandPoolResetFlags flags)
{
	struct spy_device *d = device_get(device, __func__);
	CALL_DOWN(RESET_COMMAND_POOL, d->ResetCommandPool(device, pool, flags));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info)
{
	struct spy_device *d = device_get(cb, __func__);
	spy_perf_cb_reset(cb);
	CALL_DOWN(BEGIN_COMMAND_BUFFER, d->BeginCommandBuffer(cb, info));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_EndCommandBuffer(VkCommandBuffer cb)
{
	struct spy_device *d = device_get(cb, __func__);
	CALL_DOWN(END_COMMAND_BUFFER, d->EndCommandBuffer(cb));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_ResetCommandBuffer(VkCommandBuffer cb, VkCommandBufferResetFlags flags)
{
	struct spy_device *d = device_get(cb, __func__);
	spy_perf_cb_reset(cb);
	CALL_DOWN(RESET_COMMAND_BUFFER, d->ResetCommandBuffer(cb, flags));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_CreateRenderPass(VkDevice device, const VkRenderPassCreateInfo *info,
							    const VkAllocationCallbacks *alloc, VkRenderPass *out)
{
	struct spy_device *d = device_get(device, __func__);
	CALL_DOWN(CREATE_RENDER_PASS, d->CreateRenderPass(device, info, alloc, out));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_CreateRenderPass2(VkDevice device, const VkRenderPassCreateInfo2 *info,
							     const VkAllocationCallbacks *alloc, VkRenderPass *out)
{
	struct spy_device *d = device_get(device, __func__);
	CALL_DOWN(CREATE_RENDER_PASS2, d->CreateRenderPass2(device, info, alloc, out));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_CreateFramebuffer(VkDevice device, const VkFramebufferCreateInfo *info,
							     const VkAllocationCallbacks *alloc, VkFramebuffer *out)
{
	struct spy_device *d = device_get(device, __func__);
	CALL_DOWN(CREATE_FRAMEBUFFER, d->CreateFramebuffer(device, info, alloc, out));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_CreateImage(VkDevice device, const VkImageCreateInfo *info,
						       const VkAllocationCallbacks *alloc, VkImage *out)
{
	struct spy_device *d = device_get(device, __func__);
	CALL_DOWN(CREATE_IMAGE, d->CreateImage(device, info, alloc, out));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_CreateImageView(VkDevice device, const VkImageViewCreateInfo *info,
							   const VkAllocationCallbacks *alloc, VkImageView *out)
{
	struct spy_device *d = device_get(device, __func__);
	CALL_DOWN(CREATE_IMAGE_VIEW, d->CreateImageView(device, info, alloc, out));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_SetDebugUtilsObjectNameEXT(VkDevice device,
								      const VkDebugUtilsObjectNameInfoEXT *info)
{
	struct spy_device *d = device_get(device, __func__);
	CALL_DOWN(SET_OBJECT_NAME, d->SetDebugUtilsObjectNameEXT(device, info));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_QueuePresentKHR(VkQueue queue, const VkPresentInfoKHR *info)
{
	struct spy_device *d = device_get(queue, __func__);
	CALL_DOWN(QUEUE_PRESENT, d->QueuePresentKHR(queue, info));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
							  const VkAllocationCallbacks *alloc, VkDeviceMemory *out)
{
	struct spy_device *d = device_get(device, __func__);
	CALL_DOWN(ALLOCATE_MEMORY, d->AllocateMemory(device, info, alloc, out));
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_CreateFence(VkDevice device, const VkFenceCreateInfo *info,
						       const VkAllocationCallbacks *alloc, VkFence *out)
{
	struct spy_device *d = device_get(device, __func__);
	CALL_DOWN(CREATE_FENCE, d->CreateFence(device, info, alloc, out));
}

/* ---- instance and device ------------------------------------------------------------------ */

static VKAPI_ATTR VkResult VKAPI_CALL spy_CreateInstance(const VkInstanceCreateInfo *info,
							  const VkAllocationCallbacks *alloc, VkInstance *out)
{
	VkLayerInstanceCreateInfo *link = NULL;
	for (const VkBaseInStructure *s = info->pNext; s && !link; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO &&
		    ((const VkLayerInstanceCreateInfo *)s)->function == VK_LAYER_LINK_INFO)
			link = (VkLayerInstanceCreateInfo *)s;
	if (!link || !link->u.pLayerInfo)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
	if (!create)
		return VK_ERROR_INITIALIZATION_FAILED;
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	VkResult r = create(info, alloc, out);
	if (r != VK_SUCCESS)
		return r;
	struct spy_instance *i = calloc(1, sizeof(*i));
	if (!i)
		abort(); /* a test layer: an out-of-memory here must not go unnoticed */
	i->handle = *out;
	i->key = dispatch_key(*out);
	i->gipa = gipa;
	i->DestroyInstance = (PFN_vkDestroyInstance)gipa(*out, "vkDestroyInstance");
	i->EnumerateDeviceExtensionProperties =
		(PFN_vkEnumerateDeviceExtensionProperties)gipa(*out, "vkEnumerateDeviceExtensionProperties");
	i->GetPhysicalDeviceFeatures2 = (PFN_vkGetPhysicalDeviceFeatures2)gipa(*out, "vkGetPhysicalDeviceFeatures2");
	i->GetPhysicalDeviceFeatures2KHR = (PFN_vkGetPhysicalDeviceFeatures2)gipa(*out, "vkGetPhysicalDeviceFeatures2KHR");
	pthread_mutex_lock(&g_lock);
	i->next = g_instances;
	g_instances = i;
	pthread_mutex_unlock(&g_lock);
	__atomic_store_n(&g_used, true, __ATOMIC_RELAXED);
	return r;
}

static VKAPI_ATTR void VKAPI_CALL spy_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc)
{
	if (!instance)
		return;
	void *key = dispatch_key(instance);
	struct spy_instance *found = NULL;
	pthread_mutex_lock(&g_lock);
	for (struct spy_instance **p = &g_instances; *p; p = &(*p)->next)
		if ((*p)->key == key) {
			found = *p;
			*p = found->next;
			break;
		}
	pthread_mutex_unlock(&g_lock);
	if (!found)
		return;
	PFN_vkDestroyInstance destroy = found->DestroyInstance;
	free(found);
	destroy(instance, alloc);
}

static void record_create_info(struct spy_create_record *cr, const VkDeviceCreateInfo *info)
{
	memset(cr, 0, sizeof(*cr));
	if (info->pEnabledFeatures) {
		cr->enabled_features_ptr = true;
		cr->pipeline_statistics_query |= info->pEnabledFeatures->pipelineStatisticsQuery == VK_TRUE;
	}
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		switch (s->sType) {
		case VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO:
			continue;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2:
			cr->features2_in_chain = true;
			cr->pipeline_statistics_query |=
				((const VkPhysicalDeviceFeatures2 *)s)->features.pipelineStatisticsQuery == VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES:
			cr->host_query_reset |= ((const VkPhysicalDeviceVulkan12Features *)s)->hostQueryReset == VK_TRUE;
			break;
		case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES:
			cr->host_query_reset |=
				((const VkPhysicalDeviceHostQueryResetFeatures *)s)->hostQueryReset == VK_TRUE;
			break;
		default:
			break;
		}
		cr->chain_length++;
	}
	for (uint32_t i = 0; i < info->enabledExtensionCount && cr->nextensions < SPY_MAX_EXTENSIONS; i++)
		snprintf(cr->extensions[cr->nextensions++], VK_MAX_EXTENSION_NAME_SIZE, "%s",
			 info->ppEnabledExtensionNames[i]);
}

/* ---- hidden host query reset (the feature, with VK_EXT_host_query_reset) ------------------- */

static bool host_query_reset_enabled(const VkDeviceCreateInfo *info)
{
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext)
		if ((s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES &&
		     ((const VkPhysicalDeviceVulkan12Features *)s)->hostQueryReset) ||
		    (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES &&
		     ((const VkPhysicalDeviceHostQueryResetFeatures *)s)->hostQueryReset))
			return true;
	return false;
}

static void features2_filter(VkPhysicalDeviceFeatures2 *f)
{
	if (!hidden(VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME))
		return;
	for (VkBaseOutStructure *s = (VkBaseOutStructure *)f; s; s = s->pNext) {
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES)
			((VkPhysicalDeviceVulkan12Features *)s)->hostQueryReset = VK_FALSE;
		if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES)
			((VkPhysicalDeviceHostQueryResetFeatures *)s)->hostQueryReset = VK_FALSE;
	}
}

static VKAPI_ATTR void VKAPI_CALL spy_GetPhysicalDeviceFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *f)
{
	struct spy_instance *inst = instance_find(pd);
	PFN_vkGetPhysicalDeviceFeatures2 down = inst ? inst->GetPhysicalDeviceFeatures2 : NULL;
	if (down) {
		down(pd, f);
		features2_filter(f);
		if (spy_perf_on())
			spy_perf_features(f);
	}
}

static VKAPI_ATTR void VKAPI_CALL spy_GetPhysicalDeviceFeatures2KHR(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *f)
{
	struct spy_instance *inst = instance_find(pd);
	PFN_vkGetPhysicalDeviceFeatures2KHR down = inst ? inst->GetPhysicalDeviceFeatures2KHR : NULL;
	if (down) {
		down(pd, f);
		features2_filter(f);
		if (spy_perf_on())
			spy_perf_features(f);
	}
}

static VKAPI_ATTR VkResult VKAPI_CALL spy_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *info,
							const VkAllocationCallbacks *alloc, VkDevice *out)
{
	VkLayerDeviceCreateInfo *link = NULL;
	for (const VkBaseInStructure *s = info->pNext; s && !link; s = s->pNext)
		if (s->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO &&
		    ((const VkLayerDeviceCreateInfo *)s)->function == VK_LAYER_LINK_INFO)
			link = (VkLayerDeviceCreateInfo *)s;
	struct spy_instance *inst = instance_find(pd);
	if (!link || !link->u.pLayerInfo || !inst)
		return VK_ERROR_INITIALIZATION_FAILED;
	PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
	PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
	const char *null_instance = getenv(SPY_NULL_INSTANCE_ENV);
	bool renderdoc_pattern = null_instance && !strcmp(null_instance, "1");
	PFN_vkCreateDevice create =
		(PFN_vkCreateDevice)gipa(renderdoc_pattern ? VK_NULL_HANDLE : inst->handle, "vkCreateDevice");
	if (!create) {
		fprintf(stderr, "%s: the next layer answered NULL for vkCreateDevice%s\n", SPY_LAYER_NAME,
			renderdoc_pattern ? " asked with VK_NULL_HANDLE" : "");
		return VK_ERROR_INITIALIZATION_FAILED;
	}
	hidden_funcs_read();

	if (hidden(VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME) && host_query_reset_enabled(info)) {
		fprintf(stderr, "%s: vkCreateDevice enables hostQueryReset, hidden by %s\n", SPY_LAYER_NAME,
			SPY_HIDE_ENV);
		return result_note(SPY_FN_CREATE_DEVICE, VK_ERROR_FEATURE_NOT_PRESENT);
	}
	for (uint32_t i = 0; i < info->enabledExtensionCount; i++)
		if (hidden(info->ppEnabledExtensionNames[i])) {
			fprintf(stderr, "%s: vkCreateDevice enables %s, hidden by %s\n", SPY_LAYER_NAME,
				info->ppEnabledExtensionNames[i], SPY_HIDE_ENV);
			return result_note(SPY_FN_CREATE_DEVICE, VK_ERROR_EXTENSION_NOT_PRESENT);
		}
	struct spy_device *d = calloc(1, sizeof(*d));
	if (!d)
		abort();
	record_create_info(&d->rec.create, info); /* before calling down: what reached us */
	link->u.pLayerInfo = link->u.pLayerInfo->pNext;
	VkDeviceCreateInfo down_info = *info;
	const char *down_names[256];
	if (spy_perf_on())
		spy_perf_create_strip(&down_info, down_names, 256);
	VkResult r;
	if (!fault(SPY_FN_CREATE_DEVICE, &r))
		r = create(pd, &down_info, alloc, out);
	if (spy_perf_on())
		spy_perf_create_done();
	result_note(SPY_FN_CREATE_DEVICE, r);
	if (r != VK_SUCCESS) {
		free(d);
		return r;
	}
	d->handle = *out;
	d->key = dispatch_key(*out);
	d->GetDeviceProcAddr = (PFN_vkGetDeviceProcAddr)gdpa(*out, "vkGetDeviceProcAddr");
#define SPY_LOAD(member)                                                                       \
	d->member = (PFN_vk##member)gdpa(*out, "vk" #member);                                  \
	if (!d->member && name_alias("vk" #member))                                            \
		d->member = (PFN_vk##member)gdpa(*out, name_alias("vk" #member));
	SPY_DEVICE_HOOKS(SPY_LOAD)
#undef SPY_LOAD
	/* A device command of an instance extension: its hook is also handed out through
	 * vkGetInstanceProcAddr, which answers it even where the device's vkGetDeviceProcAddr does
	 * not (the application did not enable VK_EXT_debug_utils); call down where the loader's
	 * dispatch table would, through the instance chain. */
	if (!d->SetDebugUtilsObjectNameEXT)
		d->SetDebugUtilsObjectNameEXT =
			(PFN_vkSetDebugUtilsObjectNameEXT)inst->gipa(inst->handle, "vkSetDebugUtilsObjectNameEXT");
	pthread_mutex_lock(&g_lock);
	d->serial = ++g_device_serial;
	d->next = g_devices;
	g_devices = d;
	pthread_mutex_unlock(&g_lock);
	return r;
}

static VKAPI_ATTR void VKAPI_CALL spy_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc)
{
	if (!device)
		return;
	void *key = dispatch_key(device);
	struct spy_device *found = NULL;
	pthread_mutex_lock(&g_lock);
	for (struct spy_device **p = &g_devices; *p; p = &(*p)->next)
		if ((*p)->key == key) {
			found = *p;
			*p = found->next;
			break;
		}
	if (found)
		output_device(found);
	pthread_mutex_unlock(&g_lock);
	if (!found)
		return;
	PFN_vkDestroyDevice destroy = found->DestroyDevice;
	free(found);
	destroy(device, alloc);
}

/* ---- loader-facing entry points ------------------------------------------------------------- */

static const VkLayerProperties g_props = {
	.layerName = SPY_LAYER_NAME,
	.specVersion = VK_HEADER_VERSION_COMPLETE,
	.implementationVersion = 1,
	.description = "passprobe test spy: counts calls",
};

static VkResult layer_props(uint32_t *count_, VkLayerProperties *props)
{
	if (!props) {
		*count_ = 1;
		return VK_SUCCESS;
	}
	if (*count_ < 1)
		return VK_INCOMPLETE;
	*props = g_props;
	*count_ = 1;
	return VK_SUCCESS;
}

SPY_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceLayerProperties(uint32_t *n, VkLayerProperties *props)
{
	return layer_props(n, props);
}

SPY_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateDeviceLayerProperties(VkPhysicalDevice pd, uint32_t *n,
									   VkLayerProperties *props)
{
	return layer_props(n, props);
}

SPY_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceExtensionProperties(const char *layer, uint32_t *n,
										 VkExtensionProperties *props)
{
	if (layer && !strcmp(layer, SPY_LAYER_NAME)) {
		*n = 0;
		return VK_SUCCESS;
	}
	return VK_ERROR_LAYER_NOT_PRESENT;
}

SPY_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *layer,
									       uint32_t *n, VkExtensionProperties *props)
{
	if (layer && !strcmp(layer, SPY_LAYER_NAME)) {
		*n = 0;
		return VK_SUCCESS;
	}
	struct spy_instance *inst = pd ? instance_find(pd) : NULL;
	if (!inst || !inst->EnumerateDeviceExtensionProperties)
		return VK_ERROR_LAYER_NOT_PRESENT;
	if (spy_perf_on() && !layer)
		return spy_perf_extensions(hidden_filter, inst->EnumerateDeviceExtensionProperties, pd, n, props);
	return hidden_filter(inst->EnumerateDeviceExtensionProperties, pd, layer, n, props);
}

struct spy_hook {
	const char *name;
	PFN_vkVoidFunction fn;
};

#define HOOK(name, fn) { name, (PFN_vkVoidFunction)fn }
static const struct spy_hook g_instance_hooks[] = {
	HOOK("vkCreateInstance", spy_CreateInstance),
	HOOK("vkDestroyInstance", spy_DestroyInstance),
	HOOK("vkCreateDevice", spy_CreateDevice),
	HOOK("vkEnumerateInstanceLayerProperties", vkEnumerateInstanceLayerProperties),
	HOOK("vkEnumerateInstanceExtensionProperties", vkEnumerateInstanceExtensionProperties),
	HOOK("vkEnumerateDeviceLayerProperties", vkEnumerateDeviceLayerProperties),
	HOOK("vkEnumerateDeviceExtensionProperties", vkEnumerateDeviceExtensionProperties),
};

static const struct spy_hook g_device_hooks[] = {
#define SPY_HOOK_ENTRY(member) HOOK("vk" #member, spy_##member),
	SPY_DEVICE_HOOKS(SPY_HOOK_ENTRY)
#undef SPY_HOOK_ENTRY
};
#undef HOOK

static PFN_vkVoidFunction hook_find(const struct spy_hook *hooks, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(hooks[i].name, name))
			return hooks[i].fn;
	return NULL;
}

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* A device hook, under its first name or its alias. */
static PFN_vkVoidFunction device_hook_find(const char *name)
{
	return hook_find(g_device_hooks, COUNT_OF(g_device_hooks), name_first(name));
}

SPY_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name)
{
	if (!device || !name)
		return NULL;
	if (!strcmp(name, "vkGetDeviceProcAddr"))
		return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
	struct spy_device *d = device_find(device);
	if (!d || hidden_func(name))
		return NULL;
	PFN_vkVoidFunction next = d->GetDeviceProcAddr(device, name);
	if (!next && spy_perf_device_proc(name))
		return spy_perf_device_proc(name);
	PFN_vkVoidFunction hook = next ? device_hook_find(name) : NULL;
	return hook ? hook : next;
}

SPY_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name)
{
	if (!name)
		return NULL;
	if (!strcmp(name, "vkGetInstanceProcAddr"))
		return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
	if (!strcmp(name, "vkGetDeviceProcAddr"))
		return (PFN_vkVoidFunction)vkGetDeviceProcAddr;
	PFN_vkVoidFunction hook = hook_find(g_instance_hooks, COUNT_OF(g_instance_hooks), name);
	if (hook)
		return hook;
	struct spy_instance *inst = instance ? instance_find(instance) : NULL;
	if (!inst)
		return NULL;
	if (hidden_func(name) && !loader_answers_at_instance_level(name))
		return NULL;
	if (spy_perf_instance_proc(name))
		return spy_perf_instance_proc(name);
	PFN_vkVoidFunction next = inst->gipa(instance, name);
	if (next && spy_perf_on() && !strcmp(name, "vkGetPhysicalDeviceFeatures2"))
		return (PFN_vkVoidFunction)spy_GetPhysicalDeviceFeatures2;
	if (next && spy_perf_on() && !strcmp(name, "vkGetPhysicalDeviceFeatures2KHR"))
		return (PFN_vkVoidFunction)spy_GetPhysicalDeviceFeatures2KHR;
	if (spy_perf_on() && spy_perf_device_proc(name))
		return spy_perf_device_proc(name);
	/* Only while host query reset is hidden, and where the chain below has the function. */
	if (next && hidden(VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME) && !strcmp(name, "vkGetPhysicalDeviceFeatures2"))
		return (PFN_vkVoidFunction)spy_GetPhysicalDeviceFeatures2;
	if (next && hidden(VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME) && !strcmp(name, "vkGetPhysicalDeviceFeatures2KHR"))
		return (PFN_vkVoidFunction)spy_GetPhysicalDeviceFeatures2KHR;
	hook = next ? device_hook_find(name) : NULL;
	return hook ? hook : next;
}

SPY_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v)
{
	if (!v || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT)
		return VK_ERROR_INITIALIZATION_FAILED;
	if (v->loaderLayerInterfaceVersion >= 2) {
		v->pfnGetInstanceProcAddr = vkGetInstanceProcAddr;
		v->pfnGetDeviceProcAddr = vkGetDeviceProcAddr;
		v->pfnGetPhysicalDeviceProcAddr = NULL;
		v->loaderLayerInterfaceVersion = 2;
	}
	return VK_SUCCESS;
}
