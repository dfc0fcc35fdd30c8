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
