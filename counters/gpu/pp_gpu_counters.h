#pragma once
/* One interface for every GPU counter backend (docs/counters.md, "Backends").
 *
 * A backend enumerates the counters it can measure, is configured with a set of them, and
 * measures that set in one of two ways:
 *   - bracketing a scope on the GPU timeline: commands it records into the application's
 *     command stream at pass boundaries (timestamps, pipeline statistics queries,
 *     VK_KHR_performance_query), read later without waiting;
 *   - sampling: time-stamped samples of free-running hardware counters (Mali kbase), taken at
 *     submission boundaries and on a period, off the application's threads; the model
 *     attributes them to passes by time overlap (attr_overlap.h).
 *
 * API-neutral (no Vulkan or GL type): a command stream is an opaque pointer, the API's
 * command buffer handle. Knows nothing of passes or frames. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one counter is. Every string is static or interned (pp_gpu_counters_intern): a
 * description outlives the device it came from, since frames carrying it may still be queued
 * for the sinks. */
struct pp_gpu_counter_desc {
	const char *source;      /* the backend: "timestamps", "pipeline_statistics",
	                            "VK_KHR_performance_query", "mali_kbase" */
	const char *name;        /* unique within its source */
	const char *unit;        /* "ns", "invocations", "cycles", "bytes", "%", ... */
	const char *block;       /* hardware block ("shader core", "tiler", ...) or "" */
	double scale;            /* raw value x scale = the value reported (1 for most) */
	bool per_instance;       /* the block has several instances, values are summed over them */
	const char *description; /* may be "" */
};

enum pp_gpu_counter_method {
	PP_GPU_COUNTERS_BRACKET = 0, /* commands injected at scope boundaries */
	PP_GPU_COUNTERS_SAMPLED,     /* periodic / boundary samples of free-running counters */
};

/* A value as a backend produced it. */
struct pp_gpu_counter_value {
	bool valid;
	bool is_float;   /* f holds it; else u */
	bool other_pass; /* !valid because another hardware pass of the set measures it (another frame) */
	uint64_t u;
	double f;
};

static inline double pp_gpu_counters_value_double(const struct pp_gpu_counter_value *v)
{
	return v->is_float ? v->f : (double)v->u;
}

/* One time-stamped sample of a sampling backend: the counters' increments over
 * [begin_ns, end_ns] on the host CLOCK_MONOTONIC time line, one value per configured counter. */
struct pp_gpu_counter_sample {
	uint64_t begin_ns, end_ns;
	uint32_t nvalues;
	struct pp_gpu_counter_value *values; /* owned by whoever filled the sample */
};

/* The backend interface. ctx is the backend's own state. Functions a backend does not
 * support are NULL (a bracketing backend has no sample_*, a sampling one no scope_*). None of
 * them may wait for the GPU. */
struct pp_gpu_counter_backend {
	const char *name; /* == the source of its counters */
	enum pp_gpu_counter_method method;
	void *ctx;

	/* Enumerate: how many counters, and each one's description (NULL past the end). */
	uint32_t (*counter_count)(void *ctx);
	const struct pp_gpu_counter_desc *(*counter_desc)(void *ctx, uint32_t index);
	/* Configure the set to measure (indices into the enumeration). 0 or a negative errno
	 * (-EINVAL: an index out of range, -ENOTSUP: the set cannot be measured). NULL: the set is
	 * fixed (all of them). */
	int (*configure)(void *ctx, const uint32_t *indices, uint32_t n);
	/* The configured set: how many, and each one's description, in the order scope_read and
	 * samples give their values. */
	uint32_t (*set_count)(void *ctx);
	const struct pp_gpu_counter_desc *(*set_desc)(void *ctx, uint32_t index);
	/* Hardware passes the configured set needs: 1 unless the hardware must be programmed
	 * several times (VK_KHR_performance_query); the caller then rotates over frames. */
	uint32_t (*passes)(void *ctx);

	/* Bracketing. `cmd` is the API's command stream (a VkCommandBuffer), `slot` a query slot
	 * the caller took from the backend. */
	void (*scope_begin)(void *ctx, void *cmd, uint32_t slot);
	void (*scope_end)(void *ctx, void *cmd, uint32_t slot);
	/* Reads a scope's values without waiting: 1 read (out[0..n) in the configured order,
	 * each with its valid flag), 0 not available yet, negative errno when it never will be. */
	int (*scope_read)(void *ctx, uint32_t slot, struct pp_gpu_counter_value *out, uint32_t n);

	/* Sampling. Start/stop the sampler (its own thread, period_ns 0: boundaries only). */
	int (*sample_start)(void *ctx, uint64_t period_ns);
	void (*sample_stop)(void *ctx);
	/* Asks for a sample now (a submission boundary); returns at once. */
	void (*sample_request)(void *ctx);
	/* Hands over the samples taken so far, oldest first (at most max); each sample's values
	 * (the set's order) are malloc'd and become the caller's. */
	uint32_t (*samples_take)(void *ctx, struct pp_gpu_counter_sample *out, uint32_t max);

	void (*destroy)(void *ctx);
};

/* A backend's counters and its configured set, as a backend keeps them when the set is a list of
 * indices into its enumeration. With this the first member of the backend's state (its ctx), the
 * four accessors below are its counter_count, counter_desc, set_count and set_desc. */
struct pp_gpu_counter_list {
	const struct pp_gpu_counter_desc **descs;
	uint32_t ndescs;
	uint32_t nset;
	uint32_t *set;
};
uint32_t pp_gpu_counters_list_count(void *list);
const struct pp_gpu_counter_desc *pp_gpu_counters_list_desc(void *list, uint32_t index);
uint32_t pp_gpu_counters_list_set_count(void *list);
const struct pp_gpu_counter_desc *pp_gpu_counters_list_set_desc(void *list, uint32_t index);

/* Pipeline statistics, as counters (the order of VK_QUERY_PIPELINE_STATISTIC_* bits ascending,
 * which is the order of their results and of the model's PP_STAT_*). */
#define PP_GPU_PIPELINE_STATISTICS_COUNT 7
extern const struct pp_gpu_counter_desc pp_gpu_counters_pipeline_statistics[PP_GPU_PIPELINE_STATISTICS_COUNT];
/* The timestamps backend's one counter: a pass's GPU time, begin to end timestamp. */
extern const struct pp_gpu_counter_desc pp_gpu_counters_timestamp;

/* A copy of d whose strings live as long as the process: for backends whose descriptions are
 * made at run time (from a driver). The same (source, name) gives the same pointer. At most
 * PP_GPU_COUNTER_INTERN_MAX distinct counters; NULL past that or out of memory. Thread-safe. */
#define PP_GPU_COUNTER_INTERN_MAX 4096
const struct pp_gpu_counter_desc *pp_gpu_counters_intern(const struct pp_gpu_counter_desc *d);

/* The gpu_counters setting: "none", "default", or a comma-separated list of counter names
 * (a name, or "source/name"). */
enum pp_gpu_counter_choice { PP_GPU_COUNTERS_NONE = 0, PP_GPU_COUNTERS_DEFAULT, PP_GPU_COUNTERS_LIST };

/* Checks the setting's text. 0, or -EINVAL with one message in err naming the problem and
 * what is allowed. */
int pp_gpu_counters_setting_check(const char *text, char *err, size_t err_len);
enum pp_gpu_counter_choice pp_gpu_counters_setting_choice(const char *text);

/* Picks from a backend's enumeration the counters the setting asks for, into idx (at most
 * max). For DEFAULT, `is_default(desc)` decides (NULL: the first `max`). Names of a LIST not
 * offered by the backend are written, comma-separated, into missing (may be NULL). Returns
 * how many were picked. */
uint32_t pp_gpu_counters_select(const struct pp_gpu_counter_backend *b, const char *setting,
				bool (*is_default)(const struct pp_gpu_counter_desc *d), uint32_t *idx, uint32_t max,
				char *missing, size_t missing_len);
