/* libFuzzer target: the JSON reader and pp_summary_read_from_json on arbitrary bytes.
 *
 * Besides "no crash, no leak, no UB" it checks two properties that need no oracle:
 *  - whatever the reader accepts, the writer can write back out and the reader accepts again,
 *    with the same strings and numbers (writer/reader agree on escaping, UTF-8 and depth);
 *  - whatever summary pp_summary_read_from_json accepts survives pp_summary_write_json and
 *    pp_summary_read_from_json again unchanged, and prints without trouble.
 * A broken property traps so libFuzzer keeps the input. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_json.h"
#include "pp_summary.h"

#define FUZZ_CHECK(c)                    \
	do {                             \
		if (!(c))                \
			__builtin_trap(); \
	} while (0)

static bool fuzz_same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

static bool fuzz_same_value(const struct pp_json_value *a, const struct pp_json_value *b)
{
	if (pp_json_read_type_of(a) != pp_json_read_type_of(b))
		return false;
	switch (pp_json_read_type_of(a)) {
	case PP_JSON_NULL:
		return true;
	case PP_JSON_BOOL:
		return a->u.boolean == b->u.boolean;
	case PP_JSON_NUMBER: {
		double da = 0, db = 0;
		int64_t ia, ib;
		uint64_t ua, ub;
		pp_json_read_get_double(a, &da);
		pp_json_read_get_double(b, &db);
		if (pp_json_read_get_int64(a, &ia))
			return pp_json_read_get_int64(b, &ib) && ia == ib;
		if (pp_json_read_get_uint64(a, &ua))
			return pp_json_read_get_uint64(b, &ub) && ua == ub;
		/* -0 may come back as 0 only through the integer path, handled above. */
		return fuzz_same_double(da, db);
	}
	case PP_JSON_STRING: {
		size_t la = 0, lb = 0;
		const char *sa = pp_json_read_get_string(a, &la), *sb = pp_json_read_get_string(b, &lb);
		return la == lb && memcmp(sa, sb, la) == 0;
	}
	case PP_JSON_ARRAY:
		if (pp_json_read_array_size(a) != pp_json_read_array_size(b))
			return false;
		for (size_t i = 0; i < pp_json_read_array_size(a); i++)
			if (!fuzz_same_value(pp_json_read_array_at(a, i), pp_json_read_array_at(b, i)))
				return false;
		return true;
	case PP_JSON_OBJECT:
		if (pp_json_read_object_size(a) != pp_json_read_object_size(b))
			return false;
		for (size_t i = 0; i < pp_json_read_object_size(a); i++) {
			const struct pp_json_member *ma = pp_json_read_object_at(a, i), *mb = pp_json_read_object_at(b, i);
			/* keys by their length: a NUL in a key comes back too */
			if (ma->key_len != mb->key_len || memcmp(ma->key, mb->key, ma->key_len) ||
			    !fuzz_same_value(&ma->value, &mb->value))
				return false;
		}
		return true;
	}
	return false;
}

static bool fuzz_same_summary(const struct pp_summary *a, const struct pp_summary *b)
{
	if (a->frames != b->frames || a->nrows != b->nrows ||
	    !fuzz_same_double(a->frame_gpu_mean_ns, b->frame_gpu_mean_ns) ||
	    !fuzz_same_double(a->frame_gpu_p50_ns, b->frame_gpu_p50_ns) ||
	    !fuzz_same_double(a->frame_gpu_p95_ns, b->frame_gpu_p95_ns) ||
	    strcmp(a->device, b->device) || strcmp(a->notes, b->notes) || a->diag_warnings != b->diag_warnings ||
	    a->diag_info != b->diag_info || a->ndiags != b->ndiags)
		return false;
	for (uint32_t i = 0; i < a->ndiags && i < PP_SUMMARY_DIAGNOSTICS; i++) {
		const struct pp_summary_diag *x = &a->diags[i], *y = &b->diags[i];
		if (strcmp(x->id, y->id) || strcmp(x->site, y->site) || !fuzz_same_double(x->cost_ns, y->cost_ns) ||
		    x->count != y->count || x->frames != y->frames)
			return false;
	}
	for (size_t i = 0; i < a->nrows; i++) {
		const struct pp_summary_row *x = &a->rows[i], *y = &b->rows[i];
		if (strcmp(x->name, y->name) || strcmp(x->kind, y->kind) || x->count != y->count ||
		    x->measured != y->measured || !fuzz_same_double(x->gpu_mean_ns, y->gpu_mean_ns) ||
		    !fuzz_same_double(x->gpu_p50_ns, y->gpu_p50_ns) ||
		    !fuzz_same_double(x->gpu_p95_ns, y->gpu_p95_ns) ||
		    !fuzz_same_double(x->gpu_max_ns, y->gpu_max_ns) ||
		    !fuzz_same_double(x->share_of_frame, y->share_of_frame) ||
		    !fuzz_same_double(x->per_frame, y->per_frame) ||
		    !fuzz_same_double(x->cpu_record_mean_ns, y->cpu_record_mean_ns))
			return false;
	}
	return true;
}

static void fuzz_summary(const struct pp_json_value *root)
{
	static FILE *devnull;
	struct pp_summary s, back;
	char err[256];

	if (pp_summary_read_from_json(root, &s, err, sizeof(err)) != 0) {
		FUZZ_CHECK(err[0] != '\0');
		pp_summary_free(&s);
		return;
	}
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (devnull) {
		pp_summary_print(devnull, &s, 0);
		pp_summary_print(devnull, &s, 3);
	}

	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 0, 1);
	pp_json_write_begin_object(&w);
	pp_json_write_key(&w, "summary");
	pp_summary_write_json(&w, &s);
	pp_json_write_end_object(&w);
	FUZZ_CHECK(pp_json_write_finish(&w) == 0);
	size_t len;
	const char *text = pp_json_write_mem(&w, &len);
	struct pp_json_value *again = NULL;
	FUZZ_CHECK(pp_json_read_parse(text, len, NULL, &again, err, sizeof(err)) == 0);
	FUZZ_CHECK(pp_summary_read_from_json(again, &back, err, sizeof(err)) == 0);
	FUZZ_CHECK(fuzz_same_summary(&s, &back));
	pp_summary_free(&back);
	pp_json_read_free(again);
	pp_json_write_release(&w);
	pp_summary_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pp_json_value *root = NULL;
	char err[256];
	struct pp_json_limits limits = { .max_len = 1 << 20 };

	int rc = pp_json_read_parse((const char *)data, size, &limits, &root, err, sizeof(err));
	if (rc != 0) {
		FUZZ_CHECK(root == NULL && err[0] != '\0');
		return 0;
	}

	/* Write the tree back and read it again. */
	struct pp_json_writer w;
	pp_json_write_init_mem(&w, 0, size & 1 ? 2 : 0);
	pp_json_read_value_write(&w, root);
	FUZZ_CHECK(pp_json_write_finish(&w) == 0);
	size_t len;
	const char *text = pp_json_write_mem(&w, &len);
	struct pp_json_value *again = NULL;
	FUZZ_CHECK(pp_json_read_parse(text, len, NULL, &again, err, sizeof(err)) == 0);
	FUZZ_CHECK(fuzz_same_value(root, again));
	pp_json_read_free(again);
	pp_json_write_release(&w);

	fuzz_summary(root);
	pp_json_read_free(root);
	return 0;
}
