#pragma once
/* What a reader needs to decode frames kept as their records' bytes after the writer has moved
 * on (report.json's window, read back at exit: pp_rec_write_dictionary): the writer's string
 * tables emptied since the oldest generation still wanted, as STRING records, and every counter
 * description's records. Bounded by what is wanted: tables older than that are freed. Private
 * to the recording's writer (rec_write.c), which owns one and hands it what it empties. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rec_bytes.h"

struct pp_rec_keep;

struct pp_rec_keep *pp_rec_keep_create(void);
void pp_rec_keep_destroy(struct pp_rec_keep *k);
/* Tables of generations from `oldest` on are wanted (UINT32_MAX: none); older ones are freed. */
void pp_rec_keep_from(struct pp_rec_keep *k, uint32_t oldest);
bool pp_rec_keep_wants(const struct pp_rec_keep *k, uint32_t generation);
/* The STRING records of an emptied table, taken over (freed here); NULL: it could not be made
 * (out of memory), and what wants it cannot be read. */
void pp_rec_keep_table(struct pp_rec_keep *k, uint32_t generation, uint8_t *records, size_t len);
/* A counter description's records (its strings', then its own), copied. */
void pp_rec_keep_descs(struct pp_rec_keep *k, const uint8_t *records, size_t len);
/* Appends the descriptions' records, then the kept tables', oldest first, to b. False where a
 * wanted table or a description was lost. */
bool pp_rec_keep_put(const struct pp_rec_keep *k, struct buf *b);
