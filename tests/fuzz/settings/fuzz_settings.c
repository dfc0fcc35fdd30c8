/* libFuzzer target for the settings-file parser and pp_settings_apply (layer/common/pp_settings.c).
 * Built by tests/settings/CMakeLists.txt when the compiler is clang. The parser reads files
 * that anyone who can write to $HOME or the working directory controls, inside someone else's
 * process, so beyond "no crash" it checks the invariants the rest of passprobe relies on. */
#include "pp_settings_internal.h"
#include "pp_settings.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fuzz_log(enum pp_log_level level, const char *line)
{
	(void)level;
	/* One message is one line: a value with a newline must come out escaped. */
	if (strchr(line, '\n') || strncmp(line, "passprobe: ", 11) != 0)
		__builtin_trap();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	pp_log_set_callback(fuzz_log);
	pp_log_set_level(PP_LOG_DEBUG);
	return 0;
}

static void fuzz_check(const struct pp_settings *s)
{
	if (!memchr(s->output_dir, '\0', sizeof(s->output_dir)) || s->output_dir[0] == '\0' ||
	    !memchr(s->frame_label, '\0', sizeof(s->frame_label)) ||
	    !memchr(s->cpu_counters, '\0', sizeof(s->cpu_counters)) || s->cpu_counters[0] == '\0')
		__builtin_trap();
	if ((unsigned)s->log_level > PP_LOG_DEBUG || (unsigned)s->frame_delimiter > PP_FRAME_LABEL)
		__builtin_trap();
	if ((s->frame_delimiter == PP_FRAME_LABEL) != (s->frame_label[0] != '\0'))
		__builtin_trap();
	if (s->report_frames < 1 || s->report_frames > 100000 || s->flush_interval_ms < 100 ||
	    s->flush_interval_ms > 600000)
		__builtin_trap();
	for (const char *p = s->cpu_counters; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pp_settings s;
	char err[256], *copy, *nl;

	pp_settings_defaults(&s);
	pp_settings_parse_text(&s, "fuzz", (const char *)data, size);
	fuzz_check(&s);

	/* The same bytes as "key\nvalue" for pp_settings_apply (the command line's --set). */
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';
	nl = strchr(copy, '\n');
	if (nl) {
		*nl = '\0';
		if (pp_settings_apply(&s, copy, nl + 1, PP_ORIGIN_DEFAULT, err, sizeof(err)) != 0 &&
		    (err[0] == '\0' || !memchr(err, '\0', sizeof(err))))
			__builtin_trap();
		fuzz_check(&s);
	}
	free(copy);
	return 0;
}
