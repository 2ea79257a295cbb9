/* SPDX-License-Identifier: MIT */
/*
 * The strata command-line tool: `strata [--version] [--help] COMMAND [ARGS]`.
 *
 * Adding a command takes one file and one line: write src/cli/NAME.c
 * defining `const struct cli_command cli_cmd_NAME`, add CLI_COMMAND(NAME)
 * to commands.def (the order there is the order of `strata --help`) and
 * the file to meson.build.
 */
#ifndef STRATA_CLI_H
#define STRATA_CLI_H

#include "common/macro.h"

/* Exit statuses shared by every command (documented in each --help). */
enum cli_exit {
	CLI_EXIT_OK = 0,
	CLI_EXIT_USAGE = 1, /* bad command line */
	CLI_EXIT_NOTRACE = 2, /* no trace found, or it cannot be read */
	CLI_EXIT_MALFORMED = 3, /* the trace is malformed */
	CLI_EXIT_OUTPUT = 4, /* writing the output failed (e.g. disk full) */
};

struct cli_command {
	const char *name; /* lowercase, as typed: "view", "enable-event" */
	/* argv[0] is the command name; returns an enum cli_exit value. */
	int (*run)(int argc, char **argv);
	const char *help; /* full text of `strata help NAME`, ends with '\n' */
	const char *summary; /* one line for `strata --help` */
};

#define CLI_COMMAND(ident) extern const struct cli_command cli_cmd_##ident;
#include "commands.def"
#undef CLI_COMMAND

/* "Error: <message>" on stderr, as lttng prints it. */
void cli_error(const char *fmt, ...) _printf_(1, 2);
/* "Warning: <message>" on stderr. */
void cli_warn(const char *fmt, ...) _printf_(1, 2);

/* Prints "See 'strata help NAME'." after a usage error and returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command);

#endif
