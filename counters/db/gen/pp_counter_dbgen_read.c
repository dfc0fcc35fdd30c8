/* Reading, checking and writing one counter database file (pp_counter_dbgen.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_counter_db_internal.h"
#include "pp_counter_dbgen.h"
#include "pp_counter_eval.h"

#define MAX_FIELDS 10
#define MAX_LINE 4096

static const struct {
	const char *name, *unit, *title, *note;
} builtin_constants[] = {
	{ PP_CONST_SHADER_CORE_COUNT, "cores", "Number of shader cores", NULL },
	{ PP_CONST_L2_CACHE_COUNT, "slices", "Number of L2 cache slices", NULL },
	{ PP_CONST_EXT_BUS_BYTE_SIZE, "bytes", "Width of the GPU external bus interface in bytes",
	  "002 describes it as the width in bits; its name, 000 ($MaliConstantsBusWidthBits / 8) "
	  "and 001 (L2.AXI_WIDTH_BYTES) make it bytes" },
	{ PP_CONST_TIME_SPAN, "seconds", "Time span represented by a counter sample", NULL },
};

static void error_at(struct dbgen_db *s, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void error_at(struct dbgen_db *s, int line, const char *fmt, ...)
{
	s->failures++;
	if (!s->err)
		return;
	va_list ap;
	fprintf(s->err, "%s:%d: error: ", s->path, line);
	va_start(ap, fmt);
	vfprintf(s->err, fmt, ap);
	va_end(ap);
	fputc('\n', s->err);
}

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 16;
	void *np = realloc(p, *cap * size);
	if (!np) {
		fprintf(stderr, "pp_counter_dbgen: out of memory\n");
		exit(1);
	}
	return np;
}

static char *dup(const char *s)
{
	char *d = strdup(s);
	if (!d) {
		fprintf(stderr, "pp_counter_dbgen: out of memory\n");
		exit(1);
	}
	return d;
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = '\0';
	return s;
}

static int split(char *line, char **fields)
{
	int n = 0;
	char *p = line;
	for (;;) {
		char *bar = strchr(p, '|');
		if (bar)
			*bar = '\0';
		if (n < MAX_FIELDS)
			fields[n] = trim(p);
		n++;
		if (!bar)
			break;
		p = bar + 1;
	}
	return n;
}

static int block_of(const char *s)
{
	for (int b = PP_BLOCK_JOB_MANAGER; b < PP_BLOCK_COUNT; b++)
		if (strcmp(s, pp_counter_db_block_name((enum pp_counter_block)b)) == 0)
			return b;
	return -1;
}

static bool valid_name(const char *s)
{
	if (!s[0])
		return false;
	for (const char *c = s; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '_' || *c == '.' || *c == '$'))
			return false;
	return true;
}

static const char *opt(const char *s)
{
	return s && s[0] ? dup(s) : NULL;
}

static void add_entry(struct dbgen_db *s, int line, const struct pp_counter_desc *d)
{
	s->entries = grow(s->entries, &s->cap_entries, s->nentries, sizeof(*s->entries));
	s->entries[s->nentries].d = *d;
	s->entries[s->nentries].line = line;
	s->nentries++;
}

static void parse_line(struct dbgen_db *s, int line, char **f, int n)
{
	const char *what = f[0];
#define NEED(lo, hi)                                                                          \
	do {                                                                                  \
		if (n < (lo) || n > (hi)) {                                                   \
			error_at(s, line, "'%s' takes %d to %d fields, found %d", what,     \
				 (lo), (hi), n);                                               \
			return;                                                               \
		}                                                                             \
	} while (0)

	if (strcmp(what, "database") == 0) {
		NEED(3, 3);
		if (s->id)
			error_at(s, line, "a second 'database' line");
		free(s->id);
		free(s->title);
		s->id = dup(f[1]);
		s->title = dup(f[2]);
	} else if (strcmp(what, "source") == 0) {
		NEED(2, 2);
		if (s->source)
			error_at(s, line, "a second 'source' line");
		free(s->source);
		s->source = dup(f[1]);
	} else if (strcmp(what, "gpu") == 0) {
		NEED(3, 3);
		char *end;
		unsigned long id = strcmp(f[2], "-") == 0 ? 0 : strtoul(f[2], &end, 16);
		if (strcmp(f[2], "-") != 0 && (*end || id > 0xffff || id == 0)) {
			error_at(s, line, "product id '%s': expected 0x0001..0xffff or '-'", f[2]);
			return;
		}
		s->gpus = grow(s->gpus, &s->cap_gpus, s->ngpus, sizeof(*s->gpus));
		s->gpus[s->ngpus++] = (struct pp_counter_gpu){ dup(f[1]), (uint32_t)id };
	} else if (strcmp(what, "aggregate") == 0) {
		NEED(4, 4);
		int b = block_of(f[1]);
		if (b < 0 || (strcmp(f[2], "sum") && strcmp(f[2], "mean"))) {
			error_at(s, line, "aggregate: expected a block (job_manager, tiler, "
					     "shader_core, l2) and sum or mean");
			return;
		}
		if (s->aggregate_seen[b])
			error_at(s, line, "a second aggregate for %s", f[1]);
		s->aggregate_seen[b] = true;
		s->db.aggregate[b] = strcmp(f[2], "mean") == 0 ? PP_AGGREGATE_MEAN : PP_AGGREGATE_SUM;
		free(s->aggregate_ref[b]);
		s->aggregate_ref[b] = dup(f[3]);
	} else if (strcmp(what, "hardware") == 0) {
		/* hardware | name | block | unit | scale | index | ref | title [| note] */
		NEED(8, 9);
		int b = block_of(f[2]);
		char *end;
		double scale = strtod(f[4], &end);
		long index = -1;
		if (b < 0) {
			error_at(s, line, "block '%s': expected job_manager, tiler, shader_core or l2",
				 f[2]);
			return;
		}
		if (*end || !(scale > 0)) {
			error_at(s, line, "scale '%s': expected a positive number", f[4]);
			return;
		}
		if (strcmp(f[5], "-") != 0) {
			index = strtol(f[5], &end, 0);
			if (*end || index < 0 || index > 0xffff) {
				error_at(s, line, "index '%s': expected 0..65535 or '-'", f[5]);
				return;
			}
		}
		struct pp_counter_desc d = { .name = dup(f[1]), .title = dup(f[7]), .unit = dup(f[3]),
					     .ref = dup(f[6]), .note = opt(n > 8 ? f[8] : NULL),
					     .scale = scale, .index = (int32_t)index,
					     .kind = PP_COUNTER_HARDWARE, .block = (uint8_t)b };
		add_entry(s, line, &d);
	} else if (strcmp(what, "derived") == 0 || strcmp(what, "constant") == 0) {
		/* derived | name | unit | ref | title | equation [| note] */
		NEED(6, 7);
		bool derived = what[0] == 'd';
		if (derived && strcmp(f[5], "-") == 0) {
			error_at(s, line, "a derived counter needs an equation");
			return;
		}
		struct pp_counter_desc d = { .name = dup(f[1]), .unit = dup(f[2]), .ref = dup(f[3]),
					     .title = dup(f[4]),
					     .equation = strcmp(f[5], "-") ? dup(f[5]) : NULL,
					     .note = opt(n > 6 ? f[6] : NULL), .scale = 1,
					     .index = -1,
					     .kind = derived ? PP_COUNTER_DERIVED : PP_COUNTER_CONSTANT,
					     .block = PP_BLOCK_NONE };
		add_entry(s, line, &d);
	} else if (strcmp(what, "alias") == 0) {
		NEED(4, 4);
		size_t cap = s->cap_aliases;
		s->aliases = grow(s->aliases, &s->cap_aliases, s->naliases, sizeof(*s->aliases));
		s->alias_lines = grow(s->alias_lines, &cap, s->naliases, sizeof(*s->alias_lines));
		s->alias_lines[s->naliases] = line;
		s->aliases[s->naliases++] =
			(struct pp_counter_alias){ dup(f[1]), dup(f[2]), dup(f[3]) };
	} else {
		error_at(s, line, "unknown entry '%s' (expected database, source, gpu, aggregate, "
				     "hardware, derived, constant or alias)",
			 what);
	}
#undef NEED
}

static int kind_rank(const struct pp_counter_desc *d)
{
	return d->kind == PP_COUNTER_HARDWARE ? 0 : d->kind == PP_COUNTER_DERIVED ? 1 : 2;
}

int pp_counter_dbgen_read(struct dbgen_db *s, FILE *f)
{
	char buf[MAX_LINE];
	int line = 0;
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		if (!strchr(buf, '\n') && !feof(f)) {
			error_at(s, line, "line longer than %d bytes", MAX_LINE - 2);
			break;
		}
		for (const unsigned char *c = (const unsigned char *)buf; *c; c++)
			if (*c >= 0x80 || (*c < 0x20 && *c != '\t' && *c != '\n' && *c != '\r'))
				error_at(s, line, "byte 0x%02x: the format is ASCII", *c);
		char *t = trim(buf);
		if (!t[0] || t[0] == '#')
			continue;
		char *fields[MAX_FIELDS];
		int n = split(t, fields);
		if (n > MAX_FIELDS) {
			error_at(s, line, "more than %d fields", MAX_FIELDS);
			continue;
		}
		parse_line(s, line, fields, n);
	}
	if (s->failures)
		return -1;

	if (!s->id || !s->source || s->ngpus == 0) {
		error_at(s, line, "a database needs 'database', 'source' and at least one 'gpu'");
		return -1;
	}
	for (int b = PP_BLOCK_JOB_MANAGER; b < PP_BLOCK_COUNT; b++)
		if (!s->aggregate_seen[b])
			error_at(s, line, "no 'aggregate' line for block %s",
				 pp_counter_db_block_name((enum pp_counter_block)b));
	for (size_t i = 0; i < sizeof(builtin_constants) / sizeof(builtin_constants[0]); i++) {
		struct pp_counter_desc d = { .name = builtin_constants[i].name,
					     .title = builtin_constants[i].title,
					     .unit = builtin_constants[i].unit,
					     .ref = "002 Derived counters",
					     .note = builtin_constants[i].note, .scale = 1,
					     .index = -1, .kind = PP_COUNTER_CONSTANT };
		add_entry(s, 0, &d);
	}
	/* Hardware, then derived, then constants; file order within each. */
	struct dbgen_entry *sorted = calloc(s->nentries, sizeof(*sorted));
	if (!sorted)
		exit(1);
	size_t k = 0;
	for (int rank = 0; rank < 3; rank++)
		for (size_t i = 0; i < s->nentries; i++)
			if (kind_rank(&s->entries[i].d) == rank)
				sorted[k++] = s->entries[i];
	free(s->entries);
	s->entries = sorted;

	for (size_t i = 0; i < s->nentries; i++) {
		const struct dbgen_entry *e = &s->entries[i];
		if (!valid_name(e->d.name))
			error_at(s, e->line, "'%s' is not a counter name", e->d.name);
		for (size_t j = 0; j < i; j++)
			if (strcmp(s->entries[j].d.name, e->d.name) == 0)
				error_at(s, e->line, "'%s' is defined twice (also line %d)",
					 e->d.name, s->entries[j].line);
	}
	for (size_t a = 0; a < s->naliases; a++) {
		const struct pp_counter_alias *al = &s->aliases[a];
		bool target = false;
		for (size_t i = 0; i < s->nentries; i++) {
			if (strcmp(s->entries[i].d.name, al->name) == 0)
				error_at(s, s->alias_lines[a], "alias '%s' is also a counter",
					 al->name);
			target |= strcmp(s->entries[i].d.name, al->target) == 0;
		}
		if (!target)
			error_at(s, s->alias_lines[a], "alias target '%s' is not a counter",
				 al->target);
	}
	if (s->failures)
		return -1;

	struct pp_counter_desc *descs = calloc(s->nentries, sizeof(*descs));
	if (!descs)
		exit(1);
	for (size_t i = 0; i < s->nentries; i++)
		descs[i] = s->entries[i].d;
	s->db.id = s->id;
	s->db.title = s->title;
	s->db.source = s->source;
	s->db.gpus = s->gpus;
	s->db.gpu_count = (uint32_t)s->ngpus;
	s->descs = descs;
	s->db.counters = descs;
	s->db.counter_count = (uint32_t)s->nentries;
	s->db.aliases = s->aliases;
	s->db.alias_count = (uint32_t)s->naliases;

	struct pp_counter_eval *ev = NULL;
	struct pp_expr_error err;
	int bad = -1;
	int rc = pp_counter_eval_create(&s->db, &ev, &err, &bad);
	if (rc) {
		if (bad >= 0) {
			const struct dbgen_entry *e = &s->entries[bad];
			error_at(s, e->line, "%s: %s", e->d.name, err.message);
			if (err.offset >= 0)
				fprintf(stderr, "    %s\n    %*s^\n", e->d.equation, (int)err.offset, "");
		} else {
			error_at(s, 0, "%s", rc == -ENOMEM ? "out of memory" : err.message);
		}
		return -1;
	}
	pp_counter_eval_destroy(ev);
	return 0;
}

static void put_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("NULL", out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static const char *kind_enum(uint8_t k)
{
	return k == PP_COUNTER_HARDWARE ? "PP_COUNTER_HARDWARE"
	       : k == PP_COUNTER_DERIVED ? "PP_COUNTER_DERIVED"
					 : "PP_COUNTER_CONSTANT";
}

static const char *block_enum(uint8_t b)
{
	static const char *const names[] = { "PP_BLOCK_NONE", "PP_BLOCK_JOB_MANAGER", "PP_BLOCK_TILER",
					     "PP_BLOCK_SHADER_CORE", "PP_BLOCK_L2" };
	return b < PP_BLOCK_COUNT ? names[b] : "PP_BLOCK_NONE";
}

void pp_counter_dbgen_read_write(FILE *out, size_t n, const struct dbgen_db *s)
{
	const struct pp_counter_db *db = &s->db;
	const char *base = strrchr(s->path, '/');
	fprintf(out, "\n/* %s: manifests/counters/%s */\n", db->id, base ? base + 1 : s->path);
	fprintf(out, "static const struct pp_counter_desc db%zu_counters[] = {\n", n);
	for (uint32_t i = 0; i < db->counter_count; i++) {
		const struct pp_counter_desc *d = &db->counters[i];
		fputs("\t{ ", out);
		put_str(out, d->name);
		fputs(", ", out);
		put_str(out, d->title);
		fputs(", ", out);
		put_str(out, d->unit);
		fputs(", ", out);
		put_str(out, d->ref);
		fputs(",\n\t  ", out);
		put_str(out, d->equation);
		fputs(",\n\t  ", out);
		put_str(out, d->note);
		fprintf(out, ", %.17g, %d, %s, %s },\n", d->scale, (int)d->index, kind_enum(d->kind),
			block_enum(d->block));
	}
	fputs("};\n", out);
	if (db->alias_count) {
		fprintf(out, "static const struct pp_counter_alias db%zu_aliases[] = {\n", n);
		for (uint32_t a = 0; a < db->alias_count; a++) {
			fputs("\t{ ", out);
			put_str(out, db->aliases[a].name);
			fputs(", ", out);
			put_str(out, db->aliases[a].target);
			fputs(",\n\t  ", out);
			put_str(out, db->aliases[a].note);
			fputs(" },\n", out);
		}
		fputs("};\n", out);
	}
	fprintf(out, "static const struct pp_counter_gpu db%zu_gpus[] = {\n", n);
	for (uint32_t g = 0; g < db->gpu_count; g++) {
		fputs("\t{ ", out);
		put_str(out, db->gpus[g].name);
		fprintf(out, ", 0x%04x },\n", (unsigned)db->gpus[g].product_id);
	}
	fputs("};\n", out);
	fprintf(out, "static const struct pp_counter_db db%zu = {\n\t.id = ", n);
	put_str(out, db->id);
	fputs(",\n\t.title = ", out);
	put_str(out, db->title);
	fputs(",\n\t.source = ", out);
	put_str(out, db->source);
	fprintf(out, ",\n\t.gpus = db%zu_gpus,\n\t.gpu_count = %u,\n", n, (unsigned)db->gpu_count);
	fprintf(out, "\t.counter_count = %u,\n\t.counters = db%zu_counters,\n",
		(unsigned)db->counter_count, n);
	if (db->alias_count)
		fprintf(out, "\t.aliases = db%zu_aliases,\n\t.alias_count = %u,\n", n,
			(unsigned)db->alias_count);
	fputs("\t.aggregate = {", out);
	for (int b = 0; b < PP_BLOCK_COUNT; b++)
		fprintf(out, " %s,", db->aggregate[b] == PP_AGGREGATE_MEAN ? "PP_AGGREGATE_MEAN"
									  : "PP_AGGREGATE_SUM");
	fputs(" },\n\t.aggregate_ref = {", out);
	for (int b = 0; b < PP_BLOCK_COUNT; b++) {
		fputc(' ', out);
		put_str(out, s->aggregate_ref[b]);
		fputc(',', out);
	}
	fputs(" },\n};\n", out);
}

void pp_counter_dbgen_read_free(struct dbgen_db *s)
{
	for (size_t i = 0; i < s->nentries; i++) {
		struct pp_counter_desc *d = &s->entries[i].d;
		if (s->entries[i].line == 0) /* a built-in constant: static strings */
			continue;
		free((char *)d->name);
		free((char *)d->title);
		free((char *)d->unit);
		free((char *)d->ref);
		free((char *)d->equation);
		free((char *)d->note);
	}
	for (size_t a = 0; a < s->naliases; a++) {
		free((char *)s->aliases[a].name);
		free((char *)s->aliases[a].target);
		free((char *)s->aliases[a].note);
	}
	for (size_t g = 0; g < s->ngpus; g++)
		free((char *)s->gpus[g].name);
	for (int b = 0; b < PP_BLOCK_COUNT; b++)
		free(s->aggregate_ref[b]);
	free(s->entries);
	free(s->aliases);
	free(s->alias_lines);
	free(s->gpus);
	free(s->descs);
	free(s->id);
	free(s->title);
	free(s->source);
	memset(s, 0, sizeof(*s));
}
