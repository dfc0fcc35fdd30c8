/* `passprobe renderdoc`: passprobe's live measurements inside RenderDoc captures. The work is
 * done by passprobe_renderdoc.py through RenderDoc's own capture-file API (Debian's
 * python3-renderdoc, a Python module and nothing a C program can link); this file checks the
 * subcommand, finds the script and a Python, and runs it (docs/frame-debuggers.md). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "passprobe_cli.h"

#define RDOC_SCRIPT "passprobe_renderdoc.py"
/* Where the Python of python3-renderdoc is: Debian installs the module for its own Python
 * only, which a python3 found first on PATH (a virtual environment, pyenv) need not be. */
#define RDOC_SYSTEM_PYTHON "/usr/bin/python3"

#ifndef PASSPROBE_BIN_TO_DATA
#define PASSPROBE_BIN_TO_DATA "../share"
#endif

static const char *const rdoc_commands[] = { "annotate", "show", "replay", "install" };

void passprobe_renderdoc_usage(FILE *f)
{
	fprintf(f,
		"usage: passprobe renderdoc annotate CAPTURE.rdc [RUN_DIR] [-o OUT.rdc | --in-place]\n"
		"       passprobe renderdoc show CAPTURE.rdc\n"
		"       passprobe renderdoc replay CAPTURE.rdc [RUN_DIR] [--repeat N] [--json]\n"
		"       passprobe renderdoc install [--extensions-dir DIR] [--config FILE] [--no-always-load]\n"
		"\n"
		"passprobe's live per-pass GPU and CPU times of a frame RenderDoc captured, inside the\n"
		"capture (docs/frame-debuggers.md).\n"
		"\n"
		"  annotate  write a bookmark on each application pass (name, GPU time in this frame,\n"
		"            p50/p95 over the run, share of the frame), the run's summary and the\n"
		"            frame's diagnostics as capture comments, and passprobe's data for the\n"
		"            frame as a section of its own; to CAPTURE.passprobe.rdc unless -o or\n"
		"            --in-place. RUN_DIR: the run's output directory (default: the capture's\n"
		"            directory's parent, then its own directory, whichever has report.json).\n"
		"            A capture that is not of that run's frame is refused, saying what differs\n"
		"  show      print the passprobe data an annotated capture carries\n"
		"  replay    RenderDoc's replay time of each pass next to passprobe's live time\n"
		"  install   install the qrenderdoc panel (extension) for this user\n"
		"\n"
		"Needs Python 3 with RenderDoc's module (Debian: python3-renderdoc); PASSPROBE_PYTHON\n"
		"names the Python to use (default " RDOC_SYSTEM_PYTHON ", else python3 on PATH).\n");
}

static bool rdoc_readable(const char *path)
{
	return access(path, R_OK) == 0;
}

/* The script: the installed layout next to this executable first, then the build tree's.
 * Returns false (with *looked listing the places) if neither has it. */
static bool rdoc_find_script(char *out, size_t out_len, char *looked, size_t looked_len)
{
	char exe[PATH_MAX];
	size_t lp = 0;

	looked[0] = '\0';
	if (passprobe_load_exe_dir(exe, sizeof(exe))) {
		int n2 = snprintf(out, out_len, "%s/" PASSPROBE_BIN_TO_DATA "/passprobe/renderdoc/" RDOC_SCRIPT, exe);
		if (n2 > 0 && (size_t)n2 < out_len && rdoc_readable(out))
			return true;
		if (n2 > 0 && (size_t)n2 < out_len)
			lp += (size_t)snprintf(looked, looked_len, "%s", out);
	}
#ifdef PASSPROBE_BUILD_RENDERDOC_DIR
	int n3 = snprintf(out, out_len, "%s/" RDOC_SCRIPT, PASSPROBE_BUILD_RENDERDOC_DIR);
	if (n3 > 0 && (size_t)n3 < out_len && rdoc_readable(out))
		return true;
	if (lp < looked_len)
		snprintf(looked + lp, looked_len - lp, "%s%s/" RDOC_SCRIPT, lp ? ", " : "",
			 PASSPROBE_BUILD_RENDERDOC_DIR);
#endif
	return false;
}

int passprobe_renderdoc_main(int argc, char **argv)
{
	int rc;
	const char *cmd = passprobe_main_word(argc, argv, passprobe_renderdoc_usage, true, &rc);
	if (!cmd)
		return rc;
	bool known = false;
	for (size_t i = 0; i < sizeof(rdoc_commands) / sizeof(rdoc_commands[0]); i++)
		known = known || strcmp(cmd, rdoc_commands[i]) == 0;
	if (!known) {
		fprintf(stderr, "passprobe renderdoc: unknown command '%s' (annotate, show, replay or install)\n\n",
			cmd);
		passprobe_renderdoc_usage(stderr);
		return CLI_EXIT_USAGE;
	}

	char script[PATH_MAX], looked[2 * PATH_MAX + 8];
	if (!rdoc_find_script(script, sizeof(script), looked, sizeof(looked))) {
		fprintf(stderr, "passprobe: %s is missing (looked for %s); reinstall passprobe\n", RDOC_SCRIPT,
			looked[0] ? looked : "nothing: the executable's path is unknown");
		return CLI_EXIT_FAILURE;
	}

	const char *python = getenv("PASSPROBE_PYTHON");
	bool from_env = python && *python;
	if (!from_env)
		python = access(RDOC_SYSTEM_PYTHON, X_OK) == 0 ? RDOC_SYSTEM_PYTHON : "python3";

	/* python SCRIPT ARGS...: argv[1..] are the subcommand and its arguments. */
	char **args = calloc((size_t)argc + 2, sizeof(*args));
	if (!args) {
		fprintf(stderr, "passprobe: out of memory\n");
		return CLI_EXIT_FAILURE;
	}
	args[0] = (char *)python;
	args[1] = script;
	for (int i = 1; i < argc; i++)
		args[i + 1] = argv[i];
	/* The script names the writer of what it embeds with this version. */
	setenv("PASSPROBE_VERSION", PASSPROBE_VERSION, 1);
	/* A crash inside RenderDoc's native library would end Python without a word: its
	 * faulthandler prints the Python stack, naming the RenderDoc call that was running. */
	setenv("PYTHONFAULTHANDLER", "1", 0);
	fflush(NULL);
	execvp(python, args);
	int err = errno;
	free(args);
	fprintf(stderr,
		"passprobe: cannot run %s%s (%s): passprobe renderdoc needs Python 3 with RenderDoc's "
		"module (Debian: python3 and python3-renderdoc)\n",
		python, from_env ? " (PASSPROBE_PYTHON)" : "", strerror(err));
	return CLI_EXIT_FAILURE;
}
