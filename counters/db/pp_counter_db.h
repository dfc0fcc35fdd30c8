#pragma once
/* GPU counter databases: per GPU family, every hardware counter (block, index where known,
 * unit, scale), every derived counter with its equation text, and the symbolic constants the
 * equations use. API-neutral, pure data, no allocation.
 *
 * The data lives in manifests/counters/<family>.counters (one entry a line, docs/counters.md);
 * counters/db/gen/ turns it into C tables at build time, so nothing is parsed at run time
 * except the equations, and those only when an evaluator is created (pp_counter_eval.h).
 *
 * Names are the documents' own: Streamline "$Mali..." names for Valhall, DS-5 "JM.*", "SC.*",
 * "TI.*", "L2.*" names for Bifrost. Where a document's equation spells a counter differently
 * from its own heading (a typo), the database carries an alias from the spelling used to the
 * counter meant, with a note; lookups follow aliases.
 *
 * Every database also holds the four symbolic constants of libGPUCounters
 * (MALI_CONFIG_SHADER_CORE_COUNT, MALI_CONFIG_L2_CACHE_COUNT, MALI_CONFIG_EXT_BUS_BYTE_SIZE,
 * MALI_CONFIG_TIME_SPAN) as PP_COUNTER_CONSTANT entries without an equation: inputs that the
 * tool supplies at run time like hardware values. A constant with an equation (Valhall's
 * "$MaliConstantsBusWidthBits" = MALI_CONFIG_EXT_BUS_BYTE_SIZE * 8) is computed from them. */
#include <stddef.h>
#include <stdint.h>

enum pp_counter_kind {
	PP_COUNTER_HARDWARE = 0, /* sampled from the GPU */
	PP_COUNTER_DERIVED,      /* computed from its equation */
	PP_COUNTER_CONSTANT,     /* configuration: an input (no equation) or computed from others */
};

/* Hardware block a counter is sampled from. Derived counters and constants have none. */
enum pp_counter_block {
	PP_BLOCK_NONE = 0,
	PP_BLOCK_JOB_MANAGER, /* job manager / GPU front-end: one instance */
	PP_BLOCK_TILER,       /* one instance */
	PP_BLOCK_SHADER_CORE, /* one instance per shader core */
	PP_BLOCK_L2,          /* L2 cache slices and the external bus: one instance per slice */
	PP_BLOCK_COUNT,
};

/* How a database's equations expect the instances of a block to be combined into the one
 * value they read (documents 000 section 1.1, 001 sections 3 and 5, 002 "Counter cardinality"). */
enum pp_counter_aggregate {
	PP_AGGREGATE_SUM = 0, /* the sum over all instances */
	PP_AGGREGATE_MEAN,    /* the mean over all instances */
};

struct pp_counter_desc {
	const char *name;     /* "$MaliGPUCyclesGPUActive", "JM.GPU_ACTIVE", "MALI_CONFIG_..." */
	const char *title;    /* the document's heading ("GPU active cycles") */
	const char *unit;     /* "cycles", "bytes", "percent", "ratio", ... */
	const char *ref;      /* where the document defines it ("000 3.1.1"); never NULL */
	const char *equation; /* derived: its equation; constant: its definition or NULL (input);
			       * hardware: NULL */
	const char *note;     /* NULL, or a remark (a document erratum, a naming choice) */
	double scale;         /* hardware: multiplier from raw count to the unit (1 = basic) */
	int32_t index;        /* hardware: counter index within its block; -1 not given */
	uint8_t kind;         /* enum pp_counter_kind */
	uint8_t block;        /* enum pp_counter_block */
};

struct pp_counter_alias {
	const char *name;   /* the spelling an equation uses */
	const char *target; /* the counter it means */
	const char *note;   /* why (where the document spells it so) */
};

struct pp_counter_gpu {
	const char *name;    /* "Mali-G78" */
	uint32_t product_id; /* GPU_ID >> 16 masked with PP_COUNTER_PRODUCT_MASK; 0 not known */
};

/* GPU_ID bits 31..16 are the product id; of those, architecture major and product major
 * (0xf00f) name the product: the mask Linux's panfrost driver matches models with. */
#define PP_COUNTER_PRODUCT_MASK 0xf00fu

struct pp_counter_db {
	const char *id;     /* "mali-bifrost", "mali-g78": the data file's name */
	const char *title;  /* "Arm Mali Bifrost family" */
	const char *source; /* the document it was transcribed from */
	const struct pp_counter_gpu *gpus;
	uint32_t gpu_count;
	uint32_t counter_count;
	const struct pp_counter_desc *counters; /* hardware, then derived, then constants */
	const struct pp_counter_alias *aliases;
	uint32_t alias_count;
	uint8_t aggregate[PP_BLOCK_COUNT];          /* enum pp_counter_aggregate, by block */
	const char *aggregate_ref[PP_BLOCK_COUNT];  /* where the document says so */
};

/* The built-in databases, in a fixed order. */
size_t pp_counter_db_list_count(void);
const struct pp_counter_db *pp_counter_db_list_at(size_t i);

/* A database by its id ("mali-g78") or by the name of a GPU it covers ("Mali-G78"; case and
 * a missing "Mali-" prefix do not matter: "g78" finds it). NULL when none. */
const struct pp_counter_db *pp_counter_db_list_find(const char *name);
/* A database by Mali product id (GPU_ID >> 16; only the PP_COUNTER_PRODUCT_MASK bits are
 * compared). NULL when none. */
const struct pp_counter_db *pp_counter_db_list_find_product(uint32_t product_id);
/* The GPU entry of db that the product id names, or NULL. */
const struct pp_counter_gpu *pp_counter_db_gpu_of_product(const struct pp_counter_db *db,
							  uint32_t product_id);

/* Index of a counter or constant named name[0..len) in db (aliases followed), or -1. */
int pp_counter_db_lookup_n(const struct pp_counter_db *db, const char *name, size_t len);
int pp_counter_db_lookup(const struct pp_counter_db *db, const char *name);
/* The alias entry for name, or NULL when name is not an alias. */
const struct pp_counter_alias *pp_counter_db_alias(const struct pp_counter_db *db, const char *name);

/* Number of entries of a kind in db. */
uint32_t pp_counter_db_count_kind(const struct pp_counter_db *db, enum pp_counter_kind kind);

const char *pp_counter_db_kind_name(enum pp_counter_kind kind);    /* "hardware", ... */
const char *pp_counter_db_block_name(enum pp_counter_block block); /* "job_manager", ... "-" */
const char *pp_counter_db_aggregate_name(enum pp_counter_aggregate a); /* "sum", "mean" */

/* The symbolic constants of document 002, present in every database. */
#define PP_CONST_SHADER_CORE_COUNT "MALI_CONFIG_SHADER_CORE_COUNT"
#define PP_CONST_L2_CACHE_COUNT "MALI_CONFIG_L2_CACHE_COUNT"
#define PP_CONST_EXT_BUS_BYTE_SIZE "MALI_CONFIG_EXT_BUS_BYTE_SIZE"
#define PP_CONST_TIME_SPAN "MALI_CONFIG_TIME_SPAN"
