/* The capture triggers with two passprobe libraries in one process (a program using Vulkan and
 * GLES loads the layer and the shim, each with its own copy of layer/common/pp_capture.c):
 * every SIGUSR2 must reach both, whichever installed first, and an application's own handler
 * must still keep passprobe away (never chained); a trigger file found and removed by one
 * must count in both where both look at that path, once, and only there. Each case runs in a
 * child process: a library's install happens once.
 * usage: test_capture_two_libs LIB_A LIB_B */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct lib {
	int (*install)(void);
	uint64_t (*signals)(void);
	uint64_t (*triggers)(const char *path);
};

static const char *g_path[2];
static volatile sig_atomic_t g_app_signals;

static void app_handler(int sig)
{
	(void)sig;
	g_app_signals++;
}

static int load(int i, struct lib *l)
{
	void *h = dlopen(g_path[i], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", g_path[i], dlerror());
		return -1;
	}
	l->install = (int (*)(void))dlsym(h, "capture_lib_install");
	l->signals = (uint64_t (*)(void))dlsym(h, "capture_lib_signals");
	l->triggers = (uint64_t (*)(const char *))dlsym(h, "capture_lib_triggers");
	return l->install && l->signals && l->triggers ? 0 : -1;
}

#define EXPECT(cond)                                                                     \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "%s: %s:%d: failed: %s\n", name, __FILE__, __LINE__, #cond); \
			return 1;                                                        \
		}                                                                        \
	} while (0)

/* first: the library that installs first (0 or 1); app: the application has its own handler. */
static int scenario(const char *name, int first, int app)
{
	struct lib l[2];
	if (load(0, &l[0]) || load(1, &l[1]))
		return 1;
	if (app)
		signal(SIGUSR2, app_handler);
	int r0 = l[first].install();
	int r1 = l[!first].install();
	for (int i = 0; i < 3; i++)
		raise(SIGUSR2);
	if (app) {
		/* Left alone: neither library counts, the application gets every signal. */
		EXPECT(r0 == -EBUSY && r1 == -EBUSY);
		EXPECT(l[0].signals() == 0 && l[1].signals() == 0);
		EXPECT(g_app_signals == 3);
	} else {
		EXPECT(r0 == 0 && r1 == 0);
		EXPECT(l[0].signals() == 3 && l[1].signals() == 3);
	}
	printf("%s: ok (returns %d, %d; counts %llu, %llu)\n", name, r0, r1,
	       (unsigned long long)l[0].signals(), (unsigned long long)l[1].signals());
	return 0;
}

static int touch(const char *path)
{
	FILE *f = fopen(path, "w");
	return f && fclose(f) == 0 ? 0 : -1;
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The trigger file: a (A) and b (B) look at the same path, c (B's second path) only B. */
static int triggers(const char *name, int first, int app)
{
	(void)first;
	(void)app;
	struct lib l[2];
	if (load(0, &l[0]) || load(1, &l[1]))
		return 1;
	char dir[] = "/tmp/passprobe-two-libs.XXXXXX";
	if (!mkdtemp(dir))
		return 1;
	char shared[64], other[64];
	snprintf(shared, sizeof(shared), "%s/trigger", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	/* Each looks once before any file exists, as a frame clock does at set-up. */
	EXPECT(l[0].triggers(shared) == 0 && l[1].triggers(shared) == 0);
	/* A finds it and removes it; B counts it without finding it. */
	EXPECT(touch(shared) == 0);
	EXPECT(l[0].triggers(shared) == 1 && !exists(shared));
	EXPECT(l[1].triggers(shared) == 1);
	EXPECT(l[0].triggers(shared) == 1 && l[1].triggers(shared) == 1);
	/* Again, B first this time. */
	EXPECT(touch(shared) == 0);
	EXPECT(l[1].triggers(shared) == 2 && !exists(shared));
	EXPECT(l[0].triggers(shared) == 2);
	/* B now looks at another path (its setting changed): A's file no longer counts in B, and
	 * B's counts only in B. */
	EXPECT(l[1].triggers(other) == 2);
	EXPECT(touch(shared) == 0);
	EXPECT(l[0].triggers(shared) == 3 && l[1].triggers(other) == 2);
	EXPECT(touch(other) == 0);
	EXPECT(l[1].triggers(other) == 3 && l[0].triggers(shared) == 3);
	rmdir(dir);
	printf("%s: ok\n", name);
	return 0;
}

static int in_child_run(const char *name, int (*run)(const char *, int, int), int first, int app)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(run(name, first, app) + fflush(stdout));
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 1;
	if (!WIFEXITED(st)) {
		fprintf(stderr, "%s: the child died (%s)\n", name,
			WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "?");
		return 1;
	}
	return WEXITSTATUS(st);
}

static int in_child(const char *name, int first, int app)
{
	return in_child_run(name, scenario, first, app);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test_capture_two_libs LIB_A LIB_B\n");
		return 2;
	}
	g_path[0] = argv[1];
	g_path[1] = argv[2];
	int fails = in_child("a installs first", 0, 0) + in_child("b installs first", 1, 0) +
		    in_child("the application's handler", 0, 1) + in_child_run("the trigger file", triggers, 0, 0);
	printf("capture_two_libs: %d failed\n", fails);
	return fails ? 1 : 0;
}
