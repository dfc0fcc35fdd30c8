#pragma once
/* Mali kbase (/dev/mali0) as a sampling GPU counter backend (pp_gpu_counters.h;
 * docs/counters.md, "Mali kbase").
 *
 * Two layers. The I/O layer (struct pp_kbase_io; gpu_kbase_ioctl.c) only does the kernel's
 * ioctls and mmap, nothing else, so that everything above it (version check, choosing the
 * interface, GPU properties, decoding samples of the legacy hardware counter reader and of
 * kinstr_prfcnt, the sampler) runs in tests against recorded streams (a replay pp_kbase_io,
 * tests/counters/test_kbase_replay.c). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu_kbase_uapi.h"
#include "pp_gpu_counters.h"

/* What the I/O layer does. Every function returns 0 or a negative errno; NULL ctx never. */
struct pp_kbase_io {
	void *ctx;
	/* The handshake: VERSION_CHECK (JM, else CSF numbering) then SET_FLAGS. */
	int (*version)(void *ctx, struct pp_kbase_version_check *v, bool *csf);
	/* GET_GPUPROPS into buf (size in: its capacity, out: the blob's length). */
	int (*props)(void *ctx, void *buf, uint32_t *size);
	/* Legacy reader: set-up (returns the dump size), a manual dump, waiting for a filled
	 * buffer (1 ready, 0 timed out), taking (its metadata and its bytes in the mapping) and
	 * giving back a buffer. */
	int (*legacy_setup)(void *ctx, const struct pp_kbase_hwcnt_reader_setup *s, uint32_t *dump_size);
	int (*legacy_dump)(void *ctx);
	int (*legacy_wait)(void *ctx, int timeout_ms);
	int (*legacy_get)(void *ctx, struct pp_kbase_hwcnt_reader_metadata *md, const void **dump);
	int (*legacy_put)(void *ctx, const struct pp_kbase_hwcnt_reader_metadata *md);
	/* kinstr_prfcnt: enumeration (count in: capacity, out: items), set-up (the mapping), a
	 * control command, waiting (1 ready, 0 timed out), taking and giving back a sample. */
	int (*kinstr_enum)(void *ctx, struct pp_prfcnt_enum_item *items, uint32_t *count);
	int (*kinstr_setup)(void *ctx, const struct pp_prfcnt_request_item *req, uint32_t n, const void **mapping,
			    uint32_t *mapping_size);
	int (*kinstr_cmd)(void *ctx, uint16_t cmd);
	int (*kinstr_wait)(void *ctx, int timeout_ms);
	int (*kinstr_get)(void *ctx, struct pp_prfcnt_sample_access *a);
	int (*kinstr_put)(void *ctx, const struct pp_prfcnt_sample_access *a);
	void (*close)(void *ctx);
};

/* Opens the device (gpu_kbase_ioctl.c). -ENOENT when there is none. */
int pp_gpu_kbase_ioctl_io_open(const char *path, struct pp_kbase_io *out);

/* ---- above the I/O layer: pure parts ---------------------------------------------------- */

struct pp_kbase_props {
	uint32_t gpu_id;          /* RAW_GPU_ID (0 when absent) */
	uint32_t product_id;
	uint64_t shader_present;  /* core mask */
	uint32_t shader_cores;    /* cores in the mask: MALI_CONFIG_SHADER_CORE_COUNT */
	uint32_t l2_slices;       /* MALI_CONFIG_L2_CACHE_COUNT */
	uint32_t bus_width_bits;  /* external bus width from L2_FEATURES[31:24] (log2): MALI_CONFIG_EXT_BUS_BYTE_SIZE x 8 */
};

/* Parses GET_GPUPROPS' blob. -EINVAL on a truncated entry or missing core mask / L2 slices. */
int pp_gpu_kbase_props_parse(const void *blob, size_t len, struct pp_kbase_props *out);

enum pp_kbase_interface { PP_KBASE_LEGACY = 0, PP_KBASE_KINSTR };
/* kinstr_prfcnt from UAPI 11.37 on job manager GPUs and 1.10 on CSF GPUs (where it came with
 * the r32 drivers); the legacy reader before. */
enum pp_kbase_interface pp_gpu_kbase_interface_for(const struct pp_kbase_version_check *v, bool csf);
const char *pp_gpu_kbase_interface_name(enum pp_kbase_interface i);

#define PP_KBASE_VALUES_MAX 128 /* counters per block (kinstr may report 128) */

/* One sample, decoded: every block type's counters summed over its instances. */
struct pp_kbase_sample {
	uint64_t begin_ns, end_ns; /* kernel raw monotonic time */
	bool have_cycles;
	uint64_t cycles_top, cycles_shader_cores;
	uint32_t instances[PP_PRFCNT_BLOCK_TYPES];
	uint32_t nvalues[PP_PRFCNT_BLOCK_TYPES];
	uint64_t value[PP_PRFCNT_BLOCK_TYPES][PP_KBASE_VALUES_MAX];
};

/* A legacy dump of `size` bytes: front end, tiler, L2 x l2_slices, shader cores in the core
 * mask (one block per bit up to the highest; blocks of absent cores are skipped). The
 * interval is from prev_ns (the previous dump's time) to md->timestamp. */
int pp_gpu_kbase_legacy_decode(const struct pp_kbase_props *p, const struct pp_kbase_hwcnt_reader_metadata *md,
			   uint64_t prev_ns, const void *dump, size_t size, struct pp_kbase_sample *out);
/* A kinstr_prfcnt sample: the metadata list at `offset` of the mapping (sample, clock and block
 * items up to the NONE item), values at each block's values_offset. -EINVAL when an item or a
 * value array lies outside the mapping. */
int pp_gpu_kbase_kinstr_decode(const void *mapping, size_t size, uint64_t offset, struct pp_kbase_sample *out);

/* ---- the backend ------------------------------------------------------------------------- */

struct pp_kbase;

/* Opens the backend over io (taking it over: closed with the backend): handshake, interface,
 * properties, counter set-up. NULL with one line in why when it cannot run. The set is
 * chosen with the gpu_counters setting (`default`: the GPU cycle counters). */
struct pp_kbase *pp_gpu_kbase_create(const struct pp_kbase_io *io, const char *setting, char *why, size_t why_len);
void pp_gpu_kbase_destroy(struct pp_kbase *k);
const struct pp_gpu_counter_backend *pp_gpu_kbase_backend(struct pp_kbase *k);
const struct pp_kbase_props *pp_gpu_kbase_props(const struct pp_kbase *k);
enum pp_kbase_interface pp_gpu_kbase_interface(const struct pp_kbase *k);
/* Samples taken so far, oldest first, at most max; each sample's values (the set's order) are
 * malloc'd and owned by the caller. Thread-safe. */
uint32_t pp_gpu_kbase_samples_take(struct pp_kbase *k, struct pp_gpu_counter_sample *out, uint32_t max);
/* Samples the sampler thread dropped because the ring was full. */
uint64_t pp_gpu_kbase_samples_dropped(const struct pp_kbase *k);
