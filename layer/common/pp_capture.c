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
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pp_log.h"

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

/* Whether `handler` lies in another passprobe library (by its file name: libVkLayer_passprobe.so,
 * libpassprobe_gles.so). The handler is static, so its name is not in any symbol table. */
static bool handler_is_other_passprobe(void (*handler)(int))
{
	Dl_info theirs, ours;
	if (!dladdr((void *)handler, &theirs) || !theirs.dli_fname || !dladdr((void *)capture_on_signal, &ours) ||
	    theirs.dli_fbase == ours.dli_fbase)
		return false;
	const char *base = strrchr(theirs.dli_fname, '/');
	return strstr(base ? base + 1 : theirs.dli_fname, "passprobe") != NULL;
}

static void capture_signal_install_once(void)
{
	struct sigaction old, sa;

	if (sigaction(PP_CAPTURE_SIGNAL, NULL, &old) != 0) {
		g_signal_result = -errno;
		return;
	}
	bool ours = !(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN &&
		    handler_is_other_passprobe(old.sa_handler);
	if (!(old.sa_flags & SA_SIGINFO) && (old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN || ours)) {
		if (ours)
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
 * missing file costs about 1 us (docs/performance.md): once per frame, whatever the rate. */
static uint64_t g_triggers;
static pthread_mutex_t g_trigger_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stat g_stuck; /* a file that could not be removed, counted already */
static bool g_have_stuck;

uint64_t pp_capture_trigger_count(const char *path)
{
	struct stat st;

	if (!path || !path[0])
		return 0;
	pthread_mutex_lock(&g_trigger_lock);
	if (stat(path, &st) == 0) {
		bool seen = g_have_stuck && st.st_dev == g_stuck.st_dev && st.st_ino == g_stuck.st_ino &&
			    st.st_mtim.tv_sec == g_stuck.st_mtim.tv_sec && st.st_mtim.tv_nsec == g_stuck.st_mtim.tv_nsec;
		if (!seen) {
			g_triggers++;
			if (unlink(path) != 0) {
				char ebuf[128];
				pp_log_once(PP_LOG_WARN, "trigger_file '%s': cannot remove it after it started a capture "
					    "window (%s); touch it to start another", path,
					    strerror_r(errno, ebuf, sizeof(ebuf)));
				g_stuck = st;
				g_have_stuck = true;
			}
		}
	}
	uint64_t n = g_triggers;
	pthread_mutex_unlock(&g_trigger_lock);
	return n;
}
