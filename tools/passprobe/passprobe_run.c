/* `passprobe run`: run a program with the passprobe layer enabled through the Vulkan loader's
 * environment variables, forward its exit status, and say where the outputs went. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "passprobe_cli.h"
#include "pp_capture.h"
#include "pp_dir.h"
#include "pp_log.h"
#include "pp_settings.h"

#define RUN_LAYER_NAME "VK_LAYER_PASSPROBE_profiler"
#define RUN_LAYER_MANIFEST "VkLayer_passprobe.json"
#define RUN_OUTPUT_ENV PP_SETTINGS_ENV_PREFIX "OUTPUT_DIR"
#define RUN_GLES_SHIM "libpassprobe_gles.so"

static const char *const run_output_files[] = { "report.json", "report.html", "trace.json",
						 "passes.csv", "recording.ppr" };

void passprobe_run_usage(FILE *f)
{
	fprintf(f,
		"usage: passprobe run [-o DIR] [--set KEY=VALUE]... [--vulkan-only] [--renderdoc FRAMES]\n"
		"                     [--] PROGRAM [ARGS...]\n"
		"\n"
		"Runs PROGRAM with the passprobe Vulkan layer enabled (VK_INSTANCE_LAYERS,\n"
		"VK_ADD_LAYER_PATH) and the OpenGL ES shim preloaded (LD_PRELOAD), and prints\n"
		"where its outputs went (OpenGL ES: in DIR/gles). Exits with PROGRAM's\n"
		"exit status (128 + N when signal N ended it, said on stderr; outputs the program\n"
		"did not finish are called partial: SIGINT and SIGTERM finish them first where\n"
		"the program leaves those signals at their default, see finish_on_signal).\n"
		"\n"
		"options:\n"
		"  -o, --output DIR    write report.json, report.html, trace.json and passes.csv\n"
		"                      to DIR\n"
		"                      (default: the output_dir setting, passprobe-out;\n"
		"                      %%p in DIR becomes the program's process id)\n"
		"  --set KEY=VALUE     set a layer setting (passed as " PP_SETTINGS_ENV_PREFIX
		"<KEY>);\n"
		"                      `passprobe help settings` lists them\n"
		"  --vulkan-only       do not preload the OpenGL ES shim (for a program that\n"
		"                      must not get an LD_PRELOAD; its GLES calls go unmeasured)\n"
		"  --renderdoc FRAMES  RenderDoc above passprobe (its capture layer, and its\n"
		"                      library preloaded after the OpenGL ES shim) captures these\n"
		"                      frames (passprobe's frame indices, as the frames setting:\n"
		"                      5, 10-12, 100-) into DIR/renderdoc; report.json lists each\n"
		"                      capture with its frame's measurements\n"
		"                      (docs/frame-debuggers.md)\n"
		"  -h, --help          show this help\n");
}

/* ------------------------------------------------------------------------------------------
 * Environment
 * ----------------------------------------------------------------------------------------*/

static bool run_list_contains(const char *list, const char *item)
{
	size_t n = strlen(item);
	for (const char *p = list; p && *p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		if (len == n && strncmp(p, item, n) == 0)
			return true;
		p = colon ? colon + 1 : NULL;
	}
	return false;
}

/* Puts item first in a colon-separated variable, keeping what was there; no duplicates. */
static int run_env_prepend(const char *var, const char *item)
{
	const char *old = getenv(var);
	if (old && run_list_contains(old, item))
		return 0;
	if (!old || !old[0])
		return setenv(var, item, 1) ? -errno : 0;
	size_t len = strlen(item) + 1 + strlen(old) + 1;
	char *v = malloc(len);
	if (!v)
		return -ENOMEM;
	snprintf(v, len, "%s:%s", item, old);
	int rc = setenv(var, v, 1) ? -errno : 0;
	free(v);
	return rc;
}

static bool run_is_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The directory holding the layer manifest: the installed layout next to this executable
 * first, then the build tree's. Returns false (with *looked listing the places) if neither. */
static bool run_find_layer_dir(char *out, size_t out_len, char *looked, size_t looked_len)
{
	char exe[PATH_MAX], cand[PATH_MAX], real[PATH_MAX];
	size_t lp = 0;

	looked[0] = '\0';
	if (passprobe_load_exe_dir(exe, sizeof(exe))) {
		int n2 = snprintf(cand, sizeof(cand), "%s/../share/vulkan/explicit_layer.d", exe);
		if (n2 > 0 && (size_t)n2 < sizeof(cand) && run_is_file(cand, RUN_LAYER_MANIFEST) &&
		    realpath(cand, real) && strlen(real) < out_len) {
			snprintf(out, out_len, "%s", real);
			return true;
		}
		lp += (size_t)snprintf(looked + lp, looked_len - lp, "%s", cand);
	}
#ifdef PASSPROBE_BUILD_LAYER_DIR
	if (run_is_file(PASSPROBE_BUILD_LAYER_DIR, RUN_LAYER_MANIFEST)) {
		snprintf(out, out_len, "%s", PASSPROBE_BUILD_LAYER_DIR);
		return true;
	}
	if (lp < looked_len)
		snprintf(looked + lp, looked_len - lp, "%s%s", lp ? ", " : "",
			 PASSPROBE_BUILD_LAYER_DIR);
#endif
	return false;
}

/* Makes a relative output_dir value absolute against the current directory. The value keeps
 * its %p; a '%' in the directory name is written %% so the layer reads it back unchanged. */
static int run_absolute_setting(const char *raw, char *out, size_t out_len)
{
	char cwd[PATH_MAX];
	size_t o = 0;

	if (raw[0] == '/') {
		if (strlen(raw) >= out_len)
			return -ENAMETOOLONG;
		snprintf(out, out_len, "%s", raw);
		return 0;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	for (const char *c = cwd; *c; c++) {
		if (o + 3 >= out_len)
			return -ENAMETOOLONG;
		if (*c == '%')
			out[o++] = '%';
		out[o++] = *c;
	}
	const char *rel = raw;
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2; /* "./out" reads better as "/cwd/out" */
	int n = snprintf(out + o, out_len - o, "%s%s", strcmp(cwd, "/") ? "/" : "",
			 strcmp(rel, ".") ? rel : "");
	if (n < 0 || (size_t)n >= out_len - o)
		return -ENAMETOOLONG;
	return 0;
}

/* A plain absolute path for messages (no %-escapes: the value is already expanded). */
static void run_absolute_path(const char *path, char *out, size_t out_len)
{
	char cwd[PATH_MAX];
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd))) {
		snprintf(out, out_len, "%s", path);
		return;
	}
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	int n = snprintf(out, out_len, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", path);
	if (n < 0 || (size_t)n >= out_len)
		snprintf(out, out_len, "%s", path); /* too long to show absolute */
}

static void run_log_discard(enum pp_log_level level, const char *line)
{
	(void)level;
	(void)line;
}

/* Drops the settings module's "; keeping ..." / "; ignored" tail: here nothing is kept, the
 * command stops. */
static void run_trim_setting_message(char *msg)
{
	static const char *const tails[] = { "; keeping ", "; ignored" };
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		char *p = strstr(msg, tails[i]), *last = NULL;
		while (p) {
			last = p;
			p = strstr(p + 1, tails[i]);
		}
		if (last)
			*last = '\0';
	}
}

/* ------------------------------------------------------------------------------------------
 * Child process and signals
 * ----------------------------------------------------------------------------------------*/

static volatile sig_atomic_t run_child_pid;
static volatile sig_atomic_t run_pending_signal;

static void run_on_signal(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	/* Ctrl-C and friends come from the terminal (SI_KERNEL) to the whole foreground process
	 * group, so the program already has its copy; forwarding would deliver it twice. */
	if (si && si->si_code == SI_KERNEL)
		return;
	pid_t child = (pid_t)run_child_pid;
	if (child > 0) {
		if (!(si && si->si_pid == child))
			kill(child, sig);
	} else {
		run_pending_signal = sig;
	}
}

/* SIGUSR2 toggles the layer's capture window (capture_signal); SIGUSR1 goes along so that
 * neither ends passprobe itself while the program runs on. */
static const int run_forwarded_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };

static void run_install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = run_on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(run_forwarded_signals) / sizeof(int); i++)
		sigaction(run_forwarded_signals[i], &sa, NULL);
}

/* Messages from the child to the parent over a close-on-exec pipe: EOF without 'E' means
 * exec succeeded. */
struct run_child_msg {
	char kind;            /* 'P': output path follows; 'E': exec failed, err holds errno;
			       * 'D' / 'W': the output directory cannot be created / written into,
			       * err holds errno, path the component that failed */
	int err;
	char path[PATH_MAX];
};

static void run_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

static void run_child(int fd, char **program)
{
	struct run_child_msg msg;
	struct pp_settings s;

	/* The output directory as the layer will see it: settings loaded in this process, whose
	 * pid the program keeps across exec, so a %p in output_dir expands the same way. The
	 * layer reports any problem with the settings itself; don't say it twice. */
	pp_log_set_callback(run_log_discard);
	pp_settings_load(&s, NULL);
	pp_log_set_callback(NULL);
	memset(&msg, 0, sizeof(msg));
	msg.kind = 'P';
	run_absolute_path(s.output_dir, msg.path, sizeof(msg.path));
	run_write_all(fd, &msg, sizeof(msg));

	/* The directory the layer will write to, made and checked before the program starts: a
	 * path that cannot be used ends here with one message, not after the program ran. */
	char failed_at[PATH_MAX] = "";
	int err = pp_dir_make(s.output_dir, failed_at, sizeof(failed_at));
	msg.kind = 'D';
	struct stat st;
	if (err == 0 && stat(s.output_dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		/* A file by that name: the layer will say it cannot write there, and the program
		 * still runs (it may be run for its own sake). */
		fprintf(stderr, "passprobe: warning: output directory '%s' exists and is not a directory; "
			"no report.json, trace.json or passes.csv will be written\n", msg.path);
	} else if (err == 0 && access(s.output_dir, W_OK | X_OK) != 0) {
		err = -errno;
		msg.kind = 'W';
		snprintf(failed_at, sizeof(failed_at), "%s", s.output_dir);
	}
	if (err) {
		msg.err = -err;
		run_absolute_path(failed_at[0] ? failed_at : s.output_dir, msg.path, sizeof(msg.path));
		run_write_all(fd, &msg, sizeof(msg));
		_exit(CLI_EXIT_OUTPUT_DIR);
	}

	/* Until the layer installs its handler, a SIGUSR2 forwarded to the program would end it
	 * (the default action): ignored instead, which the layer takes over (pp_capture.c). */
	if (s.capture_signal)
		signal(PP_CAPTURE_SIGNAL, SIG_IGN);
	execvp(program[0], program);

	msg.kind = 'E';
	msg.err = errno;
	run_write_all(fd, &msg, sizeof(msg));
	_exit(msg.err == ENOENT ? 127 : 126);
}

/* Reads the child's messages until exec closes the pipe. dir_err/dir_kind/dir_at: the output
 * directory's problem ('D' or 'W'), if any. */
static void run_read_child(int fd, char *path, size_t path_len, int *exec_err, int *dir_err, char *dir_kind,
			   char *dir_at, size_t dir_at_len)
{
	struct run_child_msg msg;
	*exec_err = 0;
	*dir_err = 0;
	for (;;) {
		size_t got = 0;
		while (got < sizeof(msg)) {
			ssize_t n = read(fd, (char *)&msg + got, sizeof(msg) - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return;
			got += (size_t)n;
		}
		msg.path[sizeof(msg.path) - 1] = '\0';
		if (msg.kind == 'P')
			snprintf(path, path_len, "%s", msg.path);
		else if (msg.kind == 'E')
			*exec_err = msg.err ? msg.err : EIO;
		else if (msg.kind == 'D' || msg.kind == 'W') {
			*dir_err = msg.err ? msg.err : EIO;
			*dir_kind = msg.kind;
			snprintf(dir_at, dir_at_len, "%s", msg.path);
		}
	}
}

/* "SIGSEGV, Segmentation fault" for signal 11; the number alone where the C library has no
 * name for it. */
static void run_signal_describe(int sig, char *out, size_t out_len)
{
	const char *abbrev = NULL;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	abbrev = sigabbrev_np(sig);
#endif
	const char *text = strsignal(sig);
	if (abbrev)
		snprintf(out, out_len, "SIG%s, %s", abbrev, text ? text : "");
	else
		snprintf(out, out_len, "%s", text ? text : "unknown signal");
}

static int run_wait(pid_t pid, int *signo)
{
	int status;
	*signo = 0;
	for (;;) {
		pid_t r = waitpid(pid, &status, 0);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "passprobe: waiting for the program failed: %s\n",
				strerror(errno));
			return CLI_EXIT_FAILURE;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status)) {
		*signo = WTERMSIG(status);
		return 128 + WTERMSIG(status);
	}
	return CLI_EXIT_FAILURE;
}

/* The outputs in dir written since the run started, as "report.json, passes.csv"; counts
 * the new ones and the stale ones. */
static size_t run_outputs_in(const char *dir, const struct timespec *start, char *written, size_t len,
			     size_t *nstale)
{
	char path[PATH_MAX];
	struct stat st;
	size_t nwritten = 0;
	written[0] = '\0';
	for (size_t i = 0; i < sizeof(run_output_files) / sizeof(run_output_files[0]); i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, run_output_files[i]) >=
		    (int)sizeof(path))
			continue;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		/* Two seconds of slack for file systems with coarse timestamps. */
		if (st.st_mtim.tv_sec + 2 < start->tv_sec) {
			(*nstale)++;
			continue;
		}
		size_t used = strlen(written);
		snprintf(written + used, len - used, "%s%s", nwritten ? ", " : "", run_output_files[i]);
		nwritten++;
	}
	return nwritten;
}

/* Makes dir's outputs from its recording; true when they may be cut short: a signal ended
 * the program (killed) and the process did not finish its recording as at an exit
 * (finish_on_signal: SIGINT, SIGTERM), or there is no recording to tell. */
static bool run_outputs_make(const char *dir, const struct timespec *start, bool killed)
{
	bool finished = true;
	int made = passprobe_outputs_make(dir, (long long)start->tv_sec, &finished);
	return killed && (made <= 0 || !finished);
}

/* The outputs of the program's other processes: a process that found dir being written by
 * another one writes into dir/<name>.<pid> (attr_sink.c, dir_claim). Gives each report
 * written since the run started its report.html and lists its outputs; returns how many. */
static size_t run_finish_other_processes(const char *dir, const struct timespec *start, bool killed,
					 const char *what)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		const char *dot = strrchr(e->d_name, '.');
		if (!dot || dot == e->d_name || !dot[1] || strspn(dot + 1, "0123456789") != strlen(dot + 1))
			continue;
		char sub[PATH_MAX], written[128];
		size_t nstale = 0;
		if (snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub))
			continue;
		bool partial = run_outputs_make(sub, start, killed);
		if (run_outputs_in(sub, start, written, sizeof(written), &nstale)) {
			fprintf(stderr, "passprobe: %s%s of process %.*s (pid %s) in %s (%s)\n",
				partial ? "partial " : "",
				what, (int)(dot - e->d_name), e->d_name, dot + 1, sub, written);
			n++;
		}
	}
	closedir(d);
	return n;
}

/* Lists the outputs written since the run started: the Vulkan layer's in dir, the GLES
 * shim's in dir/gles (docs/gles.md), and those of the program's other processes in their
 * own folders inside them (their report.html written here). gles: the shim was preloaded. */
static void run_report_outputs(const char *dir, const struct timespec *start, bool killed, bool gles)
{
	/* What no output means: the layer saw no Vulkan device (or was not loaded), and the shim,
	 * when there, no OpenGL ES context made current (eglinfo never makes one). */
	const char *why = gles ? "passprobe: the program created no Vulkan device through the layer and made no "
				 "OpenGL ES context current. If it uses Vulkan, was the layer loaded? "
				 "VK_LOADER_DEBUG=layer shows the loader's layer search.\n"
			       : "passprobe: was the layer loaded? Does the program use Vulkan? "
				 "VK_LOADER_DEBUG=layer shows the loader's layer search.\n";
	char written[128], gles_written[128], gles_dir[PATH_MAX];
	size_t nstale = 0, ngles = 0;
	bool partial = run_outputs_make(dir, start, killed), gles_partial = false;
	size_t nwritten = run_outputs_in(dir, start, written, sizeof(written), &nstale);
	if (snprintf(gles_dir, sizeof(gles_dir), "%s/gles", dir) < (int)sizeof(gles_dir)) {
		gles_partial = run_outputs_make(gles_dir, start, killed);
		ngles = run_outputs_in(gles_dir, start, gles_written, sizeof(gles_written), &nstale);
	}

	if (nwritten)
		fprintf(stderr, "passprobe: %s in %s (%s)\n", partial ? "partial output" : "output", dir, written);
	if (ngles)
		fprintf(stderr, "passprobe: %s in %s (%s)\n",
			gles_partial ? "partial OpenGL ES output" : "OpenGL ES output", gles_dir, gles_written);
	size_t nothers = run_finish_other_processes(dir, start, killed, "output");
	if (gles)
		nothers += run_finish_other_processes(gles_dir, start, killed, "OpenGL ES output");
	if (nwritten || ngles || nothers) {
		return;
	} else if (killed) {
		fprintf(stderr, "passprobe: no output was written to %s before the program died.\n", dir);
	} else if (nstale) {
		fprintf(stderr, "passprobe: no new output in %s; the files there are from an earlier run.\n%s", dir,
			why);
	} else {
		fprintf(stderr, "passprobe: no output was written to %s.\n%s", dir, why);
	}
}

/* The GLES shim: next to the installed layout's libraries, else the build tree's. */
static bool run_find_gles_shim(char *out, size_t out_len)
{
	char exe[PATH_MAX];
	if (passprobe_load_exe_dir(exe, sizeof(exe))) {
		int n2 = snprintf(out, out_len, "%s/" PASSPROBE_BIN_TO_LIB "/" RUN_GLES_SHIM, exe);
		if (n2 > 0 && (size_t)n2 < out_len && access(out, R_OK) == 0)
			return true;
	}
#ifdef PASSPROBE_BUILD_LAYER_DIR
	if (snprintf(out, out_len, "%s/" RUN_GLES_SHIM, PASSPROBE_BUILD_LAYER_DIR) < (int)out_len &&
	    access(out, R_OK) == 0)
		return true;
#endif
	return false;
}

/* Adds the shim at the end of LD_PRELOAD: a library that must come first (a sanitizer's
 * runtime) stays first, and the shim still comes before the program's own libraries. */
static int run_preload_gles(void)
{
	char shim[PATH_MAX];
	if (!run_find_gles_shim(shim, sizeof(shim))) {
		fprintf(stderr, "passprobe: warning: " RUN_GLES_SHIM " not found; OpenGL ES programs are "
				"not measured\n");
		return 0;
	}
	const char *old = getenv("LD_PRELOAD");
	if (old && strstr(old, RUN_GLES_SHIM))
		return 0;
	if (!old || !old[0])
		return setenv("LD_PRELOAD", shim, 1) ? -errno : 0;
	size_t len = strlen(old) + 1 + strlen(shim) + 1;
	char *v = malloc(len);
	if (!v)
		return -ENOMEM;
	snprintf(v, len, "%s:%s", old, shim);
	int rc = setenv("LD_PRELOAD", v, 1) ? -errno : 0;
	free(v);
	return rc;
}

/* ------------------------------------------------------------------------------------------
 * Command
 * ----------------------------------------------------------------------------------------*/

/* Checks one setting with the layer's own parser, so a typo stops here rather than becoming a
 * warning inside the program's output. */
static bool run_check_setting(const char *opt, const char *key, const char *value)
{
	struct pp_settings s;
	char err[1024];

	pp_settings_defaults(&s);
	if (pp_settings_apply(&s, key, value, PP_ORIGIN_DEFAULT, err, sizeof(err)) == 0)
		return true;
	run_trim_setting_message(err);
	fprintf(stderr, "passprobe: %s: %s\npassprobe: nothing was run; `passprobe help settings` "
			"lists the settings\n",
		opt, err);
	return false;
}

int passprobe_run_main(int argc, char **argv)
{
	const char *output = NULL;
	char **program = NULL;
	/* --set pairs, checked before anything is changed or started. */
	char **sets = calloc((size_t)argc + 1, sizeof(*sets));
	bool vulkan_only = false;
	const char *renderdoc = NULL;
	size_t nsets = 0;
	int rc = CLI_EXIT_USAGE;

	if (!sets) {
		fprintf(stderr, "passprobe: out of memory\n");
		return CLI_EXIT_FAILURE;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			program = argv + i + 1;
			break;
		}
		if (strcmp(a, "--vulkan-only") == 0) {
			vulkan_only = true;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			passprobe_run_usage(stdout);
			rc = CLI_EXIT_OK;
			goto out;
		}
		if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 || strcmp(a, "--set") == 0 ||
		    strcmp(a, "--renderdoc") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "passprobe run: %s needs a value\n\n", a);
				passprobe_run_usage(stderr);
				goto out;
			}
			if (strcmp(a, "--set") == 0)
				sets[nsets++] = argv[++i];
			else if (strcmp(a, "--renderdoc") == 0)
				renderdoc = argv[++i];
			else
				output = argv[++i];
			continue;
		}
		if (strncmp(a, "--renderdoc=", 12) == 0) {
			renderdoc = a + 12;
			continue;
		}
		if (strncmp(a, "--output=", 9) == 0) {
			output = a + 9;
			continue;
		}
		if (strncmp(a, "--set=", 6) == 0) {
			sets[nsets++] = argv[i] + 6;
			continue;
		}
		if (strncmp(a, "-o", 2) == 0 && a[2]) {
			output = a + 2;
			continue;
		}
		if (a[0] == '-') {
			fprintf(stderr, "passprobe run: unknown option '%s' (put the program after --)\n\n",
				a);
			passprobe_run_usage(stderr);
			goto out;
		}
		program = argv + i;
		break;
	}
	if (!program || !program[0]) {
		fprintf(stderr, "passprobe run: no program given\n\n");
		passprobe_run_usage(stderr);
		goto out;
	}

	/* Validate everything first: a bad setting must not start the program. */
	for (size_t i = 0; i < nsets; i++) {
		char *eq = strchr(sets[i], '=');
		if (!eq || eq == sets[i]) {
			fprintf(stderr, "passprobe: --set expects KEY=VALUE, got '%s'\n"
					"passprobe: nothing was run\n",
				sets[i]);
			goto out;
		}
		*eq = '\0';
		bool ok = run_check_setting("--set", sets[i], eq + 1);
		*eq = '=';
		if (!ok)
			goto out;
		if (strncmp(sets[i], "output_dir=", 11) == 0)
			output = eq + 1; /* the same as -o; the last one given wins */
	}
	if (output && !run_check_setting("-o", "output_dir", output))
		goto out;
	if (renderdoc) {
		if (!run_check_setting("--renderdoc", "renderdoc_frames", renderdoc))
			goto out;
		struct pp_settings s;
		char err[256];
		pp_settings_defaults(&s);
		pp_settings_apply(&s, "renderdoc_frames", renderdoc, PP_ORIGIN_DEFAULT, err, sizeof(err));
		if (!s.renderdoc_frames.n) {
			fprintf(stderr, "passprobe: --renderdoc none captures nothing: give the frames to capture "
					"(5, 10-12, 100-); nothing was run\n");
			goto out;
		}
	}

	rc = CLI_EXIT_FAILURE;
	for (size_t i = 0; i < nsets; i++) {
		char name[256];
		char *eq = strchr(sets[i], '=');
		size_t klen = (size_t)(eq - sets[i]);
		size_t plen = strlen(PP_SETTINGS_ENV_PREFIX);
		if (plen + klen >= sizeof(name)) {
			fprintf(stderr, "passprobe: --set key too long\n");
			goto out;
		}
		memcpy(name, PP_SETTINGS_ENV_PREFIX, plen);
		for (size_t k = 0; k < klen; k++)
			name[plen + k] = (char)toupper((unsigned char)sets[i][k]);
		name[plen + klen] = '\0';
		if (setenv(name, eq + 1, 1) != 0) {
			fprintf(stderr, "passprobe: cannot set %s: %s\n", name, strerror(errno));
			goto out;
		}
	}

	/* An absolute output directory, so the program changing directory cannot move it away
	 * from the path printed at the end. A value from vk_layer_settings.txt is left to the
	 * layer; the child process reports where it resolves. */
	const char *env_out = getenv(RUN_OUTPUT_ENV);
	const char *raw = output ? output : (env_out && env_out[0] ? env_out : NULL);
	if (!raw) {
		struct pp_settings loaded, defaults;
		pp_log_set_callback(run_log_discard);
		pp_settings_load(&loaded, NULL);
		pp_log_set_callback(NULL);
		pp_settings_defaults(&defaults);
		if (strcmp(loaded.output_dir, defaults.output_dir) == 0)
			raw = defaults.output_dir[0] ? "passprobe-out" : NULL;
	}
	if (raw) {
		char abs[PATH_MAX];
		int err = run_absolute_setting(raw, abs, sizeof(abs));
		if (err) {
			fprintf(stderr, "passprobe: output directory '%s': %s\n", raw, strerror(-err));
			goto out;
		}
		if (setenv(RUN_OUTPUT_ENV, abs, 1) != 0) {
			fprintf(stderr, "passprobe: cannot set " RUN_OUTPUT_ENV ": %s\n",
				strerror(errno));
			goto out;
		}
	}

	if (renderdoc && passprobe_run_renderdoc_prepare(renderdoc, getenv(RUN_OUTPUT_ENV), program[0]) != 0)
		goto out;
	passprobe_run_renderdoc_self_check(program[0], renderdoc != NULL);

	char layer_dir[PATH_MAX], looked[2 * PATH_MAX + 8];
	if (run_find_layer_dir(layer_dir, sizeof(layer_dir), looked, sizeof(looked))) {
		if (run_env_prepend("VK_ADD_LAYER_PATH", layer_dir) != 0) {
			fprintf(stderr, "passprobe: cannot set VK_ADD_LAYER_PATH\n");
			goto out;
		}
	} else {
		fprintf(stderr,
			"passprobe: warning: " RUN_LAYER_MANIFEST " not found (looked in %s); "
			"relying on the Vulkan loader's own layer search\n",
			looked[0] ? looked : "no place");
	}
	if (run_env_prepend("VK_INSTANCE_LAYERS", RUN_LAYER_NAME) != 0) {
		fprintf(stderr, "passprobe: cannot set VK_INSTANCE_LAYERS\n");
		goto out;
	}
	/* OpenGL ES programs: the shim does nothing in a program that never makes an EGL
	 * context current, so both go in without asking which API the program uses. */
	if (!vulkan_only && (run_preload_gles() != 0 || (renderdoc && passprobe_run_renderdoc_preload() != 0))) {
		fprintf(stderr, "passprobe: cannot set LD_PRELOAD\n");
		goto out;
	}

	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		fprintf(stderr, "passprobe: pipe: %s\n", strerror(errno));
		goto out;
	}
	struct timespec start;
	clock_gettime(CLOCK_REALTIME, &start);
	fflush(NULL); /* nothing buffered may be written twice by the child */
	run_install_signals();
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "passprobe: fork: %s\n", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		goto out;
	}
	if (pid == 0) {
		close(pipefd[0]);
		run_child(pipefd[1], program);
	}
	run_child_pid = pid;
	if (run_pending_signal)
		kill(pid, run_pending_signal);
	close(pipefd[1]);

	char out_dir[PATH_MAX] = "", dir_at[PATH_MAX] = "", dir_kind = 0;
	int exec_err, dir_err;
	run_read_child(pipefd[0], out_dir, sizeof(out_dir), &exec_err, &dir_err, &dir_kind, dir_at, sizeof(dir_at));
	close(pipefd[0]);
	int signo;
	rc = run_wait(pid, &signo);
	if (dir_err) {
		char at[PATH_MAX + 8] = "";
		if (dir_kind == 'D' && strcmp(dir_at, out_dir) != 0)
			snprintf(at, sizeof(at), " '%s'", dir_at);
		fprintf(stderr, "passprobe: output directory '%s': %s%s: %s; '%s' was not started\n", out_dir,
			dir_kind == 'D' ? "cannot create" : "cannot write into", at, strerror(dir_err), program[0]);
		rc = CLI_EXIT_OUTPUT_DIR;
		goto out;
	}
	if (exec_err) {
		fprintf(stderr, "passprobe: cannot run '%s': %s\n", program[0], strerror(exec_err));
		goto out;
	}
	if (signo) {
		/* The layer writes its outputs at the program's exit; a program killed by a
		 * signal leaves what the writer thread had flushed so far, or nothing. */
		char what[96];
		run_signal_describe(signo, what, sizeof(what));
		if (signo == SIGINT || signo == SIGTERM)
			/* finish_on_signal: the outputs were finished first where the program left
			 * the signal at its default; each folder below says whether they were. */
			fprintf(stderr, "passprobe: '%s' was stopped by signal %d (%s)\n", program[0], signo, what);
		else
			fprintf(stderr,
				"passprobe: '%s' was killed by signal %d (%s); passprobe's outputs may be "
				"partial or missing\n",
				program[0], signo, what);
	}
	if (out_dir[0])
		run_report_outputs(out_dir, &start, signo != 0, !vulkan_only);
out:
	free(sets);
	return rc;
}
