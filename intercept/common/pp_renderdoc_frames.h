#pragma once
/* RenderDoc and passprobe's frames (docs/frame-debuggers.md), for both front ends: which of
 * passprobe's frames RenderDoc captured and where the capture file is, and, with the
 * renderdoc_frames setting, RenderDoc's frame captures started and ended at passprobe's own
 * frame boundaries, so that programs that never present get their captures too.
 *
 * RenderDoc holds a lock of its own across its submit hook's call down: starting or ending a
 * capture from inside passprobe's submit (which RenderDoc's hook calls) would deadlock. So a
 * capture starts or ends at the first point between frames where the application calls
 * something else that reaches passprobe (a fence wait, a command buffer begin): the front ends
 * call pp_renderdoc_frames_between there. */
#include <stdbool.h>
#include <stdint.h>

struct pp_attr_device;
struct pp_frame_ranges;

/* Whether passprobe drives RenderDoc's captures in this process (RenderDoc found and
 * renderdoc_frames not none): the one check the front ends' hooks make before calling below.
 * Lock-free. */
bool pp_renderdoc_frames_driving(void);

/* Once RenderDoc was looked for (pp_renderdoc_find): whether to drive its captures. */
void pp_renderdoc_frames_setup(const struct pp_frame_ranges *requested);

/* Between frames, at a call of the application's that no RenderDoc lock covers: starts
 * RenderDoc's capture when the next frame is one of renderdoc_frames (and no frame is open),
 * ends passprobe's capture when the frame being built is not, then reports the captures written
 * (pp_renderdoc_frames_poll). device: RenderDoc's device pointer for the API (a Vulkan
 * instance's dispatch key, an EGL context). Does nothing inside passprobe's own calls into
 * RenderDoc (pp_renderdoc_calling). */
void pp_renderdoc_frames_between(struct pp_attr_device *attr, uint32_t sink_device, void *device);

/* Reports the capture files RenderDoc has written since the last call, each paired with the
 * oldest frame RenderDoc captured that has ended (pp_attr_renderdoc_sink_capture). final: the device
 * goes away, captures no frame of it waits for are reported without one. */
void pp_renderdoc_frames_poll(struct pp_attr_device *attr, uint32_t sink_device, bool final);
