/* libFuzzer target: the counter equation parser and evaluator on arbitrary text.
 *
 * Besides "no crash, no leak, no UB, bounded recursion" it checks properties that need no
 * oracle: a refused equation has a message and an offset inside the text; an accepted one
 * lists names that are slices of its text; resolved against each built-in database and
 * evaluated on a sample whose inputs come from the input bytes (zeros included, so divisions
 * by zero happen), the result is either a finite number or unavailable with a known status;
 * and evaluating twice gives the same answer. A broken property traps so libFuzzer keeps the
 * input. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pp_counter_db.h"
#include "pp_counter_eval.h"

#define FUZZ_CHECK(c)                    \
	do {                             \
		if (!(c))                \
			__builtin_trap(); \
	} while (0)

static struct pp_counter_eval *evals[8];
static size_t neval;

static void fuzz_init(void)
{
	if (neval)
		return;
	for (size_t i = 0; i < pp_counter_db_list_count() && neval < 8; i++) {
		struct pp_counter_eval *ev = NULL;
		FUZZ_CHECK(pp_counter_eval_create(pp_counter_db_list_at(i), &ev, NULL, NULL) == 0);
		evals[neval++] = ev;
	}
}

static void fuzz_value(const struct pp_counter_eval *ev, struct pp_counter_value v)
{
	char buf[256];
	FUZZ_CHECK(v.status <= PP_VALUE_CYCLE && v.status != PP_VALUE_PENDING &&
		   v.status != PP_VALUE_CYCLE);
	if (v.status == PP_VALUE_OK)
		FUZZ_CHECK(isfinite(v.value));
	pp_counter_eval_value_describe(ev, &v, buf, sizeof(buf));
	FUZZ_CHECK(buf[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_init();
	if (size > PP_EXPR_MAX_LEN + 16)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	size_t len = strlen(text);

	struct pp_expr *e = NULL;
	struct pp_expr_error err;
	int rc = pp_expr_parse(text, &e, &err);
	if (rc) {
		FUZZ_CHECK(e == NULL && err.message[0] != '\0');
		FUZZ_CHECK(err.offset >= -1 && err.offset <= (int32_t)len);
	} else {
		const char *copy = pp_expr_text(e);
		FUZZ_CHECK(strcmp(copy, text) == 0);
		for (size_t i = 0; i < pp_expr_ref_count(e); i++) {
			size_t n;
			int32_t off;
			const char *name = pp_expr_ref(e, i, &n, &off);
			FUZZ_CHECK(n > 0 && off >= 0 && (size_t)off + n <= len && name == copy + off);
		}
		pp_expr_free(e);
	}

	for (size_t d = 0; d < neval; d++) {
		const struct pp_counter_eval *ev = evals[d];
		const struct pp_counter_db *db = pp_counter_eval_db(ev);
		struct pp_expr *c = NULL;
		int crc = pp_counter_eval_compile(ev, text, &c, &err);
		/* Resolving can only refuse more than parsing does. */
		FUZZ_CHECK(!(rc != 0 && crc == 0));
		if (crc) {
			FUZZ_CHECK(c == NULL && err.message[0] != '\0');
			continue;
		}
		struct pp_counter_value *s = calloc(db->counter_count, sizeof(*s));
		if (!s) {
			pp_expr_free(c);
			break;
		}
		pp_counter_eval_sample_clear(ev, s);
		for (uint32_t i = 0; i < db->counter_count; i++)
			if (size && data[(i * 7) % size] % 5) /* some inputs left missing */
				pp_counter_eval_sample_set(ev, s, (int)i, (double)(data[i % size] % 9));
		struct pp_counter_value v1 = pp_counter_eval_expr(ev, s, c);
		fuzz_value(ev, v1);
		struct pp_counter_value v2 = pp_counter_eval_expr(ev, s, c);
		FUZZ_CHECK(v1.status == v2.status && v1.subject == v2.subject && v1.offset == v2.offset);
		FUZZ_CHECK(v1.status != PP_VALUE_OK || v1.value == v2.value);
		for (uint32_t i = 0; i < db->counter_count; i++)
			fuzz_value(ev, pp_counter_eval_counter(ev, s, (int)i));
		free(s);
		pp_expr_free(c);
	}
	free(text);
	return 0;
}
