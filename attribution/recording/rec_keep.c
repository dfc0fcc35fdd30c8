/* The strings and counter descriptions kept for frames read back later (rec_keep.h). */
#include "rec_keep.h"

struct kept {
	struct kept *next;
	uint32_t generation;
	size_t len;
	uint8_t *records;
};

struct pp_rec_keep {
	uint32_t from;
	struct kept *head, **tail; /* oldest first */
	struct buf descs;
	bool lost;                 /* a wanted table (of lost_generation or before) could not be kept */
	uint32_t lost_generation;
};

struct pp_rec_keep *pp_rec_keep_create(void)
{
	struct pp_rec_keep *k = calloc(1, sizeof(*k));
	if (k) {
		k->from = UINT32_MAX;
		k->tail = &k->head;
	}
	return k;
}

void pp_rec_keep_destroy(struct pp_rec_keep *k)
{
	if (!k)
		return;
	pp_rec_keep_from(k, UINT32_MAX);
	free(k->descs.p);
	free(k);
}

void pp_rec_keep_from(struct pp_rec_keep *k, uint32_t oldest)
{
	k->from = oldest;
	while (k->head && k->head->generation < oldest) {
		struct kept *t = k->head;
		k->head = t->next;
		free(t->records);
		free(t);
	}
	if (!k->head)
		k->tail = &k->head;
	if (k->lost && k->lost_generation < oldest)
		k->lost = false;
}

bool pp_rec_keep_wants(const struct pp_rec_keep *k, uint32_t generation)
{
	return generation >= k->from;
}

void pp_rec_keep_table(struct pp_rec_keep *k, uint32_t generation, uint8_t *records, size_t len)
{
	struct kept *t = records ? malloc(sizeof(*t)) : NULL;
	if (!t) {
		free(records);
		k->lost = true;
		k->lost_generation = generation;
		return;
	}
	*t = (struct kept){ .generation = generation, .len = len, .records = records };
	*k->tail = t;
	k->tail = &t->next;
}

void pp_rec_keep_descs(struct pp_rec_keep *k, const uint8_t *records, size_t len)
{
	put_slow(&k->descs, records, len);
}

bool pp_rec_keep_put(const struct pp_rec_keep *k, struct buf *b)
{
	if (k->lost || k->descs.failed)
		return false;
	if (k->descs.len)
		put_slow(b, k->descs.p, k->descs.len);
	for (const struct kept *t = k->head; t; t = t->next)
		put_slow(b, t->records, t->len);
	return !b->failed;
}
