/* Lookups inside one counter database (no allocation; the tables are generated data). */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "pp_counter_db_internal.h"

static bool name_is(const char *name, const char *s, size_t len)
{
	return strncmp(name, s, len) == 0 && name[len] == '\0';
}

static int lookup_direct(const struct pp_counter_db *db, const char *name, size_t len)
{
	for (uint32_t i = 0; i < db->counter_count; i++)
		if (name_is(db->counters[i].name, name, len))
			return (int)i;
	return -1;
}

int pp_counter_db_lookup_n(const struct pp_counter_db *db, const char *name, size_t len)
{
	if (!db || !name)
		return -1;
	int i = lookup_direct(db, name, len);
	if (i >= 0)
		return i;
	for (uint32_t a = 0; a < db->alias_count; a++)
		if (name_is(db->aliases[a].name, name, len))
			return lookup_direct(db, db->aliases[a].target, strlen(db->aliases[a].target));
	return -1;
}

int pp_counter_db_lookup(const struct pp_counter_db *db, const char *name)
{
	return name ? pp_counter_db_lookup_n(db, name, strlen(name)) : -1;
}

const struct pp_counter_alias *pp_counter_db_alias(const struct pp_counter_db *db, const char *name)
{
	for (uint32_t a = 0; db && name && a < db->alias_count; a++)
		if (strcmp(db->aliases[a].name, name) == 0)
			return &db->aliases[a];
	return NULL;
}

uint32_t pp_counter_db_count_kind(const struct pp_counter_db *db, enum pp_counter_kind kind)
{
	uint32_t n = 0;
	for (uint32_t i = 0; db && i < db->counter_count; i++)
		n += db->counters[i].kind == kind;
	return n;
}

const struct pp_counter_gpu *pp_counter_db_gpu_of_product(const struct pp_counter_db *db,
							  uint32_t product_id)
{
	for (uint32_t g = 0; db && g < db->gpu_count; g++)
		if (db->gpus[g].product_id &&
		    (db->gpus[g].product_id & PP_COUNTER_PRODUCT_MASK) ==
			    (product_id & PP_COUNTER_PRODUCT_MASK))
			return &db->gpus[g];
	return NULL;
}

const char *pp_counter_db_kind_name(enum pp_counter_kind kind)
{
	switch (kind) {
	case PP_COUNTER_HARDWARE:
		return "hardware";
	case PP_COUNTER_DERIVED:
		return "derived";
	case PP_COUNTER_CONSTANT:
		return "constant";
	}
	return "?";
}

const char *pp_counter_db_block_name(enum pp_counter_block block)
{
	switch (block) {
	case PP_BLOCK_JOB_MANAGER:
		return "job_manager";
	case PP_BLOCK_TILER:
		return "tiler";
	case PP_BLOCK_SHADER_CORE:
		return "shader_core";
	case PP_BLOCK_L2:
		return "l2";
	case PP_BLOCK_NONE:
	case PP_BLOCK_COUNT:
		break;
	}
	return "-";
}

const char *pp_counter_db_aggregate_name(enum pp_counter_aggregate a)
{
	return a == PP_AGGREGATE_MEAN ? "mean" : "sum";
}
