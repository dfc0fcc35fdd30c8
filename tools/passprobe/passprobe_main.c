/* passprobe: run a program with the profiling layer, and read the reports it leaves. */
#include <stdio.h>
#include <string.h>

#include "passprobe_cli.h"
#include "pp_settings.h"

static void cli_usage(FILE *f)
{
	fprintf(f,
		"usage: passprobe <command> [options]\n"
		"\n"
		"Per-pass GPU profiling for Vulkan applications.\n"
		"\n"
		"commands:\n"
		"  run [-o DIR] [--set KEY=VALUE]... -- PROGRAM [ARGS...]\n"
		"                    run PROGRAM with the passprobe layer enabled\n"
		"  report [--top N] [--html FILE] DIR|FILE\n"
		"                    print the per-pass summary of a report.json\n"
		"  compare [options] A B\n"
		"                    compare two runs pass by pass, beyond noise (CI: --fail-above)\n"
		"  counters list [--gpu NAME]\n"
		"  counters eval --gpu NAME (--expr TEXT | --all) --values FILE\n"
		"                    GPU counter databases and their derived-counter equations\n"
		"  renderdoc annotate|show|replay|install ...\n"
		"                    per-pass timing inside RenderDoc captures\n"
		"  help [COMMAND]    show help for a command (run, report, compare, counters,\n"
		"                    renderdoc, settings)\n"
		"\n"
		"options:\n"
		"  -h, --help        show this help\n"
		"  --version         show the version\n");
}

void passprobe_main_settings_help(FILE *f)
{
	const char *const *keys = pp_settings_keys();

	fprintf(f,
		"passprobe settings, for `passprobe run --set KEY=VALUE`, the environment\n"
		"(" PP_SETTINGS_ENV_PREFIX "<KEY> in upper case) or vk_layer_settings.txt\n"
		"(" PP_SETTINGS_FILE_PREFIX "<key> = value):\n\n");
	for (size_t i = 0; keys && keys[i]; i++) {
		const char *allowed = pp_settings_allowed(keys[i]);
		fprintf(f, "  %-20s %s\n", keys[i], allowed ? allowed : "");
	}
}

static int cli_help(int argc, char **argv)
{
	if (argc < 2) {
		cli_usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "run") == 0) {
		passprobe_run_usage(stdout);
	} else if (strcmp(argv[1], "report") == 0) {
		passprobe_report_usage(stdout);
	} else if (strcmp(argv[1], "counters") == 0) {
		passprobe_counters_usage(stdout);
	} else if (strcmp(argv[1], "compare") == 0) {
		passprobe_compare_usage(stdout);
	} else if (strcmp(argv[1], "renderdoc") == 0) {
		passprobe_renderdoc_usage(stdout);
	} else if (strcmp(argv[1], "settings") == 0) {
		passprobe_main_settings_help(stdout);
	} else if (strcmp(argv[1], "help") == 0) {
		cli_usage(stdout);
	} else {
		fprintf(stderr, "passprobe: no help for '%s': not a command\n\n", argv[1]);
		cli_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		cli_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		cli_usage(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("passprobe %s\n", PASSPROBE_VERSION);
		return CLI_EXIT_OK;
	}
	if (strcmp(cmd, "run") == 0)
		return passprobe_run_main(argc - 1, argv + 1);
	if (strcmp(cmd, "report") == 0)
		return passprobe_report_main(argc - 1, argv + 1);
	if (strcmp(cmd, "counters") == 0)
		return passprobe_counters_main(argc - 1, argv + 1);
	if (strcmp(cmd, "compare") == 0)
		return passprobe_compare_main(argc - 1, argv + 1);
	if (strcmp(cmd, "renderdoc") == 0)
		return passprobe_renderdoc_main(argc - 1, argv + 1);
	if (strcmp(cmd, "help") == 0)
		return cli_help(argc - 1, argv + 1);
	if (cmd[0] == '-')
		fprintf(stderr, "passprobe: unknown option '%s'\n\n", cmd);
	else
		fprintf(stderr, "passprobe: unknown command '%s'\n\n", cmd);
	cli_usage(stderr);
	return CLI_EXIT_USAGE;
}
