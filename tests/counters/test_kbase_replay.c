/* The Mali kbase backend above its I/O layer (counters/gpu/gpu_kbase.c), run on recorded
 * streams of both kernel interfaces (data/kbase_legacy.bin, data/kbase_kinstr.bin, written by
 * data/make_kbase_streams.py in the kernel's binary layouts): a replay struct pp_kbase_io
 * answers the handshake, the properties and the samples as /dev/mali0 would.
 * Counter values follow the generator's formula, value(type, instance, index, sample). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_kbase.h"
#include "pp_check.h"

static uint64_t value(unsigned type, unsigned inst, unsigned i, unsigned s)
{
	return (uint64_t)(s + 1) * 100 + type * 10000 + inst * 1000 + i;
}

/* The sum over a block type's instances, as the decoder must give it. */
static uint64_t block_sum(unsigned type, unsigned instances, unsigned i, unsigned s)
{
	uint64_t sum = 0;
	for (unsigned k = 0; k < instances; k++)
		sum += value(type, k, i, s);
	return sum;
}

/* ---- the replay I/O layer ----------------------------------------------------------------- */

struct replay {
	uint8_t *file;
	size_t len;
	struct pp_kbase_version_check version;
	bool csf;
	const uint8_t *props;
	uint32_t props_len;
	uint32_t dump_size;
	const uint8_t *legacy[16];
	uint32_t nlegacy, next_legacy;
	const uint8_t *enum_items;
	uint32_t nenum;
	const uint8_t *mapping;
	uint32_t mapping_len;
	struct pp_prfcnt_sample_access access[16];
	uint32_t naccess, next_access;
	int dumps, puts, starts, stops, closes;
};

static int r_version(void *ctx, struct pp_kbase_version_check *v, bool *csf)
{
	struct replay *r = ctx;
	*v = r->version;
	*csf = r->csf;
	return 0;
}

static int r_props(void *ctx, void *buf, uint32_t *size)
{
	struct replay *r = ctx;
	if (*size < r->props_len)
		return -EINVAL;
	memcpy(buf, r->props, r->props_len);
	*size = r->props_len;
	return 0;
}

static int r_legacy_setup(void *ctx, const struct pp_kbase_hwcnt_reader_setup *s, uint32_t *dump_size)
{
	struct replay *r = ctx;
	(void)s;
	*dump_size = r->dump_size;
	return r->dump_size ? 0 : -ENODEV;
}

static int r_dump(void *ctx)
{
	((struct replay *)ctx)->dumps++;
	return 0;
}

static int r_legacy_wait(void *ctx, int timeout_ms)
{
	struct replay *r = ctx;
	(void)timeout_ms;
	return r->next_legacy < r->nlegacy;
}

static int r_legacy_get(void *ctx, struct pp_kbase_hwcnt_reader_metadata *md, const void **dump)
{
	struct replay *r = ctx;
	if (r->next_legacy >= r->nlegacy)
		return -EAGAIN;
	const uint8_t *rec = r->legacy[r->next_legacy++];
	memcpy(md, rec, sizeof(*md));
	*dump = rec + sizeof(*md);
	return 0;
}

static int r_legacy_put(void *ctx, const struct pp_kbase_hwcnt_reader_metadata *md)
{
	(void)md;
	((struct replay *)ctx)->puts++;
	return 0;
}

static int r_kinstr_enum(void *ctx, struct pp_prfcnt_enum_item *items, uint32_t *count)
{
	struct replay *r = ctx;
	if (r->nenum > *count)
		return -ENOSPC;
	memcpy(items, r->enum_items, r->nenum * sizeof(*items));
	*count = r->nenum;
	return 0;
}

static int r_kinstr_setup(void *ctx, const struct pp_prfcnt_request_item *req, uint32_t n, const void **mapping,
			  uint32_t *size)
{
	struct replay *r = ctx;
	/* the request list: a mode item, enables, the NONE sentinel last */
	if (!n || req[0].hdr.item_type != PP_PRFCNT_REQUEST_TYPE_MODE || req[n - 1].hdr.item_type != PP_PRFCNT_TYPE_NONE)
		return -EINVAL;
	*mapping = r->mapping;
	*size = r->mapping_len;
	return r->mapping ? 0 : -ENODEV;
}

static int r_kinstr_cmd(void *ctx, uint16_t cmd)
{
	struct replay *r = ctx;
	r->starts += cmd == 1;
	r->stops += cmd == 2;
	r->dumps += cmd == 3 || cmd == 4;
	return 0;
}

static int r_kinstr_wait(void *ctx, int timeout_ms)
{
	struct replay *r = ctx;
	(void)timeout_ms;
	return r->next_access < r->naccess;
}

static int r_kinstr_get(void *ctx, struct pp_prfcnt_sample_access *a)
{
	struct replay *r = ctx;
	if (r->next_access >= r->naccess)
		return -EAGAIN;
	*a = r->access[r->next_access++];
	return 0;
}

static int r_kinstr_put(void *ctx, const struct pp_prfcnt_sample_access *a)
{
	(void)a;
	((struct replay *)ctx)->puts++;
	return 0;
}

static void r_close(void *ctx)
{
	((struct replay *)ctx)->closes++;
}

static bool replay_load(struct replay *r, const char *path)
{
	memset(r, 0, sizeof(*r));
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	r->file = malloc(1 << 20);
	r->len = fread(r->file, 1, 1 << 20, f);
	fclose(f);
	if (r->len < 8 || memcmp(r->file, "PPKB", 4))
		return false;
	for (size_t at = 8; at + 8 <= r->len;) {
		uint32_t tag, len;
		memcpy(&tag, r->file + at, 4);
		memcpy(&len, r->file + at + 4, 4);
		const uint8_t *p = r->file + at + 8;
		at += 8 + len;
		if (at > r->len)
			return false;
		switch (tag) {
		case 1:
			memcpy(&r->version, p, 4);
			r->csf = p[4];
			break;
		case 2:
			r->props = p;
			r->props_len = len;
			break;
		case 3: memcpy(&r->dump_size, p, 4); break;
		case 4:
			if (r->nlegacy < 16)
				r->legacy[r->nlegacy++] = p;
			break;
		case 5:
			r->enum_items = p;
			r->nenum = len / sizeof(struct pp_prfcnt_enum_item);
			break;
		case 6:
			r->mapping = p;
			r->mapping_len = len;
			break;
		case 7:
			if (r->naccess < 16)
				memcpy(&r->access[r->naccess++], p, sizeof(r->access[0]));
			break;
		default: return false;
		}
	}
	return true;
}

static struct pp_kbase_io replay_io(struct replay *r)
{
	return (struct pp_kbase_io){ r,		     r_version,	    r_props,	     r_legacy_setup, r_dump,
				     r_legacy_wait,  r_legacy_get,  r_legacy_put,  r_kinstr_enum,  r_kinstr_setup,
				     r_kinstr_cmd,   r_kinstr_wait, r_kinstr_get,  r_kinstr_put,   r_close };
}

/* ---- tests --------------------------------------------------------------------------------- */

static const char *g_dir;

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", g_dir, name);
}

static void test_props_and_versions(struct replay *r)
{
	struct pp_kbase_props p;
	CHECK(pp_gpu_kbase_props_parse(r->props, r->props_len, &p) == 0, "properties parse");
	CHECK(p.shader_cores == 3 && p.shader_present == 0xb, "3 shader cores from the core mask (%u)", p.shader_cores);
	CHECK(p.l2_slices == 2, "2 L2 slices (%u)", p.l2_slices);
	CHECK(p.bus_width_bits == 128, "128-bit bus from L2_FEATURES (%u)", p.bus_width_bits);
	CHECK(p.gpu_id == 0x90930010 && p.product_id == 0x9093, "ids");
	CHECK(pp_gpu_kbase_props_parse(r->props, r->props_len - 1, &p) == -EINVAL, "a truncated entry is refused");
	CHECK(pp_gpu_kbase_props_parse(r->props, 0, &p) == -EINVAL, "no core mask: refused");

	struct pp_kbase_version_check old = { 11, 20 }, nw = { 11, 40 }, edge = { 11, 37 }, csf_old = { 1, 9 },
				      csf_new = { 1, 10 };
	CHECK(pp_gpu_kbase_interface_for(&old, false) == PP_KBASE_LEGACY, "JM 11.20: legacy reader");
	CHECK(pp_gpu_kbase_interface_for(&edge, false) == PP_KBASE_KINSTR, "JM 11.37: kinstr_prfcnt");
	CHECK(pp_gpu_kbase_interface_for(&nw, false) == PP_KBASE_KINSTR, "JM 11.40: kinstr_prfcnt");
	CHECK(pp_gpu_kbase_interface_for(&csf_old, true) == PP_KBASE_LEGACY, "CSF 1.9: legacy");
	CHECK(pp_gpu_kbase_interface_for(&csf_new, true) == PP_KBASE_KINSTR, "CSF 1.10: kinstr_prfcnt");
}

static void check_sample(const char *what, const struct pp_kbase_sample *s, unsigned sample, unsigned sc_instances)
{
	const unsigned inst[4] = { 1, 1, 2, sc_instances };
	bool ok = true;
	for (unsigned t = 0; t < 4; t++) {
		ok &= s->instances[t] == inst[t];
		for (unsigned i = 0; i < 64; i++)
			ok &= s->value[t][i] == (i < 4 ? 0 : block_sum(t, inst[t], i, sample));
	}
	CHECK(ok, "%s: every block's counters summed over its instances, headers left out", what);
	CHECK(s->have_cycles && s->cycles_top == 1000 * (sample + 1) && s->cycles_shader_cores == 900 * (sample + 1),
	      "%s: cycles", what);
}

static void test_legacy(void)
{
	char path[1024];
	path_of(path, sizeof(path), "kbase_legacy.bin");
	struct replay r;
	CHECK(replay_load(&r, path), "legacy stream loads");
	test_props_and_versions(&r);
	struct pp_kbase_props p;
	pp_gpu_kbase_props_parse(r.props, r.props_len, &p);
	uint64_t prev = 0;
	for (uint32_t n = 0; n < r.nlegacy; n++) {
		struct pp_kbase_hwcnt_reader_metadata md;
		memcpy(&md, r.legacy[n], sizeof(md));
		struct pp_kbase_sample s;
		int rc = pp_gpu_kbase_legacy_decode(&p, &md, prev, r.legacy[n] + sizeof(md), r.dump_size, &s);
		CHECK(rc == 0, "dump %u decodes", n);
		if (n) {
			char what[32];
			snprintf(what, sizeof(what), "legacy dump %u", n);
			check_sample(what, &s, n - 1, 3);
			CHECK(s.begin_ns == prev && s.end_ns == md.timestamp, "%s: the interval since the previous dump", what);
		}
		prev = md.timestamp;
		struct pp_kbase_sample short_;
		CHECK(pp_gpu_kbase_legacy_decode(&p, &md, prev, r.legacy[n] + sizeof(md), r.dump_size - 4, &short_) == -EINVAL,
		      "a short dump is refused");
	}

	/* the backend over the replay: baseline dump, then the samples, in the set's order */
	struct pp_kbase_io io = replay_io(&r);
	char why[256] = "";
	struct pp_kbase *k = pp_gpu_kbase_create(&io, "GPU_CYCLES_TOP,SC[4],L2[63],FE[5],TILER[10]", why, sizeof(why));
	CHECK(k != NULL, "backend over the legacy replay: %s", why);
	if (!k)
		return;
	const struct pp_gpu_counter_backend *b = pp_gpu_kbase_backend(k);
	CHECK(pp_gpu_kbase_interface(k) == PP_KBASE_LEGACY, "legacy interface chosen for UAPI 11.20");
	CHECK(b->method == PP_GPU_COUNTERS_SAMPLED && b->set_count(b->ctx) == 5, "sampled, 5 counters chosen");
	CHECK(!strcmp(b->set_desc(b->ctx, 1)->name, "SC[4]") && b->set_desc(b->ctx, 1)->per_instance,
	      "shader core counters are per instance");
	CHECK(b->sample_start(b->ctx, 0) == 0, "sampler starts");
	b->sample_request(b->ctx);
	b->sample_stop(b->ctx);
	struct pp_gpu_counter_sample out[8];
	uint32_t n = b->samples_take(b->ctx, out, 8);
	CHECK(n == 3, "the baseline is not a sample: 3 of 4 dumps (%u)", n);
	const uint64_t dur[3] = { 1000000, 1500000, 1500000 };
	for (uint32_t i = 0; i < n; i++) {
		CHECK(out[i].end_ns - out[i].begin_ns == dur[i], "sample %u's interval (%llu)", i,
		      (unsigned long long)(out[i].end_ns - out[i].begin_ns));
		CHECK(out[i].values[0].u == 1000 * (i + 1) && out[i].values[1].u == block_sum(3, 3, 4, i) &&
			      out[i].values[2].u == block_sum(2, 2, 63, i) && out[i].values[3].u == block_sum(0, 1, 5, i) &&
			      out[i].values[4].u == block_sum(1, 1, 10, i),
		      "sample %u's values", i);
		free(out[i].values);
	}
	CHECK(r.dumps >= 2 && r.puts == 4, "dumps requested off the caller's thread, every buffer given back (%d, %d)",
	      r.dumps, r.puts);
	pp_gpu_kbase_destroy(k);
	CHECK(r.closes == 1, "closed once");
	free(r.file);
}

static void test_kinstr(void)
{
	char path[1024];
	path_of(path, sizeof(path), "kbase_kinstr.bin");
	struct replay r;
	CHECK(replay_load(&r, path), "kinstr stream loads");
	for (uint32_t n = 0; n < r.naccess; n++) {
		struct pp_kbase_sample s;
		CHECK(pp_gpu_kbase_kinstr_decode(r.mapping, r.mapping_len, r.access[n].sample_offset_bytes, &s) == 0,
		      "sample %u decodes", n);
		char what[32];
		snprintf(what, sizeof(what), "kinstr sample %u", n);
		check_sample(what, &s, n, 3);
		CHECK(s.end_ns - s.begin_ns == (n ? 1500000u : 1000000u), "%s: its interval", what);
	}
	struct pp_kbase_sample s;
	CHECK(pp_gpu_kbase_kinstr_decode(r.mapping, r.mapping_len - 8, r.access[r.naccess - 1].sample_offset_bytes, &s) ==
		      -EINVAL,
	      "values outside the mapping are refused");
	CHECK(pp_gpu_kbase_kinstr_decode(r.mapping, r.mapping_len, r.mapping_len - 16, &s) == -EINVAL,
	      "a list running off the mapping is refused");

	struct pp_kbase_io io = replay_io(&r);
	char why[256] = "";
	struct pp_kbase *k = pp_gpu_kbase_create(&io, "default", why, sizeof(why));
	CHECK(k != NULL, "backend over the kinstr replay: %s", why);
	if (!k)
		return;
	const struct pp_gpu_counter_backend *b = pp_gpu_kbase_backend(k);
	CHECK(pp_gpu_kbase_interface(k) == PP_KBASE_KINSTR, "kinstr_prfcnt chosen for UAPI 11.40");
	CHECK(b->set_count(b->ctx) == 2 && !strcmp(b->set_desc(b->ctx, 0)->name, "GPU_CYCLES_TOP"),
	      "default: the cycle counters");
	CHECK(pp_gpu_kbase_props(k)->shader_cores == 3 && pp_gpu_kbase_props(k)->l2_slices == 2 &&
		      pp_gpu_kbase_props(k)->bus_width_bits == 128,
	      "the symbolic constants' inputs");
	CHECK(b->sample_start(b->ctx, 1000000) == 0, "sampler starts");
	b->sample_stop(b->ctx);
	struct pp_gpu_counter_sample out[8];
	uint32_t n = b->samples_take(b->ctx, out, 8);
	CHECK(n == 2, "both samples (%u)", n);
	for (uint32_t i = 0; i < n; i++) {
		CHECK(out[i].nvalues == 2 && out[i].values[0].u == 1000 * (i + 1) && out[i].values[1].u == 900 * (i + 1),
		      "sample %u's cycles", i);
		free(out[i].values);
	}
	CHECK(r.starts == 1 && r.stops == 1 && r.puts == 2, "started, stopped, every sample given back");
	pp_gpu_kbase_destroy(k);
	free(r.file);
}

static void test_absent(void)
{
	struct pp_kbase_io io;
	CHECK(pp_gpu_kbase_ioctl_io_open("/nonexistent/mali0", &io) == -ENOENT, "no device: -ENOENT");
}

int main(int argc, char **argv)
{
	g_dir = argc > 1 ? argv[1] : ".";
	test_legacy();
	test_kinstr();
	test_absent();
	return check_finish();
}
