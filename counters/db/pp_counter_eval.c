/* Evaluating a database's equations: parsed and resolved once (pp_counter_eval_create), then
 * evaluated on caller-owned samples with no allocation. Derived counters are memoized in the
 * sample, so a counter that several equations use is computed once per sample. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_counter_db_internal.h"
#include "pp_counter_eval.h"

struct pp_counter_eval {
	const struct pp_counter_db *db;
	struct pp_expr **equation; /* by entry; NULL for inputs */
	int32_t *computed;         /* the entries that have an equation */
	uint32_t computed_count;
};

static bool has_equation(const struct pp_counter_desc *d)
{
	return d->kind == PP_COUNTER_DERIVED || (d->kind == PP_COUNTER_CONSTANT && d->equation);
}

/* How a SUM argument depends on hardware counters: 0 not at all, 1 linearly; -1 (with err set)
 * when not linear. SUM is evaluated on per-GPU totals (the instances already combined, 002
 * "Counter cardinality"), which equals the sum over instances only for a linear argument. */
static int sum_degree(const struct pp_counter_db *db, const struct pp_expr *e, int32_t n,
		      struct pp_expr_error *err)
{
	const struct pp_expr_node *nd = &e->nodes[n];
	int a, b;

	switch (nd->op) {
	case PP_OP_NUM:
		return 0;
	case PP_OP_REF: {
		const struct pp_expr_ref *r = &e->refs[nd->ref];
		const struct pp_counter_desc *d = &db->counters[r->entry];
		if (d->kind == PP_COUNTER_HARDWARE)
			return 1;
		if (d->kind == PP_COUNTER_CONSTANT)
			return 0;
		pp_expr_error_set(err, r->offset,
				  "SUM over the derived counter '%s': SUM is evaluated on per-GPU "
				  "totals, which needs an argument linear in hardware counters",
				  d->name);
		return -1;
	}
	case PP_OP_NEG:
	case PP_OP_SUM:
		return sum_degree(db, e, nd->a, err);
	default:
		break;
	}
	if ((a = sum_degree(db, e, nd->a, err)) < 0 || (b = sum_degree(db, e, nd->b, err)) < 0)
		return -1;
	switch (nd->op) {
	case PP_OP_ADD:
	case PP_OP_SUB:
		return a > b ? a : b;
	case PP_OP_MUL:
		if (a + b <= 1)
			return a + b;
		break;
	case PP_OP_DIV:
		if (b == 0)
			return a;
		break;
	default: /* max, min */
		if (a == 0 && b == 0)
			return 0;
		break;
	}
	pp_expr_error_set(err, nd->offset,
			  "SUM over a term that is not linear in hardware counters: SUM is "
			  "evaluated on per-GPU totals, which equals the sum over instances only "
			  "for sums of counters times constants");
	return -1;
}

/* Binds every name of e to an entry of db; checks SUM arguments. */
static int resolve(const struct pp_counter_db *db, struct pp_expr *e, struct pp_expr_error *err)
{
	for (uint32_t i = 0; i < e->ref_count; i++) {
		struct pp_expr_ref *r = &e->refs[i];
		r->entry = pp_counter_db_lookup_n(db, e->text + r->offset, (size_t)r->len);
		if (r->entry < 0) {
			pp_expr_error_set(err, r->offset, "unknown counter '%.*s' in %s",
					  r->len > 80 ? 80 : (int)r->len, e->text + r->offset,
					  db->id);
			return -EINVAL;
		}
	}
	for (uint32_t n = 0; n < e->node_count; n++)
		if (e->nodes[n].op == PP_OP_SUM && sum_degree(db, e, e->nodes[n].a, err) < 0)
			return -EINVAL;
	return 0;
}

enum { WHITE = 0, GREY, BLACK };

/* Depth-first walk of the references between equations; a reference to an entry still on
 * the walk's path (grey) is a cycle, reported as the path "A -> B -> A". */
static int find_cycle(const struct pp_counter_eval *ev, int entry, uint8_t *colour, int *path,
		      int depth, struct pp_expr_error *err, int *bad_entry)
{
	const struct pp_expr *e = ev->equation[entry];
	colour[entry] = GREY;
	path[depth] = entry;
	for (uint32_t i = 0; e && i < e->ref_count; i++) {
		int to = e->refs[i].entry;
		if (!ev->equation[to] || colour[to] == BLACK)
			continue;
		if (colour[to] == GREY) {
			char msg[sizeof(err->message)];
			size_t len = 0;
			int from = 0;
			while (path[from] != to)
				from++;
			msg[0] = '\0';
			for (int k = from; k <= depth; k++)
				len += (size_t)snprintf(msg + len, len < sizeof(msg) ? sizeof(msg) - len : 0,
							"%s -> ", ev->db->counters[path[k]].name);
			if (len < sizeof(msg))
				snprintf(msg + len, sizeof(msg) - len, "%s", ev->db->counters[to].name);
			pp_expr_error_set(err, e->refs[i].offset, "cycle among equations: %s", msg);
			if (bad_entry)
				*bad_entry = entry;
			return -EINVAL;
		}
		int rc = find_cycle(ev, to, colour, path, depth + 1, err, bad_entry);
		if (rc)
			return rc;
	}
	colour[entry] = BLACK;
	return 0;
}

int pp_counter_eval_create(const struct pp_counter_db *db, struct pp_counter_eval **out,
			   struct pp_expr_error *err, int *bad_entry)
{
	*out = NULL;
	if (bad_entry)
		*bad_entry = -1;
	if (err) {
		err->offset = -1;
		err->message[0] = '\0';
	}
	if (!db)
		return -EINVAL;
	struct pp_counter_eval *ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->db = db;
	ev->equation = calloc(db->counter_count ? db->counter_count : 1, sizeof(*ev->equation));
	if (!ev->equation) {
		free(ev);
		return -ENOMEM;
	}
	int rc = 0;
	for (uint32_t i = 0; i < db->counter_count && !rc; i++) {
		const struct pp_counter_desc *d = &db->counters[i];
		if (!has_equation(d))
			continue;
		rc = pp_expr_parse(d->equation, &ev->equation[i], err);
		if (!rc)
			rc = resolve(db, ev->equation[i], err);
		if (rc && bad_entry)
			*bad_entry = (int)i;
	}
	if (!rc) {
		ev->computed = calloc(db->counter_count ? db->counter_count : 1, sizeof(*ev->computed));
		if (!ev->computed)
			rc = -ENOMEM;
		for (uint32_t i = 0; !rc && i < db->counter_count; i++)
			if (ev->equation[i])
				ev->computed[ev->computed_count++] = (int32_t)i;
	}
	if (!rc) {
		uint8_t *colour = calloc(db->counter_count, sizeof(*colour));
		int *path = calloc(db->counter_count, sizeof(*path));
		if (!colour || !path)
			rc = -ENOMEM;
		for (uint32_t i = 0; i < db->counter_count && !rc; i++)
			if (ev->equation[i] && colour[i] == WHITE)
				rc = find_cycle(ev, (int)i, colour, path, 0, err, bad_entry);
		free(colour);
		free(path);
	}
	if (rc) {
		pp_counter_eval_destroy(ev);
		return rc;
	}
	*out = ev;
	return 0;
}

void pp_counter_eval_destroy(struct pp_counter_eval *ev)
{
	if (!ev)
		return;
	for (uint32_t i = 0; i < ev->db->counter_count; i++)
		pp_expr_free(ev->equation[i]);
	free(ev->equation);
	free(ev->computed);
	free(ev);
}

const struct pp_counter_db *pp_counter_eval_db(const struct pp_counter_eval *ev)
{
	return ev ? ev->db : NULL;
}

const struct pp_expr *pp_counter_eval_equation(const struct pp_counter_eval *ev, int entry)
{
	if (!ev || entry < 0 || (uint32_t)entry >= ev->db->counter_count)
		return NULL;
	return ev->equation[entry];
}

int pp_counter_eval_compile(const struct pp_counter_eval *ev, const char *text,
			    struct pp_expr **out, struct pp_expr_error *err)
{
	*out = NULL;
	struct pp_expr *e;
	int rc = pp_expr_parse(text, &e, err);
	if (rc)
		return rc;
	rc = resolve(ev->db, e, err);
	if (rc) {
		pp_expr_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

/* ---- samples ---------------------------------------------------------------------------- */

static struct pp_counter_value value_ok(double v)
{
	return (struct pp_counter_value){ .value = v, .status = PP_VALUE_OK, .subject = -1,
					  .offset = -1 };
}

static struct pp_counter_value value_bad(enum pp_value_status status, int32_t subject,
					 int32_t offset)
{
	return (struct pp_counter_value){ .value = NAN, .status = (uint8_t)status,
					  .subject = subject, .offset = offset };
}

static bool is_input(const struct pp_counter_desc *d)
{
	return d->kind == PP_COUNTER_HARDWARE || (d->kind == PP_COUNTER_CONSTANT && !d->equation);
}

void pp_counter_eval_sample_clear(const struct pp_counter_eval *ev, struct pp_counter_value *sample)
{
	for (uint32_t i = 0; i < ev->db->counter_count; i++)
		sample[i] = value_bad(is_input(&ev->db->counters[i]) ? PP_VALUE_MISSING
								     : PP_VALUE_PENDING,
				      (int32_t)i, -1);
}

int pp_counter_eval_sample_set(const struct pp_counter_eval *ev, struct pp_counter_value *sample,
			  int entry, double raw)
{
	if (entry < 0 || (uint32_t)entry >= ev->db->counter_count)
		return -EINVAL;
	const struct pp_counter_desc *d = &ev->db->counters[entry];
	if (!is_input(d))
		return -EINVAL;
	double v = d->kind == PP_COUNTER_HARDWARE ? raw * d->scale : raw;
	sample[entry] = isfinite(v) ? value_ok(v) : value_bad(PP_VALUE_NOT_FINITE, entry, -1);
	/* What was computed from the old value is stale now. */
	for (uint32_t k = 0; k < ev->computed_count; k++) {
		int32_t i = ev->computed[k];
		if (sample[i].status != PP_VALUE_PENDING)
			sample[i] = value_bad(PP_VALUE_PENDING, i, -1);
	}
	return 0;
}

int pp_counter_eval_sample_set_instances(const struct pp_counter_eval *ev,
				    struct pp_counter_value *sample, int entry,
				    const double *raw, size_t n)
{
	if (entry < 0 || (uint32_t)entry >= ev->db->counter_count || n == 0 || !raw ||
	    ev->db->counters[entry].kind != PP_COUNTER_HARDWARE)
		return -EINVAL;
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += raw[i];
	uint8_t block = ev->db->counters[entry].block;
	if (block < PP_BLOCK_COUNT && ev->db->aggregate[block] == PP_AGGREGATE_MEAN)
		total /= (double)n;
	return pp_counter_eval_sample_set(ev, sample, entry, total);
}

int pp_counter_eval_sample_set_name(const struct pp_counter_eval *ev, struct pp_counter_value *sample,
			       const char *name, double raw)
{
	int entry = pp_counter_db_lookup(ev->db, name);
	if (entry < 0)
		return -ENOENT;
	return pp_counter_eval_sample_set(ev, sample, entry, raw);
}

/* subject: the entry whose equation this is (-1 for an ad hoc expression), named in the
 * reasons of what goes wrong here. */
static struct pp_counter_value eval_node(const struct pp_counter_eval *ev,
					 struct pp_counter_value *sample, const struct pp_expr *e,
					 int32_t n, int32_t subject)
{
	const struct pp_expr_node *nd = &e->nodes[n];
	struct pp_counter_value a, b;
	double r;

	switch (nd->op) {
	case PP_OP_NUM:
		return value_ok(nd->num);
	case PP_OP_REF: {
		int entry = e->refs[nd->ref].entry;
		if (entry < 0) /* an expression that was parsed but never resolved */
			return value_bad(PP_VALUE_MISSING, -1, nd->offset);
		return pp_counter_eval_counter(ev, sample, entry);
	}
	case PP_OP_NEG:
		a = eval_node(ev, sample, e, nd->a, subject);
		if (a.status == PP_VALUE_OK)
			a.value = -a.value;
		return a;
	case PP_OP_SUM: /* on per-GPU totals: see sum_degree */
		return eval_node(ev, sample, e, nd->a, subject);
	default:
		break;
	}
	a = eval_node(ev, sample, e, nd->a, subject);
	if (a.status != PP_VALUE_OK)
		return a;
	b = eval_node(ev, sample, e, nd->b, subject);
	if (b.status != PP_VALUE_OK)
		return b;
	switch (nd->op) {
	case PP_OP_ADD:
		r = a.value + b.value;
		break;
	case PP_OP_SUB:
		r = a.value - b.value;
		break;
	case PP_OP_MUL:
		r = a.value * b.value;
		break;
	case PP_OP_DIV:
		if (b.value == 0)
			return value_bad(PP_VALUE_DIV_ZERO, subject, nd->offset);
		r = a.value / b.value;
		break;
	case PP_OP_MAX:
		r = a.value > b.value ? a.value : b.value;
		break;
	case PP_OP_MIN:
		r = a.value < b.value ? a.value : b.value;
		break;
	default:
		return value_bad(PP_VALUE_NOT_FINITE, subject, nd->offset);
	}
	if (!isfinite(r))
		return value_bad(PP_VALUE_NOT_FINITE, subject, nd->offset);
	return value_ok(r);
}

struct pp_counter_value pp_counter_eval_counter(const struct pp_counter_eval *ev,
						struct pp_counter_value *sample, int entry)
{
	if (!ev || entry < 0 || (uint32_t)entry >= ev->db->counter_count)
		return value_bad(PP_VALUE_MISSING, -1, -1);
	const struct pp_expr *e = ev->equation[entry];
	struct pp_counter_value *slot = &sample[entry];
	if (!e) {
		if (slot->status == PP_VALUE_PENDING) /* an input never set: missing */
			return value_bad(PP_VALUE_MISSING, entry, -1);
		return *slot;
	}
	if (slot->status == PP_VALUE_CYCLE)
		return value_bad(PP_VALUE_CYCLE, entry, -1);
	if (slot->status != PP_VALUE_PENDING)
		return *slot;
	/* Marked while its equation runs: meeting it again below is a cycle. */
	slot->status = PP_VALUE_CYCLE;
	struct pp_counter_value v = eval_node(ev, sample, e, e->root, entry);
	*slot = v;
	return v;
}

struct pp_counter_value pp_counter_eval_expr(const struct pp_counter_eval *ev,
					     struct pp_counter_value *sample,
					     const struct pp_expr *e)
{
	if (!ev || !e)
		return value_bad(PP_VALUE_MISSING, -1, -1);
	return eval_node(ev, sample, e, e->root, -1);
}

const char *pp_counter_eval_value_describe(const struct pp_counter_eval *ev,
				      const struct pp_counter_value *v, char *buf, size_t len)
{
	const struct pp_counter_db *db = ev ? ev->db : NULL;
	const char *subject = db && v->subject >= 0 && (uint32_t)v->subject < db->counter_count
				      ? db->counters[v->subject].name
				      : NULL;
	bool constant = subject && db->counters[v->subject].kind == PP_COUNTER_CONSTANT;

	if (!buf || len == 0)
		return buf;
	switch (v->status) {
	case PP_VALUE_OK:
		snprintf(buf, len, "%.10g", v->value);
		break;
	case PP_VALUE_MISSING:
		if (subject)
			snprintf(buf, len, "unavailable: %s %s not given", constant ? "constant" : "input",
				 subject);
		else
			snprintf(buf, len, "unavailable: an input is missing");
		break;
	case PP_VALUE_DIV_ZERO:
		if (subject)
			snprintf(buf, len, "unavailable: division by zero in %s at offset %d", subject,
				 (int)v->offset);
		else
			snprintf(buf, len, "unavailable: division by zero at offset %d",
				 (int)v->offset);
		break;
	case PP_VALUE_NOT_FINITE:
		if (v->offset < 0 && subject)
			snprintf(buf, len, "unavailable: input %s is not a finite number", subject);
		else if (subject)
			snprintf(buf, len, "unavailable: result out of range in %s at offset %d",
				 subject, (int)v->offset);
		else
			snprintf(buf, len, "unavailable: result out of range at offset %d",
				 (int)v->offset);
		break;
	case PP_VALUE_PENDING:
		snprintf(buf, len, "not computed yet");
		break;
	case PP_VALUE_CYCLE:
	default:
		snprintf(buf, len, "unavailable: %s refers to itself", subject ? subject : "an equation");
		break;
	}
	return buf;
}
