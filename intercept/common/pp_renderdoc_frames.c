/* RenderDoc and passprobe's frames (pp_renderdoc_frames.h). */
#include "pp_renderdoc_frames.h"

#include <limits.h>
#include <pthread.h>

#include "attr_device.h"
#include "pp_log.h"
#include "pp_renderdoc.h"
#include "pp_sink.h"

static bool driving;
/* Guards the capture passprobe started and the captures already reported: the front ends may
 * reach here from several threads. Never held across a call into RenderDoc that reaches
 * passprobe's hooks on another thread: RenderDoc's own calls come back on this one. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool ours;            /* passprobe started the capture in progress */
static void *ours_device;
static uint32_t reported;    /* RenderDoc's captures already paired or reported */

bool pp_renderdoc_frames_driving(void)
{
	return __atomic_load_n(&driving, __ATOMIC_RELAXED);
}

void pp_renderdoc_frames_setup(const struct pp_frame_ranges *requested)
{
	if (!requested->n)
		return;
	if (!pp_renderdoc_present()) {
		pp_log_once(PP_LOG_WARN, "renderdoc_frames is set but RenderDoc is not loaded in this process: no "
					 "capture is taken (passprobe run --renderdoc loads it; docs/frame-debuggers.md)");
		return;
	}
	__atomic_store_n(&driving, true, __ATOMIC_RELAXED);
}

void pp_renderdoc_frames_poll(struct pp_attr_device *attr, uint32_t sink_device, bool final)
{
	/* Inside passprobe's own call into RenderDoc the lock is held: the caller polls after. */
	if (!pp_renderdoc_present() || pp_renderdoc_calling())
		return;
	uint32_t n = pp_renderdoc_captures();
	pthread_mutex_lock(&lock);
	while (reported < n) {
		uint64_t frame;
		bool requested = false;
		bool paired = pp_attr_renderdoc_frame_take(attr, &frame, &requested);
		if (!paired && !final)
			break; /* its frame has not ended yet, or belongs to another device */
		char path[PATH_MAX];
		uint64_t timestamp = 0;
		if (!pp_renderdoc_capture(reported, path, sizeof(path), &timestamp))
			path[0] = '\0';
		pp_sink_renderdoc_capture(sink_device, paired ? &frame : NULL, requested, path, timestamp);
		reported++;
	}
	pthread_mutex_unlock(&lock);
}

void pp_renderdoc_frames_between(struct pp_attr_device *attr, uint32_t sink_device, void *device)
{
	if (!pp_renderdoc_frames_driving() || pp_renderdoc_calling())
		return;
	uint32_t flags;
	bool between = pp_attr_frame_between(attr, &flags);
	bool want = flags & PP_FRAME_RENDERDOC_WANTED;
	bool ended = false;
	pthread_mutex_lock(&lock);
	if (ours && (!want || ours_device != device)) {
		ours = false;
		ended = true;
		if (!pp_renderdoc_end(ours_device))
			pp_log(PP_LOG_WARN, "RenderDoc did not write the capture passprobe asked for");
	}
	/* Only between frames: a capture begun in the middle of one would hold part of it. */
	if (!ours && want && between && !pp_renderdoc_capturing()) {
		pp_renderdoc_start(device);
		ours = pp_renderdoc_capturing();
		ours_device = device;
		if (!ours)
			pp_log_once(PP_LOG_WARN, "RenderDoc did not start the capture passprobe asked for");
	}
	pthread_mutex_unlock(&lock);
	if (ended)
		pp_renderdoc_frames_poll(attr, sink_device, false);
}
