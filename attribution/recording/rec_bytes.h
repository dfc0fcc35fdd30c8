/* The bytes of the recording's records (rec_write.c): a growing buffer, the stores a record's
 * fields are written with through it (put_*), and, where a record's bulk is written, through a
 * cursor into room reserved once (at_*). Little-endian, no padding: docs/report-format.md. */
#ifndef PP_REC_BYTES_H
#define PP_REC_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	uint8_t *p;
	size_t len, cap;
	bool failed;
};

static inline bool reserve(struct buf *b, size_t n)
{
	if (b->failed)
		return false;
	if (b->len + n <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	uint8_t *p = realloc(b->p, cap);
	if (!p) {
		b->failed = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static inline void put_slow(struct buf *b, const void *v, size_t n)
{
	if (reserve(b, n)) {
		memcpy(b->p + b->len, v, n);
		b->len += n;
	}
}

/* Most puts are a compare and a store of a constant size (a frame's hundreds of fields). A
 * failed buffer keeps its length and capacity, so the fast path may go on writing into it:
 * the record is dropped when it ends. */
static inline __attribute__((always_inline)) void put(struct buf *b, const void *v, size_t n)
{
	if (__builtin_expect(b->len + n <= b->cap, 1)) {
		memcpy(b->p + b->len, v, n);
		b->len += n;
	} else {
		put_slow(b, v, n);
	}
}

/* Little-endian on every host passprobe builds for (x86-64, AArch64): the value's own bytes. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the recording is little-endian");
static inline void put_u8(struct buf *b, uint8_t v) { put(b, &v, 1); }
static inline void put_u16(struct buf *b, uint16_t v) { put(b, &v, 2); }
static inline void put_u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static inline void put_u64(struct buf *b, uint64_t v) { put(b, &v, 8); }
static inline void put_f64(struct buf *b, double v) { put(b, &v, 8); }

/* A nested element: its length first, filled in when it ends. */
static inline size_t elem_begin(struct buf *b)
{
	size_t at = b->len;
	put_u32(b, 0);
	return at;
}

static inline void elem_end(struct buf *b, size_t at)
{
	if (!b->failed) {
		uint32_t n = (uint32_t)(b->len - at - 4);
		memcpy(b->p + at, &n, 4);
	}
}

/* ---- a record's fields through a cursor -------------------------------------------------
 * A frame's passes are its bulk (a few hundred bytes each, every frame): room for a whole pass
 * is reserved once (pass_room), then each field is a store and an add through a local cursor.
 * Through put() each field also reloads the buffer's length, capacity and pointer, since a
 * byte store may alias them (about twice the instructions a pass). */
static inline uint8_t *at_u8(uint8_t *o, uint8_t v)
{
	*o = v;
	return o + 1;
}
static inline uint8_t *at_u32(uint8_t *o, uint32_t v)
{
	memcpy(o, &v, 4);
	return o + 4;
}
static inline uint8_t *at_u64(uint8_t *o, uint64_t v)
{
	memcpy(o, &v, 8);
	return o + 8;
}
static inline uint8_t *at_f64(uint8_t *o, double v)
{
	memcpy(o, &v, 8);
	return o + 8;
}

/* A nested element's length, once it ends: at is where elem_at left room for it. */
static inline uint8_t *elem_at(uint8_t *o)
{
	return o + 4;
}
static inline void elem_close(uint8_t *at, const uint8_t *end)
{
	uint32_t n = (uint32_t)(end - at - 4);
	memcpy(at, &n, 4);
}

/* Where the cursor starts: the buffer's end, with n bytes of room; NULL (the buffer marked
 * failed) when that cannot be had. */
static inline uint8_t *room(struct buf *b, size_t n)
{
	return reserve(b, n) ? b->p + b->len : NULL;
}

static inline void room_used(struct buf *b, const uint8_t *o)
{
	b->len = (size_t)(o - b->p);
}

#endif
