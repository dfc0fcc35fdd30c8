/* The built-in databases (generated tables) and finding one by GPU. */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "pp_counter_db_internal.h"

size_t pp_counter_db_list_count(void)
{
	return pp_counter_db_data_count;
}

const struct pp_counter_db *pp_counter_db_list_at(size_t i)
{
	return i < pp_counter_db_data_count ? pp_counter_db_data_list[i] : NULL;
}

/* "Mali-G78", "mali-g78", "G78" all name Mali-G78. */
static bool gpu_name_matches(const char *gpu, const char *name)
{
	if (strcasecmp(gpu, name) == 0)
		return true;
	if (strncasecmp(gpu, "Mali-", 5) == 0 && strcasecmp(gpu + 5, name) == 0)
		return true;
	return false;
}

const struct pp_counter_db *pp_counter_db_list_find(const char *name)
{
	if (!name || !name[0])
		return NULL;
	for (size_t i = 0; i < pp_counter_db_data_count; i++) {
		const struct pp_counter_db *db = pp_counter_db_data_list[i];
		if (strcasecmp(db->id, name) == 0)
			return db;
		for (uint32_t g = 0; g < db->gpu_count; g++)
			if (gpu_name_matches(db->gpus[g].name, name))
				return db;
	}
	return NULL;
}

const struct pp_counter_db *pp_counter_db_list_find_product(uint32_t product_id)
{
	for (size_t i = 0; i < pp_counter_db_data_count; i++)
		if (pp_counter_db_gpu_of_product(pp_counter_db_data_list[i], product_id))
			return pp_counter_db_data_list[i];
	return NULL;
}
