#pragma once
/* The reader and writer of counter database files (format: docs/counters.md), shared by the
 * generator (pp_counter_dbgen.c) and its fuzz target (tests/fuzz/counters_db). Out of memory
 * ends the process: this is a build tool. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pp_counter_db.h"

struct dbgen_entry {
	struct pp_counter_desc d;
	int line; /* 0: one of the symbolic constants every database gets */
};

struct dbgen_db {
	const char *path; /* for messages */
	FILE *err;        /* messages go here ("path:line: error: ..."); NULL: only counted */
	int failures;
	struct pp_counter_db db; /* complete once pp_counter_dbgen_read returned 0 */
	char *id, *title, *source;
	struct dbgen_entry *entries;
	size_t nentries, cap_entries;
	struct pp_counter_alias *aliases;
	int *alias_lines;
	size_t naliases, cap_aliases;
	struct pp_counter_gpu *gpus;
	size_t ngpus, cap_gpus;
	struct pp_counter_desc *descs;
	bool aggregate_seen[PP_BLOCK_COUNT];
	char *aggregate_ref[PP_BLOCK_COUNT];
};

/* Reads and checks one database file from in (path and err set by the caller, the rest
 * zero): fields, names, aliases, and every equation parsed and resolved by the library's
 * engine. 0, or -1 with s->failures messages. */
int pp_counter_dbgen_read(struct dbgen_db *s, FILE *in);
/* Writes the C tables of database s as db<n>. */
void pp_counter_dbgen_read_write(FILE *out, size_t n, const struct dbgen_db *s);
void pp_counter_dbgen_read_free(struct dbgen_db *s);
