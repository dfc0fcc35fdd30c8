#include "pp_dir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int pp_dir_make(const char *path, char *failed_at, size_t failed_len)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);
	if (len == 0 || len >= sizeof(buf))
		return len ? -ENAMETOOLONG : -EINVAL;
	memcpy(buf, path, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		if (buf[i - 1] == '/')
			continue;
		char saved = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
			int err = errno;
			if (failed_at && failed_len)
				snprintf(failed_at, failed_len, "%s", buf);
			return -err;
		}
		buf[i] = saved;
	}
	return 0;
}
