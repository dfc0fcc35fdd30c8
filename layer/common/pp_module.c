/* Names of loaded objects for call sites (pp_module.h). */
#include "pp_module.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

static char exe_name[256];
static pthread_once_t exe_once = PTHREAD_ONCE_INIT;

static void exe_name_read(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	const char *base = program_invocation_short_name;
	if (n > 0) {
		path[n] = '\0';
		const char *slash = strrchr(path, '/');
		base = slash ? slash + 1 : path;
	}
	size_t len = strnlen(base, sizeof(exe_name) - 1);
	memcpy(exe_name, base, len);
	exe_name[len] = '\0';
}

const char *pp_module_name(const Dl_info *info)
{
	const char *f = info && info->dli_fname ? info->dli_fname : "";
	/* glibc names the main program by the argv[0] pointer (its link map has no name). */
	if (!*f || f == program_invocation_name) {
		pthread_once(&exe_once, exe_name_read);
		return exe_name;
	}
	const char *slash = strrchr(f, '/');
	return slash ? slash + 1 : f;
}

enum pp_handler_owner pp_module_handler_owner(const struct sigaction *sa, const void *ours)
{
	if (sa->sa_flags & SA_SIGINFO)
		return PP_HANDLER_APPLICATION;
	if (sa->sa_handler == SIG_DFL)
		return PP_HANDLER_DEFAULT;
	if (sa->sa_handler == SIG_IGN)
		return PP_HANDLER_IGNORED;
	Dl_info theirs, mine;
	if (!dladdr((void *)sa->sa_handler, &theirs) || !theirs.dli_fname || !dladdr(ours, &mine) ||
	    theirs.dli_fbase == mine.dli_fbase)
		return PP_HANDLER_APPLICATION;
	const char *base = strrchr(theirs.dli_fname, '/');
	return strstr(base ? base + 1 : theirs.dli_fname, "passprobe") ? PP_HANDLER_OTHER_PASSPROBE
									: PP_HANDLER_APPLICATION;
}
