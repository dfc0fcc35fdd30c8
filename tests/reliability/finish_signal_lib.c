/* A stand-in for one of passprobe's two libraries (the Vulkan layer, the GLES shim), each of
 * which carries its own copy of layer/common/pp_finish_signal.c: built twice, as
 * libpassprobe_finish_a.so and libpassprobe_finish_b.so, for test_finish_signal's case of both
 * in one process. Only finish_lib_install is exported, so that each copy calls its own. */
#include <unistd.h>

#include "pp_finish_signal.h"

static int g_fd = -1;
static char g_letter;

static void finish(void)
{
	if (write(g_fd, &g_letter, 1) != 1)
		_exit(3);
}

/* Installs this copy's handlers; its finish writes `letter` to `fd`. */
__attribute__((visibility("default"))) int finish_lib_install(int fd, char letter)
{
	g_fd = fd;
	g_letter = letter;
	return pp_finish_signal_install(finish);
}
