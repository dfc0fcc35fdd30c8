/* Capture triggers (pp_capture.h): a signal handler and a trigger file, both reduced to
 * counters that the frame clocks read at frame boundaries.
 *
 * The signal: installed only where the process has no handler of its own. Chaining to an
 * application's handler would hand it signals meant for passprobe (and runtimes use SIGUSR2
 * for their own ends, e.g. garbage collectors stopping threads), and every one of theirs
 * would toggle capturing: with a handler in place, passprobe leaves the signal alone. An
 * application that installs a handler after passprobe simply replaces ours. SA_RESTART keeps
 * the application's interrupted system calls going as if nothing happened.
 *
 * The Vulkan layer and the GLES shim each have a copy of this file, and a program may load
 * both (GL and Vulkan in one process, or a GL driver over Vulkan). Whichever installs second
 * finds the other's handler in place: that one is not the application's, so the second
 * chains to it (counts, then calls it) and one signal toggles both libraries' windows. Both
 * libraries are linked -z nodelete, so the chained handler's code stays mapped. */
#include "pp_capture.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pp_log.h"
#include "pp_module.h"

static uint64_t g_signals;
static pthread_once_t g_signal_once = PTHREAD_ONCE_INIT;
static int g_signal_result;

/* The other passprobe library's handler, when it installed first (set before ours is). */
static void (*g_chained)(int);

static void capture_on_signal(int sig)
{
	__atomic_fetch_add(&g_signals, 1, __ATOMIC_RELAXED);
	void (*next)(int) = __atomic_load_n(&g_chained, __ATOMIC_ACQUIRE);
	if (next)
		next(sig);
}

static void capture_signal_install_once(void)
{
	struct sigaction old, sa;

	if (sigaction(PP_CAPTURE_SIGNAL, NULL, &old) != 0) {
		g_signal_result = -errno;
		return;
	}
	enum pp_handler_owner owner = pp_module_handler_owner(&old, (void *)capture_on_signal);
	if (owner != PP_HANDLER_APPLICATION) {
		if (owner == PP_HANDLER_OTHER_PASSPROBE)
			__atomic_store_n(&g_chained, old.sa_handler, __ATOMIC_RELEASE);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = capture_on_signal;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		g_signal_result = sigaction(PP_CAPTURE_SIGNAL, &sa, NULL) == 0 ? 0 : -errno;
	} else {
		g_signal_result = -EBUSY;
	}
}

int pp_capture_signal_install(void)
{
	pthread_once(&g_signal_once, capture_signal_install_once);
	return g_signal_result;
}

uint64_t pp_capture_signal_count(void)
{
	return __atomic_load_n(&g_signals, __ATOMIC_RELAXED);
}

/* The trigger file: looked at by one thread at a time, so a file is counted once. A stat of a
 * missing file costs about 1 us (docs/performance.md): once per frame, whatever the rate.
 *
 * With both passprobe libraries in one process, the one that finds the file removes it, so
 * the other would never see it: the finder tells the others (peers_tell below). A file both
 * found at the same moment (each looked before either removed it) is told about by both and
 * counted once: by its identity (device, inode, modification time). */
struct file_id {
	uint64_t dev, ino;
	int64_t mtime_s, mtime_ns;
};

static uint64_t g_triggers;
static pthread_mutex_t g_trigger_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_watched[PATH_MAX]; /* the path this library looks at, once it has looked */
static struct file_id g_counted; /* the last file counted, found here or told by a peer */
static bool g_have_counted;
static bool g_stuck; /* g_counted was found here and could not be removed */

static struct file_id file_id_of(const struct stat *st)
{
	return (struct file_id){ (uint64_t)st->st_dev, (uint64_t)st->st_ino, (int64_t)st->st_mtim.tv_sec,
				 (int64_t)st->st_mtim.tv_nsec };
}

static bool is_counted_locked(const struct file_id *id)
{
	return g_have_counted && !memcmp(id, &g_counted, sizeof(*id));
}

static void count_locked(const struct file_id *id, bool stuck)
{
	g_counted = *id;
	g_have_counted = true;
	g_stuck = stuck;
	g_triggers++;
}

/* The entry point a peer calls (found with dlsym by this name, the one name of passprobe's
 * own that its libraries export): the file `path` with this identity was found and removed.
 * Counted only if this library looks at the same path. */
__attribute__((visibility("default"))) void passprobe_capture_trigger_found(const char *path, uint64_t dev,
									     uint64_t ino, int64_t mtime_s,
									     int64_t mtime_ns)
{
	const struct file_id id = { dev, ino, mtime_s, mtime_ns };
	if (!path)
		return;
	pthread_mutex_lock(&g_trigger_lock);
	/* The same file found here too (both looked before either removed it) is not counted twice. */
	if (g_watched[0] && !strcmp(path, g_watched) && !is_counted_locked(&id))
		count_locked(&id, false);
	pthread_mutex_unlock(&g_trigger_lock);
}

/* The other passprobe libraries loaded: their file names (at most a few: the layer, the shim). */
struct peers {
	char name[4][PATH_MAX];
	unsigned n;
	uintptr_t self;
};

static int peer_of(struct dl_phdr_info *info, size_t size, void *data)
{
	struct peers *p = data;
	(void)size;
	const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	base = base ? base + 1 : info->dlpi_name;
	if (base && strstr(base, "passprobe") && info->dlpi_addr != p->self && p->n < 4 &&
	    strlen(info->dlpi_name) < sizeof(p->name[0]))
		strcpy(p->name[p->n++], info->dlpi_name);
	return 0;
}

/* Tells every other passprobe library that the file was found. Outside g_trigger_lock: a peer
 * telling this library at the same time takes it. Names are collected first and opened after
 * the walk (dlopen inside dl_iterate_phdr's callback is not allowed); RTLD_NOLOAD only finds a
 * library already loaded and loads nothing. */
static void peers_tell(const char *path, const struct file_id *id)
{
	Dl_info ours;
	if (!dladdr((void *)passprobe_capture_trigger_found, &ours))
		return;
	struct peers *p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->self = (uintptr_t)ours.dli_fbase;
	dl_iterate_phdr(peer_of, p);
	for (unsigned i = 0; i < p->n; i++) {
		void *h = dlopen(p->name[i], RTLD_LAZY | RTLD_NOLOAD);
		if (!h)
			continue;
		void (*found)(const char *, uint64_t, uint64_t, int64_t, int64_t) =
			(void (*)(const char *, uint64_t, uint64_t, int64_t, int64_t))dlsym(
				h, "passprobe_capture_trigger_found");
		if (found && found != passprobe_capture_trigger_found)
			found(path, id->dev, id->ino, id->mtime_s, id->mtime_ns);
		dlclose(h);
	}
	free(p);
}

uint64_t pp_capture_trigger_count(const char *path)
{
	struct stat st;
	struct file_id id;
	bool found = false;

	if (!path || !path[0])
		return 0;
	pthread_mutex_lock(&g_trigger_lock);
	if (strcmp(path, g_watched) != 0 && strlen(path) < sizeof(g_watched))
		strcpy(g_watched, path);
	/* A file found here and removed is gone: one found again is a new one, even where the
	 * file system gave it the same inode and time. Only one that could not be removed is
	 * skipped until it changes. */
	if (stat(path, &st) == 0) {
		id = file_id_of(&st);
		found = !(g_stuck && is_counted_locked(&id));
	}
	if (found) {
		/* ENOENT: a peer found it at the same moment and removed it (and tells us, and
		 * that telling is not counted again). */
		int err = unlink(path) == 0 ? 0 : errno;
		count_locked(&id, err && err != ENOENT);
		if (err && err != ENOENT) {
			char ebuf[128];
			pp_log_once(PP_LOG_WARN, "trigger_file '%s': cannot remove it after it started a capture "
				    "window (%s); touch it to start another", path, strerror_r(err, ebuf, sizeof(ebuf)));
		}
	}
	uint64_t n = g_triggers;
	pthread_mutex_unlock(&g_trigger_lock);
	if (found)
		peers_tell(path, &id);
	return n;
}
