/* Termination signals finish the outputs (pp_finish_signal.h). */
#include "pp_finish_signal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "pp_module.h"

static const int finish_signals[] = { SIGINT, SIGTERM };
#define NFINISH (sizeof(finish_signals) / sizeof(finish_signals[0]))

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_result;
static void (*g_finish)(void);
static pid_t g_pid;             /* the process the threads run in (not a fork's child) */
static int g_request[2] = { -1, -1 }; /* handler -> ending thread: the signal's number */
static int g_go[2] = { -1, -1 };      /* ending thread -> finishing thread */
static int g_done[2] = { -1, -1 };    /* finishing thread -> ending thread */
/* Per signal: passprobe's other library's handler, called after ours (set before ours is). */
static void (*g_chained[NFINISH])(int);

void pp_finish_signal_block_all(sigset_t *old)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, old);
}

void pp_finish_signal_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static void byte_write(int fd, char b)
{
	while (write(fd, &b, 1) < 0 && errno == EINTR)
		;
}

static bool byte_read(int fd, char *b)
{
	ssize_t n;
	while ((n = read(fd, b, 1)) < 0 && errno == EINTR)
		;
	return n == 1;
}

/* What the signal does once passprobe is done with it: the other library's handler (which
 * finishes its outputs the same way and then ends the process), or the default action, taken
 * here on passprobe's thread: its mask blocks every signal, so it unblocks this one alone. */
static void end_by(int sig)
{
	void (*next)(int) = NULL;
	for (unsigned i = 0; i < NFINISH; i++)
		if (finish_signals[i] == sig)
			next = __atomic_load_n(&g_chained[i], __ATOMIC_ACQUIRE);
	if (next) {
		next(sig);
		return;
	}
	static const struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigaction(sig, &dfl, NULL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
}

/* Async-signal-safe, and it never waits: the thread it interrupted may hold a lock the finish
 * needs (the sinks' queue lock, the diagnostics' lock), so it only asks and returns, and that
 * thread runs on until passprobe's ending thread ends the process. */
static void on_finish_signal(int sig)
{
	int saved = errno;
	char b = (char)sig;
	if (getpid() != g_pid || (write(g_request[1], &b, 1) != 1 && errno != EAGAIN)) {
		/* A fork's child (the threads are the parent's) or a broken pipe: as without passprobe. */
		static const struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigaction(sig, &dfl, NULL);
		raise(sig); /* delivered when this handler returns */
	}
	/* EAGAIN: a full pipe already holds a request; one finish serves them all. */
	errno = saved;
}

/* Waits for the first request, has the finishing thread finish the outputs, waits for it at
 * most PP_FINISH_WAIT_MS, then lets the signal end the process. */
static void *ending_thread(void *arg)
{
	(void)arg;
	char sig;
	if (!byte_read(g_request[0], &sig))
		return NULL; /* the pipe failed: nothing asked */
	byte_write(g_go[1], 1);
	struct pollfd p = { .fd = g_done[0], .events = POLLIN };
	while (poll(&p, 1, PP_FINISH_WAIT_MS) < 0 && errno == EINTR)
		;
	end_by(sig);
	return NULL;
}

static void *finishing_thread(void *arg)
{
	(void)arg;
	char b;
	if (!byte_read(g_go[0], &b))
		return NULL;
	g_finish();
	byte_write(g_done[1], 1);
	return NULL;
}

/* 0, or pthread_create's error. */
static int thread_start(void *(*fn)(void *))
{
	pthread_t t;
	sigset_t saved;
	pp_finish_signal_block_all(&saved);
	int err = pthread_create(&t, NULL, fn, NULL);
	pp_finish_signal_restore(&saved);
	if (!err)
		pthread_detach(t);
	return err;
}

static void install_once(void)
{
	struct sigaction old[NFINISH];
	bool take[NFINISH] = { false };
	unsigned n = 0;
	for (unsigned i = 0; i < NFINISH; i++) {
		if (sigaction(finish_signals[i], NULL, &old[i]) != 0) {
			g_result = -errno;
			return;
		}
		enum pp_handler_owner owner = pp_module_handler_owner(&old[i], (void *)on_finish_signal);
		take[i] = owner == PP_HANDLER_DEFAULT || owner == PP_HANDLER_OTHER_PASSPROBE;
		n += take[i];
	}
	if (!n)
		return; /* g_result 0: the application handles (or ignores) both */
	/* The handler's end never blocks (a full pipe already holds a request); the thread's
	 * end does, until a request comes. */
	if (pipe2(g_request, O_CLOEXEC) != 0 || pipe2(g_go, O_CLOEXEC) != 0 || pipe2(g_done, O_CLOEXEC) != 0 ||
	    fcntl(g_request[1], F_SETFL, O_NONBLOCK) != 0) {
		g_result = -errno;
		return;
	}
	g_pid = getpid();
	int err = thread_start(finishing_thread);
	if (err || (err = thread_start(ending_thread))) {
		g_result = -err; /* a finishing thread left waiting on a pipe nobody writes is harmless */
		return;
	}
	for (unsigned i = 0; i < NFINISH; i++) {
		if (!take[i])
			continue;
		if (old[i].sa_handler != SIG_DFL) /* passprobe's other library's */
			__atomic_store_n(&g_chained[i], old[i].sa_handler, __ATOMIC_RELEASE);
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_finish_signal;
		sa.sa_flags = SA_RESTART; /* the interrupted thread runs on until the process ends */
		sigemptyset(&sa.sa_mask);
		for (unsigned k = 0; k < NFINISH; k++)
			sigaddset(&sa.sa_mask, finish_signals[k]); /* one finish at a time */
		if (sigaction(finish_signals[i], &sa, NULL) == 0)
			g_result++;
	}
}

int pp_finish_signal_install(void (*finish)(void))
{
	g_finish = finish;
	pthread_once(&g_once, install_once);
	return g_result;
}
