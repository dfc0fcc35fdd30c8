/* The frame clock (attr_frame.h). The frame_delimiter setting decides:
 *   auto    - a present ends a frame; before any present, a submit that signals a fence
 *             does when there is no swapchain (headless programs), and one that drained the
 *             GPU (glFinish) does even with one (a window made current but never presented),
 *             and without a swapchain so does a wait for the whole queue or device;
 *   present - presents only;  submit - every submit call;  label:<name> - a submit whose
 *             recordings push the named debug label. */
#include "attr_frame.h"

#include "pp_capture.h"

/* Decides frame `next`: a frame boundary, the only place windows open and close. The
 * triggers are read here: a signal toggles capturing (against the frames setting), the
 * trigger file adds a window of trigger_frames frames. GPU timing counts from the window's
 * first frame, so a window of one frame is timed. */
static void capture_decide(struct pp_frame_clock *c)
{
	const struct pp_frame_capture *cap = &c->cap;
	if (cap->signal) {
		uint64_t n = pp_capture_signal_count();
		if ((n - c->sig_seen) & 1)
			c->sig_on = !c->sig_on;
		c->sig_seen = n;
	}
	if (cap->trigger_file && cap->trigger_file[0]) {
		uint64_t n = pp_capture_trigger_count(cap->trigger_file);
		if (n != c->file_seen)
			c->file_left = cap->trigger_frames;
		c->file_seen = n;
	}
	bool ranged = pp_frame_ranges_have(&cap->frames, c->next);
	uint32_t f = 0;
	if (c->file_left)
		f = PP_FRAME_CAPTURED | PP_FRAME_BY_FILE;
	else if (ranged != c->sig_on)
		f = PP_FRAME_CAPTURED | (c->sig_on ? PP_FRAME_BY_SIGNAL : 0);
	if (f) {
		if (!c->window_open)
			c->window_first = c->next;
		uint32_t n = cap->timing_interval ? cap->timing_interval : 1;
		if ((c->next - c->window_first) % n == 0)
			f |= PP_FRAME_GPU_TIMED;
	}
	c->window_open = f != 0;
	/* A frame RenderDoc captures is measured in full, in a window or not. */
	if (pp_frame_ranges_have(&cap->renderdoc, c->next))
		f |= PP_FRAME_ALL | PP_FRAME_RENDERDOC_WANTED | (f ? 0 : PP_FRAME_BY_RENDERDOC);
	/* The experiment's arms alternate in blocks of frames (drift over the run cancels out),
	 * counted by frame index so every front end and recording agrees on a frame's arm; a
	 * frame RenderDoc captures is never one, nor one that is not measured in full. */
	else if (cap->experiment && (f & PP_FRAME_ALL) == PP_FRAME_ALL)
		f |= (c->next / PP_EXPERIMENT_BLOCK_FRAMES) & 1 ? PP_FRAME_EXP_FIXED : PP_FRAME_EXP_AS_WRITTEN;
	c->next_flags = f;
	if (!c->open)
		__atomic_store_n(&c->building, f, __ATOMIC_RELAXED);
}

void pp_attr_frame_clock_init(struct pp_frame_clock *c, enum pp_frame_delimiter delimiter)
{
	*c = (struct pp_frame_clock){ .delimiter = delimiter, .next_flags = PP_FRAME_ALL, .building = PP_FRAME_ALL,
				     .window_open = true };
	c->cap.frames.n = 1;
	c->cap.frames.r[0].last = PP_FRAME_INDEX_MAX;
	c->cap.timing_interval = 1;
}

void pp_attr_frame_clock_capture_set(struct pp_frame_clock *c, const struct pp_frame_capture *cap)
{
	c->cap = *cap;
	c->sig_seen = pp_capture_signal_count();
	c->file_seen = 0;
	c->window_open = false; /* the window (if any) begins at `next` */
	capture_decide(c);
}

uint64_t pp_attr_frame_clock_submit(struct pp_frame_clock *c)
{
	if (!c->open) {
		c->open = true;
		c->current = c->next++;
		c->current_flags = c->next_flags;
	}
	return c->current;
}

void pp_attr_frame_clock_renderdoc(struct pp_frame_clock *c)
{
	if (!c->open)
		return;
	if (!(c->current_flags & PP_FRAME_CAPTURED))
		c->current_flags |= PP_FRAME_BY_RENDERDOC;
	c->current_flags |= PP_FRAME_ALL | PP_FRAME_RENDERDOC;
	c->current_flags &= ~(uint32_t)PP_FRAME_EXP; /* recordings from now on are as written */
	__atomic_store_n(&c->building, c->current_flags, __ATOMIC_RELAXED);
}

bool pp_attr_frame_clock_end(struct pp_frame_clock *c, const char *why)
{
	if (!c->open)
		return false;
	c->open = false;
	c->ended = c->current + 1;
	c->why = why;
	if (c->file_left && (c->current_flags & PP_FRAME_BY_FILE))
		c->file_left--;
	capture_decide(c);
	return true;
}

bool pp_attr_frame_clock_submit_done(struct pp_frame_clock *c, enum pp_submit_sync sync, bool saw_frame_label)
{
	if (sync == PP_SUBMIT_FOREIGN)
		return false;
	switch (c->delimiter) {
	case PP_FRAME_SUBMIT:
		return pp_attr_frame_clock_end(c, "submit");
	case PP_FRAME_AUTO:
		if (!c->presented && (sync == PP_SUBMIT_DRAINED || (sync == PP_SUBMIT_FENCE && !c->swapchain)))
			return pp_attr_frame_clock_end(c, "fence");
		return false;
	case PP_FRAME_LABEL:
		return saw_frame_label && pp_attr_frame_clock_end(c, "label");
	case PP_FRAME_PRESENT:
		break;
	}
	return false;
}

bool pp_attr_frame_clock_waited_idle(struct pp_frame_clock *c)
{
	if (c->delimiter != PP_FRAME_AUTO || c->presented || c->swapchain)
		return false;
	return pp_attr_frame_clock_end(c, "fence");
}

void pp_attr_frame_clock_swapchain_created(struct pp_frame_clock *c)
{
	c->swapchain = true;
}

bool pp_attr_frame_clock_present(struct pp_frame_clock *c)
{
	if (c->delimiter != PP_FRAME_AUTO && c->delimiter != PP_FRAME_PRESENT)
		return false;
	c->presented = true;
	return pp_attr_frame_clock_end(c, "present");
}
