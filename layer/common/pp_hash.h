#pragma once
/* The only way passprobe includes uthash. uthash's default out-of-memory handling calls exit(),
 * which a layer living in someone else's process must never do: with HASH_NONFATAL_OOM the
 * failed add leaves the table unchanged and sets a flag we check. */
#include <stdbool.h>

#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (pp_hash_oom_ = true)

/* Set by a failed HASH_ADD; callers clear it before an add and test it after. Thread-local so
 * concurrent adds under different locks do not see each other's failures. */
extern _Thread_local bool pp_hash_oom_;

#include <uthash.h>

/* HASH_ADD / HASH_ADD_PTR that say whether the item went in: ok_out is false when the table
 * could not grow (the item is not in the table, and still the caller's to free). */
#define PP_HASH_ADD(head, field, keylen, add, ok_out)        \
	do {                                                 \
		pp_hash_oom_ = false;                        \
		HASH_ADD(hh, head, field, keylen, add);      \
		(ok_out) = !pp_hash_oom_;                    \
	} while (0)

#define PP_HASH_ADD_PTR(head, field, add, ok_out)            \
	do {                                                 \
		pp_hash_oom_ = false;                        \
		HASH_ADD_PTR(head, field, add);              \
		(ok_out) = !pp_hash_oom_;                    \
	} while (0)

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A hash of n bytes for passprobe's own tables of names (the writer's strings, the exit
 * summary's pass names), which hash a pass's name for every pass of every frame: eight bytes a
 * step, the last step and a short name's read as two overlapping loads (the length is mixed
 * in, so the overlap is harmless). Every bit of the result depends on every byte, so its low
 * bits index a power-of-two table. Not kept anywhere: it may change. */
static inline uint64_t pp_hash_mix_(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

static inline uint64_t pp_hash_bytes(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)n * 0xff51afd7ed558ccdull);
	uint64_t w;
	if (n >= 8) {
		size_t i = 0;
		for (; i + 8 < n; i += 8) {
			memcpy(&w, p + i, 8);
			h = pp_hash_mix_(h, w);
		}
		memcpy(&w, p + n - 8, 8);
		h = pp_hash_mix_(h, w);
	} else if (n >= 4) {
		uint32_t lo, hi;
		memcpy(&lo, p, 4);
		memcpy(&hi, p + n - 4, 4);
		h = pp_hash_mix_(h, lo | (uint64_t)hi << 32);
	} else if (n) {
		h = pp_hash_mix_(h, p[0] | (uint64_t)p[n / 2] << 8 | (uint64_t)p[n - 1] << 16);
	}
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}
