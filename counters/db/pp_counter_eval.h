#pragma once
/* Evaluating derived counters of a database (pp_counter_db.h): equations parsed once into
 * ASTs with their counter references resolved (pp_counter_eval_create), then evaluated on
 * samples as often as wanted without allocating.
 *
 * A sample is an array of struct pp_counter_value, one per database entry (index as in
 * db->counters), owned by the caller. pp_counter_eval_sample_clear() marks every entry missing
 * (inputs) or not yet computed (derived); the caller sets the hardware values and the
 * constants it knows; pp_counter_eval_counter() computes a derived counter, memoizing it and
 * everything it needed in the sample. A value that cannot be computed is never a number:
 * its status says why (an input missing, a division by zero, a non-finite result) and which
 * counter and equation offset caused it; pp_counter_eval_value_describe() says it in words.
 * Setting an input forgets what was computed (a loop over the entries, no more), so values
 * read after a set always reflect it; set all inputs first, then evaluate.
 *
 * Threads: an evaluator is read-only after creation and may be shared; a sample belongs to
 * one thread at a time. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_counter_db.h"
#include "pp_expr.h"

enum pp_value_status {
	PP_VALUE_OK = 0,
	PP_VALUE_MISSING,    /* an input was not supplied: subject is that entry */
	PP_VALUE_DIV_ZERO,   /* a division by zero: subject is the counter whose equation divided
			      * (-1: an ad hoc expression), offset the '/' in that equation */
	PP_VALUE_NOT_FINITE, /* the result overflowed (or an input was not finite): subject/offset
			      * as for PP_VALUE_DIV_ZERO, offset -1 for an input */
	PP_VALUE_PENDING,    /* derived: not computed yet in this sample */
	PP_VALUE_CYCLE,      /* derived: its equation refers back to itself (only reachable with
			      * a database that pp_counter_eval_create would have refused) */
};

struct pp_counter_value {
	double value;    /* meaningful only with PP_VALUE_OK */
	uint8_t status;  /* enum pp_value_status */
	int32_t subject; /* see enum pp_value_status; -1 none */
	int32_t offset;  /* see enum pp_value_status; -1 none */
};

struct pp_counter_eval;

/* Parses every equation of db and resolves its references. Fails (-EINVAL) on a syntax error,
 * an unknown name or a cycle among derived counters; then err says where and *bad_entry (may
 * be NULL) is the entry whose equation failed. -ENOMEM when out of memory. */
int pp_counter_eval_create(const struct pp_counter_db *db, struct pp_counter_eval **out,
			   struct pp_expr_error *err, int *bad_entry);
void pp_counter_eval_destroy(struct pp_counter_eval *ev);
const struct pp_counter_db *pp_counter_eval_db(const struct pp_counter_eval *ev);
/* The parsed equation of a derived counter or constant entry, NULL for inputs. */
const struct pp_expr *pp_counter_eval_equation(const struct pp_counter_eval *ev, int entry);

/* Parses text and resolves its names against the evaluator's database: an ad hoc equation
 * (`passprobe counters eval --expr`). Unknown names fail with -EINVAL and err at the name.
 * Free the result with pp_expr_free. */
int pp_counter_eval_compile(const struct pp_counter_eval *ev, const char *text,
			    struct pp_expr **out, struct pp_expr_error *err);

/* Sample set-up. sample has db->counter_count entries. */
void pp_counter_eval_sample_clear(const struct pp_counter_eval *ev, struct pp_counter_value *sample);
/* Sets an input (hardware counter or constant without equation). Hardware values are raw
 * counts, multiplied by the counter's scale here; for a block with several instances, the
 * value aggregated as the database expects (pp_counter_eval_sample_set_instances does that).
 * -EINVAL: entry out of range or not an input. */
int pp_counter_eval_sample_set(const struct pp_counter_eval *ev, struct pp_counter_value *sample,
			  int entry, double raw);
/* Sets a hardware counter from its per-instance raw values (n >= 1), combined as the
 * database's aggregate for the counter's block says (sum or mean). */
int pp_counter_eval_sample_set_instances(const struct pp_counter_eval *ev,
				    struct pp_counter_value *sample, int entry,
				    const double *raw, size_t n);
/* By name (aliases followed); -ENOENT for an unknown name. */
int pp_counter_eval_sample_set_name(const struct pp_counter_eval *ev, struct pp_counter_value *sample,
			       const char *name, double raw);

/* The value of an entry: inputs as set, derived counters and defined constants computed
 * (and memoized in sample). No allocation. */
struct pp_counter_value pp_counter_eval_counter(const struct pp_counter_eval *ev,
						struct pp_counter_value *sample, int entry);
/* The value of a compiled expression (pp_counter_eval_compile) on sample. */
struct pp_counter_value pp_counter_eval_expr(const struct pp_counter_eval *ev,
					     struct pp_counter_value *sample,
					     const struct pp_expr *e);

/* "12.5", or why it is unavailable: "unavailable: input JM.GPU_ACTIVE missing",
 * "unavailable: division by zero in SC.TEX_CPI at offset 13". Returns buf. */
const char *pp_counter_eval_value_describe(const struct pp_counter_eval *ev,
				      const struct pp_counter_value *v, char *buf, size_t len);
