#pragma once
/* The name of the loaded object a code address lies in, for call sites ("module+0x..."). */
#include <dlfcn.h>
#include <stdbool.h>

/* The file name (no directory) of info's object (from dladdr). For the program itself that is
 * its executable's, read once from /proc/self/exe: dladdr names the program by argv[0], whose
 * memory a program may overwrite to set its process title (Chromium's GPU process does), which
 * would put its flags into every call site. Never NULL. */
const char *pp_module_name(const Dl_info *info);

/* Whether code address `fn` lies in passprobe's other library (the Vulkan layer and the GLES
 * shim, each with its own copy of this code, may share a process): an object other than the
 * one `ours` lies in whose file name has "passprobe" in it (libVkLayer_passprobe.so,
 * libpassprobe_gles.so). For signal handlers, whose static functions no symbol table names. */
bool pp_module_is_other_passprobe(const void *fn, const void *ours);
