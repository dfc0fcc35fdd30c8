/* One block of memory kept for reuse, where a call allocates a block of half a kilobyte or more
 * and frees it before the next call (a submission's tables, a frame's record, the diagnostics'
 * observations of a submission): allocating it each time is a search of the allocator's bins.
 * The larger of the block given back and the one kept is kept, so a slot holds at most one
 * block, of the largest size recently used. Taken and given back by atomic exchange: a caller
 * on another thread that finds the slot empty meanwhile allocates its own. */
#pragma once
#include <stddef.h>
#include <stdlib.h>

struct pp_spare {
	size_t bytes;
	_Alignas(16) unsigned char data[];
};

/* A block of at least `bytes` (not zeroed): the one kept in *slot if it is large enough, else a
 * new one. NULL without memory. */
static inline void *pp_spare_take(struct pp_spare **slot, size_t bytes)
{
	struct pp_spare *b = __atomic_exchange_n(slot, NULL, __ATOMIC_ACQUIRE);
	if (!b || b->bytes < bytes) {
		free(b);
		if (!(b = malloc(sizeof(*b) + bytes)))
			return NULL;
		b->bytes = bytes;
	}
	return b->data;
}

/* A block pp_spare_take gave (or NULL) back: kept in *slot unless the one there is larger. */
static inline void pp_spare_give(struct pp_spare **slot, void *data)
{
	if (!data)
		return;
	struct pp_spare *b = (struct pp_spare *)((unsigned char *)data - offsetof(struct pp_spare, data));
	struct pp_spare *kept = __atomic_exchange_n(slot, NULL, __ATOMIC_ACQUIRE);
	if (kept && kept->bytes > b->bytes) {
		struct pp_spare *t = kept;
		kept = b;
		b = t;
	}
	free(kept);
	free(__atomic_exchange_n(slot, b, __ATOMIC_ACQ_REL));
}

/* The block kept, freed (its owner going away). */
static inline void pp_spare_free(struct pp_spare **slot)
{
	free(__atomic_exchange_n(slot, NULL, __ATOMIC_ACQUIRE));
}
