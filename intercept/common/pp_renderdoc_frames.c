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
 * reach here from several threads. Never held across RenderDoc's start or end of a capture:
 * those take RenderDoc's own locks, which its hooks hold while they call passprobe, and those
 * calls poll (pp_renderdoc_frames_poll takes this lock) on other threads. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool ours;            /* passprobe started the capture in progress */
static void *ours_device;
static uint64_t ours_frame;  /* the frame it captures */
static bool switching;       /* a thread is starting or ending a capture, without the lock */
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
		bool paired = pp_attr_device_renderdoc_frame_take(attr, &frame, &requested);
		if (!paired && !final)
			break; /* its frame has not ended yet, or belongs to another device */
		char path[PATH_MAX];
		uint64_t timestamp = 0;
		if (!pp_renderdoc_capture(reported, path, sizeof(path), &timestamp))
			path[0] = '\0';
		pp_attr_renderdoc_sink_capture(sink_device, paired ? &frame : NULL, requested, path, timestamp);
		reported++;
	}
	pthread_mutex_unlock(&lock);
}

void pp_renderdoc_frames_between(struct pp_attr_device *attr, uint32_t sink_device, void *device)
{
	if (!pp_renderdoc_frames_driving() || pp_renderdoc_calling())
		return;
	uint32_t flags;
	bool between = pp_attr_device_frame_between(attr, &flags);
	bool want = flags & PP_FRAME_RENDERDOC_WANTED;
	/* The open frame, or the one the next work goes into. */
	uint64_t frame = pp_attr_device_frame_recording(attr);
	pthread_mutex_lock(&lock);
	if (switching) {
		/* Another thread is at it: this call's device gets its turn at its next boundary. */
		pthread_mutex_unlock(&lock);
		return;
	}
	/* The device whose frame is captured ends it, one capture per frame, as RenderDoc writes
	 * for the frames it captures itself (a capture started through the API spans presents):
	 * once that frame has ended, or when the next is not asked for. Another device's frames say
	 * nothing of it. */
	bool end = ours && ours_device == device && (!want || (between && frame > ours_frame));
	void *end_device = ours_device;
	if (end)
		ours = false;
	/* Only between frames: a capture begun in the middle of one would hold part of it. */
	bool start = !ours && want && between;
	switching = end || start;
	pthread_mutex_unlock(&lock);
	if (!switching)
		return;
	if (end && !pp_renderdoc_end(end_device))
		pp_log(PP_LOG_WARN, "RenderDoc did not write the capture passprobe asked for");
	bool started = false;
	if (start && !pp_renderdoc_capturing()) {
		pp_renderdoc_start(device);
		started = pp_renderdoc_capturing();
		if (!started)
			pp_log_once(PP_LOG_WARN, "RenderDoc did not start the capture passprobe asked for");
	}
	pthread_mutex_lock(&lock);
	if (started) {
		ours = true;
		ours_device = device;
		ours_frame = frame;
	}
	switching = false;
	pthread_mutex_unlock(&lock);
	if (end)
		pp_renderdoc_frames_poll(attr, sink_device, false);
}
