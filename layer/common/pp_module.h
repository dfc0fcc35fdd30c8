#pragma once
/* The name of the loaded object a code address lies in, for call sites ("module+0x..."). */
#include <dlfcn.h>
#include <signal.h>

/* The file name (no directory) of info's object (from dladdr). For the program itself that is
 * its executable's, read once from /proc/self/exe: dladdr names the program by argv[0], whose
 * memory a program may overwrite to set its process title (Chromium's GPU process does), which
 * would put its flags into every call site. Never NULL. */
const char *pp_module_name(const Dl_info *info);

/* Whose a signal disposition is, for the handlers passprobe installs only where the program
 * has none of its own (pp_capture.c, pp_finish_signal.c): the default, ignored, the handler of
 * passprobe's other library (the Vulkan layer and the GLES shim, each with its own copy of this
 * code, may share a process: an object other than the one `ours` lies in whose file name has
 * "passprobe" in it; the handlers are static, so no symbol table names them), or the
 * application's (any other handler, and every SA_SIGINFO one). */
enum pp_handler_owner { PP_HANDLER_DEFAULT, PP_HANDLER_IGNORED, PP_HANDLER_OTHER_PASSPROBE, PP_HANDLER_APPLICATION };
enum pp_handler_owner pp_module_handler_owner(const struct sigaction *sa, const void *ours);
