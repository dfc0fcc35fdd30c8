/* Mali kbase backend above the I/O layer (gpu_kbase.h): version check and interface choice,
 * GPU properties, decoding both sample formats, the sampler thread and its bounded ring. */
#include "gpu_kbase.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pp_log.h"

/* ---- properties --------------------------------------------------------------------------- */

int pp_gpu_kbase_props_parse(const void *blob, size_t len, struct pp_kbase_props *out)
{
	const uint8_t *b = blob;
	bool have_mask = false, have_l2 = false;
	uint64_t l2_features = 0;
	memset(out, 0, sizeof(*out));
	for (size_t at = 0; at < len;) {
		if (len - at < 4)
			return -EINVAL;
		uint32_t key = (uint32_t)b[at] | (uint32_t)b[at + 1] << 8 | (uint32_t)b[at + 2] << 16 |
			       (uint32_t)b[at + 3] << 24;
		at += 4;
		size_t size = (size_t)1 << (key & 3);
		if (len - at < size)
			return -EINVAL;
		uint64_t v = 0;
		for (size_t i = 0; i < size; i++)
			v |= (uint64_t)b[at + i] << (8 * i);
		at += size;
		switch (key >> 2) {
		case PP_KBASE_GPUPROP_PRODUCT_ID: out->product_id = (uint32_t)v; break;
		case PP_KBASE_GPUPROP_RAW_GPU_ID: out->gpu_id = (uint32_t)v; break;
		case PP_KBASE_GPUPROP_RAW_SHADER_PRESENT:
			out->shader_present = v;
			have_mask = true;
			break;
		case PP_KBASE_GPUPROP_L2_NUM_L2_SLICES:
			out->l2_slices = (uint32_t)v;
			have_l2 = true;
			break;
		case PP_KBASE_GPUPROP_RAW_L2_FEATURES: l2_features = v; break;
		default: break;
		}
	}
	if (!have_mask || !have_l2 || !out->l2_slices)
		return -EINVAL;
	out->shader_cores = (uint32_t)__builtin_popcountll(out->shader_present);
	uint32_t log2_bus = (uint32_t)(l2_features >> 24) & 0xff;
	out->bus_width_bits = log2_bus && log2_bus < 16 ? 1u << log2_bus : 0;
	return 0;
}

enum pp_kbase_interface pp_gpu_kbase_interface_for(const struct pp_kbase_version_check *v, bool csf)
{
	if (csf)
		return v->major > 1 || (v->major == 1 && v->minor >= 10) ? PP_KBASE_KINSTR : PP_KBASE_LEGACY;
	return v->major > 11 || (v->major == 11 && v->minor >= 37) ? PP_KBASE_KINSTR : PP_KBASE_LEGACY;
}

const char *pp_gpu_kbase_interface_name(enum pp_kbase_interface i)
{
	return i == PP_KBASE_KINSTR ? "kinstr_prfcnt" : "legacy hardware counter reader";
}

/* ---- decoding ------------------------------------------------------------------------------ */

static void block_add(struct pp_kbase_sample *out, unsigned type, const uint64_t *v, uint32_t n, uint32_t first)
{
	if (type >= PP_PRFCNT_BLOCK_TYPES)
		return;
	if (n > PP_KBASE_VALUES_MAX)
		n = PP_KBASE_VALUES_MAX;
	out->instances[type]++;
	if (n > out->nvalues[type])
		out->nvalues[type] = n;
	/* the header counters (timestamps, enable mask) are not events: not summed */
	for (uint32_t i = first; i < n; i++)
		out->value[type][i] += v[i];
}

int pp_gpu_kbase_legacy_decode(const struct pp_kbase_props *p, const struct pp_kbase_hwcnt_reader_metadata *md,
			   uint64_t prev_ns, const void *dump, size_t size, struct pp_kbase_sample *out)
{
	memset(out, 0, sizeof(*out));
	const size_t block = PP_KBASE_LEGACY_BLOCK_COUNTERS * sizeof(uint32_t);
	int top_core = p->shader_present ? 64 - __builtin_clzll(p->shader_present) : 0;
	size_t need = (2 + (size_t)p->l2_slices + (size_t)top_core) * block;
	if (size < need || !md)
		return -EINVAL;
	out->begin_ns = prev_ns;
	out->end_ns = md->timestamp;
	out->have_cycles = md->cycles_top || md->cycles_shader_cores;
	out->cycles_top = md->cycles_top;
	out->cycles_shader_cores = md->cycles_shader_cores;
	const uint8_t *b = dump;
	uint64_t v[PP_KBASE_LEGACY_BLOCK_COUNTERS];
	size_t at = 0;
	for (int n = 0; n < 2 + (int)p->l2_slices + top_core; n++, at += block) {
		unsigned type = n == 0 ? PP_PRFCNT_BLOCK_FE
				: n == 1 ? PP_PRFCNT_BLOCK_TILER
				: n < 2 + (int)p->l2_slices ? PP_PRFCNT_BLOCK_MEMORY
							      : PP_PRFCNT_BLOCK_SHADER_CORE;
		if (type == PP_PRFCNT_BLOCK_SHADER_CORE && !((p->shader_present >> (n - 2 - (int)p->l2_slices)) & 1))
			continue;
		for (int i = 0; i < PP_KBASE_LEGACY_BLOCK_COUNTERS; i++) {
			uint32_t w;
			memcpy(&w, b + at + (size_t)i * 4, 4);
			v[i] = w;
		}
		block_add(out, type, v, PP_KBASE_LEGACY_BLOCK_COUNTERS, PP_KBASE_BLOCK_HEADER_COUNTERS);
	}
	return 0;
}

int pp_gpu_kbase_kinstr_decode(const void *mapping, size_t size, uint64_t offset, struct pp_kbase_sample *out)
{
	memset(out, 0, sizeof(*out));
	const uint8_t *m = mapping;
	bool have_sample = false;
	for (uint64_t at = offset;; at += sizeof(struct pp_prfcnt_metadata)) {
		if (at > size || size - at < sizeof(struct pp_prfcnt_metadata))
			return -EINVAL;
		struct pp_prfcnt_metadata md;
		memcpy(&md, m + at, sizeof(md));
		if (md.hdr.item_type == PP_PRFCNT_TYPE_NONE)
			break;
		switch (md.hdr.item_type) {
		case PP_PRFCNT_SAMPLE_META_TYPE_SAMPLE:
			out->begin_ns = md.u.sample_md.timestamp_start;
			out->end_ns = md.u.sample_md.timestamp_end;
			have_sample = true;
			break;
		case PP_PRFCNT_SAMPLE_META_TYPE_CLOCK:
			out->have_cycles = md.u.clock_md.num_domains > 0;
			out->cycles_top = md.u.clock_md.num_domains > 0 ? md.u.clock_md.cycles[0] : 0;
			out->cycles_shader_cores = md.u.clock_md.num_domains > 1 ? md.u.clock_md.cycles[1] : 0;
			break;
		case PP_PRFCNT_SAMPLE_META_TYPE_BLOCK: {
			/* Block values follow the enumeration's num_values; a sample carries 64 per
			 * block unless the block is at the end of the mapping. */
			uint64_t vo = md.u.block_md.values_offset;
			uint32_t n = PP_KBASE_LEGACY_BLOCK_COUNTERS;
			if (vo > size || (size - vo) / sizeof(uint64_t) < n)
				return -EINVAL;
			uint64_t v[PP_KBASE_LEGACY_BLOCK_COUNTERS];
			memcpy(v, m + vo, sizeof(v));
			block_add(out, md.u.block_md.block_type, v, n, PP_KBASE_BLOCK_HEADER_COUNTERS);
			break;
		}
		default:
			return -EINVAL;
		}
	}
	return have_sample ? 0 : -EINVAL;
}

/* ---- the backend --------------------------------------------------------------------------- */

#define RING 1024
#define NBLOCK_COUNTERS (PP_KBASE_LEGACY_BLOCK_COUNTERS - PP_KBASE_BLOCK_HEADER_COUNTERS)
#define NCOUNTERS (2 + PP_PRFCNT_BLOCK_TYPES * NBLOCK_COUNTERS)
#define SET_MAX 64

static const char *const k_block_prefix[PP_PRFCNT_BLOCK_TYPES] = { "FE", "TILER", "L2", "SC" };
static const char *const k_block_name[PP_PRFCNT_BLOCK_TYPES] = { "front end", "tiler", "L2 cache / memory",
								 "shader core" };

struct pp_kbase {
	struct pp_gpu_counter_list list; /* first: the backend's ctx is also the list's */
	struct pp_kbase_io io;
	struct pp_gpu_counter_backend backend;
	enum pp_kbase_interface iface;
	struct pp_kbase_props props;
	const struct pp_gpu_counter_desc *descs[NCOUNTERS]; /* list.descs */
	uint32_t set[SET_MAX];                               /* list.set */
	const void *mapping;
	uint32_t mapping_size;
	uint64_t prev_ns;    /* legacy: the previous dump's time; 0 before the first (a baseline) */

	pthread_mutex_t lock; /* the ring and the flags below */
	pthread_cond_t wake;
	pthread_t thread;
	bool running, stop, requested;
	uint64_t period_ns;
	uint32_t head, count;
	uint64_t dropped;
	struct {
		uint64_t begin_ns, end_ns;
		uint64_t v[SET_MAX];
	} ring[RING];
};

/* Counter i: 0, 1 the clock domains' cycles; then block type b's counter k (4..63) at
 * 2 + b * 60 + (k - 4). */
static bool counter_value(const struct pp_kbase_sample *s, uint32_t i, uint64_t *out)
{
	if (i == 0 || i == 1) {
		*out = i == 0 ? s->cycles_top : s->cycles_shader_cores;
		return s->have_cycles;
	}
	uint32_t b = (i - 2) / NBLOCK_COUNTERS, k = (i - 2) % NBLOCK_COUNTERS + PP_KBASE_BLOCK_HEADER_COUNTERS;
	*out = s->value[b][k];
	return s->instances[b] > 0;
}

static int descs_make(struct pp_kbase *k)
{
	struct pp_gpu_counter_desc d = { "mali_kbase", "GPU_CYCLES_TOP", "cycles", "GPU", 1, false,
					 "cycles of the GPU's top-level clock domain in the sample" };
	k->descs[0] = pp_gpu_counters_intern(&d);
	d.name = "GPU_CYCLES_SHADER_CORES";
	d.block = "shader core";
	d.description = "cycles of the shader cores' clock domain in the sample";
	k->descs[1] = pp_gpu_counters_intern(&d);
	for (uint32_t b = 0; b < PP_PRFCNT_BLOCK_TYPES; b++)
		for (uint32_t c = 0; c < NBLOCK_COUNTERS; c++) {
			char name[32];
			snprintf(name, sizeof(name), "%s[%u]", k_block_prefix[b], c + PP_KBASE_BLOCK_HEADER_COUNTERS);
			struct pp_gpu_counter_desc raw = {
				"mali_kbase", name, "count", k_block_name[b], 1,
				b == PP_PRFCNT_BLOCK_MEMORY || b == PP_PRFCNT_BLOCK_SHADER_CORE,
				"hardware counter at this index of the block, summed over the block's instances",
			};
			k->descs[2 + b * NBLOCK_COUNTERS + c] = pp_gpu_counters_intern(&raw);
		}
	for (uint32_t i = 0; i < NCOUNTERS; i++)
		if (!k->descs[i])
			return -ENOMEM;
	return 0;
}

static uint32_t one_pass(void *ctx)
{
	(void)ctx;
	return 1;
}

static bool default_counter(const struct pp_gpu_counter_desc *d)
{
	return !strncmp(d->name, "GPU_CYCLES_", 11);
}

/* The kernel stamps samples on its raw monotonic clock; the passes are on CLOCK_MONOTONIC. The
 * two differ by a slowly drifting offset, measured at each collection. */
static int64_t raw_to_monotonic(void)
{
	struct timespec m, r;
	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_MONOTONIC_RAW, &r);
	return ((int64_t)m.tv_sec - (int64_t)r.tv_sec) * 1000000000ll + (m.tv_nsec - r.tv_nsec);
}

/* Decodes one sample (the caller took it) into the ring. */
static void ring_push(struct pp_kbase *k, const struct pp_kbase_sample *s, int64_t offset)
{
	pthread_mutex_lock(&k->lock);
	if (k->count == RING) {
		k->dropped++;
		pthread_mutex_unlock(&k->lock);
		return;
	}
	uint32_t at = (k->head + k->count++) % RING;
	k->ring[at].begin_ns = (uint64_t)((int64_t)s->begin_ns + offset);
	k->ring[at].end_ns = (uint64_t)((int64_t)s->end_ns + offset);
	for (uint32_t i = 0; i < k->list.nset; i++)
		counter_value(s, k->set[i], &k->ring[at].v[i]);
	pthread_mutex_unlock(&k->lock);
}

/* Collects what the kernel has ready, without waiting. The sampler thread's only caller. */
static void collect(struct pp_kbase *k)
{
	struct pp_kbase_sample *s = malloc(sizeof(*s));
	int64_t offset = raw_to_monotonic();
	if (!s)
		return;
	if (k->iface == PP_KBASE_LEGACY) {
		struct pp_kbase_hwcnt_reader_metadata md;
		const void *dump;
		int dump_size = (int)k->mapping_size;
		while (k->io.legacy_wait(k->io.ctx, 0) > 0 && k->io.legacy_get(k->io.ctx, &md, &dump) == 0) {
			/* the first dump is the baseline: counts before it began at an unknown time */
			if (k->prev_ns && pp_gpu_kbase_legacy_decode(&k->props, &md, k->prev_ns, dump, (size_t)dump_size, s) == 0)
				ring_push(k, s, offset);
			k->prev_ns = md.timestamp;
			k->io.legacy_put(k->io.ctx, &md);
		}
	} else {
		struct pp_prfcnt_sample_access a;
		while (k->io.kinstr_wait(k->io.ctx, 0) > 0 && k->io.kinstr_get(k->io.ctx, &a) == 0) {
			if (pp_gpu_kbase_kinstr_decode(k->mapping, k->mapping_size, a.sample_offset_bytes, s) == 0)
				ring_push(k, s, offset);
			k->io.kinstr_put(k->io.ctx, &a);
		}
	}
	free(s);
}

static void dump_now(struct pp_kbase *k)
{
	if (k->iface == PP_KBASE_LEGACY)
		k->io.legacy_dump(k->io.ctx);
	else
		k->io.kinstr_cmd(k->io.ctx, 3 /* sample sync */);
}

static void *sampler(void *arg)
{
	struct pp_kbase *k = arg;
	pthread_mutex_lock(&k->lock);
	while (!k->stop) {
		if (!k->requested) {
			struct timespec t;
			clock_gettime(CLOCK_REALTIME, &t);
			uint64_t ns = (uint64_t)t.tv_nsec + (k->period_ns ? k->period_ns : 100000000ull);
			t.tv_sec += (time_t)(ns / 1000000000ull);
			t.tv_nsec = (long)(ns % 1000000000ull);
			pthread_cond_timedwait(&k->wake, &k->lock, &t);
		}
		if (k->stop)
			break;
		bool due = k->requested || k->period_ns;
		k->requested = false;
		pthread_mutex_unlock(&k->lock);
		if (due)
			dump_now(k);
		collect(k);
		pthread_mutex_lock(&k->lock);
	}
	pthread_mutex_unlock(&k->lock);
	dump_now(k); /* the last interval */
	collect(k);
	return NULL;
}

static int be_start(void *ctx, uint64_t period_ns)
{
	struct pp_kbase *k = ctx;
	if (k->running)
		return 0;
	k->period_ns = period_ns;
	k->stop = false;
	if (k->iface == PP_KBASE_KINSTR && k->io.kinstr_cmd(k->io.ctx, 1 /* start */))
		return -EIO;
	/* the baseline dump of the legacy reader */
	dump_now(k);
	collect(k);
	if (pthread_create(&k->thread, NULL, sampler, k))
		return -EAGAIN;
	k->running = true;
	return 0;
}

static void be_stop(void *ctx)
{
	struct pp_kbase *k = ctx;
	if (!k->running)
		return;
	pthread_mutex_lock(&k->lock);
	k->stop = true;
	pthread_cond_signal(&k->wake);
	pthread_mutex_unlock(&k->lock);
	pthread_join(k->thread, NULL);
	k->running = false;
	if (k->iface == PP_KBASE_KINSTR)
		k->io.kinstr_cmd(k->io.ctx, 2 /* stop */);
}

/* A submission boundary, on the application's thread: only a flag and a signal. */
static void be_request(void *ctx)
{
	struct pp_kbase *k = ctx;
	pthread_mutex_lock(&k->lock);
	k->requested = true;
	pthread_cond_signal(&k->wake);
	pthread_mutex_unlock(&k->lock);
}

uint32_t pp_gpu_kbase_samples_take(struct pp_kbase *k, struct pp_gpu_counter_sample *out, uint32_t max)
{
	uint32_t n = 0;
	pthread_mutex_lock(&k->lock);
	while (n < max && k->count) {
		struct pp_gpu_counter_value *v = calloc(k->list.nset ? k->list.nset : 1, sizeof(*v));
		if (!v)
			break;
		uint32_t at = k->head;
		for (uint32_t i = 0; i < k->list.nset; i++)
			v[i] = (struct pp_gpu_counter_value){ .valid = true, .u = k->ring[at].v[i] };
		out[n++] = (struct pp_gpu_counter_sample){ k->ring[at].begin_ns, k->ring[at].end_ns, k->list.nset, v };
		k->head = (k->head + 1) % RING;
		k->count--;
	}
	pthread_mutex_unlock(&k->lock);
	return n;
}

static uint32_t be_take(void *ctx, struct pp_gpu_counter_sample *out, uint32_t max)
{
	return pp_gpu_kbase_samples_take(ctx, out, max);
}

static int setup_legacy(struct pp_kbase *k, char *why, size_t len)
{
	struct pp_kbase_hwcnt_reader_setup s = { .buffer_count = 16, .fe_bm = ~0u, .shader_bm = ~0u, .tiler_bm = ~0u,
						 .mmu_l2_bm = ~0u };
	int r = k->io.legacy_setup(k->io.ctx, &s, &k->mapping_size);
	if (r)
		snprintf(why, len, "setting up the hardware counter reader failed (%d)", r);
	return r;
}

static int setup_kinstr(struct pp_kbase *k, char *why, size_t len)
{
	struct pp_prfcnt_enum_item items[32];
	uint32_t n = 32;
	int r = k->io.kinstr_enum(k->io.ctx, items, &n);
	if (r) {
		snprintf(why, len, "kinstr_prfcnt enumeration failed (%d)", r);
		return r;
	}
	struct pp_prfcnt_request_item req[8] = { 0 };
	uint32_t nreq = 0;
	req[nreq].hdr.item_type = PP_PRFCNT_REQUEST_TYPE_MODE;
	req[nreq++].u.req_mode.mode = 0; /* manual: the sampler thread decides when */
	for (uint32_t i = 0; i < n && nreq < 7; i++)
		if (items[i].hdr.item_type == PP_PRFCNT_ENUM_TYPE_BLOCK && items[i].u.block_counter.set == 0) {
			req[nreq].hdr.item_type = PP_PRFCNT_REQUEST_TYPE_ENABLE;
			req[nreq].u.req_enable.block_type = items[i].u.block_counter.block_type;
			req[nreq].u.req_enable.enable_mask[0] = items[i].u.block_counter.counter_mask[0];
			req[nreq++].u.req_enable.enable_mask[1] = items[i].u.block_counter.counter_mask[1];
		}
	req[nreq++].hdr.item_type = PP_PRFCNT_TYPE_NONE;
	r = k->io.kinstr_setup(k->io.ctx, req, nreq, &k->mapping, &k->mapping_size);
	if (r)
		snprintf(why, len, "kinstr_prfcnt set-up failed (%d)", r);
	return r;
}

struct pp_kbase *pp_gpu_kbase_create(const struct pp_kbase_io *io, const char *setting, char *why, size_t why_len)
{
	struct pp_kbase *k = calloc(1, sizeof(*k));
	if (!k) {
		snprintf(why, why_len, "out of memory");
		io->close(io->ctx);
		return NULL;
	}
	k->list = (struct pp_gpu_counter_list){ .descs = k->descs, .ndescs = NCOUNTERS, .set = k->set };
	k->io = *io;
	pthread_mutex_init(&k->lock, NULL);
	pthread_cond_init(&k->wake, NULL);
	k->backend = (struct pp_gpu_counter_backend){
		.name = "mali_kbase",
		.method = PP_GPU_COUNTERS_SAMPLED,
		.ctx = k,
		.counter_count = pp_gpu_counters_list_count,
		.counter_desc = pp_gpu_counters_list_desc,
		.set_count = pp_gpu_counters_list_set_count,
		.set_desc = pp_gpu_counters_list_set_desc,
		.passes = one_pass,
		.sample_start = be_start,
		.sample_stop = be_stop,
		.sample_request = be_request,
		.samples_take = be_take,
	};
	struct pp_kbase_version_check v = { 0 };
	bool csf = false;
	uint8_t blob[4096];
	uint32_t blob_len = sizeof(blob);
	int r = io->version(io->ctx, &v, &csf);
	if (r) {
		snprintf(why, why_len, "the kbase version handshake failed (%d)", r);
		goto fail;
	}
	k->iface = pp_gpu_kbase_interface_for(&v, csf);
	if ((r = io->props(io->ctx, blob, &blob_len)) || pp_gpu_kbase_props_parse(blob, blob_len, &k->props)) {
		snprintf(why, why_len, "the GPU properties could not be read (%d)", r);
		goto fail;
	}
	if (descs_make(k)) {
		snprintf(why, why_len, "out of memory");
		goto fail;
	}
	char missing[256];
	k->list.nset = pp_gpu_counters_select(&k->backend, setting, default_counter, k->set, SET_MAX, missing, sizeof(missing));
	if (missing[0])
		pp_log(PP_LOG_WARN, "gpu_counters: Mali kbase has no counter named %s (names: GPU_CYCLES_TOP, "
				    "GPU_CYCLES_SHADER_CORES, FE[i], TILER[i], L2[i], SC[i] for i 4..63)",
		       missing);
	if (!k->list.nset) {
		snprintf(why, why_len, "none of the chosen counters is a Mali kbase counter");
		goto fail;
	}
	if ((k->iface == PP_KBASE_LEGACY ? setup_legacy : setup_kinstr)(k, why, why_len))
		goto fail;
	return k;
fail:
	pp_gpu_kbase_destroy(k);
	return NULL;
}

void pp_gpu_kbase_destroy(struct pp_kbase *k)
{
	if (!k)
		return;
	be_stop(k);
	k->io.close(k->io.ctx);
	pthread_cond_destroy(&k->wake);
	pthread_mutex_destroy(&k->lock);
	free(k);
}

const struct pp_gpu_counter_backend *pp_gpu_kbase_backend(struct pp_kbase *k)
{
	return k ? &k->backend : NULL;
}

const struct pp_kbase_props *pp_gpu_kbase_props(const struct pp_kbase *k)
{
	return &k->props;
}

enum pp_kbase_interface pp_gpu_kbase_interface(const struct pp_kbase *k)
{
	return k->iface;
}

uint64_t pp_gpu_kbase_samples_dropped(const struct pp_kbase *k)
{
	return k->dropped;
}
