/* `passprobe counters`: print the GPU counter databases, and evaluate their equations on raw
 * counter values from a JSON file (docs/counters.md, docs/cli.md). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passprobe_cli.h"
#include "pp_counter_db.h"
#include "pp_counter_eval.h"
#include "pp_json.h"

/* A values file is a few hundred numbers; anything near this is not one. */
#define VALUES_MAX_BYTES ((size_t)16 << 20)

void passprobe_counters_usage(FILE *f)
{
	fprintf(f,
		"usage: passprobe counters list [--gpu NAME]\n"
		"       passprobe counters eval --gpu NAME (--expr TEXT | --all) --values FILE\n"
		"\n"
		"GPU counter databases (Mali Bifrost, Mali-G78) and their derived-counter equations.\n"
		"\n"
		"  list                 the databases; with --gpu, every hardware counter (block,\n"
		"                       unit), derived counter (unit, equation), constant and alias\n"
		"  eval                 evaluate TEXT, or every derived counter (--all), on the raw\n"
		"                       counter values of FILE\n"
		"\n"
		"options:\n"
		"  --gpu NAME           a GPU (Mali-G78, G52, ...) or a database id (mali-bifrost)\n"
		"  --expr TEXT          an equation: + - * / ( ), max(a, b), min(a, b), SUM(a),\n"
		"                       numbers, counter and constant names\n"
		"  --all                every derived counter of the database\n"
		"  --values FILE        JSON: {\"counters\": {\"NAME\": number or [per instance],\n"
		"                       ...}, \"constants\": {\"MALI_CONFIG_SHADER_CORE_COUNT\": 10, ...}}\n"
		"  -h, --help           show this help\n"
		"\n"
		"`eval --expr` exits 1 when the value is unavailable (it prints why).\n");
}

static void counters_known_gpus(FILE *f)
{
	fprintf(f, "known GPUs:");
	for (size_t i = 0; i < pp_counter_db_list_count(); i++) {
		const struct pp_counter_db *db = pp_counter_db_list_at(i);
		for (uint32_t g = 0; g < db->gpu_count; g++)
			fprintf(f, " %s", db->gpus[g].name);
	}
	fprintf(f, "\ndatabases:");
	for (size_t i = 0; i < pp_counter_db_list_count(); i++)
		fprintf(f, " %s", pp_counter_db_list_at(i)->id);
	fprintf(f, "\n");
}

static const struct pp_counter_db *counters_find_db(const char *gpu)
{
	const struct pp_counter_db *db = pp_counter_db_list_find(gpu);
	if (!db) {
		fprintf(stderr, "passprobe counters: no counter database for GPU '%s'\n", gpu);
		counters_known_gpus(stderr);
	}
	return db;
}

static void list_databases(void)
{
	printf("%-14s %-9s %-8s %-9s %s\n", "DATABASE", "HARDWARE", "DERIVED", "CONSTANTS", "GPUS");
	for (size_t i = 0; i < pp_counter_db_list_count(); i++) {
		const struct pp_counter_db *db = pp_counter_db_list_at(i);
		printf("%-14s %-9u %-8u %-9u", db->id, pp_counter_db_count_kind(db, PP_COUNTER_HARDWARE),
		       pp_counter_db_count_kind(db, PP_COUNTER_DERIVED),
		       pp_counter_db_count_kind(db, PP_COUNTER_CONSTANT));
		for (uint32_t g = 0; g < db->gpu_count; g++) {
			printf(" %s", db->gpus[g].name);
			if (db->gpus[g].product_id)
				printf(" (0x%04x)", (unsigned)db->gpus[g].product_id);
		}
		printf("\n");
	}
	printf("\n`passprobe counters list --gpu NAME` prints one database.\n");
}

static int name_width(const struct pp_counter_db *db, enum pp_counter_kind kind)
{
	int w = 4;
	for (uint32_t i = 0; i < db->counter_count; i++)
		if (db->counters[i].kind == kind && (int)strlen(db->counters[i].name) > w)
			w = (int)strlen(db->counters[i].name);
	return w;
}

static void list_database(const struct pp_counter_db *db)
{
	printf("%s: %s\nsource: %s\nGPUs:", db->id, db->title, db->source);
	for (uint32_t g = 0; g < db->gpu_count; g++) {
		printf(" %s", db->gpus[g].name);
		if (db->gpus[g].product_id)
			printf(" (product 0x%04x)", (unsigned)db->gpus[g].product_id);
	}
	printf("\nblock instances combined as:");
	for (int b = PP_BLOCK_JOB_MANAGER; b < PP_BLOCK_COUNT; b++)
		printf(" %s=%s", pp_counter_db_block_name((enum pp_counter_block)b),
		       pp_counter_db_aggregate_name((enum pp_counter_aggregate)db->aggregate[b]));
	printf("\n");

	int w = name_width(db, PP_COUNTER_HARDWARE);
	printf("\nhardware counters (%u)\n", pp_counter_db_count_kind(db, PP_COUNTER_HARDWARE));
	printf("  %-*s %-12s %-13s %-5s %-5s %-11s %s\n", w, "NAME", "BLOCK", "UNIT", "SCALE", "INDEX",
	       "REF", "TITLE");
	for (uint32_t i = 0; i < db->counter_count; i++) {
		const struct pp_counter_desc *d = &db->counters[i];
		if (d->kind != PP_COUNTER_HARDWARE)
			continue;
		char index[16];
		snprintf(index, sizeof(index), d->index < 0 ? "-" : "%d", (int)d->index);
		printf("  %-*s %-12s %-13s %-5g %-5s %-11s %s\n", w, d->name,
		       pp_counter_db_block_name((enum pp_counter_block)d->block), d->unit, d->scale, index,
		       d->ref, d->title);
		if (d->note)
			printf("  %-*s note: %s\n", w, "", d->note);
	}

	w = name_width(db, PP_COUNTER_DERIVED);
	printf("\nderived counters (%u)\n", pp_counter_db_count_kind(db, PP_COUNTER_DERIVED));
	printf("  %-*s %-18s %-11s %s\n", w, "NAME", "UNIT", "REF", "TITLE");
	for (uint32_t i = 0; i < db->counter_count; i++) {
		const struct pp_counter_desc *d = &db->counters[i];
		if (d->kind != PP_COUNTER_DERIVED)
			continue;
		printf("  %-*s %-18s %-11s %s\n", w, d->name, d->unit, d->ref, d->title);
		printf("      = %s\n", d->equation);
		if (d->note)
			printf("      note: %s\n", d->note);
	}

	w = name_width(db, PP_COUNTER_CONSTANT);
	printf("\nconstants (%u)\n", pp_counter_db_count_kind(db, PP_COUNTER_CONSTANT));
	for (uint32_t i = 0; i < db->counter_count; i++) {
		const struct pp_counter_desc *d = &db->counters[i];
		if (d->kind != PP_COUNTER_CONSTANT)
			continue;
		printf("  %-*s %-8s %s%s%s\n", w, d->name, d->unit, d->title,
		       d->equation ? " = " : " (an input)", d->equation ? d->equation : "");
		if (d->note)
			printf("  %-*s note: %s\n", w, "", d->note);
	}

	if (db->alias_count) {
		printf("\naliases (%u): spellings the document's equations use\n", db->alias_count);
		for (uint32_t a = 0; a < db->alias_count; a++)
			printf("  %s -> %s  (%s)\n", db->aliases[a].name, db->aliases[a].target,
			       db->aliases[a].note);
	}
}

/* Prints what is wrong with the values file and returns false. */
static bool values_error(const char *path, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static bool values_error(const char *path, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "passprobe counters: %s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return false;
}

static bool values_number(const char *path, bool counter, const char *name,
			  const struct pp_json_value *v, double *out)
{
	if (!pp_json_read_get_double(v, out))
		return values_error(path, "\"%s\": '%s' must be a number%s",
				    counter ? "counters" : "constants", name,
				    counter ? " or an array of numbers (one per block instance)" : "");
	return true;
}

/* Fills sample from the values file's tree. */
static bool values_load(const char *path, const struct pp_json_value *root,
			const struct pp_counter_eval *ev, struct pp_counter_value *sample)
{
	const struct pp_counter_db *db = pp_counter_eval_db(ev);
	if (!pp_json_read_is_object(root))
		return values_error(path, "the top level must be an object with \"counters\" and "
					  "\"constants\"");
	for (size_t i = 0; i < pp_json_read_object_size(root); i++) {
		const struct pp_json_member *m = pp_json_read_object_at(root, i);
		if (strcmp(m->key, "counters") && strcmp(m->key, "constants"))
			return values_error(path, "unknown member \"%.100s\" (allowed: \"counters\", "
						  "\"constants\")",
					    m->key);
		if (!pp_json_read_is_object(&m->value))
			return values_error(path, "\"%s\" must be an object of name: value", m->key);
	}
	const struct pp_json_value *counters = pp_json_read_object_get(root, "counters");
	for (size_t i = 0; i < pp_json_read_object_size(counters); i++) {
		const struct pp_json_member *m = pp_json_read_object_at(counters, i);
		int entry = pp_counter_db_lookup(db, m->key);
		if (entry < 0)
			return values_error(path, "\"counters\": unknown counter '%.100s' in %s "
						  "(`passprobe counters list --gpu %s` lists them)",
					    m->key, db->id, db->id);
		const struct pp_counter_desc *d = &db->counters[entry];
		if (d->kind != PP_COUNTER_HARDWARE)
			return values_error(path, "\"counters\": '%s' is a %s, not a hardware counter%s",
					    m->key, d->kind == PP_COUNTER_DERIVED ? "derived counter" : "constant",
					    d->kind == PP_COUNTER_CONSTANT ? " (put it under \"constants\")"
									  : " (it is computed)");
		if (pp_json_read_is_array(&m->value)) {
			size_t n = pp_json_read_array_size(&m->value);
			if (n == 0 || n > 4096)
				return values_error(path, "\"counters\": '%s' needs 1 to 4096 values",
						    m->key);
			double *raw = calloc(n, sizeof(*raw));
			if (!raw)
				return values_error(path, "out of memory");
			for (size_t k = 0; k < n; k++)
				if (!values_number(path, true, m->key,
						   pp_json_read_array_at(&m->value, k), &raw[k])) {
					free(raw);
					return false;
				}
			pp_counter_eval_sample_set_instances(ev, sample, entry, raw, n);
			free(raw);
		} else {
			double v;
			if (!values_number(path, true, m->key, &m->value, &v))
				return false;
			pp_counter_eval_sample_set(ev, sample, entry, v);
		}
	}
	const struct pp_json_value *constants = pp_json_read_object_get(root, "constants");
	for (size_t i = 0; i < pp_json_read_object_size(constants); i++) {
		const struct pp_json_member *m = pp_json_read_object_at(constants, i);
		int entry = pp_counter_db_lookup(db, m->key);
		if (entry < 0 || db->counters[entry].kind != PP_COUNTER_CONSTANT)
			return values_error(path, "\"constants\": '%.100s' is not a constant of %s%s",
					    m->key, db->id,
					    entry >= 0 ? " (counters go under \"counters\")" : "");
		const struct pp_counter_desc *d = &db->counters[entry];
		if (d->equation)
			return values_error(path, "\"constants\": '%s' is defined as %s: give that "
						  "instead",
					    m->key, d->equation);
		double v;
		if (!values_number(path, false, m->key, &m->value, &v))
			return false;
		pp_counter_eval_sample_set(ev, sample, entry, v);
	}
	return true;
}

static int eval_print_expr(const struct pp_counter_eval *ev, struct pp_counter_value *sample,
			   const char *text)
{
	struct pp_expr *e;
	struct pp_expr_error err;
	int rc = pp_counter_eval_compile(ev, text, &e, &err);
	if (rc == -ENOMEM) {
		fprintf(stderr, "passprobe counters: out of memory\n");
		return CLI_EXIT_FAILURE;
	}
	if (rc) {
		fprintf(stderr, "passprobe counters: --expr: ");
		if (err.offset >= 0)
			fprintf(stderr, "offset %d: ", (int)err.offset);
		fprintf(stderr, "%s\n", err.message);
		if (err.offset >= 0 && strlen(text) < 200)
			fprintf(stderr, "  %s\n  %*s^\n", text, (int)err.offset, "");
		return CLI_EXIT_USAGE;
	}
	struct pp_counter_value v = pp_counter_eval_expr(ev, sample, e);
	char buf[256];
	printf("%s\n", pp_counter_eval_value_describe(ev, &v, buf, sizeof(buf)));
	pp_expr_free(e);
	return v.status == PP_VALUE_OK ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

static void eval_print_all(const struct pp_counter_eval *ev, struct pp_counter_value *sample)
{
	const struct pp_counter_db *db = pp_counter_eval_db(ev);
	int w = name_width(db, PP_COUNTER_DERIVED);
	for (uint32_t i = 0; i < db->counter_count; i++) {
		const struct pp_counter_desc *d = &db->counters[i];
		if (d->kind != PP_COUNTER_DERIVED)
			continue;
		struct pp_counter_value v = pp_counter_eval_counter(ev, sample, (int)i);
		char buf[256];
		pp_counter_eval_value_describe(ev, &v, buf, sizeof(buf));
		if (v.status == PP_VALUE_OK)
			printf("%-*s %s %s\n", w, d->name, buf, d->unit);
		else
			printf("%-*s %s\n", w, d->name, buf);
	}
}

static int counters_eval(const char *gpu, const char *expr, bool all, const char *values)
{
	const struct pp_counter_db *db = counters_find_db(gpu);
	if (!db)
		return CLI_EXIT_USAGE;
	struct pp_counter_eval *ev;
	struct pp_expr_error err;
	int bad;
	if (pp_counter_eval_create(db, &ev, &err, &bad)) {
		fprintf(stderr, "passprobe counters: the %s database does not load: %s%s%s\n", db->id,
			bad >= 0 ? db->counters[bad].name : "", bad >= 0 ? ": " : "", err.message);
		return CLI_EXIT_FAILURE;
	}

	char *text = NULL;
	size_t len = 0;
	int rc = passprobe_load_read_file(values, VALUES_MAX_BYTES, &text, &len);
	if (rc) {
		fprintf(stderr, "passprobe counters: cannot read %s: %s\n", values,
			rc == -EFBIG ? "larger than 16 MiB" : strerror(-rc));
		pp_counter_eval_destroy(ev);
		return CLI_EXIT_FAILURE;
	}
	struct pp_json_value *root = NULL;
	struct pp_json_limits limits = { .max_len = VALUES_MAX_BYTES };
	char jerr[512];
	rc = pp_json_read_parse(text, len, &limits, &root, jerr, sizeof(jerr));
	free(text);
	if (rc) {
		fprintf(stderr, "passprobe counters: %s is not valid JSON: %s\n", values,
			rc == -ENOMEM ? "out of memory" : jerr);
		pp_counter_eval_destroy(ev);
		return CLI_EXIT_FAILURE;
	}

	struct pp_counter_value *sample = calloc(db->counter_count, sizeof(*sample));
	int status = CLI_EXIT_FAILURE;
	if (!sample) {
		fprintf(stderr, "passprobe counters: out of memory\n");
	} else {
		pp_counter_eval_sample_clear(ev, sample);
		if (values_load(values, root, ev, sample)) {
			if (all) {
				eval_print_all(ev, sample);
				status = CLI_EXIT_OK;
			} else {
				status = eval_print_expr(ev, sample, expr);
			}
		}
	}
	free(sample);
	pp_json_read_free(root);
	pp_counter_eval_destroy(ev);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "passprobe counters: writing the output failed: %s\n", strerror(errno));
		return CLI_EXIT_FAILURE;
	}
	return status;
}

/* "--name VALUE" or "--name=VALUE" at argv[*i]; NULL when argv[*i] is not --name. */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
	size_t n = strlen(name);
	const char *a = argv[*i];
	if (strncmp(a, name, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

int passprobe_counters_main(int argc, char **argv)
{
	int rc;
	const char *action = passprobe_main_word(argc, argv, passprobe_counters_usage, false, &rc);
	if (!action)
		return rc;
	bool list = strcmp(action, "list") == 0, eval = strcmp(action, "eval") == 0;
	if (!list && !eval) {
		fprintf(stderr, "passprobe counters: unknown action '%s' (expected list or eval)\n\n",
			action);
		passprobe_counters_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	const char *gpu = NULL, *expr = NULL, *values = NULL;
	bool all = false;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		bool missing = false;
		const char *v;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			passprobe_counters_usage(stdout);
			return CLI_EXIT_OK;
		}
		if ((v = option_value(argc, argv, &i, "--gpu", &missing)))
			gpu = v;
		else if (eval && (v = option_value(argc, argv, &i, "--expr", &missing)))
			expr = v;
		else if (eval && (v = option_value(argc, argv, &i, "--values", &missing)))
			values = v;
		else if (eval && strcmp(a, "--all") == 0)
			all = true;
		if (missing) {
			fprintf(stderr, "passprobe counters: %s needs a value\n\n", a);
			passprobe_counters_usage(stderr);
			return CLI_EXIT_USAGE;
		}
		if (!v && !(eval && strcmp(a, "--all") == 0)) {
			fprintf(stderr, "passprobe counters %s: unexpected argument '%s'\n\n", action, a);
			passprobe_counters_usage(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	if (list) {
		if (!gpu) {
			list_databases();
			return CLI_EXIT_OK;
		}
		const struct pp_counter_db *db = counters_find_db(gpu);
		if (!db)
			return CLI_EXIT_USAGE;
		list_database(db);
		return CLI_EXIT_OK;
	}
	const char *problem = !gpu                ? "--gpu NAME is required"
			      : !values           ? "--values FILE is required"
			      : !expr && !all     ? "one of --expr TEXT or --all is required"
			      : expr && all       ? "--expr and --all exclude each other"
						  : NULL;
	if (problem) {
		fprintf(stderr, "passprobe counters eval: %s\n\n", problem);
		passprobe_counters_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	return counters_eval(gpu, expr, all, values);
}
