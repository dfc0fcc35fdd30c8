/* passprobe settings: built-in defaults, vk_layer_settings.txt, VK_PASSPROBE_PROFILER_* and
 * --set pairs, all checked by one parser per key kind.
 *
 * This runs inside the application's process (often inside vkCreateInstance), so it allocates
 * nothing, reads a bounded amount of a file it does not trust, keeps no mutable static state
 * (apart from pp_log_once's flag) and never fails: every problem is one warning line and the
 * setting keeps its next lower-precedence valid value. */
#include "pp_settings.h"
#include "pp_settings_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

#define SETTINGS_FILE_NAME "vk_layer_settings.txt"
#define SETTINGS_XDG_SUBDIR "/vulkan/settings.d/" SETTINGS_FILE_NAME
#define SETTINGS_LABEL_PREFIX "label:"

/* Buffer sizes for message pieces. A quoted value shows at most PP_SETTINGS_MSG_VALUE_MAX
 * source bytes, each at most 4 bytes escaped ("\xHH"), plus quotes, "..." and the NUL. */
#define SETTINGS_QUOTE_CAP (PP_SETTINGS_MSG_VALUE_MAX * 4 + 8)
/* A file name in a message shows at most this many of its last bytes. */
#define SETTINGS_NAME_MAX 120
#define SETTINGS_NAME_CAP (SETTINGS_NAME_MAX * 4 + 8)
#define SETTINGS_MSG_CAP 1024
/* A value that is not stored as text, formatted: the longest is 16 frame ranges. */
#define SETTINGS_SMALL_CAP 704

enum settings_kind {
	SETTINGS_PATH,      /* output_dir: a path, %p expanded */
	SETTINGS_LOG_LEVEL, /* enum pp_log_level */
	SETTINGS_FRAME,     /* frame_delimiter and frame_label together */
	SETTINGS_BOOL,
	SETTINGS_SWITCH,    /* enum pp_switch: auto or a boolean word */
	SETTINGS_TEXT,      /* a string stored as given */
	SETTINGS_UINT,      /* uint32_t within [min, max] */
	SETTINGS_RANGES,    /* struct pp_frame_ranges: all, none, or a comma list of ranges */
	SETTINGS_OPT_PATH,  /* a path like output_dir, or none (stored as "") */
	SETTINGS_EXPERIMENT, /* enum pp_experiment */
};

struct settings_desc {
	const char *key;
	const char *env;
	enum settings_kind kind;
	size_t offset;
	size_t size;
	uint32_t min, max;
	const char *allowed;
};

#define SETTINGS_FIELD(f) offsetof(struct pp_settings, f), sizeof(((struct pp_settings *)0)->f)
#define SETTINGS_BOOL_ALLOWED "true, false, on, off, yes, no, 1, 0 (any case)"
#define SETTINGS_BOOL_DESC(name, env_name) \
	{ #name, PP_SETTINGS_ENV_PREFIX env_name, SETTINGS_BOOL, SETTINGS_FIELD(name), 0, 0, SETTINGS_BOOL_ALLOWED }

/* The allowed-values texts below spell out these limits. */
_Static_assert(PATH_MAX == 4096, "update the output_dir allowed text");
_Static_assert(sizeof(((struct pp_settings *)0)->frame_label) == 128, "update the frame_delimiter text");
_Static_assert(sizeof(((struct pp_settings *)0)->cpu_counters) == 512, "update the cpu_counters text");
_Static_assert(sizeof(((struct pp_settings *)0)->gpu_counters) == 512, "update the gpu_counters text");

static const struct settings_desc settings_table[] = {
	{ "output_dir", PP_SETTINGS_ENV_PREFIX "OUTPUT_DIR", SETTINGS_PATH, SETTINGS_FIELD(output_dir), 0, 0,
	  "a non-empty directory path of at most 4095 bytes without control characters "
	  "(%p becomes the process id, %% a single %)" },
	{ "log_level", PP_SETTINGS_ENV_PREFIX "LOG_LEVEL", SETTINGS_LOG_LEVEL, SETTINGS_FIELD(log_level), 0, 0,
	  "error, warn, info, debug" },
	{ "frame_delimiter", PP_SETTINGS_ENV_PREFIX "FRAME_DELIMITER", SETTINGS_FRAME,
	  SETTINGS_FIELD(frame_delimiter), 0, 0,
	  "auto, present, submit, label:<name> (name of 1 to 127 bytes, no control characters)" },
	SETTINGS_BOOL_DESC(timestamps, "TIMESTAMPS"),
	SETTINGS_BOOL_DESC(pipeline_statistics, "PIPELINE_STATISTICS"),
	SETTINGS_BOOL_DESC(per_draw_timing, "PER_DRAW_TIMING"),
	SETTINGS_BOOL_DESC(diagnostics, "DIAGNOSTICS"),
	SETTINGS_BOOL_DESC(barrier_cost, "BARRIER_COST"),
	{ "cpu_counters", PP_SETTINGS_ENV_PREFIX "CPU_COUNTERS", SETTINGS_TEXT, SETTINGS_FIELD(cpu_counters), 0, 0,
	  "default, none, or a comma-separated list of counter names (at most 511 bytes, no control characters)" },
	{ "report_frames", PP_SETTINGS_ENV_PREFIX "REPORT_FRAMES", SETTINGS_UINT, SETTINGS_FIELD(report_frames),
	  1, 100000, "a decimal integer from 1 to 100000" },
	{ "flush_interval_ms", PP_SETTINGS_ENV_PREFIX "FLUSH_INTERVAL_MS", SETTINGS_UINT,
	  SETTINGS_FIELD(flush_interval_ms), 100, 600000, "a decimal integer from 100 to 600000" },
	SETTINGS_BOOL_DESC(trace, "TRACE"),
	SETTINGS_BOOL_DESC(csv, "CSV"),
	SETTINGS_BOOL_DESC(summary, "SUMMARY"),
	{ "copy_results", PP_SETTINGS_ENV_PREFIX "COPY_RESULTS", SETTINGS_SWITCH, SETTINGS_FIELD(copy_results), 0, 0,
	  "auto, or " SETTINGS_BOOL_ALLOWED },
	{ "frames", PP_SETTINGS_ENV_PREFIX "FRAMES", SETTINGS_RANGES, SETTINGS_FIELD(frames), 0, 0,
	  "all, none, or a comma-separated list of at most 16 frame ranges in increasing order without "
	  "overlap, each FIRST-LAST, FIRST- (to the end), -LAST (from frame 0) or one frame N "
	  "(decimal frame indices from 0, FIRST <= LAST)" },
	SETTINGS_BOOL_DESC(capture_signal, "CAPTURE_SIGNAL"),
	{ "trigger_file", PP_SETTINGS_ENV_PREFIX "TRIGGER_FILE", SETTINGS_OPT_PATH, SETTINGS_FIELD(trigger_file), 0, 0,
	  "none, or a file path of at most 4095 bytes without control characters "
	  "(%p becomes the process id, %% a single %)" },
	{ "trigger_frames", PP_SETTINGS_ENV_PREFIX "TRIGGER_FRAMES", SETTINGS_UINT, SETTINGS_FIELD(trigger_frames),
	  1, 1000000, "a decimal integer from 1 to 1000000" },
	{ "gpu_timing_interval", PP_SETTINGS_ENV_PREFIX "GPU_TIMING_INTERVAL", SETTINGS_UINT,
	  SETTINGS_FIELD(gpu_timing_interval), 1, 100000, "a decimal integer from 1 to 100000" },
	{ "output_limit_mb", PP_SETTINGS_ENV_PREFIX "OUTPUT_LIMIT_MB", SETTINGS_UINT, SETTINGS_FIELD(output_limit_mb),
	  0, 1048576, "a decimal integer from 0 (no limit) to 1048576" },
	{ "gpu_counters", PP_SETTINGS_ENV_PREFIX "GPU_COUNTERS", SETTINGS_TEXT, SETTINGS_FIELD(gpu_counters), 0, 0,
	  "none, default, or a comma-separated list of GPU counter names (at most 511 bytes, no control characters)" },
	SETTINGS_BOOL_DESC(finish_on_signal, "FINISH_ON_SIGNAL"),
	{ "renderdoc_frames", PP_SETTINGS_ENV_PREFIX "RENDERDOC_FRAMES", SETTINGS_RANGES,
	  SETTINGS_FIELD(renderdoc_frames), 0, 0,
	  "none, all, or a comma-separated list of at most 16 frame ranges in increasing order without "
	  "overlap, each FIRST-LAST, FIRST- (to the end), -LAST (from frame 0) or one frame N "
	  "(decimal frame indices from 0, FIRST <= LAST)" },
	SETTINGS_BOOL_DESC(layer_passes, "LAYER_PASSES"),
	{ "experiment", PP_SETTINGS_ENV_PREFIX "EXPERIMENT", SETTINGS_EXPERIMENT, SETTINGS_FIELD(experiment), 0, 0,
	  "off, barrier-fixes" },
};

#define SETTINGS_COUNT (sizeof(settings_table) / sizeof(settings_table[0]))

/* pp_settings_keys() hands out a plain string array; it must list settings_table in order. */
static const char *const settings_key_names[] = {
	"output_dir", "log_level", "frame_delimiter", "timestamps", "pipeline_statistics",
	"per_draw_timing", "diagnostics", "barrier_cost", "cpu_counters", "report_frames",
	"flush_interval_ms", "trace", "csv", "summary", "copy_results", "frames", "capture_signal",
	"trigger_file", "trigger_frames", "gpu_timing_interval", "output_limit_mb", "gpu_counters",
	"finish_on_signal", "renderdoc_frames", "layer_passes", "experiment", NULL,
};
_Static_assert(sizeof(settings_key_names) / sizeof(settings_key_names[0]) == SETTINGS_COUNT + 1,
	       "settings_key_names and settings_table disagree");

static const char *const settings_log_level_names[] = { "error", "warn", "info", "debug" };
static const char *const settings_frame_names[] = { "auto", "present", "submit" };
static const char *const settings_experiment_names[] = { "off", "barrier-fixes" };

/* Where each setting's current value came from while loading, for the fallback in messages. */
struct settings_origin_rec {
	enum pp_setting_origin origin;
	unsigned long line;
};

struct settings_load_ctx {
	struct pp_settings *s;
	struct settings_origin_rec origins[SETTINGS_COUNT];
	char file_name[SETTINGS_NAME_CAP]; /* display form of the settings file read, if any */
	int problems;
};

static void settings_display_name(char *dst, size_t cap, const char *name)
{
	size_t n = strlen(name), len = 0;

	dst[0] = '\0';
	if (n > SETTINGS_NAME_MAX) {
		memcpy(dst, "...", 4);
		len = 3;
		name += n - SETTINGS_NAME_MAX;
		n = SETTINGS_NAME_MAX;
	}
	for (size_t i = 0; i < n; i++) {
		if (!pp_settings_text_escape_char(dst, cap, &len, (unsigned char)name[i], false))
			break;
	}
}

static void settings_known_keys(char *dst, size_t cap)
{
	size_t len = 0;

	dst[0] = '\0';
	for (size_t i = 0; i < SETTINGS_COUNT; i++) {
		int w = snprintf(dst + len, cap - len, "%s%s", i ? ", " : "", settings_table[i].key);
		if (w < 0 || (size_t)w >= cap - len)
			return;
		len += (size_t)w;
	}
}

/* ---- the table ---- */

static const struct settings_desc *settings_find(const char *key, size_t n)
{
	for (size_t i = 0; i < SETTINGS_COUNT; i++) {
		if (strlen(settings_table[i].key) == n && memcmp(settings_table[i].key, key, n) == 0)
			return &settings_table[i];
	}
	return NULL;
}

/* For "did you mean": a known key that differs only in case. */
static const struct settings_desc *settings_find_nocase(const char *key, size_t n)
{
	for (size_t i = 0; i < SETTINGS_COUNT; i++) {
		if (pp_settings_text_word_is(key, n, settings_table[i].key))
			return &settings_table[i];
	}
	return NULL;
}

static size_t settings_index(const struct settings_desc *d)
{
	return (size_t)(d - settings_table);
}

static void *settings_field(struct pp_settings *s, const struct settings_desc *d)
{
	return (char *)s + d->offset;
}

static const void *settings_cfield(const struct pp_settings *s, const struct settings_desc *d)
{
	return (const char *)s + d->offset;
}

/* ---- value parsers: each checks everything before it writes, so a bad value leaves *s as it
 * was. reason gets a short why (or "" when "not one of the allowed values" says it all). ---- */

static int settings_parse_uint(const struct settings_desc *d, const char *v, size_t n, uint32_t *out,
			       char *reason, size_t reason_len)
{
	uint64_t acc = 0;
	bool overflow = false;

	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9') {
			snprintf(reason, reason_len, "not a decimal integer");
			return -EINVAL;
		}
		/* Keep scanning after an overflow so trailing junk is still called junk. */
		if (!overflow) {
			acc = acc * 10 + (uint64_t)(v[i] - '0');
			if (acc > UINT32_MAX)
				overflow = true;
		}
	}
	if (overflow) {
		snprintf(reason, reason_len, "too large");
		return -EINVAL;
	}
	if (acc < d->min || acc > d->max) {
		snprintf(reason, reason_len, "out of range");
		return -EINVAL;
	}
	*out = (uint32_t)acc;
	return 0;
}

/* output_dir: expands %p (pid) and %% (a %); any other % stays as written. Measures first,
 * then writes, so a result longer than the field is rejected without touching it. */
static int settings_parse_path(char *field, size_t size, const char *v, size_t n, char *reason,
			       size_t reason_len)
{
	char pid[24];
	size_t pid_len, out_len = 0, i;

	pid_len = (size_t)snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (n > size - 1) {
		snprintf(reason, reason_len, "too long: %zu bytes, at most %zu", n, size - 1);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (v[i] == '%' && i + 1 < n && v[i + 1] == 'p') {
			out_len += pid_len;
			i++;
		} else if (v[i] == '%' && i + 1 < n && v[i + 1] == '%') {
			out_len++;
			i++;
		} else {
			out_len++;
		}
	}
	if (out_len > size - 1) {
		snprintf(reason, reason_len, "too long after %%p expansion: %zu bytes, at most %zu", out_len,
			 size - 1);
		return -EINVAL;
	}
	out_len = 0;
	for (i = 0; i < n; i++) {
		if (v[i] == '%' && i + 1 < n && v[i + 1] == 'p') {
			memcpy(field + out_len, pid, pid_len);
			out_len += pid_len;
			i++;
		} else if (v[i] == '%' && i + 1 < n && v[i + 1] == '%') {
			field[out_len++] = '%';
			i++;
		} else {
			field[out_len++] = v[i];
		}
	}
	field[out_len] = '\0';
	return 0;
}

static int settings_parse_frame(struct pp_settings *s, const char *v, size_t n, char *reason,
				size_t reason_len)
{
	const size_t plen = sizeof(SETTINGS_LABEL_PREFIX) - 1;

	for (size_t i = 0; i < sizeof(settings_frame_names) / sizeof(settings_frame_names[0]); i++) {
		if (pp_settings_text_word_is(v, n, settings_frame_names[i])) {
			s->frame_delimiter = (enum pp_frame_delimiter)i;
			s->frame_label[0] = '\0';
			return 0;
		}
	}
	if (n < plen || !pp_settings_text_word_is(v, plen, SETTINGS_LABEL_PREFIX))
		return -EINVAL;
	if (n == plen) {
		snprintf(reason, reason_len, "the label name is empty");
		return -EINVAL;
	}
	if (n - plen > sizeof(s->frame_label) - 1) {
		snprintf(reason, reason_len, "the label name is too long: %zu bytes, at most %zu", n - plen,
			 sizeof(s->frame_label) - 1);
		return -EINVAL;
	}
	s->frame_delimiter = PP_FRAME_LABEL;
	memcpy(s->frame_label, v + plen, n - plen);
	s->frame_label[n - plen] = '\0';
	return 0;
}

#define PP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The index of the word v[0..n) among names (an enum's names in its order), or -1. */
static int settings_word_index(const char *v, size_t n, const char *const *names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (pp_settings_text_word_is(v, n, names[i]))
			return (int)i;
	return -1;
}

/* Checks v[0..n) (already trimmed) for d and stores it in *s. 0 or -EINVAL with reason set. */
static int settings_value_parse(struct pp_settings *s, const struct settings_desc *d, const char *v,
				size_t n, char *reason, size_t reason_len)
{
	void *field = settings_field(s, d);

	reason[0] = '\0';
	if (n == 0) {
		snprintf(reason, reason_len, "empty");
		return -EINVAL;
	}
	if (pp_settings_text_has_control(v, n)) {
		snprintf(reason, reason_len, "contains a control character");
		return -EINVAL;
	}
	switch (d->kind) {
	case SETTINGS_PATH:
		return settings_parse_path(field, d->size, v, n, reason, reason_len);
	case SETTINGS_LOG_LEVEL: {
		int i = settings_word_index(v, n, settings_log_level_names, PP_ARRAY_LEN(settings_log_level_names));
		if (i < 0)
			return -EINVAL;
		*(enum pp_log_level *)field = (enum pp_log_level)i;
		return 0;
	}
	case SETTINGS_FRAME:
		return settings_parse_frame(s, v, n, reason, reason_len);
	case SETTINGS_EXPERIMENT: {
		int i = settings_word_index(v, n, settings_experiment_names, PP_ARRAY_LEN(settings_experiment_names));
		if (i < 0)
			return -EINVAL;
		*(enum pp_experiment *)field = (enum pp_experiment)i;
		return 0;
	}
	case SETTINGS_BOOL:
	case SETTINGS_SWITCH: {
		enum pp_switch w;
		if (pp_settings_text_word_is(v, n, "true") || pp_settings_text_word_is(v, n, "on") ||
		    pp_settings_text_word_is(v, n, "yes") || pp_settings_text_word_is(v, n, "1"))
			w = PP_SWITCH_ON;
		else if (pp_settings_text_word_is(v, n, "false") || pp_settings_text_word_is(v, n, "off") ||
			 pp_settings_text_word_is(v, n, "no") || pp_settings_text_word_is(v, n, "0"))
			w = PP_SWITCH_OFF;
		else if (d->kind == SETTINGS_SWITCH && pp_settings_text_word_is(v, n, "auto"))
			w = PP_SWITCH_AUTO;
		else
			return -EINVAL;
		if (d->kind == SETTINGS_BOOL)
			*(bool *)field = w == PP_SWITCH_ON;
		else
			*(enum pp_switch *)field = w;
		return 0;
	}
	case SETTINGS_TEXT:
		if (n > d->size - 1) {
			snprintf(reason, reason_len, "too long: %zu bytes, at most %zu", n, d->size - 1);
			return -EINVAL;
		}
		memcpy(field, v, n);
		((char *)field)[n] = '\0';
		return 0;
	case SETTINGS_UINT:
		return settings_parse_uint(d, v, n, (uint32_t *)field, reason, reason_len);
	case SETTINGS_RANGES:
		return pp_frame_ranges_parse(field, v, n, reason, reason_len);
	case SETTINGS_OPT_PATH:
		if (pp_settings_text_word_is(v, n, "none")) {
			((char *)field)[0] = '\0';
			return 0;
		}
		return settings_parse_path(field, d->size, v, n, reason, reason_len);
	}
	return -EINVAL;
}

/* Points (*p, *n) at key's current value as text; small holds values that are not strings. */
static void settings_value_view(const struct pp_settings *s, const struct settings_desc *d,
				char *small, size_t small_len, const char **p, size_t *n)
{
	const void *field = settings_cfield(s, d);
	int w = 0;

	*p = small;
	switch (d->kind) {
	case SETTINGS_PATH:
	case SETTINGS_TEXT:
		*p = field;
		*n = strnlen(field, d->size);
		return;
	case SETTINGS_LOG_LEVEL: {
		unsigned lvl = (unsigned)*(const enum pp_log_level *)field;
		w = snprintf(small, small_len, "%s", lvl < 4 ? settings_log_level_names[lvl] : "?");
		break;
	}
	case SETTINGS_FRAME:
		if (s->frame_delimiter == PP_FRAME_LABEL)
			w = snprintf(small, small_len, SETTINGS_LABEL_PREFIX "%.*s", (int)sizeof(s->frame_label),
				     s->frame_label);
		else
			w = snprintf(small, small_len, "%s",
				     (unsigned)s->frame_delimiter < 3 ? settings_frame_names[s->frame_delimiter] : "?");
		break;
	case SETTINGS_BOOL:
		w = snprintf(small, small_len, "%s", *(const bool *)field ? "true" : "false");
		break;
	case SETTINGS_EXPERIMENT: {
		unsigned e = (unsigned)*(const enum pp_experiment *)field;
		w = snprintf(small, small_len, "%s", e < 2 ? settings_experiment_names[e] : "?");
		break;
	}
	case SETTINGS_SWITCH: {
		enum pp_switch sw = *(const enum pp_switch *)field;
		w = snprintf(small, small_len, "%s", sw == PP_SWITCH_AUTO ? "auto" : sw == PP_SWITCH_ON ? "true" : "false");
		break;
	}
	case SETTINGS_UINT:
		w = snprintf(small, small_len, "%u", (unsigned)*(const uint32_t *)field);
		break;
	case SETTINGS_OPT_PATH:
		if (((const char *)field)[0]) {
			*p = field;
			*n = strnlen(field, d->size);
			return;
		}
		w = snprintf(small, small_len, "none");
		break;
	case SETTINGS_RANGES:
		w = (int)pp_frame_ranges_format(field, small, small_len);
		break;
	}
	*n = w < 0 ? 0 : ((size_t)w < small_len ? (size_t)w : small_len - 1);
}

/* ---- messages ---- */

static void settings_msg_bad_value(char *msg, size_t cap, const char *where, const struct settings_desc *d,
				   const char *v, size_t n, const char *reason, const char *fallback)
{
	char quoted[SETTINGS_QUOTE_CAP];

	pp_settings_text_quote(quoted, sizeof(quoted), v, n, true);
	snprintf(msg, cap, "%s%s is not a valid %s%s%s%s; allowed: %s; %s", where, quoted, d->key,
		 reason[0] ? " (" : "", reason, reason[0] ? ")" : "", d->allowed, fallback);
}

static void settings_msg_unknown(char *msg, size_t cap, const char *where, const char *v, size_t n,
				 const struct settings_desc *near, bool env, const char *tail)
{
	char quoted[SETTINGS_QUOTE_CAP], keys[512], hint[96] = "";

	pp_settings_text_quote(quoted, sizeof(quoted), v, n, true);
	settings_known_keys(keys, sizeof(keys));
	if (near)
		snprintf(hint, sizeof(hint), " (did you mean %s%s?)", env ? "" : PP_SETTINGS_FILE_PREFIX,
			 env ? near->env : near->key);
	snprintf(msg, cap, "%s%s is not a known setting%s; known keys: %s%s; %s", where, quoted, hint, keys,
		 env ? " (as " PP_SETTINGS_ENV_PREFIX "<KEY> in upper case)" : "", tail);
}

/* "using the default "x"" or "using "x" from file:line": what a rejected value falls back to. */
static void settings_fallback(const struct settings_load_ctx *ctx, const struct settings_desc *d, char *dst,
			      size_t cap)
{
	char small[SETTINGS_SMALL_CAP], quoted[SETTINGS_QUOTE_CAP];
	const struct settings_origin_rec *o = &ctx->origins[settings_index(d)];
	const char *p;
	size_t n;

	settings_value_view(ctx->s, d, small, sizeof(small), &p, &n);
	pp_settings_text_quote(quoted, sizeof(quoted), p, n, true);
	if (o->origin == PP_ORIGIN_FILE)
		snprintf(dst, cap, "using %s from %s:%lu", quoted, ctx->file_name, o->line);
	else
		snprintf(dst, cap, "using the default %s", quoted);
}

/* One key=value from the environment or a file line: parse, or log one warning and keep the
 * previous value. where is the message's opening ("NAME=" or "file:N: passprobe_profiler.k = "). */
static void settings_load_value(struct settings_load_ctx *ctx, const struct settings_desc *d, const char *v,
				size_t n, const char *where, enum pp_setting_origin origin, unsigned long line)
{
	char reason[128], fallback[SETTINGS_QUOTE_CAP + SETTINGS_NAME_CAP + 48], msg[SETTINGS_MSG_CAP];

	pp_settings_text_trim(&v, &n);
	if (settings_value_parse(ctx->s, d, v, n, reason, sizeof(reason)) == 0) {
		ctx->origins[settings_index(d)].origin = origin;
		ctx->origins[settings_index(d)].line = line;
		return;
	}
	settings_fallback(ctx, d, fallback, sizeof(fallback));
	settings_msg_bad_value(msg, sizeof(msg), where, d, v, n, reason, fallback);
	pp_log(PP_LOG_WARN, "%s", msg);
	ctx->problems++;
}

/* ---- settings file ---- */

struct settings_file_parser {
	struct settings_load_ctx *ctx;
	unsigned long line_no;
	size_t len;
	bool too_long;
	char line[PP_SETTINGS_MAX_LINE + 1];
};

static void settings_file_report(struct settings_file_parser *p, const char *what)
{
	pp_log(PP_LOG_WARN, "%s:%lu: %s", p->ctx->file_name, p->line_no, what);
	p->ctx->problems++;
}

/* One complete line (p->line[0..p->len), possibly only its first PP_SETTINGS_MAX_LINE bytes). */
static void settings_file_line(struct settings_file_parser *p)
{
	const size_t plen = sizeof(PP_SETTINGS_FILE_PREFIX) - 1;
	const char *s = p->line, *eq, *key, *val;
	size_t n = p->len, klen, vlen;
	char where[SETTINGS_NAME_CAP + SETTINGS_QUOTE_CAP + 64], keyq[SETTINGS_QUOTE_CAP], msg[SETTINGS_MSG_CAP];
	const struct settings_desc *d;

	pp_settings_text_trim(&s, &n);
	/* Other layers' lines, comments and blank lines are none of our business, even when
	 * malformed; only lines addressed to us are reported. */
	if (n < plen || memcmp(s, PP_SETTINGS_FILE_PREFIX, plen) != 0)
		return;
	if (p->too_long) {
		char what[96];
		snprintf(what, sizeof(what), "line longer than %d bytes; line ignored", PP_SETTINGS_MAX_LINE);
		settings_file_report(p, what);
		return;
	}
	if (memchr(s, '\0', n)) {
		settings_file_report(p, "line contains a NUL byte; line ignored");
		return;
	}
	eq = memchr(s, '=', n);
	if (!eq) {
		pp_settings_text_quote(keyq, sizeof(keyq), s, n, true);
		snprintf(msg, sizeof(msg), "%s has no \"=\" (expected " PP_SETTINGS_FILE_PREFIX
			 "<key> = <value>); line ignored", keyq);
		settings_file_report(p, msg);
		return;
	}
	key = s + plen;
	klen = (size_t)(eq - key);
	pp_settings_text_trim(&key, &klen);
	val = eq + 1;
	vlen = n - (size_t)(val - s);
	pp_settings_text_trim(&val, &vlen);

	pp_settings_text_quote(keyq, sizeof(keyq), key, klen, false);
	snprintf(where, sizeof(where), "%s:%lu: " PP_SETTINGS_FILE_PREFIX "%s = ", p->ctx->file_name, p->line_no,
		 keyq);
	d = settings_find(key, klen);
	if (!d) {
		settings_msg_unknown(msg, sizeof(msg), where, val, vlen, settings_find_nocase(key, klen), false,
				     "line ignored");
		pp_log(PP_LOG_WARN, "%s", msg);
		p->ctx->problems++;
		return;
	}
	settings_load_value(p->ctx, d, val, vlen, where, PP_ORIGIN_FILE, p->line_no);
}

static void settings_file_feed(struct settings_file_parser *p, const char *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n') {
			p->line_no++;
			p->line[p->len] = '\0';
			settings_file_line(p);
			p->len = 0;
			p->too_long = false;
		} else if (p->len < PP_SETTINGS_MAX_LINE) {
			p->line[p->len++] = data[i];
		} else {
			p->too_long = true;
		}
	}
}

/* A last line without a newline is still a line. */
static void settings_file_finish(struct settings_file_parser *p)
{
	if (p->len || p->too_long) {
		p->line_no++;
		p->line[p->len] = '\0';
		settings_file_line(p);
	}
	p->len = 0;
	p->too_long = false;
}

/* Reads at most PP_SETTINGS_MAX_FILE_BYTES of the open file fd. */
static void settings_file_read(struct settings_load_ctx *ctx, int fd)
{
	struct settings_file_parser parser = { .ctx = ctx };
	char chunk[2048];
	size_t total = 0;
	bool capped = false;

	for (;;) {
		size_t want = sizeof(chunk);
		ssize_t got;

		/* Ask for one byte past the cap so a file of exactly the cap is not called too big. */
		if (want > PP_SETTINGS_MAX_FILE_BYTES + 1 - total)
			want = PP_SETTINGS_MAX_FILE_BYTES + 1 - total;
		got = read(fd, chunk, want);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			char ebuf[128];
			pp_log(PP_LOG_WARN, "%s: read failed after %zu bytes: %s; the rest of the file is ignored",
			       ctx->file_name, total, strerror_r(errno, ebuf, sizeof(ebuf)));
			ctx->problems++;
			break;
		}
		if (got == 0)
			break;
		if (total + (size_t)got > PP_SETTINGS_MAX_FILE_BYTES) {
			settings_file_feed(&parser, chunk, PP_SETTINGS_MAX_FILE_BYTES - total);
			capped = true;
			break;
		}
		settings_file_feed(&parser, chunk, (size_t)got);
		total += (size_t)got;
	}
	if (capped) {
		/* The line cut by the cap is incomplete: drop it rather than half-apply it. */
		pp_log(PP_LOG_WARN, "%s: the file is larger than %u bytes; only the lines in its first %u bytes "
		       "were read", ctx->file_name, PP_SETTINGS_MAX_FILE_BYTES, PP_SETTINGS_MAX_FILE_BYTES);
		ctx->problems++;
		return;
	}
	settings_file_finish(&parser);
}

enum settings_open_result { SETTINGS_NOT_FOUND, SETTINGS_FOUND };

/* Tries one candidate file. A missing file lets the search go on; anything else there (read,
 * or reported as unreadable) ends it, so a file the user pointed at is never silently skipped. */
static enum settings_open_result settings_file_try(struct settings_load_ctx *ctx, const char *path)
{
	struct stat st;
	char ebuf[128];
	int fd;

	/* O_NONBLOCK: a FIFO planted at the path must not hang the application in open(). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return SETTINGS_NOT_FOUND;
	settings_display_name(ctx->file_name, sizeof(ctx->file_name), path);
	if (fd < 0) {
		pp_log(PP_LOG_WARN, "%s: cannot open the settings file: %s; using the environment and defaults only",
		       ctx->file_name, strerror_r(errno, ebuf, sizeof(ebuf)));
		ctx->problems++;
		return SETTINGS_FOUND;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		pp_log(PP_LOG_WARN, "%s: not a regular file; using the environment and defaults only", ctx->file_name);
		ctx->problems++;
		close(fd);
		return SETTINGS_FOUND;
	}
	pp_log(PP_LOG_DEBUG, "reading settings from %s", ctx->file_name);
	settings_file_read(ctx, fd);
	close(fd);
	return SETTINGS_FOUND;
}

static const char *settings_env_lookup(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (; envp && *envp; envp++) {
		if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	}
	return NULL;
}

/* Joins a + b into dst; false (and a message) when it does not fit. */
static bool settings_path_join(char *dst, size_t cap, const char *a, const char *b, const char *what,
			       struct settings_load_ctx *ctx)
{
	int w = snprintf(dst, cap, "%s%s", a, b);

	if (w >= 0 && (size_t)w < cap)
		return true;
	pp_log(PP_LOG_WARN, "%s is too long to form a settings file path (at most %zu bytes); not searched", what,
	       cap - 1);
	ctx->problems++;
	return false;
}

/* The search order of pp_settings.h; only the first file found is read. */
static void settings_file_search(struct settings_load_ctx *ctx, char *const *envp)
{
	char path[PATH_MAX];
	const char *v;
	struct stat st;

	v = settings_env_lookup(envp, "VK_LAYER_SETTINGS_PATH");
	if (v && *v) {
		const char *suffix = "";
		if (stat(v, &st) == 0 && S_ISDIR(st.st_mode))
			suffix = "/" SETTINGS_FILE_NAME;
		if (settings_path_join(path, sizeof(path), v, suffix, "VK_LAYER_SETTINGS_PATH", ctx) &&
		    settings_file_try(ctx, path) == SETTINGS_FOUND)
			return;
	}

	v = settings_env_lookup(envp, "XDG_DATA_HOME");
	if (v && *v) {
		if (settings_path_join(path, sizeof(path), v, SETTINGS_XDG_SUBDIR, "XDG_DATA_HOME", ctx) &&
		    settings_file_try(ctx, path) == SETTINGS_FOUND)
			return;
	} else {
		v = settings_env_lookup(envp, "HOME");
		if (v && *v &&
		    settings_path_join(path, sizeof(path), v, "/.local/share" SETTINGS_XDG_SUBDIR, "HOME", ctx) &&
		    settings_file_try(ctx, path) == SETTINGS_FOUND)
			return;
	}

	settings_file_try(ctx, "./" SETTINGS_FILE_NAME);
}

/* ---- environment ---- */

static void settings_env_apply(struct settings_load_ctx *ctx, char *const *envp)
{
	const size_t plen = sizeof(PP_SETTINGS_ENV_PREFIX) - 1;
	char where[SETTINGS_QUOTE_CAP + 8], msg[SETTINGS_MSG_CAP];

	/* Table order, first occurrence wins (as getenv does), so messages come in a stable order. */
	for (size_t i = 0; i < SETTINGS_COUNT; i++) {
		const struct settings_desc *d = &settings_table[i];
		const char *v = settings_env_lookup(envp, d->env);

		if (!v)
			continue;
		snprintf(where, sizeof(where), "%s=", d->env);
		settings_load_value(ctx, d, v, strlen(v), where, PP_ORIGIN_ENV, 0);
	}

	for (char *const *e = envp; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		const struct settings_desc *near = NULL;
		size_t nlen;
		bool known = false;

		if (!eq || strncmp(*e, PP_SETTINGS_ENV_PREFIX, plen) != 0)
			continue;
		nlen = (size_t)(eq - *e);
		for (size_t i = 0; i < SETTINGS_COUNT && !known; i++) {
			const char *env = settings_table[i].env;
			known = strlen(env) == nlen && memcmp(env, *e, nlen) == 0;
			if (!known && pp_settings_text_word_is(*e, nlen, env))
				near = &settings_table[i];
		}
		if (known)
			continue;
		pp_settings_text_quote(where, sizeof(where), *e, nlen, false);
		strncat(where, "=", sizeof(where) - strlen(where) - 1);
		settings_msg_unknown(msg, sizeof(msg), where, eq + 1, strlen(eq + 1), near, true, "ignored");
		pp_log(PP_LOG_WARN, "%s", msg);
		ctx->problems++;
	}
}

/* ---- public ---- */

void pp_settings_defaults(struct pp_settings *out)
{
	if (!out)
		return;
	memset(out, 0, sizeof(*out));
	snprintf(out->output_dir, sizeof(out->output_dir), "passprobe-out");
	out->log_level = PP_LOG_WARN;
	out->frame_delimiter = PP_FRAME_AUTO;
	out->timestamps = true;
	out->pipeline_statistics = true;
	out->per_draw_timing = false;
	out->diagnostics = true;
	out->barrier_cost = true;
	snprintf(out->cpu_counters, sizeof(out->cpu_counters), "default");
	out->report_frames = 300;
	out->flush_interval_ms = 1000;
	out->trace = true;
	out->csv = true;
	out->summary = true;
	out->copy_results = PP_SWITCH_AUTO;
	out->frames.n = 1;
	out->frames.r[0].first = 0;
	out->frames.r[0].last = PP_FRAME_INDEX_MAX;
	out->capture_signal = true;
	out->trigger_file[0] = '\0';
	out->trigger_frames = 100;
	out->gpu_timing_interval = 1;
	out->output_limit_mb = 256;
	snprintf(out->gpu_counters, sizeof(out->gpu_counters), "none");
	out->finish_on_signal = true;
	out->renderdoc_frames.n = 0;
	out->layer_passes = false;
	out->experiment = PP_EXPERIMENT_OFF;
}

int pp_settings_load_ex(struct pp_settings *out, char *const *envp, bool secure)
{
	struct settings_load_ctx ctx = { .s = out };

	if (!out)
		return -EINVAL;
	pp_settings_defaults(out);
	if (secure) {
		/* As the Vulkan loader does for set-uid programs: whoever runs them controls the
		 * environment and the working directory, and output_dir names where we write. */
		pp_log_once(PP_LOG_INFO, "set-uid/set-gid process: ignoring " PP_SETTINGS_ENV_PREFIX
			    "* variables and settings files; using the built-in defaults");
		return 0;
	}
	if (!envp)
		envp = environ;
	settings_file_search(&ctx, envp);
	settings_env_apply(&ctx, envp);
	return ctx.problems;
}

int pp_settings_load(struct pp_settings *out, char *const *envp)
{
	return pp_settings_load_ex(out, envp, getauxval(AT_SECURE) != 0);
}

int pp_settings_parse_text(struct pp_settings *s, const char *name, const char *text, size_t len)
{
	struct settings_load_ctx ctx = { .s = s };
	struct settings_file_parser parser = { .ctx = &ctx };

	if (!s || (!text && len))
		return -EINVAL;
	settings_display_name(ctx.file_name, sizeof(ctx.file_name), name ? name : "(text)");
	settings_file_feed(&parser, text, len);
	settings_file_finish(&parser);
	return ctx.problems;
}

int pp_settings_apply(struct pp_settings *s, const char *key, const char *value, enum pp_setting_origin origin,
		      char *err, size_t err_len)
{
	char local[SETTINGS_MSG_CAP], where[SETTINGS_QUOTE_CAP + 64], reason[128];
	char small[SETTINGS_SMALL_CAP], quoted[SETTINGS_QUOTE_CAP], fallback[SETTINGS_QUOTE_CAP + 16];
	const struct settings_desc *d;
	const char *v, *cur;
	size_t n, cur_len;

	/* Messages go to a local buffer first so err may be NULL or tiny. */
	local[0] = '\0';
	if (!s || !key || !value) {
		snprintf(local, sizeof(local), "missing %s", !s ? "settings" : !key ? "key" : "value");
		goto fail;
	}
	d = settings_find(key, strlen(key));
	if (!d) {
		char keyq[SETTINGS_QUOTE_CAP];
		pp_settings_text_quote(keyq, sizeof(keyq), key, strlen(key), false);
		snprintf(where, sizeof(where), "%s=", keyq);
		settings_msg_unknown(local, sizeof(local), where, value, strlen(value),
				     settings_find_nocase(key, strlen(key)), false, "ignored");
		goto fail;
	}
	v = value;
	n = strlen(value);
	pp_settings_text_trim(&v, &n);
	if (settings_value_parse(s, d, v, n, reason, sizeof(reason)) == 0) {
		if (err && err_len)
			err[0] = '\0';
		return 0;
	}
	if (origin == PP_ORIGIN_ENV)
		snprintf(where, sizeof(where), "%s=", d->env);
	else if (origin == PP_ORIGIN_FILE)
		snprintf(where, sizeof(where), PP_SETTINGS_FILE_PREFIX "%s = ", d->key);
	else
		snprintf(where, sizeof(where), "%s=", d->key);
	settings_value_view(s, d, small, sizeof(small), &cur, &cur_len);
	pp_settings_text_quote(quoted, sizeof(quoted), cur, cur_len, true);
	snprintf(fallback, sizeof(fallback), "keeping %s", quoted);
	settings_msg_bad_value(local, sizeof(local), where, d, v, n, reason, fallback);
fail:
	if (err && err_len)
		snprintf(err, err_len, "%s", local);
	return -EINVAL;
}

const char *const *pp_settings_keys(void)
{
	return settings_key_names;
}

const char *pp_settings_allowed(const char *key)
{
	const struct settings_desc *d = key ? settings_find(key, strlen(key)) : NULL;

	return d ? d->allowed : NULL;
}

int pp_settings_format_value(const struct pp_settings *s, const char *key, char *buf, size_t len)
{
	const struct settings_desc *d = key ? settings_find(key, strlen(key)) : NULL;
	char small[SETTINGS_SMALL_CAP];
	const char *p;
	size_t n;

	if (!s || !d || (!buf && len))
		return -EINVAL;
	settings_value_view(s, d, small, sizeof(small), &p, &n);
	if (len)
		snprintf(buf, len, "%.*s", (int)n, p);
	return n < len ? (int)n : -ENOSPC;
}
