/* Unit test of the termination-signal handler (layer/common/pp_finish_signal.c): the outputs
 * are finished and the process still ends by its signal, also when the signal lands on a
 * thread that holds a lock the finish needs (the sinks' queue lock: the application thread
 * holds it while it hands a frame over), when the finish never ends (the process still ends,
 * after PP_FINISH_WAIT_MS), and never where the program handles the signal itself; and with
 * two copies of the handler in one process (the layer and the shim: the two libraries given
 * as arguments, finish_signal_lib.c built twice), each finishes, the second installed first.
 * Each case runs in a child process of its own; the parent checks how it ended. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pp_check.h"
#include "pp_finish_signal.h"

static pthread_mutex_t g_held = PTHREAD_MUTEX_INITIALIZER;
static int g_report[2]; /* child -> parent: one letter per thing that happened */

static void report(char c)
{
	if (write(g_report[1], &c, 1) != 1)
		_exit(3);
}

/* The finish takes the lock the signalled thread holds, as pp_attr_sink_shutdown takes g_lock. */
static void finish_taking_lock(void)
{
	pthread_mutex_lock(&g_held);
	report('F');
	pthread_mutex_unlock(&g_held);
}

static void finish_never_ending(void)
{
	report('S');
	for (;;)
		pause();
}

static volatile sig_atomic_t g_own_handled;
static void own_handler(int sig)
{
	(void)sig;
	g_own_handled = 1;
}

enum child_case { SIGNAL_WHILE_LOCKED, FINISH_NEVER_ENDS, PROGRAM_HANDLES_TERM, TWO_LIBRARIES };

static const char *g_libs[2];

/* Loads one copy of the handler and installs it; its finish reports `letter`. */
static void library_install(const char *path, char letter)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	int (*install)(int, char) = lib ? (int (*)(int, char))dlsym(lib, "finish_lib_install") : NULL;
	if (!install) {
		fprintf(stderr, "test_finish_signal: %s: %s\n", path, dlerror());
		_exit(4);
	}
	int n = install(g_report[1], letter);
	report(n == 2 ? '2' : '?');
}

static void child(enum child_case which, int sig)
{
	close(g_report[0]);
	if (which == TWO_LIBRARIES) {
		library_install(g_libs[0], 'A');
		library_install(g_libs[1], 'B');
	} else {
		if (which == PROGRAM_HANDLES_TERM) {
			struct sigaction sa = { .sa_handler = own_handler };
			sigaction(SIGTERM, &sa, NULL);
		}
		int n = pp_finish_signal_install(which == FINISH_NEVER_ENDS ? finish_never_ending : finish_taking_lock);
		report(n == 2 ? '2' : n == 1 ? '1' : '?');
	}
	if (which == SIGNAL_WHILE_LOCKED)
		pthread_mutex_lock(&g_held);
	raise(sig); /* on this thread, lock held */
	report('R');    /* the handler returned: this thread runs on and gives the lock back */
	if (which == SIGNAL_WHILE_LOCKED)
		pthread_mutex_unlock(&g_held);
	if (which == PROGRAM_HANDLES_TERM && g_own_handled)
		report('H');
	for (int i = 0; i < 200 && which != PROGRAM_HANDLES_TERM; i++)
		usleep(100 * 1000); /* 20 s: the process must end by the signal long before */
	_exit(0);
}

/* Runs one case; returns what the child reported, its wait status in *status. */
static void run(enum child_case which, int sig, char *got, size_t len, int *status)
{
	if (pipe(g_report) != 0) {
		perror("pipe");
		exit(1);
	}
	pid_t pid = fork();
	if (pid == 0)
		child(which, sig);
	close(g_report[1]);
	size_t n = 0;
	ssize_t r;
	while (n + 1 < len && (r = read(g_report[0], got + n, len - 1 - n)) > 0)
		n += (size_t)r;
	got[n] = '\0';
	close(g_report[0]);
	waitpid(pid, status, 0);
}

int main(int argc, char **argv)
{
	char got[32];
	int status;

	/* SIGTERM on a thread holding the finish's lock: the handler returns at once, the thread
	 * gives the lock back, the outputs finish, and the signal ends the process. */
	run(SIGNAL_WHILE_LOCKED, SIGTERM, got, sizeof(got), &status);
	CHECK(strchr(got, '2') != NULL, "both signals taken (reported '%s')", got);
	CHECK(strchr(got, 'R') != NULL, "the handler returned to the signalled thread ('%s')", got);
	CHECK(strchr(got, 'F') != NULL, "the finish ran though the signal landed inside the lock ('%s')", got);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "ended by SIGTERM (status 0x%x)", status);

	run(SIGNAL_WHILE_LOCKED, SIGINT, got, sizeof(got), &status);
	CHECK(strchr(got, 'F') != NULL, "SIGINT: the finish ran ('%s')", got);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "ended by SIGINT (status 0x%x)", status);

	/* A finish that never ends: the process still ends by the signal (after the wait). */
	run(FINISH_NEVER_ENDS, SIGTERM, got, sizeof(got), &status);
	CHECK(strchr(got, 'S') != NULL, "the finish started ('%s')", got);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "a stuck finish still ends by SIGTERM (status 0x%x)",
	      status);

	/* The program's own SIGTERM handler is left alone; SIGINT is still taken. */
	run(PROGRAM_HANDLES_TERM, SIGTERM, got, sizeof(got), &status);
	CHECK(strchr(got, '1') != NULL, "only SIGINT taken ('%s')", got);
	CHECK(strchr(got, 'H') != NULL, "the program's handler ran ('%s')", got);
	CHECK(strchr(got, 'F') == NULL, "nothing finished for a signal the program handles ('%s')", got);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the program exits as it chose (status 0x%x)", status);

	/* Two copies: the second installed found the first's handler and calls it once its own
	 * outputs are finished; the first ends the process. */
	CHECK(argc == 3, "usage: test_finish_signal LIB_A LIB_B (libpassprobe_finish_a.so, _b.so)");
	if (argc == 3) {
		g_libs[0] = argv[1];
		g_libs[1] = argv[2];
		run(TWO_LIBRARIES, SIGTERM, got, sizeof(got), &status);
		const char *a = strchr(got, 'A'), *b = strchr(got, 'B');
		CHECK(strncmp(got, "22", 2) == 0, "both copies took both signals ('%s')", got);
		CHECK(a && b && b < a, "the second copy finished, then the first ('%s')", got);
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "two copies: ended by SIGTERM (status 0x%x)",
		      status);
	}
	return check_finish();
}
