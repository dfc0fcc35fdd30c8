/* Which resource, and which part of it, a barrier or a use covers: the key of a resource,
 * layer and byte ranges with their aspects, and how two compare. */
#include "diag_internal.h"

uint64_t pp_diag_ranges_barrier_res_key(enum pp_diag_res_kind kind, uint64_t handle)
{
	return mix64(handle, kind);
}

/* Empty layer / byte ranges are invalid in Vulkan: an end of 0 means "to the end". */
struct pp_diag_range pp_diag_ranges_norm(const struct pp_diag_range *in)
{
	struct pp_diag_range rg = { 0 };
	if (!in || !in->set)
		return rg;
	rg = *in;
	if (!rg.end)
		rg.end = PP_DIAG_RANGE_END;
	if (!rg.layer_end)
		rg.layer_end = UINT32_MAX;
	return rg;
}

bool pp_diag_ranges_overlap(const struct pp_diag_range *a, const struct pp_diag_range *b)
{
	if (!a || !b || !a->set || !b->set)
		return true;
	if (a->aspects && b->aspects && !(a->aspects & b->aspects))
		return false;
	struct pp_diag_range x = pp_diag_ranges_norm(a), y = pp_diag_ranges_norm(b);
	return x.begin < y.end && y.begin < x.end && x.layer_begin < y.layer_end && y.layer_begin < x.layer_end;
}

/* Whether a covers all of b (both normalized). */
bool pp_diag_ranges_contains(const struct pp_diag_range *a, const struct pp_diag_range *b)
{
	if (!a->set)
		return true;
	if (!b->set || (a->aspects && (!b->aspects || (b->aspects & ~a->aspects))))
		return false;
	return a->begin <= b->begin && b->end <= a->end && a->layer_begin <= b->layer_begin &&
	       b->layer_end <= a->layer_end;
}

/* a becomes the bounding range of a and b (both normalized). */
void pp_diag_ranges_bound(struct pp_diag_range *a, const struct pp_diag_range *b)
{
	if (!a->set)
		return;
	if (!b->set) {
		*a = *b;
		return;
	}
	a->aspects = a->aspects && b->aspects ? a->aspects | b->aspects : 0;
	a->begin = b->begin < a->begin ? b->begin : a->begin;
	a->end = b->end > a->end ? b->end : a->end;
	a->layer_begin = b->layer_begin < a->layer_begin ? b->layer_begin : a->layer_begin;
	a->layer_end = b->layer_end > a->layer_end ? b->layer_end : a->layer_end;
}
