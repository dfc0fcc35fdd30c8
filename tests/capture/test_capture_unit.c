/* Capture windows and sampled GPU timing without a GPU: the frames setting's parser and the
 * frame clock's decisions (attribution/model/attr_frame.c) with the real triggers
 * (layer/common/pp_capture.c): a raised SIGUSR2 and a trigger file; and which submits end a
 * frame under frame_delimiter=auto. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attr_frame.h"
#include "pp_capture.h"
#include "pp_settings.h"
#include "pp_settings_internal.h"
#include "pp_check.h"

/* Applies frames=v and returns the formatted value (or the error) in buf. */
static int frames_set(struct pp_settings *s, const char *v, char *buf, size_t len)
{
	char err[1024];
	int rc = pp_settings_apply(s, "frames", v, PP_ORIGIN_DEFAULT, err, sizeof(err));
	if (rc)
		snprintf(buf, len, "%s", err);
	else
		pp_settings_format_value(s, "frames", buf, len);
	return rc;
}

static void test_frames_setting(void)
{
	struct pp_settings s;
	char buf[1024];
	pp_settings_defaults(&s);
	CHECK(s.frames.n == 1 && s.frames.r[0].first == 0 && s.frames.r[0].last == PP_FRAME_INDEX_MAX);
	CHECK(s.gpu_timing_interval == 1 && s.capture_signal && !s.trigger_file[0] && s.trigger_frames == 100);
	CHECK(s.output_limit_mb == 256);
	pp_settings_format_value(&s, "frames", buf, sizeof(buf));
	CHECK(strcmp(buf, "all") == 0);

	static const struct {
		const char *in, *out;
	} good[] = {
		{ "300-420", "300-420" }, { "300-", "300-" },   { "-420", "0-420" },    { "7", "7" },
		{ " 1-2 , 5 ,9- ", "1-2,5,9-" }, { "none", "none" }, { "ALL", "all" }, { "0-0", "0" },
		{ "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16" },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int rc = frames_set(&s, good[i].in, buf, sizeof(buf));
		CHECK(rc == 0 && strcmp(buf, good[i].out) == 0);
		if (rc || strcmp(buf, good[i].out))
			fprintf(stderr, "  frames=%s gave %s\n", good[i].in, buf);
	}
	frames_set(&s, "300-420", buf, sizeof(buf));
	static const struct {
		const char *in, *why;
	} bad[] = {
		{ "", "empty" },
		{ "abc", "is not a frame index or range" },
		{ "5-3", "ends before it starts" },
		{ "1-5,3-8", "increasing order without overlap" },
		{ "5,3", "increasing order without overlap" },
		{ "1,,2", "an empty range" },
		{ "1,", "an empty range" },
		{ "-", "is not a frame index or range" },
		{ "1-2-3", "is not a frame index or range" },
		{ "99999999999999999999", "is not a frame index or range" },
		{ "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "more than 16 ranges" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = frames_set(&s, bad[i].in, buf, sizeof(buf));
		CHECK(rc == -EINVAL && strstr(buf, bad[i].why) && strstr(buf, "is not a valid frames") &&
		      strstr(buf, "allowed: all, none, or a comma-separated list") && strstr(buf, "keeping \"300-420\""));
		if (rc != -EINVAL || !strstr(buf, bad[i].why))
			fprintf(stderr, "  frames=%s: %s\n", bad[i].in, buf);
	}
	/* The value is kept when a bad one is rejected. */
	CHECK(s.frames.n == 1 && s.frames.r[0].first == 300 && s.frames.r[0].last == 420);

	char err[512];
	CHECK(pp_settings_apply(&s, "gpu_timing_interval", "0", PP_ORIGIN_DEFAULT, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "out of range"));
	CHECK(pp_settings_apply(&s, "gpu_timing_interval", "16", PP_ORIGIN_DEFAULT, err, sizeof(err)) == 0 &&
	      s.gpu_timing_interval == 16);
	CHECK(pp_settings_apply(&s, "output_limit_mb", "0", PP_ORIGIN_DEFAULT, err, sizeof(err)) == 0 &&
	      s.output_limit_mb == 0);
	CHECK(pp_settings_apply(&s, "trigger_frames", "0", PP_ORIGIN_DEFAULT, err, sizeof(err)) == -EINVAL);
	CHECK(pp_settings_apply(&s, "trigger_file", "/tmp/go-%p", PP_ORIGIN_DEFAULT, err, sizeof(err)) == 0);
	char want[64];
	snprintf(want, sizeof(want), "/tmp/go-%ld", (long)getpid());
	CHECK(strcmp(s.trigger_file, want) == 0);
	CHECK(pp_settings_apply(&s, "trigger_file", "None", PP_ORIGIN_DEFAULT, err, sizeof(err)) == 0 &&
	      s.trigger_file[0] == '\0');
	pp_settings_format_value(&s, "trigger_file", buf, sizeof(buf));
	CHECK(strcmp(buf, "none") == 0);
	CHECK(pp_settings_apply(&s, "capture_signal", "off", PP_ORIGIN_DEFAULT, err, sizeof(err)) == 0 &&
	      !s.capture_signal);
}

/* Runs n frames of one submit each (frame_delimiter=submit) and records, per frame, the flags
 * a recording begun while it is built sees. before(f) runs while frame f is built. */
static void run_frames(struct pp_frame_clock *c, uint32_t n, uint32_t *flags, void (*before)(uint32_t f))
{
	for (uint32_t f = 0; f < n; f++) {
		if (before)
			before(f);
		flags[f] = pp_attr_frame_clock_building(c);
		CHECK(pp_attr_frame_clock_submit(c) == f);
		CHECK(pp_attr_frame_clock_flags(c) == flags[f]); /* the frame keeps what its recordings saw */
		CHECK(pp_attr_frame_clock_submit_done(c, PP_SUBMIT_ASYNC, false));
	}
}

static void expect(const uint32_t *flags, uint32_t n, const char *captured, const char *timed, uint32_t by)
{
	for (uint32_t f = 0; f < n; f++) {
		bool c = captured[f] == 'x', t = timed[f] == 'x';
		bool ok = !!(flags[f] & PP_FRAME_CAPTURED) == c && !!(flags[f] & PP_FRAME_GPU_TIMED) == t &&
			  (!c || (flags[f] & (PP_FRAME_BY_SIGNAL | PP_FRAME_BY_FILE)) == by);
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  %s frame %u: flags %#x, expected captured %d timed %d by %#x\n", captured, f, flags[f],
				c, t, by);
	}
}

static struct pp_frame_capture capture_of(const char *frames, uint32_t interval)
{
	struct pp_settings s;
	pp_settings_defaults(&s);
	CHECK(pp_settings_apply(&s, "frames", frames, PP_ORIGIN_DEFAULT, NULL, 0) == 0);
	return (struct pp_frame_capture){ .frames = s.frames, .trigger_frames = 3, .timing_interval = interval };
}

static void test_clock_ranges(void)
{
	struct pp_frame_clock c;
	uint32_t fl[12];
	/* Default: everything captured and timed (the diagnostics' own clock relies on it). */
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	run_frames(&c, 4, fl, NULL);
	expect(fl, 4, "xxxx", "xxxx", 0);

	struct pp_frame_capture cap = capture_of("3-5,8", 1);
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	run_frames(&c, 10, fl, NULL);
	expect(fl, 10, "...xxx..x.", "...xxx..x.", 0);

	/* Sampled timing counts from each window's first frame. */
	cap = capture_of("2-7,9-", 3);
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	run_frames(&c, 12, fl, NULL);
	expect(fl, 12, "..xxxxxx.xxx", "..x..x...x..", 0);

	cap = capture_of("all", 4);
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	run_frames(&c, 9, fl, NULL);
	expect(fl, 9, "xxxxxxxxx", "x...x...x", 0);
}

/* Frame debuggers (docs/frame-debuggers.md): frames passprobe asks RenderDoc to capture
 * (renderdoc_frames) are captured and GPU-timed whatever the windows and the sampling say, and
 * a frame RenderDoc turns out to capture (pp_attr_frame_clock_renderdoc at its first submission) too;
 * a layer's own submission never ends a frame. */
static void test_clock_renderdoc(void)
{
	struct pp_frame_clock c;
	uint32_t fl[10];
	struct pp_frame_capture cap = capture_of("6-9", 3);
	struct pp_settings s;
	pp_settings_defaults(&s);
	CHECK(pp_settings_apply(&s, "renderdoc_frames", "2,6-7", PP_ORIGIN_DEFAULT, NULL, 0) == 0);
	cap.renderdoc = s.renderdoc_frames;
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	run_frames(&c, 10, fl, NULL);
	/* Frame 7 is timed although the window samples 1 frame of 3 (6, 9). */
	for (uint32_t f = 0; f < 10; f++) {
		bool wanted = f == 2 || f == 6 || f == 7;
		bool window = f >= 6;
		bool timed = wanted || f == 6 || f == 9;
		CHECK(!!(fl[f] & PP_FRAME_RENDERDOC_WANTED) == wanted);
		CHECK(!!(fl[f] & PP_FRAME_CAPTURED) == (wanted || window));
		CHECK(!!(fl[f] & PP_FRAME_GPU_TIMED) == timed);
		/* captured_by "renderdoc" only where no window holds the frame */
		CHECK(!!(fl[f] & PP_FRAME_BY_RENDERDOC) == (wanted && !window));
	}
	/* The window's sampling is not shifted by the RenderDoc frame before it. */
	CHECK(!(fl[8] & PP_FRAME_GPU_TIMED));

	/* A capture RenderDoc started itself: known at the frame's first submission. */
	cap = capture_of("none", 1);
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	CHECK(pp_attr_frame_clock_building(&c) == 0);
	CHECK(pp_attr_frame_clock_submit(&c) == 0);
	pp_attr_frame_clock_renderdoc(&c);
	uint32_t f = pp_attr_frame_clock_flags(&c);
	CHECK((f & PP_FRAME_ALL) == PP_FRAME_ALL && (f & PP_FRAME_RENDERDOC) && (f & PP_FRAME_BY_RENDERDOC));
	CHECK(pp_attr_frame_clock_building(&c) == f); /* recordings made for it from now on are timed */
	CHECK(!pp_attr_frame_clock_submit_done(&c, PP_SUBMIT_FOREIGN, false)); /* RenderDoc's own */
	CHECK(pp_attr_frame_clock_submit_done(&c, PP_SUBMIT_ASYNC, false));
	CHECK(pp_attr_frame_clock_building(&c) == 0); /* the next frame is not captured */

	/* Under auto, a layer's own fence-signalling submit of a headless program ends nothing. */
	pp_attr_frame_clock_init(&c, PP_FRAME_AUTO);
	CHECK(pp_attr_frame_clock_submit(&c) == 0);
	CHECK(!pp_attr_frame_clock_submit_done(&c, PP_SUBMIT_FOREIGN, false));
	CHECK(pp_attr_frame_clock_submit_done(&c, PP_SUBMIT_FENCE, false));
}

/* The experiment's arms (docs/diagnostics.md, "Experiment mode"): blocks of
 * PP_EXPERIMENT_BLOCK_FRAMES frames alternate between as written and fixed, counted by frame
 * index; a frame passprobe asks RenderDoc to capture is in neither (its recordings as the
 * application wrote them), nor is a frame that is not GPU-timed. */
static void test_clock_experiment(void)
{
	enum { N = 4 * PP_EXPERIMENT_BLOCK_FRAMES };
	struct pp_frame_clock c;
	uint32_t fl[N];
	struct pp_frame_capture cap = capture_of("all", 1);
	cap.experiment = true;
	struct pp_settings s;
	pp_settings_defaults(&s);
	const uint32_t rdoc = PP_EXPERIMENT_BLOCK_FRAMES + 1; /* inside a fixed block */
	char frames[16];
	snprintf(frames, sizeof(frames), "%u", rdoc);
	CHECK(pp_settings_apply(&s, "renderdoc_frames", frames, PP_ORIGIN_DEFAULT, NULL, 0) == 0);
	cap.renderdoc = s.renderdoc_frames;
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	run_frames(&c, N, fl, NULL);
	for (uint32_t f = 0; f < N; f++) {
		uint32_t arm = fl[f] & PP_FRAME_EXP;
		if (f == rdoc)
			CHECK(arm == 0 && (fl[f] & PP_FRAME_RENDERDOC_WANTED));
		else
			CHECK(arm == ((f / PP_EXPERIMENT_BLOCK_FRAMES) & 1 ? PP_FRAME_EXP_FIXED : PP_FRAME_EXP_AS_WRITTEN));
	}
	/* Sampled GPU timing: the frames not timed have no arm. */
	cap = capture_of("all", 2);
	cap.experiment = true;
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	run_frames(&c, N, fl, NULL);
	for (uint32_t f = 0; f < N; f++)
		CHECK(!!(fl[f] & PP_FRAME_EXP) == !!(fl[f] & PP_FRAME_GPU_TIMED));
	/* Without the experiment no frame has an arm. */
	cap = capture_of("all", 1);
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	run_frames(&c, N, fl, NULL);
	for (uint32_t f = 0; f < N; f++)
		CHECK(!(fl[f] & PP_FRAME_EXP));
}

static const uint32_t *g_raise_at;
static void raise_before(uint32_t f)
{
	for (const uint32_t *p = g_raise_at; *p != UINT32_MAX; p++)
		if (*p == f)
			raise(SIGUSR2);
}

static char g_trigger[64];
static uint32_t g_touch_at;
static void touch_before(uint32_t f)
{
	if (f == g_touch_at) {
		FILE *t = fopen(g_trigger, "w");
		CHECK(t != NULL);
		if (t)
			fclose(t);
	}
}

static void test_clock_triggers(void)
{
	struct pp_frame_clock c;
	uint32_t fl[12];

	/* The handler goes in where the process has none, with SA_RESTART. */
	CHECK(pp_capture_signal_install() == 0);
	struct sigaction now;
	sigaction(SIGUSR2, NULL, &now);
	CHECK(now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN && (now.sa_flags & SA_RESTART));

	/* Raised while frames 3 and 7 are built: toggled at their ends. */
	struct pp_frame_capture cap = capture_of("none", 1);
	cap.signal = true;
	static const uint32_t at[] = { 3, 7, UINT32_MAX };
	g_raise_at = at;
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	run_frames(&c, 10, fl, raise_before);
	expect(fl, 10, "....xxxx..", "....xxxx..", PP_FRAME_BY_SIGNAL);

	/* Against a range, the signal toggles: it pauses inside, captures outside. */
	cap = capture_of("0-5", 1);
	cap.signal = true;
	static const uint32_t at2[] = { 1, 6, UINT32_MAX };
	g_raise_at = at2;
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	run_frames(&c, 9, fl, raise_before);
	expect(fl, 2, "xx", "xx", 0);
	expect(fl + 2, 4, "....", "....", 0);
	expect(fl + 6, 1, "x", "x", PP_FRAME_BY_SIGNAL);
	expect(fl + 7, 2, "..", "..", 0);

	/* The trigger file: created while frame 2 is built, a window of trigger_frames=3 frames
	 * from frame 3, timed from its first frame; the file is consumed, and a second one
	 * starts another window. */
	snprintf(g_trigger, sizeof(g_trigger), "/tmp/pp-capture-trigger-%ld", (long)getpid());
	unlink(g_trigger);
	cap = capture_of("none", 2);
	cap.trigger_file = g_trigger;
	g_touch_at = 2;
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	run_frames(&c, 8, fl, touch_before);
	expect(fl, 8, "...xxx..", "...x.x..", PP_FRAME_BY_FILE);
	struct stat st;
	CHECK(stat(g_trigger, &st) != 0 && errno == ENOENT);
	g_touch_at = 0;
	run_frames(&c, 0, fl, NULL);
	touch_before(0);
	uint32_t more[5];
	for (uint32_t f = 0; f < 5; f++) {
		more[f] = pp_attr_frame_clock_building(&c);
		pp_attr_frame_clock_submit(&c);
		pp_attr_frame_clock_submit_done(&c, PP_SUBMIT_ASYNC, false);
	}
	/* Created between frames: found at the end of the next frame (8), window 9..11. */
	expect(more, 5, ".xxx.", ".x.x.", PP_FRAME_BY_FILE);
	unlink(g_trigger);

	/* A file there before the first frame captures from frame 0. */
	touch_before(g_touch_at);
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	pp_attr_frame_clock_capture_set(&c, &cap);
	run_frames(&c, 5, fl, NULL);
	expect(fl, 5, "xxx..", "x.x..", PP_FRAME_BY_FILE);
	unlink(g_trigger);
}

/* One submit under frame_delimiter=auto: whether it ended the open frame. */
static bool auto_submit(struct pp_frame_clock *c, enum pp_submit_sync sync)
{
	pp_attr_frame_clock_submit(c);
	return pp_attr_frame_clock_submit_done(c, sync, false);
}

/* frame_delimiter=auto: which submits end a frame, with and without a swapchain (a GLES draw
 * surface), before and after the first present. */
static void test_clock_auto(void)
{
	struct pp_frame_clock c;
	/* Headless: a fence or a drain ends a frame, an async submit does not. */
	pp_attr_frame_clock_init(&c, PP_FRAME_AUTO);
	CHECK(!auto_submit(&c, PP_SUBMIT_ASYNC));
	CHECK(auto_submit(&c, PP_SUBMIT_FENCE) && !strcmp(c.why, "fence") && c.ended == 1);
	CHECK(auto_submit(&c, PP_SUBMIT_DRAINED) && c.ended == 2);

	/* A swapchain: fences stay in the frame (uploads before the first present, a fence per
	 * frame for streaming), a drain still ends it (a window made current, never presented). */
	pp_attr_frame_clock_init(&c, PP_FRAME_AUTO);
	pp_attr_frame_clock_swapchain_created(&c);
	CHECK(!auto_submit(&c, PP_SUBMIT_FENCE));
	CHECK(!auto_submit(&c, PP_SUBMIT_ASYNC));
	CHECK(auto_submit(&c, PP_SUBMIT_DRAINED) && !strcmp(c.why, "fence") && c.ended == 1);
	CHECK(auto_submit(&c, PP_SUBMIT_DRAINED) && c.ended == 2);

	/* From the first present on, presents only: neither a fence nor a drain ends a frame. */
	pp_attr_frame_clock_submit(&c);
	CHECK(pp_attr_frame_clock_present(&c) && !strcmp(c.why, "present") && c.ended == 3);
	CHECK(!auto_submit(&c, PP_SUBMIT_DRAINED));
	CHECK(!auto_submit(&c, PP_SUBMIT_FENCE));
	CHECK(pp_attr_frame_clock_present(&c) && c.ended == 4);

	/* Without a swapchain too, once a present was seen. */
	pp_attr_frame_clock_init(&c, PP_FRAME_AUTO);
	pp_attr_frame_clock_submit(&c);
	CHECK(pp_attr_frame_clock_present(&c));
	CHECK(!auto_submit(&c, PP_SUBMIT_DRAINED) && !auto_submit(&c, PP_SUBMIT_FENCE));

	/* A wait for the whole queue or device: a frame end without a swapchain, before any
	 * present, under auto only. */
	pp_attr_frame_clock_init(&c, PP_FRAME_AUTO);
	CHECK(!auto_submit(&c, PP_SUBMIT_ASYNC) && pp_attr_frame_clock_waited_idle(&c) && c.ended == 1);
	CHECK(!pp_attr_frame_clock_waited_idle(&c)); /* no frame open */
	pp_attr_frame_clock_swapchain_created(&c);
	CHECK(!auto_submit(&c, PP_SUBMIT_ASYNC) && !pp_attr_frame_clock_waited_idle(&c));
	pp_attr_frame_clock_init(&c, PP_FRAME_AUTO);
	pp_attr_frame_clock_submit(&c);
	CHECK(pp_attr_frame_clock_present(&c));
	CHECK(!auto_submit(&c, PP_SUBMIT_ASYNC) && !pp_attr_frame_clock_waited_idle(&c));
	pp_attr_frame_clock_init(&c, PP_FRAME_PRESENT);
	CHECK(!auto_submit(&c, PP_SUBMIT_ASYNC) && !pp_attr_frame_clock_waited_idle(&c));

	/* present: a drain never ends a frame; submit: every submit does. */
	pp_attr_frame_clock_init(&c, PP_FRAME_PRESENT);
	CHECK(!auto_submit(&c, PP_SUBMIT_DRAINED) && !auto_submit(&c, PP_SUBMIT_FENCE));
	pp_attr_frame_clock_init(&c, PP_FRAME_SUBMIT);
	CHECK(auto_submit(&c, PP_SUBMIT_ASYNC) && !strcmp(c.why, "submit"));
}

/* An application's own SIGUSR2 handler stays, untouched (in a child: installing is once per
 * process). */
static void app_handler(int sig)
{
	(void)sig;
}

static void test_app_handler_kept(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGUSR2, app_handler);
		int rc = pp_capture_signal_install();
		struct sigaction now;
		sigaction(SIGUSR2, NULL, &now);
		_exit(rc == -EBUSY && now.sa_handler == app_handler ? 0 : 1);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	test_frames_setting();
	test_app_handler_kept();
	test_clock_ranges();
	test_clock_triggers();
	test_clock_auto();
	test_clock_renderdoc();
	test_clock_experiment();
	return check_finish();
}
