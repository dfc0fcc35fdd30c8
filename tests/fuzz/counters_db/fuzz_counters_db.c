/* libFuzzer target: the counter database reader (counters/db/gen/pp_counter_dbgen_read.c, the
 * build-time loader of manifests/counters) on arbitrary files.
 *
 * Besides "no crash, no leak, no UB" it checks: a refused file has at least one error; an
 * accepted one is a consistent database (every entry found by its own name, every alias
 * resolving, an evaluator created from it, every entry evaluating to a number or to
 * unavailable with a known status) and is written out as C without trouble. A broken
 * property traps so libFuzzer keeps the input. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_counter_dbgen.h"
#include "pp_counter_eval.h"

#define FUZZ_CHECK(c)                    \
	do {                             \
		if (!(c))                \
			__builtin_trap(); \
	} while (0)

static void fuzz_db(const struct pp_counter_db *db)
{
	for (uint32_t i = 0; i < db->counter_count; i++)
		FUZZ_CHECK(pp_counter_db_lookup(db, db->counters[i].name) == (int)i);
	for (uint32_t a = 0; a < db->alias_count; a++)
		FUZZ_CHECK(pp_counter_db_lookup(db, db->aliases[a].name) >= 0);

	struct pp_counter_eval *ev = NULL;
	FUZZ_CHECK(pp_counter_eval_create(db, &ev, NULL, NULL) == 0);
	struct pp_counter_value *s = calloc(db->counter_count, sizeof(*s));
	if (!s) {
		pp_counter_eval_destroy(ev);
		return;
	}
	pp_counter_eval_sample_clear(ev, s);
	for (uint32_t i = 0; i < db->counter_count; i++)
		pp_counter_eval_sample_set(ev, s, (int)i, (double)(i % 3));
	for (uint32_t i = 0; i < db->counter_count; i++) {
		struct pp_counter_value v = pp_counter_eval_counter(ev, s, (int)i);
		FUZZ_CHECK(v.status == PP_VALUE_OK || v.status == PP_VALUE_MISSING ||
			   v.status == PP_VALUE_DIV_ZERO || v.status == PP_VALUE_NOT_FINITE);
		FUZZ_CHECK(v.status != PP_VALUE_OK || isfinite(v.value));
	}
	free(s);
	pp_counter_eval_destroy(ev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	FILE *in = fmemopen((void *)data, size, "r");
	if (!in)
		return 0;
	struct dbgen_db s;
	memset(&s, 0, sizeof(s));
	s.path = "fuzz.counters";
	int rc = pp_counter_dbgen_read(&s, in);
	fclose(in);
	if (rc != 0) {
		FUZZ_CHECK(s.failures > 0);
	} else {
		FUZZ_CHECK(s.failures == 0);
		fuzz_db(&s.db);
		char *text = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);
		if (out) {
			pp_counter_dbgen_read_write(out, 0, &s);
			FUZZ_CHECK(fclose(out) == 0 && len > 0);
			free(text);
		}
	}
	pp_counter_dbgen_read_free(&s);
	return 0;
}
