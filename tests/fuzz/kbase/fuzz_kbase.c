/* libFuzzer target: what passprobe decodes from the Mali kernel driver (GET_GPUPROPS' blob,
 * legacy dumps, kinstr_prfcnt metadata lists: counters/gpu/gpu_kbase.c) and the time-overlap
 * attribution of samples (attribution/model/attr_overlap.c), on arbitrary bytes.
 *
 * The first byte picks the target. Besides "no crash, no UB", checked without an oracle:
 *  - decoded samples never report more block instances than metadata items fit in the input;
 *  - overlap shares keep lower <= estimate <= upper (within rounding), and the estimates of
 *    all passes add up to no more than the samples' values.
 * A broken property traps so libFuzzer keeps the input. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "attr_overlap.h"
#include "gpu_kbase.h"

#define FUZZ_CHECK(c)                    \
	do {                             \
		if (!(c))                \
			__builtin_trap(); \
	} while (0)

static void fuzz_overlap(const uint8_t *d, size_t n)
{
	struct pp_overlap_span passes[8], samples[8];
	double v[8];
	uint32_t np = 0, ns = 0;
	/* 17 bytes per span: kind, begin (u64), end (u64 as a length) */
	while (n >= 17 && (np < 8 || ns < 8)) {
		uint64_t b, len;
		memcpy(&b, d + 1, 8);
		memcpy(&len, d + 9, 8);
		b %= 1000000;
		len %= 1000000;
		struct pp_overlap_span s = { b, b + len, !(d[0] & 2) };
		if ((d[0] & 1) && np < 8) {
			passes[np++] = s;
		} else if (ns < 8) {
			v[ns] = (double)(len % 1000);
			samples[ns++] = s;
		}
		d += 17;
		n -= 17;
	}
	struct pp_overlap_share out[8];
	pp_attr_overlap_attribute(passes, np, samples, v, ns, out);
	double total = 0, est = 0;
	for (uint32_t s = 0; s < ns; s++)
		total += samples[s].valid ? v[s] : 0;
	for (uint32_t p = 0; p < np; p++) {
		FUZZ_CHECK(out[p].lower <= out[p].estimate + 1e-6 && out[p].estimate <= out[p].upper + 1e-6);
		est += out[p].estimate;
	}
	FUZZ_CHECK(est <= total + 1e-6);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const uint8_t *d = data + 1;
	size_t n = size - 1;
	struct pp_kbase_sample s;
	switch (data[0] % 4) {
	case 0: {
		struct pp_kbase_props p;
		if (pp_gpu_kbase_props_parse(d, n, &p) == 0)
			FUZZ_CHECK(p.l2_slices > 0 && p.shader_cores <= 64);
		break;
	}
	case 1: {
		/* a fixed GPU (3 cores in mask 0b1011, 2 L2 slices), the metadata, then the dump */
		struct pp_kbase_props p = { .shader_present = 0xb, .shader_cores = 3, .l2_slices = 2 };
		struct pp_kbase_hwcnt_reader_metadata md = { 0 };
		if (n < sizeof(md))
			break;
		memcpy(&md, d, sizeof(md));
		if (pp_gpu_kbase_legacy_decode(&p, &md, 1, d + sizeof(md), n - sizeof(md), &s) == 0)
			FUZZ_CHECK(s.instances[PP_PRFCNT_BLOCK_SHADER_CORE] == 3 && s.instances[PP_PRFCNT_BLOCK_MEMORY] == 2);
		break;
	}
	case 2: {
		uint32_t offset = 0;
		if (n < 4)
			break;
		memcpy(&offset, d, 4);
		if (pp_gpu_kbase_kinstr_decode(d + 4, n - 4, offset % (n - 3), &s) == 0) {
			/* every block instance came from a metadata item of its own */
			size_t items = 0;
			for (int t = 0; t < PP_PRFCNT_BLOCK_TYPES; t++)
				items += s.instances[t];
			FUZZ_CHECK(items * sizeof(struct pp_prfcnt_metadata) <= n);
		}
		break;
	}
	case 3: fuzz_overlap(d, n); break;
	}
	return 0;
}
