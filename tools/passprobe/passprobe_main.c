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

const char *passprobe_main_word(int argc, char **argv, void (*usage)(FILE *f), bool help_word, int *rc)
{
	if (argc < 2) {
		usage(stderr);
		*rc = CLI_EXIT_USAGE;
		return NULL;
	}
	const char *word = argv[1];
	if (strcmp(word, "-h") == 0 || strcmp(word, "--help") == 0 || (help_word && strcmp(word, "help") == 0)) {
		usage(stdout);
		*rc = CLI_EXIT_OK;
		return NULL;
	}
	return word;
}

static int cli_help(int argc, char **argv);

/* The commands: what runs each (NULL: a topic of `passprobe help` only) and its help. */
static const struct cli_command {
	const char *name;
	int (*run)(int argc, char **argv);
	void (*usage)(FILE *f);
} cli_commands[] = {
	{ "run", passprobe_run_main, passprobe_run_usage },
	{ "report", passprobe_report_main, passprobe_report_usage },
	{ "counters", passprobe_counters_main, passprobe_counters_usage },
	{ "compare", passprobe_compare_main, passprobe_compare_usage },
	{ "renderdoc", passprobe_renderdoc_main, passprobe_renderdoc_usage },
	{ "settings", NULL, passprobe_main_settings_help },
	{ "help", cli_help, cli_usage },
};

static const struct cli_command *cli_command_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cli_commands) / sizeof(cli_commands[0]); i++)
		if (strcmp(name, cli_commands[i].name) == 0)
			return &cli_commands[i];
	return NULL;
}

static int cli_help(int argc, char **argv)
{
	if (argc < 2) {
		cli_usage(stdout);
		return CLI_EXIT_OK;
	}
	const struct cli_command *c = cli_command_find(argv[1]);
	if (!c) {
		fprintf(stderr, "passprobe: no help for '%s': not a command\n\n", argv[1]);
		cli_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	c->usage(stdout);
	return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
	int rc;
	const char *cmd = passprobe_main_word(argc, argv, cli_usage, false, &rc);
	if (!cmd)
		return rc;
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("passprobe %s\n", PASSPROBE_VERSION);
		return CLI_EXIT_OK;
	}
	const struct cli_command *c = cli_command_find(cmd);
	if (c && c->run)
		return c->run(argc - 1, argv + 1);
	if (cmd[0] == '-')
		fprintf(stderr, "passprobe: unknown option '%s'\n\n", cmd);
	else
		fprintf(stderr, "passprobe: unknown command '%s'\n\n", cmd);
	cli_usage(stderr);
	return CLI_EXIT_USAGE;
}
