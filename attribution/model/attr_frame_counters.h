#pragma once
/* GPU counters that are not one pass's own measurement, completed when a frame is assembled:
 * sets measured over several frames (one hardware pass each, VK_KHR_performance_query), merged
 * per pass name from earlier frames; and sampled counters (Mali kbase), attributed to the
 * frame's passes by time overlap (attr_overlap.h). One per device, under the device's lock. */
#include "attr_device.h"
#include "pp_model.h"

struct attr_frame_counters;

/* NULL when out of memory (the device then goes without these counters). */
struct attr_frame_counters *pp_attr_frame_counters_create(const struct pp_attr_gpu_ops *ops);
void pp_attr_frame_counters_destroy(struct attr_frame_counters *c);

/* A frame assembled, its passes in frame order: merges and attributes into their counters. */
void pp_attr_frame_counters_add(struct attr_frame_counters *c, struct pp_frame_result *f);
