/* The sinks' front: the bounded hand-over queue the application threads push into, the one
 * writer thread that drains it, the output directory, and shutdown.
 *
 * Locks: g_lock guards the queue, the CPU-event ring and the state; it is held only for
 * pointer moves, never across I/O, so pp_attr_sink_frame_submit and pp_attr_sink_cpu_event never wait
 * on a disk. g_io_lock guards g_ctx (statistics, report window, open files): the writer
 * holds it while it processes a batch, shutdown takes it over at the end. g_init_lock orders
 * init against shutdown. Order: g_init_lock, g_io_lock, g_lock.
 *
 * fork(): the child has only the forking thread, and copies of locks other threads may have
 * held at that instant. The writer, its files and the queue belong to the parent, so the
 * child's sink is closed (its frames are freed and counted as dropped) and its locks are
 * made anew; see sink_atfork_child. */
#include "attr_sink_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attr_stats.h"
#include "pp_summary.h"
#include "pp_clock.h"
#include "pp_cpu_counters.h"
#include "pp_dir.h"
#include "pp_finish_signal.h"
#include "pp_log.h"
#include "pp_thread.h"

enum sink_state { SINK_NONE = 0, SINK_RUNNING, SINK_CLOSED };

/* How long shutdown waits for the writer to finish its batch, then for the I/O lock. At
 * process exit a stuck disk must not hang the application for ever. */
#define SINK_JOIN_TIMEOUT_MS 3000
#define SINK_IO_TIMEOUT_MS 2000

static pthread_mutex_t g_init_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_io_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_wake; /* CLOCK_MONOTONIC, made in pp_attr_sink_init */

/* under g_lock */
static enum sink_state g_state;
static bool g_stop;
static struct pp_frame_result *g_queue[PP_SINK_QUEUE_FRAMES];
static uint32_t g_queue_head, g_queue_count;
static struct pp_cpu_event *g_events; /* ring of PP_SINK_CPU_EVENTS */
static uint32_t g_events_head, g_events_count;
static uint64_t g_frames_dropped, g_events_dropped;

/* set by init, read by shutdown (both under g_init_lock) */
static pthread_t g_thread;
static bool g_thread_started;
static pid_t g_owner_pid;

/* under g_io_lock */
static struct attr_sink_ctx g_ctx;
/* the writer's batch buffers (only the holder of g_io_lock uses them) */
static struct pp_cpu_event *g_batch_events;

/* statistics for tests, updated atomically */
static uint64_t g_frames_processed;
static uint64_t g_report_writes;

/* ---- device registry ------------------------------------------------------------------ */

static pthread_mutex_t g_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct attr_device g_devices[PP_SINK_MAX_DEVICES];
static size_t g_ndevices; /* published with release after the entry is complete */

static bool str_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool device_same(const struct attr_device *d, const struct pp_device_info *info)
{
	const struct pp_device_info *o = &d->info;
	return strncmp(o->name, info->name, sizeof(o->name)) == 0 &&
	       strncmp(o->driver, info->driver, sizeof(o->driver)) == 0 &&
	       o->vendor_id == info->vendor_id && o->device_id == info->device_id &&
	       o->timestamp_period_ns == info->timestamp_period_ns &&
	       o->timestamp_valid_bits == info->timestamp_valid_bits &&
	       o->pipeline_statistics == info->pipeline_statistics &&
	       str_eq(d->time_domain, info->time_domain) && str_eq(o->query_results, info->query_results) &&
	       d->has_notes == (info->notes != NULL) && str_eq(d->notes, info->notes) &&
	       str_eq(o->gpu_time_caveat, info->gpu_time_caveat);
}

uint32_t pp_attr_sink_device_register(const struct pp_device_info *info)
{
	if (!info)
		return 0;
	pthread_mutex_lock(&g_dev_lock);
	uint32_t id;
	size_t n = g_ndevices;
	/* Applications that create and destroy devices over and over register the same device
	 * each time: one entry per distinct description keeps this bounded. */
	for (size_t i = 0; i < n; i++) {
		if (device_same(&g_devices[i], info)) {
			id = g_devices[i].id;
			goto out;
		}
	}
	if (n == PP_SINK_MAX_DEVICES) {
		pp_log_once(PP_LOG_WARN,
			    "more than %d distinct devices: later ones are reported as device %d",
			    PP_SINK_MAX_DEVICES, PP_SINK_MAX_DEVICES - 1);
		id = PP_SINK_MAX_DEVICES - 1;
		goto out;
	}
	struct attr_device *d = &g_devices[n];
	memset(d, 0, sizeof(*d));
	d->id = (uint32_t)n;
	d->info = *info;
	d->info.name[sizeof(d->info.name) - 1] = '\0';
	d->info.driver[sizeof(d->info.driver) - 1] = '\0';
	snprintf(d->time_domain, sizeof(d->time_domain), "%s",
		 info->time_domain ? info->time_domain : "none");
	d->info.time_domain = d->time_domain;
	d->has_notes = info->notes != NULL;
	snprintf(d->notes, sizeof(d->notes), "%s", info->notes ? info->notes : "");
	d->info.notes = d->has_notes ? d->notes : NULL;
	__atomic_store_n(&g_ndevices, n + 1, __ATOMIC_RELEASE);
	id = d->id;
out:
	pthread_mutex_unlock(&g_dev_lock);
	return id;
}

bool pp_attr_sink_running(void)
{
	pthread_mutex_lock(&g_lock);
	bool running = g_state == SINK_RUNNING;
	pthread_mutex_unlock(&g_lock);
	return running;
}

void pp_attr_sink_devices_forget(void)
{
	pthread_mutex_lock(&g_dev_lock);
	__atomic_store_n(&g_ndevices, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&g_dev_lock);
}

size_t pp_attr_sink_devices_snapshot(const struct attr_device **out)
{
	*out = g_devices;
	return __atomic_load_n(&g_ndevices, __ATOMIC_ACQUIRE);
}

/* ---- files ---------------------------------------------------------------------------- */

FILE *pp_attr_sink_file_create(struct attr_sink_ctx *c, const char *name, bool excl, char **buf_out)
{
	if (c->dirfd < 0) {
		errno = EBADF;
		return NULL;
	}
	int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | (excl ? O_EXCL : 0);
	int fd = openat(c->dirfd, name, flags, 0644);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	if (buf_out) {
		/* Without our own buffer stdio keeps its default size (4 KiB): fine, only the
		 * line alignment is lost. */
		*buf_out = malloc(PP_SINK_FILE_BUFFER);
		if (*buf_out)
			setvbuf(f, *buf_out, _IOFBF, PP_SINK_FILE_BUFFER);
	}
	return f;
}

void pp_attr_sink_file_reserve(FILE *f, size_t *buffered, size_t n)
{
	if (*buffered && *buffered + n > PP_SINK_FILE_BUFFER) {
		fflush(f); /* an error stays latched in f for pp_attr_sink_file_flush */
		*buffered = 0;
	}
	*buffered += n;
}

void pp_attr_sink_file_fail(struct attr_sink_ctx *c, const char *name, int err)
{
	pp_log(PP_LOG_ERROR, "cannot write %s/%s: %s; it is no longer written (other outputs and "
	       "the summary carry on)", c->dir, name, strerror(err ? err : EIO));
}

FILE *pp_attr_sink_file_open(struct attr_sink_ctx *c, const char *name, char **buf_out, int *err_out)
{
	FILE *f = pp_attr_sink_file_create(c, name, false, buf_out);
	if (!f) {
		*err_out = errno;
		pp_attr_sink_file_fail(c, name, *err_out);
	}
	return f;
}

bool pp_attr_sink_file_flush(struct attr_sink_ctx *c, FILE *f, const char *name)
{
	errno = 0;
	if (fflush(f) == 0 && !ferror(f))
		return true;
	int err = errno ? errno : EIO;
	pp_attr_sink_file_fail(c, name, err);
	fclose(f);
	return false;
}

double pp_attr_sink_trace_us(const struct attr_sink_ctx *c, uint64_t ns)
{
	int64_t d = (int64_t)(ns - c->trace_origin_ns);
	/* Rounded to whole nanoseconds: the trace format's microseconds with 3 decimals. */
	return (double)d / 1000.0;
}

/* One process writes one output directory: a second one writing the same directory at the
 * same time (a program that starts others with passprobe preloaded too: Weston launching its
 * clients) would replace the first one's files. Each process holds an flock on
 * <dir>/.passprobe.lock while it lives (close-on-exec: a program it execs claims anew). Returns
 * false when another live process holds it; true when this one does, or when the file system
 * has no locks (the directory is then used as before). */
static bool dir_claim(struct attr_sink_ctx *c)
{
	int fd = openat(c->dirfd, ".passprobe.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return true;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		int err = errno;
		close(fd);
		return err != EWOULDBLOCK;
	}
	/* The holder's pid, for a person who finds the file. */
	char pid[24];
	int n = snprintf(pid, sizeof(pid), "%d\n", (int)c->pid);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n)
		pp_log(PP_LOG_DEBUG, "cannot write the pid into '%s/.passprobe.lock'", c->dir);
	c->lockfd = fd;
	return true;
}

/* Where a process writes when another holds its output directory: <dir>/<name>.<pid>, the
 * name made of file-name-safe characters. */
static bool dir_own(struct attr_sink_ctx *c, char *out, size_t len)
{
	char name[64];
	size_t i = 0;
	for (; c->process_name[i] && i + 1 < sizeof(name); i++) {
		char ch = c->process_name[i];
		bool safe = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			    ch == '-' || ch == '_' || (ch == '.' && i > 0);
		name[i] = safe ? ch : '_';
	}
	name[i] = '\0';
	int n = snprintf(out, len, "%s/%s.%d", c->dir, i ? name : "process", (int)c->pid);
	return n > 0 && (size_t)n < len;
}

/* Makes c->dir, opens it as c->dirfd and checks it can be written into; *what names the step
 * that failed. */
static int dir_open(struct attr_sink_ctx *c, char *failed_at, size_t failed_len, const char **what)
{
	*what = "cannot create";
	int ret = pp_dir_make(c->dir, failed_at, failed_len);
	if (ret == 0) {
		*what = "cannot open";
		c->dirfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (c->dirfd < 0)
			ret = -errno;
	}
	if (ret == 0) {
		/* Catches a read-only file system or missing permission now, with one message,
		 * instead of one per file later. (root passes permission checks, not EROFS.) */
		*what = "cannot write into";
		if (faccessat(c->dirfd, ".", W_OK, AT_EACCESS) != 0)
			ret = -errno;
	}
	return ret;
}

int pp_attr_sink_outputs_open(struct attr_sink_ctx *c)
{
	char failed_at[PATH_MAX] = "";
	const char *what;
	int ret = dir_open(c, failed_at, sizeof(failed_at), &what);
	char own[PATH_MAX];
	if (ret == 0 && !dir_claim(c) && dir_own(c, own, sizeof(own))) {
		pp_log(PP_LOG_WARN, "output directory '%s' is being written by another process; this one "
		       "(%s, pid %d) writes into '%s'", c->dir, c->process_name, (int)c->pid, own);
		close(c->dirfd);
		c->dirfd = -1;
		memcpy(c->dir, own, sizeof(c->dir));
		ret = dir_open(c, failed_at, sizeof(failed_at), &what);
		if (ret == 0)
			dir_claim(c);
	}
	if (ret != 0) {
		char at[PATH_MAX + 16] = "";
		if (failed_at[0] && strcmp(failed_at, c->dir) != 0)
			snprintf(at, sizeof(at), " '%s'", failed_at);
		pp_log(PP_LOG_ERROR, "output directory '%s': %s%s: %s; no report.json, trace.json or "
		       "passes.csv will be written (the summary still goes to stderr at exit)",
		       c->dir, what, at, strerror(-ret));
		if (c->dirfd >= 0)
			close(c->dirfd);
		c->dirfd = -1;
		return ret;
	}
	/* In the application's process, the recording; made from one, the text outputs (opened
	 * by attr_replay.c). */
	return c->offline ? 0 : pp_attr_recording_open(c);
}

static void process_name_read(char *buf, size_t len)
{
	snprintf(buf, len, "%s", program_invocation_short_name);
	int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0) {
		snprintf(buf, len, "%s", program_invocation_short_name);
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* ---- the writer ----------------------------------------------------------------------- */

void pp_attr_sink_frame_process(struct attr_sink_ctx *c, struct pp_frame_result *f)
{
	/* The passes' CPU spans become costs, and the timestamps and statistics counter values,
	 * where text is made of them: by passprobe report, and in the process only for
	 * report.json's frames (the statistics and the recording take them as measured). */
	if (c->offline) {
		pp_attr_cpu_frame_result_resolve(f);
		pp_model_frame_result_counters_resolve(f);
	}
	c->frames_total++;
	/* A frame passprobe changed for the experiment measures the fix, not the program. */
	if (!pp_attr_experiment_frame(c, f))
		pp_attr_stats_frame_add(c->stats, f);
	pp_attr_capture_frame(c, f);
	bool recorded = pp_attr_recording_frame(c, f);
	if (c->text)
		c->text->frame(c, f);
	c->report_dirty = true;
	pp_attr_report_window_push(c, f, recorded); /* takes f */
	__atomic_fetch_add(&g_frames_processed, 1, __ATOMIC_RELAXED);
}

void pp_attr_sink_cpu_event_process(struct attr_sink_ctx *c, const struct pp_cpu_event *ev)
{
	pp_attr_recording_cpu_event(c, ev);
	if (c->text)
		c->text->cpu_event(c, ev);
}

static void batch_process(struct attr_sink_ctx *c, struct pp_frame_result **frames, uint32_t nframes,
			  const struct pp_cpu_event *events, uint32_t nevents)
{
	for (uint32_t i = 0; i < nevents; i++)
		pp_attr_sink_cpu_event_process(c, &events[i]);
	for (uint32_t i = 0; i < nframes; i++)
		pp_attr_sink_frame_process(c, frames[i]);
}

/* Under g_lock: moves the queue's frames and events into the batch buffers. */
static void batch_take(struct pp_frame_result **frames, uint32_t *nframes,
		       struct pp_cpu_event *events, uint32_t *nevents)
{
	for (uint32_t i = 0; i < g_queue_count; i++)
		frames[i] = g_queue[(g_queue_head + i) % PP_SINK_QUEUE_FRAMES];
	*nframes = g_queue_count;
	g_queue_head = 0;
	g_queue_count = 0;
	uint32_t n = 0;
	if (events && g_events) {
		for (; n < g_events_count; n++)
			events[n] = g_events[(g_events_head + n) % PP_SINK_CPU_EVENTS];
	}
	*nevents = n;
	g_events_head = 0;
	g_events_count = 0;
}

static void dropped_get(uint64_t *frames, uint64_t *events)
{
	pthread_mutex_lock(&g_lock);
	*frames = g_frames_dropped;
	*events = g_events_dropped;
	pthread_mutex_unlock(&g_lock);
}

static void report_write_now(struct attr_sink_ctx *c, uint64_t frames_dropped, uint64_t events_dropped)
{
	pp_attr_report_write(c, frames_dropped, events_dropped);
	c->report_dirty = false;
	__atomic_store_n(&g_report_writes, c->report_writes, __ATOMIC_RELAXED);
}

static void timespec_at(struct timespec *ts, clockid_t clock, uint64_t in_ms)
{
	clock_gettime(clock, ts);
	ts->tv_sec += (time_t)(in_ms / 1000);
	ts->tv_nsec += (long)(in_ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

/* The writer wakes for a batch of frames, not for each: a wake-up per frame is a futex call
 * on the application's thread and a thread that wants a core right when a frame ends, which
 * on a machine with few cores is when the application and the driver want them. It wakes
 * when SINK_WAKE_FRAMES frames (or half the CPU-event ring) are queued, when a queued frame
 * has waited SINK_WAKE_MS, when report.json is due, and from idle for the first frame. A
 * wake-up costs the writer about 70 us in the kernel (docs/performance.md, "The writer
 * thread"): 32 frames, not 8, for programs fast enough to fill a batch within SINK_WAKE_MS. */
#define SINK_WAKE_FRAMES 32
#define SINK_WAKE_MS 100
_Static_assert(4 * SINK_WAKE_FRAMES <= PP_SINK_QUEUE_FRAMES, "the queue holds four batches");
static bool g_writer_idle; /* under g_lock: waiting with nothing queued and nothing pending */

static bool batch_ready(void)
{
	return g_queue_count >= SINK_WAKE_FRAMES || g_events_count >= PP_SINK_CPU_EVENTS / 2;
}

static void *writer_main(void *arg)
{
	struct pp_frame_result *frames[PP_SINK_QUEUE_FRAMES];
	uint32_t nframes, nevents;
	uint64_t interval_ns = (uint64_t)g_ctx.settings.flush_interval_ms * 1000000ull;
	/* The recording's state (counts, diagnostics, summary) is written with the first frames,
	 * then every interval: a process ended by a signal or killed leaves a recording that says
	 * all but its last interval, however short it lived. */
	uint64_t last_state = 0; /* 0: none written yet */
	bool pending = false; /* frames arrived since the last state was written */

	(void)arg;
	pthread_mutex_lock(&g_lock);
	for (;;) {
		while (!g_stop && !batch_ready()) {
			bool queued = g_queue_count || g_events_count;
			if (!queued && !pending) {
				g_writer_idle = true;
				pthread_cond_wait(&g_wake, &g_lock);
				g_writer_idle = false;
				continue;
			}
			uint64_t wait_ms = SINK_WAKE_MS, now = pp_clock_now_ns();
			if (pending) {
				uint64_t due = last_state ? last_state + interval_ns : now;
				if (now >= due)
					break;
				if ((due - now + 999999) / 1000000 < wait_ms)
					wait_ms = (due - now + 999999) / 1000000;
			}
			struct timespec ts;
			timespec_at(&ts, CLOCK_MONOTONIC, wait_ms);
			/* What has waited SINK_WAKE_MS is written, batch or not. */
			if (pthread_cond_timedwait(&g_wake, &g_lock, &ts) == ETIMEDOUT && (g_queue_count || g_events_count))
				break;
		}
		if (g_stop)
			break;
		batch_take(frames, &nframes, g_batch_events, &nevents);
		pthread_mutex_unlock(&g_lock);

		pthread_mutex_lock(&g_io_lock);
		if (g_ctx.closed) {
			/* Shutdown gave up waiting for us and took over; the frames are ours to free. */
			pthread_mutex_unlock(&g_io_lock);
			for (uint32_t i = 0; i < nframes; i++)
				pp_model_frame_result_free(frames[i]);
			return NULL;
		}
		batch_process(&g_ctx, frames, nframes, g_batch_events, nevents);
		pending = pending || nframes > 0;
		uint64_t now = pp_clock_now_ns();
		uint64_t fd, ed;
		dropped_get(&fd, &ed);
		if (pending && (!last_state || now >= last_state + interval_ns)) {
			pp_attr_recording_periodic(&g_ctx, fd, ed);
			pending = false;
			last_state = now;
		} else {
			pp_attr_recording_flush(&g_ctx);
		}
		pthread_mutex_unlock(&g_io_lock);
		pthread_mutex_lock(&g_lock);
	}
	pthread_mutex_unlock(&g_lock);
	return NULL;
}

/* ---- fork ----------------------------------------------------------------------------- */

/* g_lock and g_dev_lock are held across fork() so that the queue and the device table are
 * whole in the child; both are held only for pointer moves and copies, so fork() waits
 * for no I/O. g_init_lock and g_io_lock can be held for seconds (shutdown joining the
 * writer, the writer writing) and are not taken: no thread of the child holds them, and the
 * child uses nothing they guard, so they are made anew there. */
static void sink_atfork_prepare(void)
{
	pthread_mutex_lock(&g_dev_lock);
	pthread_mutex_lock(&g_lock);
}

static void sink_atfork_parent(void)
{
	pthread_mutex_unlock(&g_lock);
	pthread_mutex_unlock(&g_dev_lock);
}

static void sink_atfork_child(void)
{
	/* The parent's queued frames stay where they are, reachable and untouched: freeing them
	 * here would call free() in a child whose allocator may not be fork-safe (ASan's). */
	if (g_state == SINK_RUNNING)
		g_state = SINK_CLOSED;
	g_thread_started = false;
	g_writer_idle = false;
	pthread_mutex_init(&g_init_lock, NULL);
	pthread_mutex_init(&g_io_lock, NULL);
	pthread_mutex_init(&g_lock, NULL);
	pthread_mutex_init(&g_dev_lock, NULL);
}

static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

static void sink_atfork_register(void)
{
	if (pthread_atfork(sink_atfork_prepare, sink_atfork_parent, sink_atfork_child) != 0)
		pp_log(PP_LOG_WARN, "cannot register fork handlers: a child forked while the output "
		       "writer works may hang at exit");
}

/* ---- public entry points -------------------------------------------------------------- */

static void ctx_free(struct attr_sink_ctx *c)
{
	pp_attr_report_window_free(c);
	pp_attr_renderdoc_free(c);
	pp_attr_experiment_free(c);
	pp_attr_stats_destroy(c->stats);
	c->stats = NULL;
	if (c->dirfd >= 0)
		close(c->dirfd);
	c->dirfd = -1;
	if (c->lockfd >= 0)
		close(c->lockfd);
	c->lockfd = -1;
}

int pp_attr_sink_init(const struct pp_settings *settings)
{
	int ret = 0;
	if (!settings)
		return -EINVAL;
	pthread_once(&g_atfork_once, sink_atfork_register);
	pthread_mutex_lock(&g_init_lock);
	pthread_mutex_lock(&g_lock);
	enum sink_state state = g_state;
	pthread_mutex_unlock(&g_lock);
	if (state != SINK_NONE)
		goto out;

	pthread_mutex_lock(&g_io_lock);
	struct attr_sink_ctx *c = &g_ctx;
	memset(c, 0, sizeof(*c));
	c->settings = *settings;
	c->settings.output_dir[sizeof(c->settings.output_dir) - 1] = '\0';
	if (c->settings.report_frames == 0)
		c->settings.report_frames = 1;
	if (c->settings.report_frames > 100000) /* the settings' own limit */
		c->settings.report_frames = 100000;
	if (c->settings.flush_interval_ms == 0)
		c->settings.flush_interval_ms = 1000;
	_Static_assert(sizeof(c->dir) == sizeof(c->settings.output_dir), "dir holds output_dir");
	memcpy(c->dir, c->settings.output_dir, sizeof(c->dir));
	c->dirfd = -1;
	c->lockfd = -1;
	c->rec_fd = -1;
	c->pid = getpid();
	process_name_read(c->process_name, sizeof(c->process_name));
	c->trace_origin_ns = pp_clock_now_ns();
	c->stats = pp_attr_stats_create(0);
	pp_attr_stats_layer_passes_set(c->stats, c->settings.layer_passes);
	c->window = calloc(c->settings.report_frames, sizeof(*c->window));
	g_events = calloc(PP_SINK_CPU_EVENTS, sizeof(*g_events));
	g_batch_events = calloc(PP_SINK_CPU_EVENTS, sizeof(*g_batch_events));
	if (!c->stats || !c->window || !g_events || !g_batch_events) {
		pp_log(PP_LOG_ERROR, "out of memory starting the output writer; no outputs");
		pp_attr_stats_destroy(c->stats);
		c->stats = NULL;
		free(c->window);
		c->window = NULL;
		free(g_events);
		free(g_batch_events);
		g_events = g_batch_events = NULL;
		pthread_mutex_unlock(&g_io_lock);
		ret = -ENOMEM;
		goto out;
	}
	c->window_cap = c->settings.report_frames;
	c->limit_bytes = (uint64_t)c->settings.output_limit_mb << 20;
	ret = pp_attr_sink_outputs_open(c);
	pthread_mutex_unlock(&g_io_lock);

	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g_wake, &ca);
	pthread_condattr_destroy(&ca);
	g_owner_pid = getpid();

	pthread_mutex_lock(&g_lock);
	g_state = SINK_RUNNING;
	g_stop = false;
	pthread_mutex_unlock(&g_lock);

	/* The writer must never run the application's signal handlers. */
	sigset_t old;
	pp_finish_signal_block_all(&old);
	int err = pthread_create(&g_thread, NULL, writer_main, NULL);
	pp_finish_signal_restore(&old);
	if (err != 0) {
		/* Frames still queue (and drop past the queue's size); shutdown writes them. */
		pp_log(PP_LOG_ERROR, "cannot start the output writer thread: %s; outputs are written "
		       "only at exit", strerror(err));
		ret = ret ? ret : -err;
	} else {
		g_thread_started = true;
		pthread_setname_np(g_thread, "passprobe-out");
	}
	if (settings->finish_on_signal) {
		int n = pp_finish_signal_install(pp_attr_sink_shutdown);
		if (n < 0)
			pp_log(PP_LOG_WARN, "finish_on_signal: cannot install the SIGINT/SIGTERM handler: %s; a "
			       "program ended by either keeps what was written before", strerror(-n));
		else if (n < 2)
			pp_log(PP_LOG_INFO, "finish_on_signal: the application handles or ignores %s itself; "
			       "passprobe leaves %s alone", n ? "SIGINT or SIGTERM" : "SIGINT and SIGTERM",
			       n ? "that one" : "both");
	}
out:
	pthread_mutex_unlock(&g_init_lock);
	return ret;
}

void pp_attr_sink_frame_submit(struct pp_frame_result *frame)
{
	if (!frame)
		return;
	pthread_mutex_lock(&g_lock);
	if (g_state == SINK_RUNNING && g_queue_count < PP_SINK_QUEUE_FRAMES) {
		g_queue[(g_queue_head + g_queue_count) % PP_SINK_QUEUE_FRAMES] = frame;
		g_queue_count++;
		if (g_writer_idle || g_queue_count == SINK_WAKE_FRAMES)
			pthread_cond_signal(&g_wake);
		frame = NULL;
	} else {
		g_frames_dropped++;
	}
	pthread_mutex_unlock(&g_lock);
	/* Freed outside the lock: the frame was never handed over. */
	pp_model_frame_result_free(frame);
}

static const char *const no_counter_names[1];
const char *const *pp_attr_sink_cpu_counter_names = no_counter_names;
unsigned pp_attr_sink_cpu_counter_count;

void pp_attr_sink_cpu_counters_set(const char *const *names, unsigned n)
{
	/* Set once at start-up, before the first frame; the writer only reads it. */
	pp_attr_sink_cpu_counter_names = names;
	pp_attr_sink_cpu_counter_count = n > PP_CPU_COUNTERS_MAX ? PP_CPU_COUNTERS_MAX : n;
}

void pp_attr_sink_cpu_counters_configure(const char *spec)
{
	static const char *names[PP_CPU_COUNTERS_MAX];
	char err[512];
	if (pp_cpu_counters_snapshot_configure(spec && spec[0] ? spec : "default", err, sizeof(err)) < 0) {
		pp_log(PP_LOG_WARN, "cpu_counters: %s; using the default events", err);
		pp_cpu_counters_snapshot_configure("default", NULL, 0);
	}
	unsigned n = pp_cpu_counters_snapshot_event_count();
	if (n > PP_CPU_COUNTERS_MAX)
		n = PP_CPU_COUNTERS_MAX;
	for (unsigned i = 0; i < n; i++)
		names[i] = pp_cpu_counters_snapshot_event_name(i);
	pp_attr_sink_cpu_counters_set(names, n);
}

void pp_attr_sink_cpu_event(const struct pp_cpu_event *ev)
{
	if (!ev)
		return;
	pthread_mutex_lock(&g_lock);
	if (g_state == SINK_RUNNING && g_events && g_events_count < PP_SINK_CPU_EVENTS) {
		g_events[(g_events_head + g_events_count) % PP_SINK_CPU_EVENTS] = *ev;
		g_events_count++;
		/* No wake-up: CPU events ride along with the next frame or report deadline. */
		if (g_events_count == PP_SINK_CPU_EVENTS / 2)
			pthread_cond_signal(&g_wake);
	} else {
		g_events_dropped++;
	}
	pthread_mutex_unlock(&g_lock);
}

/* The diagnostics so far in the summary: sites per severity, the costliest warnings, the
 * experiment's lines (from the process's diagnostics, or from the recording's last diagnostics
 * record when passprobe makes the outputs). */
static void summary_diagnostics(struct attr_sink_ctx *c, struct pp_summary *sum)
{
	struct pp_diagnostic *d;
	size_t n;
	uint64_t other;
	pp_attr_sink_diagnostics_snapshot(c, &d, &n, &other);
	for (size_t i = 0; d && i < n; i++)
		pp_summary_diagnostic_add(sum, d[i].id, d[i].severity, d[i].site, d[i].cost_valid ? (double)d[i].cost_ns : NAN,
					  d[i].count, d[i].frames);
	if (d)
		pp_attr_experiment_summary(d, n, sum->experiment, sizeof(sum->experiment));
	free(d);
	if (other)
		pp_summary_diagnostic_add(sum, "PASSPROBE-Other", "info", "", NAN, other, 0);
}

/* The summary the process kept over every frame, read from its recording: the rows and the
 * frame line as it made them (its notes are made again below, from the same state). */
static void summary_copy(const struct pp_summary *from, struct pp_summary *to)
{
	pp_summary_init(to);
	to->frames = from->frames;
	to->frames_gpu_timed = from->frames_gpu_timed;
	to->frame_gpu_mean_ns = from->frame_gpu_mean_ns;
	to->frame_gpu_p50_ns = from->frame_gpu_p50_ns;
	to->frame_gpu_p95_ns = from->frame_gpu_p95_ns;
	to->rows = malloc((from->nrows ? from->nrows : 1) * sizeof(*to->rows));
	if (to->rows) {
		memcpy(to->rows, from->rows, from->nrows * sizeof(*to->rows));
		to->nrows = from->nrows;
	}
}

void pp_attr_sink_summary_build(struct attr_sink_ctx *c, uint64_t frames_dropped, struct pp_summary *out)
{
	struct pp_summary sum;
	if (c->offline_summary)
		summary_copy(c->offline_summary, &sum);
	else
		pp_attr_stats_summary_make(c->stats, &sum);
	if (c->offline_summary || c->offline_notes[0]) {
		size_t len = strnlen(sum.notes, sizeof(sum.notes));
		snprintf(sum.notes + len, sizeof(sum.notes) - len, "%s%s%s", len ? "; " : "", c->offline_notes,
			 c->offline_summary ? (c->offline_notes[0] ? "; the summary is the process's own, over every frame"
								   : "the summary is the process's own, over every frame")
					    : "");
	}
	const struct attr_device *devs;
	size_t ndev = pp_attr_sink_devices_snapshot(&devs);
	/* Whole names while they fit, then how many more: never a name cut short (a program with
	 * several GLES contexts has a device each). */
	const size_t cap = sizeof(sum.device) - 1, more_room = sizeof("; and 99 more devices") - 1;
	size_t used = 0, shown = 0;
	for (; shown < ndev; shown++) {
		const char *name = devs[shown].info.name;
		size_t need = (shown ? 2 : 0) + strnlen(name, sizeof(devs[shown].info.name));
		size_t reserve = shown + 1 < ndev ? more_room : 0;
		if (shown && used + need + reserve > cap)
			break;
		snprintf(sum.device + used, cap + 1 - used, "%s%s", shown ? "; " : "", name);
		used = strnlen(sum.device, cap + 1);
	}
	if (shown < ndev) {
		char more[32];
		int n = snprintf(more, sizeof(more), "; and %zu more device%s", ndev - shown,
				 ndev - shown == 1 ? "" : "s");
		if (n > 0 && used + (size_t)n <= cap)
			memcpy(sum.device + used, more, (size_t)n + 1);
	}
	pp_attr_capture_summary_notes(c, sum.notes, sizeof(sum.notes));
	if (c->exp_frames_fixed) {
		size_t len = strnlen(sum.notes, sizeof(sum.notes));
		snprintf(sum.notes + len, sizeof(sum.notes) - len,
			 "%s%llu frames with passprobe's experiment fixes left out of these statistics", len ? "; " : "",
			 (unsigned long long)c->exp_frames_fixed);
	}
	/* A driver whose GPU times are not durations (llvmpipe's per-tile timestamps) says so
	 * next to the numbers, once per distinct caveat; not where there are no numbers. */
	for (size_t i = 0; i < ndev && sum.frames_gpu_timed; i++) {
		const char *caveat = devs[i].info.gpu_time_caveat;
		bool seen = !caveat;
		for (size_t j = 0; j < i && !seen; j++)
			seen = str_eq(devs[j].info.gpu_time_caveat, caveat);
		if (!seen) {
			size_t len = strnlen(sum.notes, sizeof(sum.notes));
			snprintf(sum.notes + len, sizeof(sum.notes) - len, "%s%s", len ? "; " : "", caveat);
		}
	}
	if (frames_dropped) {
		size_t len = strnlen(sum.notes, sizeof(sum.notes));
		snprintf(sum.notes + len, sizeof(sum.notes) - len,
			 "%s%llu frames dropped (the output writer fell behind)", len ? "; " : "",
			 (unsigned long long)frames_dropped);
	}
	summary_diagnostics(c, &sum);
	*out = sum;
}

static void summary_print(struct attr_sink_ctx *c, uint64_t frames_dropped)
{
	struct pp_summary sum;
	pp_attr_sink_summary_build(c, frames_dropped, &sum);
	pp_summary_print(stderr, &sum, PP_SINK_SUMMARY_ROWS);
	pp_summary_free(&sum);
	pp_attr_renderdoc_summary_print(stderr);
}

void pp_attr_sink_shutdown(void)
{
	struct pp_frame_result *frames[PP_SINK_QUEUE_FRAMES];
	uint32_t nframes, nevents;

	pthread_mutex_lock(&g_init_lock);
	pthread_mutex_lock(&g_lock);
	if (g_state != SINK_RUNNING || getpid() != g_owner_pid) {
		/* Never started, already shut down, or a forked child: the writer thread and the
		 * files belong to the parent. */
		pthread_mutex_unlock(&g_lock);
		pthread_mutex_unlock(&g_init_lock);
		return;
	}
	g_stop = true;
	pthread_cond_broadcast(&g_wake);
	pthread_mutex_unlock(&g_lock);

	bool joined = !g_thread_started;
	if (g_thread_started) {
		struct timespec ts;
		timespec_at(&ts, CLOCK_REALTIME, SINK_JOIN_TIMEOUT_MS);
		joined = pthread_timedjoin_np(g_thread, NULL, &ts) == 0;
		if (!joined) {
			pp_log(PP_LOG_WARN, "the output writer did not stop within %d ms; finishing the "
			       "outputs without it", SINK_JOIN_TIMEOUT_MS);
			pthread_detach(g_thread);
		}
		g_thread_started = false;
	}

	struct timespec ts;
	timespec_at(&ts, CLOCK_REALTIME, SINK_IO_TIMEOUT_MS);
	if (pthread_mutex_timedlock(&g_io_lock, &ts) != 0) {
		pp_log(PP_LOG_ERROR, "the output writer is stuck writing to '%s'; final outputs and "
		       "the summary are skipped", g_ctx.dir);
		pthread_mutex_lock(&g_lock);
		g_state = SINK_CLOSED;
		pthread_mutex_unlock(&g_lock);
		pthread_mutex_unlock(&g_init_lock);
		return;
	}
	struct attr_sink_ctx *c = &g_ctx;
	pthread_mutex_lock(&g_lock);
	g_state = SINK_CLOSED; /* from here on submitted frames are freed at once */
	batch_take(frames, &nframes, g_batch_events, &nevents);
	uint64_t frames_dropped = g_frames_dropped, events_dropped = g_events_dropped;
	free(g_events);
	g_events = NULL;
	pthread_mutex_unlock(&g_lock);

	batch_process(c, frames, nframes, g_batch_events, nevents);
	pp_attr_recording_close(c, frames_dropped, events_dropped);
	/* The counts the recording ends with: a frame the application submits from here on comes
	 * after the outputs' end (freed, counted by pp_attr_sink_counters_get only), in
	 * report.json as in the one `passprobe report` makes from the recording. */
	if (c->dirfd >= 0 && !c->report_failed)
		report_write_now(c, frames_dropped, events_dropped);
	if (c->dirfd >= 0)
		fsync(c->dirfd); /* the rename of report.json */
	if (c->settings.summary)
		summary_print(c, frames_dropped);
	c->closed = true;
	ctx_free(c);
	free(g_batch_events);
	g_batch_events = NULL;
	pthread_mutex_unlock(&g_io_lock);
	pthread_mutex_unlock(&g_init_lock);
}

/* ---- diagnostics ---------------------------------------------------------------------- */

static pp_sink_diagnostics_fn g_diag_source;

void pp_attr_sink_diagnostics_source_set(pp_sink_diagnostics_fn fn)
{
	__atomic_store_n(&g_diag_source, fn, __ATOMIC_RELEASE);
}

pp_sink_diagnostics_fn pp_attr_sink_diagnostics_source(void)
{
	return __atomic_load_n(&g_diag_source, __ATOMIC_ACQUIRE);
}

bool pp_attr_sink_diagnostics_snapshot(struct attr_sink_ctx *c, struct pp_diagnostic **out, size_t *n, uint64_t *other)
{
	pp_sink_diagnostics_fn source = pp_attr_sink_diagnostics_source();
	*out = NULL;
	*n = 0;
	*other = 0;
	if (!source)
		return false;
	size_t want = source(NULL, 0, other);
	struct pp_diagnostic *d = want ? malloc(want * sizeof(*d)) : NULL;
	if (d) {
		*n = source(d, want, other);
		*out = d;
		pp_attr_experiment_fill(c, d, *n);
	}
	return true;
}

void pp_attr_sink_diagnostic(const char *name, uint32_t tid, uint64_t ns)
{
	const struct pp_cpu_event ev = { .name = name, .category = "diagnostic", .tid = tid, .begin_ns = ns, .end_ns = ns };
	pp_attr_sink_cpu_event(&ev);
}

uint32_t pp_attr_sink_device_find(const char *name, uint32_t vendor_id, uint32_t device_id)
{
	const struct attr_device *devs;
	size_t n = pp_attr_sink_devices_snapshot(&devs);
	for (size_t i = 0; i < n; i++)
		if (devs[i].info.vendor_id == vendor_id && devs[i].info.device_id == device_id &&
		    strncmp(devs[i].info.name, name, sizeof(devs[i].info.name)) == 0)
			return devs[i].id;
	return 0;
}

void pp_attr_sink_counters_get(struct attr_sink_counters *out)
{
	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&g_lock);
	out->frames_dropped = g_frames_dropped;
	out->events_dropped = g_events_dropped;
	out->queued = g_queue_count;
	pthread_mutex_unlock(&g_lock);
	out->frames_processed = __atomic_load_n(&g_frames_processed, __ATOMIC_RELAXED);
	out->report_writes = __atomic_load_n(&g_report_writes, __ATOMIC_RELAXED);
}
