/* Unit test for layer/common/pp_settings.c. No framework: CHECK counts, the last line says
 * "N passed, N failed", and the exit status is nonzero on any failure.
 *
 * Every case runs with its own envp array (never the process environment), a fake HOME and a
 * working directory inside a fresh temporary tree, so the developer's own settings files
 * cannot leak in. Log lines are captured through pp_log_set_callback. */
#include "pp_settings_internal.h"
#include "pp_settings.h"
#include "pp_check.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- log capture ---- */

#define LOG_MAX 64
static pthread_mutex_t g_log_lock = PTHREAD_MUTEX_INITIALIZER;
static char g_lines[LOG_MAX][1100];
static enum pp_log_level g_levels[LOG_MAX];
static int g_nlines; /* all lines seen since the last reset, even those not kept */

static void log_capture(enum pp_log_level level, const char *line)
{
	pthread_mutex_lock(&g_log_lock);
	if (g_nlines < LOG_MAX) {
		snprintf(g_lines[g_nlines], sizeof(g_lines[0]), "%s", line);
		g_levels[g_nlines] = level;
	}
	g_nlines++;
	pthread_mutex_unlock(&g_log_lock);
}

static void log_reset(void)
{
	pthread_mutex_lock(&g_log_lock);
	g_nlines = 0;
	pthread_mutex_unlock(&g_log_lock);
}

static void log_dump(void)
{
	for (int i = 0; i < g_nlines && i < LOG_MAX; i++)
		fprintf(stderr, "    log[%d]: %s\n", i, g_lines[i]);
}

/* True when exactly one line was logged, at warn level, and it holds every needle. */
static bool one_msg_has(const char *first, ...)
{
	va_list ap;
	bool ok = g_nlines == 1 && g_levels[0] == PP_LOG_WARN &&
		  strncmp(g_lines[0], "passprobe: warning: ", 20) == 0;

	va_start(ap, first);
	for (const char *n = first; ok && n; n = va_arg(ap, const char *)) {
		if (!strstr(g_lines[0], n)) {
			fprintf(stderr, "    missing in message: %s\n", n);
			ok = false;
		}
	}
	va_end(ap);
	return ok;
}

/* ---- temporary tree and environment arrays ---- */

static char g_root[64];
static char g_home[128], g_cwd[128], g_xdg[128], g_lsp_dir[128], g_lsp_file[128];
static char g_start_cwd[PATH_MAX];

struct envb {
	char *v[64];
	int n;
};

static void env_add(struct envb *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void env_add(struct envb *e, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s || e->n >= 63) {
		fprintf(stderr, "test: out of memory\n");
		exit(2);
	}
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
}

static void env_base(struct envb *e)
{
	e->n = 0;
	e->v[0] = NULL;
	env_add(e, "HOME=%s", g_home);
	env_add(e, "PATH=/usr/bin:/bin");
}

static void env_free(struct envb *e)
{
	for (int i = 0; i < e->n; i++)
		free(e->v[i]);
	e->n = 0;
	e->v[0] = NULL;
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "test: cannot write %s: %s\n", path, strerror(errno));
		exit(2);
	}
}

static void write_text(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

static void mkdir_p(const char *path)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(tmp, 0700);
			*p = '/';
		}
	}
	mkdir(tmp, 0700);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void tree_setup(void)
{
	char p[PATH_MAX];

	snprintf(g_root, sizeof(g_root), "/tmp/pp-settings-XXXXXX");
	if (!mkdtemp(g_root) || !getcwd(g_start_cwd, sizeof(g_start_cwd))) {
		fprintf(stderr, "test: mkdtemp: %s\n", strerror(errno));
		exit(2);
	}
	snprintf(g_home, sizeof(g_home), "%s/home", g_root);
	snprintf(g_cwd, sizeof(g_cwd), "%s/cwd", g_root);
	snprintf(g_xdg, sizeof(g_xdg), "%s/xdg", g_root);
	snprintf(g_lsp_dir, sizeof(g_lsp_dir), "%s/lsp", g_root);
	snprintf(g_lsp_file, sizeof(g_lsp_file), "%s/my-settings.txt", g_root);
	snprintf(p, sizeof(p), "%s/.local/share/vulkan/settings.d", g_home);
	mkdir_p(p);
	snprintf(p, sizeof(p), "%s/vulkan/settings.d", g_xdg);
	mkdir_p(p);
	mkdir_p(g_cwd);
	mkdir_p(g_lsp_dir);
	if (chdir(g_cwd) != 0) {
		fprintf(stderr, "test: chdir: %s\n", strerror(errno));
		exit(2);
	}
}

static void tree_remove(void)
{
	if (chdir(g_start_cwd) != 0)
		fprintf(stderr, "test: chdir back failed\n");
	nftw(g_root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int load(struct pp_settings *s, struct envb *e)
{
	log_reset();
	return pp_settings_load(s, e->v);
}

static void fmt(const struct pp_settings *s, const char *key, char *buf, size_t len)
{
	if (pp_settings_format_value(s, key, buf, len) < 0)
		snprintf(buf, len, "<format failed>");
}

static void env_name(const char *key, char *buf, size_t len)
{
	size_t i, n = snprintf(buf, len, PP_SETTINGS_ENV_PREFIX);

	for (i = 0; key[i] && n + i + 1 < len; i++)
		buf[n + i] = (key[i] >= 'a' && key[i] <= 'z') ? (char)(key[i] - 'a' + 'A') : key[i];
	buf[n + i] = '\0';
}

/* ---- cases ---- */

static void test_defaults(void)
{
	struct pp_settings d, s;
	struct envb e;
	const char *const *keys = pp_settings_keys();
	int nkeys = 0;

	pp_settings_defaults(&d);
	CHECK(strcmp(d.output_dir, "passprobe-out") == 0);
	CHECK(d.log_level == PP_LOG_WARN);
	CHECK(d.frame_delimiter == PP_FRAME_AUTO && d.frame_label[0] == '\0');
	CHECK(d.timestamps && d.pipeline_statistics && !d.per_draw_timing && d.diagnostics && d.barrier_cost);
	CHECK(strcmp(d.cpu_counters, "default") == 0);
	CHECK(d.report_frames == 300 && d.flush_interval_ms == 1000);
	CHECK(d.trace && d.csv && d.summary && d.copy_results == PP_SWITCH_AUTO && d.finish_on_signal);

	for (; keys[nkeys]; nkeys++)
		CHECK(pp_settings_allowed(keys[nkeys]) != NULL);
	CHECK(nkeys == 26);
	CHECK(d.experiment == PP_EXPERIMENT_OFF);
	CHECK(strcmp(pp_settings_allowed("experiment"), "off, barrier-fixes") == 0);
	CHECK(pp_settings_allowed("nope") == NULL && pp_settings_allowed(NULL) == NULL);
	CHECK(strcmp(pp_settings_allowed("log_level"), "error, warn, info, debug") == 0);

	/* Nothing set anywhere: defaults, no messages, no problems. */
	env_base(&e);
	CHECK(load(&s, &e) == 0);
	CHECK(g_nlines == 0);
	CHECK(memcmp(&s, &d, sizeof(s)) == 0);
	env_free(&e);
	CHECK(pp_settings_load(NULL, NULL) < 0);
}

static void test_valid_env_values(void)
{
	struct pp_settings s;
	struct envb e;

	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "OUTPUT_DIR=  /tmp/out dir  ");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "LOG_LEVEL=DeBuG");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "FRAME_DELIMITER=LABEL:Frame Begin");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "TIMESTAMPS=off");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "PIPELINE_STATISTICS=No");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "PER_DRAW_TIMING=1");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "DIAGNOSTICS=FALSE");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "BARRIER_COST=0");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "CPU_COUNTERS= cycles,instructions ");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "REPORT_FRAMES=100000");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "FLUSH_INTERVAL_MS=100");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "TRACE=oFf");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "CSV=no");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "SUMMARY=false");
	CHECK(load(&s, &e) == 0);
	CHECK(g_nlines == 0);
	CHECK(strcmp(s.output_dir, "/tmp/out dir") == 0);
	CHECK(s.log_level == PP_LOG_DEBUG);
	CHECK(s.frame_delimiter == PP_FRAME_LABEL && strcmp(s.frame_label, "Frame Begin") == 0);
	CHECK(!s.timestamps && !s.pipeline_statistics && s.per_draw_timing && !s.diagnostics && !s.barrier_cost);
	CHECK(strcmp(s.cpu_counters, "cycles,instructions") == 0);
	CHECK(s.report_frames == 100000 && s.flush_interval_ms == 100);
	CHECK(!s.trace && !s.csv && !s.summary);
	env_free(&e);

	/* The other spellings, and the other ends of the ranges. */
	static const char *const on[] = { "true", "TRUE", "on", "On", "yes", "YES", "1" };
	static const char *const off[] = { "false", "off", "no", "0", "nO" };
	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
		env_base(&e);
		env_add(&e, PP_SETTINGS_ENV_PREFIX "PER_DRAW_TIMING=%s", on[i]);
		CHECK(load(&s, &e) == 0 && s.per_draw_timing);
		env_free(&e);
	}
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		env_base(&e);
		env_add(&e, PP_SETTINGS_ENV_PREFIX "TIMESTAMPS=%s", off[i]);
		CHECK(load(&s, &e) == 0 && !s.timestamps);
		env_free(&e);
	}
	/* copy_results is a switch: auto, or any boolean spelling. */
	static const struct {
		const char *v;
		enum pp_switch want;
	} switches[] = { { "auto", PP_SWITCH_AUTO }, { "AUTO", PP_SWITCH_AUTO }, { "on", PP_SWITCH_ON },
			 { "1", PP_SWITCH_ON }, { "off", PP_SWITCH_OFF }, { "No", PP_SWITCH_OFF } };
	for (size_t i = 0; i < sizeof(switches) / sizeof(switches[0]); i++) {
		env_base(&e);
		env_add(&e, PP_SETTINGS_ENV_PREFIX "COPY_RESULTS=%s", switches[i].v);
		CHECK(load(&s, &e) == 0 && s.copy_results == switches[i].want);
		env_free(&e);
	}
	/* experiment: a word, any case */
	static const struct {
		const char *v;
		enum pp_experiment want;
	} experiments[] = { { "off", PP_EXPERIMENT_OFF }, { "OFF", PP_EXPERIMENT_OFF },
			    { "barrier-fixes", PP_EXPERIMENT_BARRIER_FIXES }, { "Barrier-Fixes", PP_EXPERIMENT_BARRIER_FIXES } };
	for (size_t i = 0; i < sizeof(experiments) / sizeof(experiments[0]); i++) {
		env_base(&e);
		env_add(&e, PP_SETTINGS_ENV_PREFIX "EXPERIMENT=%s", experiments[i].v);
		CHECK(load(&s, &e) == 0 && s.experiment == experiments[i].want);
		env_free(&e);
	}
	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "REPORT_FRAMES=0001");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "FLUSH_INTERVAL_MS=600000");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "FRAME_DELIMITER=submit");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "LOG_LEVEL=error");
	CHECK(load(&s, &e) == 0 && s.report_frames == 1 && s.flush_interval_ms == 600000);
	CHECK(s.frame_delimiter == PP_FRAME_SUBMIT && s.log_level == PP_LOG_ERROR);
	env_free(&e);

	/* A 127-byte label is the longest allowed. */
	char label[200];
	memset(label, 'L', 127);
	label[127] = '\0';
	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "FRAME_DELIMITER=label:%s", label);
	CHECK(load(&s, &e) == 0 && s.frame_delimiter == PP_FRAME_LABEL && strcmp(s.frame_label, label) == 0);
	env_free(&e);
}

static void test_precedence(void)
{
	struct pp_settings s;
	struct envb e;
	char path[256];

	snprintf(path, sizeof(path), "%s/vk_layer_settings.txt", g_cwd);
	write_text(path, "passprobe_profiler.log_level = info\n"
			 "passprobe_profiler.report_frames = 50\n"
			 "passprobe_profiler.timestamps = off\n"
			 "passprobe_profiler.output_dir = /from/file\n"
			 "passprobe_profiler.frame_delimiter = present\n");
	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "LOG_LEVEL=debug");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "OUTPUT_DIR=/from/env");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "CSV=off");
	CHECK(load(&s, &e) == 0);
	CHECK(g_nlines == 0);
	CHECK(s.log_level == PP_LOG_DEBUG);             /* env over file */
	CHECK(strcmp(s.output_dir, "/from/env") == 0); /* env over file */
	CHECK(s.report_frames == 50);                  /* file over default */
	CHECK(!s.timestamps);                          /* file over default */
	CHECK(s.frame_delimiter == PP_FRAME_PRESENT);  /* file over default */
	CHECK(!s.csv);                                 /* env over default */
	CHECK(s.summary && s.flush_interval_ms == 1000); /* untouched: default */
	env_free(&e);

	/* A bad env value falls back to the file's valid value, and says so. */
	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "REPORT_FRAMES=lots");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "LOG_LEVEL=loud");
	CHECK(load(&s, &e) == 2);
	CHECK(s.report_frames == 50 && s.log_level == PP_LOG_INFO);
	CHECK(g_nlines == 2);
	/* Messages follow the key table's order: log_level before report_frames. */
	CHECK(strstr(g_lines[0], "VK_PASSPROBE_PROFILER_LOG_LEVEL=\"loud\" is not a valid log_level; "
				 "allowed: error, warn, info, debug; using \"info\" from ./vk_layer_settings.txt:1") != NULL);
	CHECK(strstr(g_lines[1], "VK_PASSPROBE_PROFILER_REPORT_FRAMES=\"lots\" is not a valid report_frames "
				 "(not a decimal integer); allowed: a decimal integer from 1 to 100000; "
				 "using \"50\" from ./vk_layer_settings.txt:2") != NULL);
	env_free(&e);
	unlink(path);

	/* Without the file, the same bad value falls back to the default; this is the header's
	 * sample message, word for word. */
	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "LOG_LEVEL=loud");
	CHECK(load(&s, &e) == 1);
	CHECK(s.log_level == PP_LOG_WARN);
	CHECK(g_nlines == 1 && strcmp(g_lines[0], "passprobe: warning: VK_PASSPROBE_PROFILER_LOG_LEVEL=\"loud\" is "
						  "not a valid log_level; allowed: error, warn, info, debug; using "
						  "the default \"warn\"") == 0);
	env_free(&e);
}

static void test_file_search(void)
{
	struct pp_settings s;
	struct envb e;
	char lsp_in_dir[256], xdg_file[256], home_file[256], cwd_file[256];

	snprintf(lsp_in_dir, sizeof(lsp_in_dir), "%s/vk_layer_settings.txt", g_lsp_dir);
	snprintf(xdg_file, sizeof(xdg_file), "%s/vulkan/settings.d/vk_layer_settings.txt", g_xdg);
	snprintf(home_file, sizeof(home_file), "%s/.local/share/vulkan/settings.d/vk_layer_settings.txt", g_home);
	snprintf(cwd_file, sizeof(cwd_file), "%s/vk_layer_settings.txt", g_cwd);
	/* Each file sets report_frames to tell them apart, and one key the others do not set,
	 * to show that only the first file found is read (no merging). */
	write_text(g_lsp_file, "passprobe_profiler.report_frames = 1\n");
	write_text(lsp_in_dir, "passprobe_profiler.report_frames = 2\npassprobe_profiler.trace = off\n");
	write_text(xdg_file, "passprobe_profiler.report_frames = 3\npassprobe_profiler.csv = off\n");
	write_text(home_file, "passprobe_profiler.report_frames = 4\npassprobe_profiler.summary = off\n");
	write_text(cwd_file, "passprobe_profiler.report_frames = 5\npassprobe_profiler.diagnostics = off\n");

	/* VK_LAYER_SETTINGS_PATH naming the file itself. */
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
	env_add(&e, "XDG_DATA_HOME=%s", g_xdg);
	CHECK(load(&s, &e) == 0 && s.report_frames == 1);
	CHECK(s.trace && s.csv && s.summary && s.diagnostics);
	env_free(&e);

	/* VK_LAYER_SETTINGS_PATH naming a directory. */
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_dir);
	env_add(&e, "XDG_DATA_HOME=%s", g_xdg);
	CHECK(load(&s, &e) == 0 && s.report_frames == 2 && !s.trace);
	CHECK(s.csv && s.summary && s.diagnostics);
	env_free(&e);

	/* VK_LAYER_SETTINGS_PATH naming nothing that exists: the search goes on to XDG_DATA_HOME. */
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s/does-not-exist", g_root);
	env_add(&e, "XDG_DATA_HOME=%s", g_xdg);
	CHECK(load(&s, &e) == 0 && s.report_frames == 3 && !s.csv);
	CHECK(s.trace && s.summary && s.diagnostics);
	env_free(&e);

	/* XDG_DATA_HOME set: $HOME/.local/share is not consulted even when XDG has no file. */
	env_base(&e);
	env_add(&e, "XDG_DATA_HOME=%s", g_xdg);
	CHECK(load(&s, &e) == 0 && s.report_frames == 3);
	env_free(&e);
	unlink(xdg_file);
	env_base(&e);
	env_add(&e, "XDG_DATA_HOME=%s", g_xdg);
	CHECK(load(&s, &e) == 0 && s.report_frames == 5 && !s.diagnostics);
	CHECK(s.summary);
	env_free(&e);

	/* No XDG_DATA_HOME: $HOME/.local/share/vulkan/settings.d. */
	env_base(&e);
	CHECK(load(&s, &e) == 0 && s.report_frames == 4 && !s.summary);
	CHECK(s.diagnostics);
	env_free(&e);
	unlink(home_file);

	/* Then the working directory. */
	env_base(&e);
	CHECK(load(&s, &e) == 0 && s.report_frames == 5 && !s.diagnostics);
	env_free(&e);
	unlink(cwd_file);

	/* Empty VK_LAYER_SETTINGS_PATH is as good as unset. */
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=");
	CHECK(load(&s, &e) == 0 && s.report_frames == 300);
	env_free(&e);

	/* A directory where the file should be is found, reported once, and ends the search:
	 * the working directory's file is not read. */
	mkdir_p(xdg_file);
	write_text(cwd_file, "passprobe_profiler.report_frames = 5\n");
	env_base(&e);
	env_add(&e, "XDG_DATA_HOME=%s", g_xdg);
	CHECK(load(&s, &e) == 1 && s.report_frames == 300);
	CHECK(one_msg_has("settings.d/vk_layer_settings.txt: not a regular file; using the environment and "
			  "defaults only", NULL));
	env_free(&e);
	rmdir(xdg_file);
	unlink(cwd_file);

	/* A FIFO must neither hang nor be read. */
	if (mkfifo(cwd_file, 0600) == 0) {
		env_base(&e);
		CHECK(load(&s, &e) == 1);
		CHECK(one_msg_has("./vk_layer_settings.txt: not a regular file", NULL));
		env_free(&e);
		unlink(cwd_file);
	}
	unlink(g_lsp_file);
	unlink(lsp_in_dir);
}

/* One bad value, given through the environment and through a file: each time exactly one
 * message naming the key, the value's source, the allowed values and the fallback, and the
 * setting keeps its default. */
struct bad_case {
	const char *key;
	const char *value;
	const char *reason; /* a piece of the "(why)", or NULL */
};

static void check_bad(const struct bad_case *c, bool via_file)
{
	struct pp_settings s, d;
	struct envb e;
	char src[512], def[200], got[200], quoted_default[220];
	char *line = NULL;
	int problems;

	pp_settings_defaults(&d);
	fmt(&d, c->key, def, sizeof(def));
	snprintf(quoted_default, sizeof(quoted_default), "using the default \"%s\"", def);
	env_base(&e);
	if (via_file) {
		if (asprintf(&line, "passprobe_profiler.%s = %s\n", c->key, c->value) < 0)
			exit(2);
		if (strlen(line) > PP_SETTINGS_MAX_LINE + 1) { /* that is the long-line case */
			free(line);
			env_free(&e);
			return;
		}
		write_text(g_lsp_file, line);
		env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
		snprintf(src, sizeof(src), "%s:1: passprobe_profiler.%s = ", g_lsp_file, c->key);
	} else {
		char name[96];
		env_name(c->key, name, sizeof(name));
		env_add(&e, "%s=%s", name, c->value);
		snprintf(src, sizeof(src), "%s=", name);
	}
	problems = load(&s, &e);
	fmt(&s, c->key, got, sizeof(got));
	if (problems != 1 || strcmp(got, def) != 0 ||
	    !one_msg_has(src, "is not a valid", c->key, "; allowed: ", pp_settings_allowed(c->key), quoted_default,
			 c->reason ? c->reason : "", NULL)) {
		check_failed++;
		fprintf(stderr, "bad value case failed: %s = \"%s\" via %s (problems %d, value \"%s\")\n", c->key,
			c->value, via_file ? "file" : "env", problems, got);
		log_dump();
	} else {
		check_passed++;
	}
	/* Short printable values appear in full, quoted. */
	if (strlen(c->value) < 40 && !strpbrk(c->value, "\x01\t\"\\\x7f\x1b") && g_nlines == 1) {
		char want[600];
		size_t vn = strlen(c->value);
		const char *v = c->value;
		while (vn && (*v == ' ')) {
			v++;
			vn--;
		}
		while (vn && v[vn - 1] == ' ')
			vn--;
		snprintf(want, sizeof(want), "%s\"%.*s\" is not a valid %s", src, (int)vn, v, c->key);
		CHECK(strstr(g_lines[0], want) != NULL);
	}
	if (via_file)
		unlink(g_lsp_file);
	free(line);
	env_free(&e);
}

static void test_bad_values(void)
{
	static char long_path[PATH_MAX + 10], long_label[200], long_counters[600], long_pct[PATH_MAX];
	const char *const bools[] = { "timestamps", "pipeline_statistics", "per_draw_timing", "diagnostics",
				      "barrier_cost", "trace", "csv", "summary", "copy_results" };

	memset(long_path, 'd', PATH_MAX);
	long_path[0] = '/';
	long_path[PATH_MAX] = '\0'; /* 4096 bytes: one too many */
	snprintf(long_label, sizeof(long_label), "label:");
	memset(long_label + 6, 'x', 128);
	long_label[6 + 128] = '\0';
	memset(long_counters, 'c', 512);
	long_counters[512] = '\0';

	const struct bad_case cases[] = {
		{ "log_level", "loud", NULL },
		{ "log_level", "warning", NULL },
		{ "log_level", "", "empty" },
		{ "log_level", "   ", "empty" },
		{ "log_level", "in\x01" "fo", "control character" },
		{ "frame_delimiter", "vsync", NULL },
		{ "frame_delimiter", "label:", "label name is empty" },
		{ "frame_delimiter", "label", NULL },
		{ "frame_delimiter", long_label, "label name is too long: 128 bytes, at most 127" },
		{ "frame_delimiter", "label:a\tb", "control character" },
		{ "frame_delimiter", "", "empty" },
		{ "report_frames", "0", "out of range" },
		{ "report_frames", "100001", "out of range" },
		{ "report_frames", "-5", "not a decimal integer" },
		{ "report_frames", "+5", "not a decimal integer" },
		{ "report_frames", "12abc", "not a decimal integer" },
		{ "report_frames", "1 000", "not a decimal integer" },
		{ "report_frames", "0x10", "not a decimal integer" },
		{ "report_frames", "1.5", "not a decimal integer" },
		{ "report_frames", "99999999999999999999999", "too large" },
		{ "report_frames", "4294967296", "too large" },
		{ "report_frames", "", "empty" },
		{ "report_frames", "5 # five", "not a decimal integer" }, /* no trailing comments */
		{ "flush_interval_ms", "99", "out of range" },
		{ "flush_interval_ms", "600001", "out of range" },
		{ "flush_interval_ms", "4294967295", "out of range" },
		{ "flush_interval_ms", "18446744073709551616", "too large" },
		{ "flush_interval_ms", "1s", "not a decimal integer" },
		{ "output_dir", "", "empty" },
		{ "output_dir", long_path, "too long: 4096 bytes, at most 4095" },
		{ "output_dir", "/tmp/a\x01" "b", "control character" },
		{ "output_dir", "/tmp/a\x7f" "b", "control character" },
		{ "cpu_counters", "", "empty" },
		{ "cpu_counters", long_counters, "too long: 512 bytes, at most 511" },
		{ "cpu_counters", "cycles,\x1b[31m", "control character" },
		{ "experiment", "on", NULL },
		{ "experiment", "barrier_fixes", NULL },
		{ "experiment", "barrier-fixes,more", NULL },
		{ "experiment", "", "empty" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		check_bad(&cases[i], false);
		check_bad(&cases[i], true);
	}
	const char *const bad_bools[] = { "maybe", "2", "", "truee", "enabled", "y", "-1" };
	/* "auto" is for switches only. */
	const struct bad_case auto_bool = { "timestamps", "auto", NULL };
	check_bad(&auto_bool, false);
	check_bad(&auto_bool, true);
	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		for (size_t j = 0; j < sizeof(bad_bools) / sizeof(bad_bools[0]); j++) {
			struct bad_case c = { bools[i], bad_bools[j], bad_bools[j][0] ? NULL : "empty" };
			check_bad(&c, false);
			check_bad(&c, true);
		}
	}

	/* A value that fits but whose %p expansion does not. Needs a pid of 3+ digits, since
	 * "%p" is 2 bytes. */
	char pid[24];
	int pid_len = snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (pid_len >= 3) {
		size_t k = 2000, len = 0;
		for (size_t i = 0; i < k; i++) {
			memcpy(long_pct + len, "%p", 2);
			len += 2;
		}
		while (len < PATH_MAX - 1)
			long_pct[len++] = 'z';
		long_pct[len] = '\0';
		struct bad_case c = { "output_dir", long_pct, "too long after %p expansion" };
		check_bad(&c, false);
	} else {
		printf("note: pid %s too short to test an overlong %%p expansion\n", pid);
	}
}

static void test_expansion(void)
{
	struct pp_settings s;
	struct envb e;
	char want[256];

	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "OUTPUT_DIR=/tmp/run-%%p/x%%p");
	CHECK(load(&s, &e) == 0);
	snprintf(want, sizeof(want), "/tmp/run-%ld/x%ld", (long)getpid(), (long)getpid());
	CHECK(strcmp(s.output_dir, want) == 0);
	env_free(&e);

	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "OUTPUT_DIR=100%%%% %%%%p %%q %%");
	CHECK(load(&s, &e) == 0);
	CHECK(strcmp(s.output_dir, "100% %p %q %") == 0);
	env_free(&e);

	/* The file's value is expanded too. */
	write_text(g_lsp_file, "passprobe_profiler.output_dir = out-%p\n");
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
	CHECK(load(&s, &e) == 0);
	snprintf(want, sizeof(want), "out-%ld", (long)getpid());
	CHECK(strcmp(s.output_dir, want) == 0);
	env_free(&e);
	unlink(g_lsp_file);
}

static void test_unknown_keys(void)
{
	struct pp_settings s, d;
	struct envb e;
	const char *const *keys = pp_settings_keys();
	char where[300];

	pp_settings_defaults(&d);
	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "FOO=1");
	env_add(&e, "VK_OTHER_LAYER_FOO=1"); /* not ours: silent */
	CHECK(load(&s, &e) == 1);
	CHECK(one_msg_has("VK_PASSPROBE_PROFILER_FOO=\"1\" is not a known setting; known keys: ", "; ignored", NULL));
	for (int i = 0; keys[i]; i++)
		CHECK(g_nlines == 1 && strstr(g_lines[0], keys[i]) != NULL);
	CHECK(memcmp(&s, &d, sizeof(s)) == 0);
	env_free(&e);

	/* Case matters in environment names; the message points at the right one. */
	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "log_level=debug");
	CHECK(load(&s, &e) == 1 && s.log_level == PP_LOG_WARN);
	CHECK(one_msg_has("VK_PASSPROBE_PROFILER_log_level=\"debug\" is not a known setting",
			  "did you mean VK_PASSPROBE_PROFILER_LOG_LEVEL?", NULL));
	env_free(&e);

	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "=x");
	CHECK(load(&s, &e) == 1);
	CHECK(one_msg_has("VK_PASSPROBE_PROFILER_=\"x\" is not a known setting", NULL));
	env_free(&e);

	/* From a file, with the line number. */
	write_text(g_lsp_file, "# comment\n\npassprobe_profiler.bogus = 1\npassprobe_profiler.Report_Frames = 9\n");
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
	CHECK(load(&s, &e) == 2 && s.report_frames == 300);
	snprintf(where, sizeof(where), "%s:3: passprobe_profiler.bogus = \"1\" is not a known setting; known keys: ",
		 g_lsp_file);
	CHECK(g_nlines == 2 && strstr(g_lines[0], where) && strstr(g_lines[0], "; line ignored"));
	for (int i = 0; keys[i]; i++)
		CHECK(g_nlines == 2 && strstr(g_lines[0], keys[i]) != NULL);
	snprintf(where, sizeof(where), "%s:4: passprobe_profiler.Report_Frames = \"9\" is not a known setting "
		 "(did you mean passprobe_profiler.report_frames?)", g_lsp_file);
	CHECK(g_nlines == 2 && strstr(g_lines[1], where));
	env_free(&e);
	unlink(g_lsp_file);
}

static void test_file_syntax(void)
{
	struct pp_settings s;
	struct envb e;
	char want[400];

	write_text(g_lsp_file,
		   "# vk_layer_settings.txt for a test\n"
		   "\n"
		   "   \t\n"
		   "khronos_validation.enables = VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT\n"
		   "khronos_validation.no_equals_here\n"
		   "other.report_frames = 1\n"
		   "  # passprobe_profiler.report_frames = 2\n"
		   "passprobe_profiler_report_frames = 3\n"
		   "   passprobe_profiler.report_frames\t=\t 42  \r\n"
		   "passprobe_profiler.timestamps off\n"
		   "passprobe_profiler.frame_delimiter=label:a = b\n"
		   "passprobe_profiler.csv = off");
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
	CHECK(load(&s, &e) == 1);
	CHECK(s.report_frames == 42);
	CHECK(s.timestamps);
	CHECK(s.frame_delimiter == PP_FRAME_LABEL && strcmp(s.frame_label, "a = b") == 0);
	CHECK(!s.csv); /* last line without a newline still counts */
	snprintf(want, sizeof(want), "%s:10: \"passprobe_profiler.timestamps off\" has no \"=\"", g_lsp_file);
	CHECK(one_msg_has(want, "line ignored", NULL));
	env_free(&e);

	/* A key given twice: the later valid line wins; a later bad line falls back to the earlier. */
	write_text(g_lsp_file, "passprobe_profiler.report_frames = 7\n"
			       "passprobe_profiler.report_frames = 8\n"
			       "passprobe_profiler.report_frames = eight\n");
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
	CHECK(load(&s, &e) == 1 && s.report_frames == 8);
	snprintf(want, sizeof(want), "using \"8\" from %s:2", g_lsp_file);
	CHECK(one_msg_has(want, ":3: passprobe_profiler.report_frames = \"eight\"", NULL));
	env_free(&e);

	/* Long lines: ours are reported and skipped and the count of lines stays right; other
	 * layers' long lines are not our business. A line of exactly the limit is fine. */
	{
		size_t cap = 3 * 8192;
		char *text = malloc(cap), *p = text;
		if (!text)
			exit(2);
		p += sprintf(p, "passprobe_profiler.output_dir = /x");
		memset(p, 'y', 6000);
		p += 6000;
		*p++ = '\n';
		p += sprintf(p, "khronos_validation.message_id_filter = ");
		memset(p, 'z', 6000);
		p += 6000;
		*p++ = '\n';
		char *start = p;
		p += sprintf(p, "passprobe_profiler.cpu_counters = a");
		memset(p, ' ', PP_SETTINGS_MAX_LINE - (size_t)(p - start));
		p += PP_SETTINGS_MAX_LINE - (size_t)(p - start);
		*p++ = '\n';
		p += sprintf(p, "passprobe_profiler.report_frames = 12\n");
		write_file(g_lsp_file, text, (size_t)(p - text));
		free(text);
	}
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
	CHECK(load(&s, &e) == 1);
	CHECK(strcmp(s.output_dir, "passprobe-out") == 0);
	CHECK(strcmp(s.cpu_counters, "a") == 0);
	CHECK(s.report_frames == 12);
	snprintf(want, sizeof(want), "%s:1: line longer than 4096 bytes; line ignored", g_lsp_file);
	CHECK(one_msg_has(want, NULL));
	env_free(&e);

	/* A NUL byte inside one of our lines. */
	static const char nul_text[] = "passprobe_profiler.report_frames = 1\0002\npassprobe_profiler.csv = 0\n";
	write_file(g_lsp_file, nul_text, sizeof(nul_text) - 1);
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
	CHECK(load(&s, &e) == 1 && s.report_frames == 300 && !s.csv);
	CHECK(one_msg_has(":1: line contains a NUL byte; line ignored", NULL));
	env_free(&e);
	unlink(g_lsp_file);

	/* pp_settings_parse_text, as the fuzz target calls it. */
	pp_settings_defaults(&s);
	log_reset();
	const char *inline_text = "passprobe_profiler.trace = no\npassprobe_profiler.trace = x";
	CHECK(pp_settings_parse_text(&s, "inline", inline_text, strlen(inline_text)) == 1);
	CHECK(!s.trace);
	CHECK(one_msg_has("inline:2: passprobe_profiler.trace = \"x\"", NULL));
	CHECK(pp_settings_parse_text(&s, NULL, NULL, 0) == 0);
}

static long long read_rchar(void)
{
	char buf[512];
	FILE *f = fopen("/proc/self/io", "r");
	long long v = -1;

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		if (sscanf(buf, "rchar: %lld", &v) == 1)
			break;
	}
	fclose(f);
	return v;
}

static void test_big_files(void)
{
	struct pp_settings s;
	struct envb e;
	const size_t cap = PP_SETTINGS_MAX_FILE_BYTES, total = 2 * cap;
	char *text = malloc(total);
	size_t len = 0;
	long long before, after;

	if (!text)
		exit(2);
	len += (size_t)sprintf(text, "passprobe_profiler.report_frames = 11\n");
	/* Fill with comment lines up to 36 bytes before the cap, then a line that the cap cuts
	 * right after "= 3": applying the cut line would set 3. Past the cap, a line that must
	 * not be seen. */
	while (len + 64 < cap - 36) {
		memset(text + len, '#', 63);
		text[len + 63] = '\n';
		len += 64;
	}
	memset(text + len, '#', cap - 36 - len - 1);
	len = cap - 36;
	text[len - 1] = '\n';
	len += (size_t)sprintf(text + len, "passprobe_profiler.report_frames = 33\n");
	CHECK(memcmp(text + cap - 3, "= 3", 3) == 0);
	while (len + 64 < total - 64) {
		memset(text + len, '#', 63);
		text[len + 63] = '\n';
		len += 64;
	}
	len += (size_t)sprintf(text + len, "passprobe_profiler.report_frames = 22\n");
	write_file(g_lsp_file, text, len);

	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
	before = read_rchar();
	CHECK(load(&s, &e) == 1);
	after = read_rchar();
	CHECK(s.report_frames == 11);
	CHECK(one_msg_has("the file is larger than 1048576 bytes; only the lines in its first 1048576 bytes were read",
			  NULL));
	if (before >= 0 && after >= 0)
		CHECK(after - before <= (long long)(cap + 16384)); /* stopped near the cap */
	else
		printf("note: /proc/self/io unavailable; bytes read not checked\n");
	env_free(&e);

	/* Exactly the cap: read whole, no message, the last line (without newline) applies. */
	len = 0;
	while (len + 64 <= cap - 64) {
		memset(text + len, '#', 63);
		text[len + 63] = '\n';
		len += 64;
	}
	len += (size_t)sprintf(text + len, "passprobe_profiler.report_frames = 44");
	memset(text + len, ' ', cap - len);
	len = cap;
	write_file(g_lsp_file, text, len);
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
	CHECK(load(&s, &e) == 0 && s.report_frames == 44);
	CHECK(g_nlines == 0);
	env_free(&e);
	free(text);

	/* A sparse 1 GiB file: one message, done quickly, memory untouched. */
	int fd = open(g_lsp_file, O_WRONLY | O_TRUNC);
	if (fd >= 0 && ftruncate(fd, 1LL << 30) == 0) {
		close(fd);
		env_base(&e);
		env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
		CHECK(load(&s, &e) == 1);
		CHECK(one_msg_has("the file is larger than 1048576 bytes", NULL));
		env_free(&e);
	} else {
		if (fd >= 0)
			close(fd);
		printf("note: cannot make a sparse 1 GiB file; skipped\n");
	}
	unlink(g_lsp_file);
}

static void test_secure(void)
{
	struct pp_settings s, d;
	struct envb e;
	char home_file[256];

	pp_settings_defaults(&d);
	snprintf(home_file, sizeof(home_file), "%s/.local/share/vulkan/settings.d/vk_layer_settings.txt", g_home);
	write_text(g_lsp_file, "passprobe_profiler.report_frames = 9\n");
	write_text(home_file, "passprobe_profiler.report_frames = 8\n");
	write_text("vk_layer_settings.txt", "passprobe_profiler.report_frames = 7\n");
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
	env_add(&e, "XDG_DATA_HOME=%s", g_xdg);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "LOG_LEVEL=debug");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "OUTPUT_DIR=/attacker/chosen");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "BOGUS=1");

	/* This test binary is not set-uid, so the public call reads everything. */
	CHECK(load(&s, &e) == 1 && s.report_frames == 9 && s.log_level == PP_LOG_DEBUG);

	pp_log_set_level(PP_LOG_INFO);
	log_reset();
	CHECK(pp_settings_load_ex(&s, e.v, true) == 0);
	CHECK(memcmp(&s, &d, sizeof(s)) == 0);
	CHECK(g_nlines == 1 && g_levels[0] == PP_LOG_INFO && strstr(g_lines[0], "set-uid/set-gid") != NULL);
	log_reset();
	CHECK(pp_settings_load_ex(&s, e.v, true) == 0);
	CHECK(g_nlines == 0); /* logged once per process */
	CHECK(memcmp(&s, &d, sizeof(s)) == 0);
	pp_log_set_level(PP_LOG_WARN);
	env_free(&e);
	unlink(g_lsp_file);
	unlink(home_file);
	unlink("vk_layer_settings.txt");
}

static void test_apply(void)
{
	struct pp_settings s, d;
	char err[1024], small[8], buf[PATH_MAX];
	const char *const *keys = pp_settings_keys();

	pp_settings_defaults(&s);
	log_reset();
	CHECK(pp_settings_apply(&s, "report_frames", " 42 ", PP_ORIGIN_DEFAULT, err, sizeof(err)) == 0);
	CHECK(s.report_frames == 42 && err[0] == '\0');
	CHECK(pp_settings_apply(&s, "frame_delimiter", "label:vkFrame", PP_ORIGIN_DEFAULT, err, sizeof(err)) == 0);
	CHECK(s.frame_delimiter == PP_FRAME_LABEL && strcmp(s.frame_label, "vkFrame") == 0);
	CHECK(pp_settings_apply(&s, "frame_delimiter", "present", PP_ORIGIN_DEFAULT, err, sizeof(err)) == 0);
	CHECK(s.frame_delimiter == PP_FRAME_PRESENT && s.frame_label[0] == '\0');

	CHECK(pp_settings_apply(&s, "report_frames", "abc", PP_ORIGIN_DEFAULT, err, sizeof(err)) == -EINVAL);
	CHECK(s.report_frames == 42);
	CHECK(strcmp(err, "report_frames=\"abc\" is not a valid report_frames (not a decimal integer); allowed: "
			  "a decimal integer from 1 to 100000; keeping \"42\"") == 0);
	CHECK(pp_settings_apply(&s, "log_level", "loud", PP_ORIGIN_ENV, err, sizeof(err)) == -EINVAL);
	CHECK(strcmp(err, "VK_PASSPROBE_PROFILER_LOG_LEVEL=\"loud\" is not a valid log_level; allowed: error, warn, "
			  "info, debug; keeping \"warn\"") == 0);
	CHECK(pp_settings_apply(&s, "experiment", "yes", PP_ORIGIN_ENV, err, sizeof(err)) == -EINVAL);
	CHECK(strcmp(err, "VK_PASSPROBE_PROFILER_EXPERIMENT=\"yes\" is not a valid experiment; allowed: off, "
			  "barrier-fixes; keeping \"off\"") == 0);
	CHECK(s.experiment == PP_EXPERIMENT_OFF);
	CHECK(pp_settings_apply(&s, "csv", "maybe", PP_ORIGIN_FILE, err, sizeof(err)) == -EINVAL);
	const char *want_csv = "passprobe_profiler.csv = \"maybe\" is not a valid csv; allowed: true, false";
	CHECK(strncmp(err, want_csv, strlen(want_csv)) == 0);

	CHECK(pp_settings_apply(&s, "no_such_key", "1", PP_ORIGIN_DEFAULT, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "no_such_key=\"1\" is not a known setting; known keys: ") != NULL);
	for (int i = 0; keys[i]; i++)
		CHECK(strstr(err, keys[i]) != NULL);

	/* A tiny or missing err buffer is fine; err is always terminated. */
	CHECK(pp_settings_apply(&s, "report_frames", "0", PP_ORIGIN_DEFAULT, small, sizeof(small)) == -EINVAL);
	CHECK(strlen(small) == sizeof(small) - 1);
	CHECK(pp_settings_apply(&s, "report_frames", "0", PP_ORIGIN_DEFAULT, NULL, 0) == -EINVAL);
	CHECK(pp_settings_apply(&s, NULL, "0", PP_ORIGIN_DEFAULT, err, sizeof(err)) == -EINVAL && err[0]);
	CHECK(pp_settings_apply(&s, "csv", NULL, PP_ORIGIN_DEFAULT, err, sizeof(err)) == -EINVAL && err[0]);
	CHECK(pp_settings_apply(NULL, "csv", "on", PP_ORIGIN_DEFAULT, err, sizeof(err)) == -EINVAL && err[0]);
	CHECK(g_nlines == 0); /* apply reports through err, not the log */

	/* As the command line does: --set pairs over loaded settings, then each value shown. */
	const char *sets[][2] = { { "output_dir", "/tmp/pp" }, { "log_level", "info" }, { "summary", "off" },
				  { "cpu_counters", "none" }, { "flush_interval_ms", "250" },
				  { "experiment", "barrier-fixes" } };
	pp_settings_defaults(&s);
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		CHECK(pp_settings_apply(&s, sets[i][0], sets[i][1], PP_ORIGIN_DEFAULT, err, sizeof(err)) == 0);
	CHECK(strcmp(s.output_dir, "/tmp/pp") == 0 && s.log_level == PP_LOG_INFO && !s.summary);
	CHECK(strcmp(s.cpu_counters, "none") == 0 && s.flush_interval_ms == 250);
	CHECK(s.experiment == PP_EXPERIMENT_BARRIER_FIXES);

	/* format_value round-trips every key through apply. */
	pp_settings_defaults(&d);
	for (int i = 0; keys[i]; i++) {
		CHECK(pp_settings_format_value(&s, keys[i], buf, sizeof(buf)) > 0);
		CHECK(pp_settings_apply(&d, keys[i], buf, PP_ORIGIN_DEFAULT, err, sizeof(err)) == 0);
	}
	CHECK(memcmp(&s, &d, sizeof(s)) == 0);
	CHECK(pp_settings_format_value(&s, "bogus", buf, sizeof(buf)) == -EINVAL);
	CHECK(pp_settings_format_value(&s, "output_dir", small, 4) == -ENOSPC && strcmp(small, "/tm") == 0);
	CHECK(pp_settings_format_value(&s, "report_frames", buf, sizeof(buf)) == 3 && strcmp(buf, "300") == 0);
}

static void test_escaping(void)
{
	struct pp_settings s;
	struct envb e;
	char big[1000];

	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "LOG_LEVEL=a\nb\"c\\");
	CHECK(load(&s, &e) == 1);
	CHECK(one_msg_has("VK_PASSPROBE_PROFILER_LOG_LEVEL=\"a\\nb\\\"c\\\\\" is not a valid log_level",
			  "(contains a control character)", NULL));
	CHECK(g_nlines == 1 && !strchr(g_lines[0], '\n'));
	env_free(&e);

	memset(big, 'q', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "SUMMARY=%s", big);
	CHECK(load(&s, &e) == 1);
	/* Cut after 64 bytes, and the rest of the message still there. */
	char want[128];
	snprintf(want, sizeof(want), "=\"%.64s...\" is not a valid summary", big);
	CHECK(one_msg_has(want, "using the default \"true\"", NULL));
	CHECK(g_nlines == 1 && !strstr(g_lines[0], "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"));
	env_free(&e);

	/* An unknown name full of junk is escaped and cut as well. */
	env_base(&e);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "\x1b[2J%s=1", big);
	CHECK(load(&s, &e) == 1);
	CHECK(one_msg_has("VK_PASSPROBE_PROFILER_\\x1b[2Jqqq", "...=\"1\" is not a known setting", NULL));
	env_free(&e);
}

/* Loading from several threads at once gives the same answer each time (run under
 * ASan/TSan/valgrind, this is also the check that there is no shared mutable state). */
struct thread_arg {
	char **envp;
	const struct pp_settings *want;
	int mismatches;
};

static void *thread_load(void *p)
{
	struct thread_arg *a = p;
	struct pp_settings s;

	for (int i = 0; i < 50; i++) {
		if (pp_settings_load(&s, a->envp) != 1 || memcmp(&s, a->want, sizeof(s)) != 0)
			a->mismatches++;
	}
	return NULL;
}

static void test_threads(void)
{
	struct pp_settings want;
	struct envb e;
	pthread_t t[4];
	struct thread_arg args[4];

	write_text(g_lsp_file, "passprobe_profiler.report_frames = 77\npassprobe_profiler.trace = off\n");
	env_base(&e);
	env_add(&e, "VK_LAYER_SETTINGS_PATH=%s", g_lsp_file);
	env_add(&e, PP_SETTINGS_ENV_PREFIX "CSV=off");
	env_add(&e, PP_SETTINGS_ENV_PREFIX "FLUSH_INTERVAL_MS=1"); /* one problem per load */
	CHECK(load(&want, &e) == 1 && want.report_frames == 77 && !want.trace && !want.csv);
	log_reset();
	for (int i = 0; i < 4; i++) {
		args[i] = (struct thread_arg){ e.v, &want, 0 };
		CHECK(pthread_create(&t[i], NULL, thread_load, &args[i]) == 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK(args[i].mismatches == 0);
	}
	CHECK(g_nlines == 200);
	env_free(&e);
	unlink(g_lsp_file);
}

int main(void)
{
	check_on_fail = log_dump; /* a failed CHECK shows the log lines it was judged on */
	pp_log_set_callback(log_capture);
	pp_log_set_level(PP_LOG_WARN);
	tree_setup();

	test_defaults();
	test_valid_env_values();
	test_precedence();
	test_file_search();
	test_bad_values();
	test_expansion();
	test_unknown_keys();
	test_file_syntax();
	test_big_files();
	test_secure();
	test_apply();
	test_escaping();
	test_threads();

	tree_remove();
	pp_log_set_callback(NULL);
	return check_finish();
}
