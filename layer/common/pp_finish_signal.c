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
static pid_t g_pid;             /* the process the finishing thread runs in (not a fork's child) */
static int g_request[2] = { -1, -1 }; /* handler -> finishing thread */
static int g_done[2] = { -1, -1 };    /* finishing thread -> handlers: readable once finished */
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

static void on_finish_signal(int sig)
{
	int saved = errno;
	if (getpid() == g_pid) {
		/* Every handler that runs asks; the thread finishes once and wakes them all (nobody
		 * reads g_done, so it stays readable). */
		char b = 1;
		if (write(g_request[1], &b, 1) == 1 || errno == EAGAIN) {
			struct pollfd p = { .fd = g_done[0], .events = POLLIN };
			while (poll(&p, 1, PP_FINISH_WAIT_MS) < 0 && errno == EINTR)
				;
		}
	}
	void (*next)(int) = NULL;
	for (unsigned i = 0; i < NFINISH; i++)
		if (finish_signals[i] == sig)
			next = __atomic_load_n(&g_chained[i], __ATOMIC_ACQUIRE);
	if (next) {
		next(sig); /* the other library finishes its outputs and raises the signal */
	} else {
		/* As the process would have ended without passprobe: by this signal, its default
		 * action, delivered when this handler returns (it is blocked until then). */
		static const struct sigaction dfl = { .sa_handler = SIG_DFL };
		sigaction(sig, &dfl, NULL);
		raise(sig);
	}
	errno = saved;
}

static void *finishing_thread(void *arg)
{
	(void)arg;
	char b;
	ssize_t n;
	while ((n = read(g_request[0], &b, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		return NULL; /* the pipe failed: nothing asked, nothing to finish */
	g_finish();
	b = 1;
	while (write(g_done[1], &b, 1) < 0 && errno == EINTR)
		;
	return NULL;
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
	if (pipe2(g_request, O_CLOEXEC) != 0 || pipe2(g_done, O_CLOEXEC) != 0 ||
	    fcntl(g_request[1], F_SETFL, O_NONBLOCK) != 0) {
		g_result = -errno;
		return;
	}
	g_pid = getpid();
	pthread_t t;
	sigset_t saved;
	pp_finish_signal_block_all(&saved);
	int err = pthread_create(&t, NULL, finishing_thread, NULL);
	pp_finish_signal_restore(&saved);
	if (err) {
		g_result = -err;
		return;
	}
	pthread_detach(t);
	for (unsigned i = 0; i < NFINISH; i++) {
		if (!take[i])
			continue;
		if (old[i].sa_handler != SIG_DFL) /* passprobe's other library's */
			__atomic_store_n(&g_chained[i], old[i].sa_handler, __ATOMIC_RELEASE);
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_finish_signal;
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
