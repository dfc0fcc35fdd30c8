#pragma once
/* The name of the loaded object a code address lies in, for call sites ("module+0x..."). */
#include <dlfcn.h>

/* The file name (no directory) of info's object (from dladdr). For the program itself that is
 * its executable's, read once from /proc/self/exe: dladdr names the program by argv[0], whose
 * memory a program may overwrite to set its process title (Chromium's GPU process does), which
 * would put its flags into every call site. Never NULL. */
const char *pp_module_name(const Dl_info *info);
