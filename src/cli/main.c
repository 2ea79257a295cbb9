/* SPDX-License-Identifier: MIT */
/* strata: the command table, global options and `strata help`. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "strata-config.h"
#include "cli.h"
#include "common/common.h"

static const struct cli_command *const commands[] = {
#define CLI_COMMAND(ident) &cli_cmd_##ident,
#include "commands.def"
#undef CLI_COMMAND
};

static const char main_usage[] =
	"Usage: strata [--version] [--help] COMMAND [ARGS]\n"
	"\n"
	"strata records and reads CTF traces of Linux systems and applications.\n"
	"\n"
	"Options:\n"
	"  -h, --help     show this help and exit\n"
	"  -V, --version  show the version and exit\n"
	"\n"
	"Commands:\n";

static void _printf_(2, 0) vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("Error: ", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("Warning: ", fmt, ap);
	va_end(ap);
}

int cli_usage_error(const char *command)
{
	fprintf(stderr, "See 'strata help %s'.\n", command);
	return CLI_EXIT_USAGE;
}

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

static void print_main_help(FILE *f)
{
	size_t width = strlen("help");

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		width = MAX(width, strlen(commands[i]->name));
	fputs(main_usage, f);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-*s  %s\n", (int)width, commands[i]->name, commands[i]->summary);
	fprintf(f, "  %-*s  %s\n", (int)width, "help", "show the help of a command");
	fputs("\nRun 'strata help COMMAND' or 'strata COMMAND --help' for a command's options.\n",
	      f);
}

static int unknown_command(const char *name)
{
	cli_error("'%s' is not a strata command. See 'strata --help'.", name);
	return CLI_EXIT_USAGE;
}

static int cmd_help(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		print_main_help(stdout);
		return CLI_EXIT_OK;
	}
	if (argc > 2) {
		cli_error("'help' takes one command name, got %d arguments", argc - 1);
		return cli_usage_error("help");
	}
	if (strcmp(argv[1], "help") == 0) {
		fputs("Usage: strata help [COMMAND]\n\nShow the help of COMMAND, or the list "
		      "of commands.\n",
		      stdout);
		return CLI_EXIT_OK;
	}
	cmd = find_command(argv[1]);
	if (!cmd)
		return unknown_command(argv[1]);
	fputs(cmd->help, stdout);
	return CLI_EXIT_OK;
}

/* True when args (before a "--") ask for help. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return true;
	}
	return false;
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			print_main_help(stdout);
			return CLI_EXIT_OK;
		}
		if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
			printf("strata %s\n", STRATA_VERSION);
			return CLI_EXIT_OK;
		}
		cli_error("Unknown option '%s'. See 'strata --help'.", argv[i]);
		return CLI_EXIT_USAGE;
	}
	if (i == argc) {
		print_main_help(stderr);
		cli_error("No command given.");
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[i], "help") == 0)
		return cmd_help(argc - i, argv + i);
	cmd = find_command(argv[i]);
	if (!cmd)
		return unknown_command(argv[i]);
	if (wants_help(argc - i, argv + i)) {
		fputs(cmd->help, stdout);
		return CLI_EXIT_OK;
	}
	return cmd->run(argc - i, argv + i);
}
