#pragma once
/* The output directory, made the same way by the layer's sinks and by `passprobe run` (which
 * checks it before it starts the program). */
#include <stddef.h>

/* mkdir -p (mode 0755): returns 0, or -errno with the component that failed copied to
 * failed_at (may be NULL). */
int pp_dir_make(const char *path, char *failed_at, size_t failed_len);
