#include "pp_log.h"

#include <stdio.h>
#include <string.h>

static int g_level = PP_LOG_WARN;
static pp_log_fn g_callback;

void pp_log_set_level(enum pp_log_level level)
{
	__atomic_store_n(&g_level, (int)level, __ATOMIC_RELAXED);
}

enum pp_log_level pp_log_get_level(void)
{
	return (enum pp_log_level)__atomic_load_n(&g_level, __ATOMIC_RELAXED);
}

void pp_log_set_callback(pp_log_fn fn)
{
	__atomic_store_n(&g_callback, fn, __ATOMIC_RELEASE);
}

void pp_log(enum pp_log_level level, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	char line[1024];
	va_list ap;
	int n;

	if ((int)level > __atomic_load_n(&g_level, __ATOMIC_RELAXED))
		return;
	/* One formatted buffer and one write, so lines from several threads do not interleave. */
	n = snprintf(line, sizeof(line), "passprobe: %s: ", names[level]);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);

	pp_log_fn cb = __atomic_load_n(&g_callback, __ATOMIC_ACQUIRE);
	if (cb) {
		cb(level, line);
		return;
	}
	size_t len = strlen(line);
	if (len + 1 < sizeof(line)) {
		line[len++] = '\n';
		line[len] = '\0';
	}
	fputs(line, stderr);
}
