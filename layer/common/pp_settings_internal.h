#pragma once
/* passprobe settings: pieces that are not part of the public contract in pp_settings.h.
 * The test and the fuzz target use them; the command line may use pp_settings_format_value. */
#include <stdbool.h>
#include <stddef.h>

#include "pp_settings.h"

/* Largest settings-file line, in bytes without the newline; longer lines are skipped. */
#define PP_SETTINGS_MAX_LINE 4096
/* How much of a settings file is read at most; the file's own size is never trusted. */
#define PP_SETTINGS_MAX_FILE_BYTES (1024u * 1024u)
/* How many bytes of a value a message shows before cutting it short with "...". */
#define PP_SETTINGS_MSG_VALUE_MAX 64

/* pp_settings_load with the set-uid/set-gid decision made by the caller, so the test can cover
 * secure mode without a set-uid binary. secure = true ignores the environment and every
 * settings file and logs that once (info level). Same return as pp_settings_load. */
int pp_settings_load_ex(struct pp_settings *out, char *const *envp, bool secure);

/* Applies settings-file text to *s as if it had been read from a file called `name` (used in
 * messages), with the same line rules and limits as a real file except the 1 MiB cap.
 * Returns the number of problems found, each logged. For the fuzz target and the test. */
int pp_settings_parse_text(struct pp_settings *s, const char *name, const char *text, size_t len);

/* Writes key's current value in *s as text (booleans as true/false, output_dir as stored,
 * that is after %p expansion), for `passprobe` to show what is in effect. Returns the length,
 * -EINVAL for an unknown key or a NULL argument, -ENOSPC when buf is too small (buf then holds
 * a cut-short, NUL-terminated prefix when len > 0). */
int pp_settings_format_value(const struct pp_settings *s, const char *key, char *buf, size_t len);

/* pp_settings_text.c: the parsers' string helpers (no locale). */
bool pp_settings_text_is_space(char c);
bool pp_settings_text_is_control(unsigned char c);
char pp_settings_text_lower(char c);
void pp_settings_text_trim(const char **p, size_t *n);
bool pp_settings_text_word_is(const char *v, size_t n, const char *word);
bool pp_settings_text_has_control(const char *v, size_t n);
bool pp_settings_text_escape_char(char *dst, size_t cap, size_t *len, unsigned char c, bool quoted);
void pp_settings_text_quote(char *dst, size_t cap, const char *v, size_t n, bool quoted);
