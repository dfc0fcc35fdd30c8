#pragma once
/* One logging function for all of passprobe. Every line is prefixed "passprobe: " and goes
 * to stderr unless a callback is installed (tests capture lines that way). Safe from any thread. */
#include <stdarg.h>

enum pp_log_level {
	PP_LOG_ERROR = 0,
	PP_LOG_WARN = 1,
	PP_LOG_INFO = 2,
	PP_LOG_DEBUG = 3,
};

typedef void (*pp_log_fn)(enum pp_log_level level, const char *line);

void pp_log(enum pp_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pp_log_set_level(enum pp_log_level level);
enum pp_log_level pp_log_get_level(void);
/* NULL restores the default (stderr). */
void pp_log_set_callback(pp_log_fn fn);

/* Logs only the first time this call site is reached in the process. */
#define pp_log_once(level, ...)                                                    \
	do {                                                                       \
		static int pp_log_once_done_;                                      \
		if (!__atomic_exchange_n(&pp_log_once_done_, 1, __ATOMIC_RELAXED)) \
			pp_log(level, __VA_ARGS__);                                \
	} while (0)
