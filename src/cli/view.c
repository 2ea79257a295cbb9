/* SPDX-License-Identifier: MIT */
/*
 * strata view: print traces exactly as babeltrace2 2.0.4 prints them
 * (sink.text.pretty behind src.ctf.fs and flt.utils.muxer), with the same
 * options spelled the same way.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strata/ctf.h>
#include <strata/error.h>

#include "cli.h"
#include "common/cleanup.h"
#include "common/common.h"
#include "session-client.h"
#include "view-live.h"
#include "view-slices.h"

/* Longer than the 4095 bytes C11 promises; gcc and clang take it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverlength-strings"
static const char view_help[] =
	"Usage: strata view [OPTIONS] [SESSION]\n"
	"       strata view [OPTIONS] PATH...\n"
	"       strata view [OPTIONS] --trace-path=PATH\n"
	"       strata view [OPTIONS] net://RELAY[:PORT]/host/HOSTNAME/SESSION\n"
	"       strata view net://RELAY[:PORT]\n"
	"\n"
	"Print the events of every CTF trace found at or below each PATH (a trace\n"
	"directory is one that contains a 'metadata' file), merged in time order,\n"
	"byte for byte as babeltrace2 2.0.4 prints them. Discarded-event and\n"
	"discarded-packet warnings go to standard error. Without a PATH, the trace\n"
	"of SESSION (default: the current session) is printed.\n"
	"\n"
	"With a net:// URL, the session SESSION of host HOSTNAME is read live from a\n"
	"relay daemon (strata-relayd or lttng-relayd, live port 5344 by default), as\n"
	"babeltrace2 --input-format=lttng-live reads it: from its newest packets on,\n"
	"printing events as they arrive, until the session is destroyed. Without\n"
	"/host/..., the relay's sessions are listed.\n"
	"\n"
	"Options:\n"
	"  -t, --trace-path=PATH     read the traces at or below PATH\n"
	"      --no-delta            do not print the time since the previous event\n"
	"      --clock-cycles        print times as raw clock cycles\n"
	"      --clock-seconds       print times as SECONDS.NANOSECONDS\n"
	"      --clock-date          print the date with the time\n"
	"      --clock-gmt           print times in UTC instead of the local time zone\n"
	"      --clock-offset=SEC    add SEC seconds to every clock's offset\n"
	"      --clock-offset-ns=NS  add NS nanoseconds to every clock's offset\n"
	"      --clock-force-correlate\n"
	"                            treat every clock as relative to the Unix epoch\n"
	"  -b, --begin=TIME          print nothing before TIME (see Times below)\n"
	"  -e, --end=TIME            print nothing after TIME\n"
	"      --timerange=BEGIN,END the same as --begin=BEGIN --end=END (also written\n"
	"                            [BEGIN,END])\n"
	"  -w, --output=PATH         write the events to PATH instead of standard output\n"
	"                            (warnings still go to standard error)\n"
	"  -o, --output-format=FMT   text (the default), dummy (decode, print nothing at\n"
	"                            all) or ctf-metadata (the trace's TSDL text)\n"
	"  -n, --names=LIST          field names to print: comma-separated items among\n"
	"                            payload (or args, arg), context (or ctx), scope,\n"
	"                            header, all, none; naming items without 'all' or\n"
	"                            'none' hides the names not listed\n"
	"  -f, --fields=LIST         header fields to print: comma-separated items among\n"
	"                            trace, trace:hostname, trace:domain, trace:procname,\n"
	"                            trace:vpid, loglevel, emf, callsite, all; naming\n"
	"                            items without 'all' hides the fields not listed\n"
	"                            (the default shows trace:hostname, trace:procname\n"
	"                            and trace:vpid)\n"
	"      --color=WHEN          color the output: never, auto (default: when both\n"
	"                            standard output and error are terminals of a known\n"
	"                            type) or always (when the terminal supports it)\n"
	"      --decode-only         decode every event and print nothing but warnings\n"
	"                            and errors (for benchmarks and trace checks)\n"
	"  -j, --threads=N           --decode-only, -o dummy: decode on N threads, up to 64\n"
	"                            (default: one per CPU and 16 MiB, memory allowing)\n"
	"  -h, --help                show this help and exit\n"
	"\n"
	"Times (for --begin, --end and --timerange), as babeltrace2 reads them:\n"
	"  YYYY-MM-DD hh:mm[:ss[.NS]]  a date and time, local or UTC (--clock-gmt)\n"
	"  YYYY-MM-DD                  midnight of that date\n"
	"  hh:mm[:ss[.NS]]             a time of day on the date of the trace's first\n"
	"                              packet\n"
	"  [-]SEC[.NS]                 seconds since the Unix epoch\n"
	"NS has 1 to 9 digits (.5 is half a second). Both ends are included. A\n"
	"discarded-events warning that straddles an end is cut there and no longer\n"
	"knows how many events were lost. Every stream needs a clock and packets\n"
	"with beginning and end times.\n"
	"\n"
	"Exit status:\n"
	"  0  the traces were printed\n"
	"  1  usage error\n"
	"  2  no trace found at a PATH, or a trace file cannot be read\n"
	"  3  malformed trace (the message names the file and byte offset)\n"
	"  4  writing the output failed\n"
	"\n"
	"Examples:\n"
	"  strata view ~/lttng-traces/my-session-20261203-101500\n"
	"  strata view --clock-date -n all -f all,loglevel TRACE_DIR | less\n"
	"  strata view --begin='2026-12-03 15:16:16.5' --end=15:16:17 TRACE_DIR\n"
	"  strata view net://localhost/host/$(hostname)/my-session\n";
#pragma GCC diagnostic pop

enum {
	OPT_NO_DELTA = 256,
	OPT_CLOCK_CYCLES,
	OPT_CLOCK_SECONDS,
	OPT_CLOCK_DATE,
	OPT_CLOCK_GMT,
	OPT_CLOCK_OFFSET,
	OPT_CLOCK_OFFSET_NS,
	OPT_CLOCK_FORCE_CORRELATE,
	OPT_COLOR,
	OPT_DECODE_ONLY,
	OPT_TIMERANGE,
};

/* Slices smaller than this are not worth a thread of their own by default. */
#define SLICE_MIN_BYTES (UINT64_C(16) << 20)
/*
 * What a slice's reader holds per stream, about: its current packet and one
 * more (docs/benchmarks.md, session 13: 6.3 MB for two streams of 1 MiB
 * packets). By default the slices decoding at once hold at most an eighth
 * of the memory and 1 GiB.
 */
#define SLICE_STREAM_BYTES (UINT64_C(4) << 20)
#define SLICE_MEMORY_MAX (UINT64_C(1) << 30)
#define MAX_THREADS 64u

enum out_format { OUT_TEXT, OUT_DUMMY, OUT_CTF_METADATA };

static const struct option view_options[] = {
	{ "trace-path", required_argument, NULL, 't' },
	{ "no-delta", no_argument, NULL, OPT_NO_DELTA },
	{ "clock-cycles", no_argument, NULL, OPT_CLOCK_CYCLES },
	{ "clock-seconds", no_argument, NULL, OPT_CLOCK_SECONDS },
	{ "clock-date", no_argument, NULL, OPT_CLOCK_DATE },
	{ "clock-gmt", no_argument, NULL, OPT_CLOCK_GMT },
	{ "clock-offset", required_argument, NULL, OPT_CLOCK_OFFSET },
	{ "clock-offset-ns", required_argument, NULL, OPT_CLOCK_OFFSET_NS },
	{ "clock-force-correlate", no_argument, NULL, OPT_CLOCK_FORCE_CORRELATE },
	{ "begin", required_argument, NULL, 'b' },
	{ "end", required_argument, NULL, 'e' },
	{ "timerange", required_argument, NULL, OPT_TIMERANGE },
	{ "output", required_argument, NULL, 'w' },
	{ "output-format", required_argument, NULL, 'o' },
	{ "names", required_argument, NULL, 'n' },
	{ "fields", required_argument, NULL, 'f' },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "decode-only", no_argument, NULL, OPT_DECODE_ONLY },
	{ "threads", required_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

enum color_when { COLOR_AUTO, COLOR_NEVER, COLOR_ALWAYS };

struct view_args {
	struct strata_ctf_pretty_options pretty;
	struct strata_ctf_reader_options reader;
	enum color_when color;
	bool decode_only;
	bool names_all, names_none, names_item;
	bool fields_all, fields_item;
	const char **paths;
	unsigned n_paths;
	/* As given: a time of day needs --clock-gmt, which may come later. */
	const char *begin, *end;
	const char *begin_from, *end_from; /* the option that gave them, for errors */
	bool begin_opt, end_opt; /* given by --begin, --end (not --timerange) */
	char *range; /* --timerange's copy, split in place */
	const char *output; /* -w: a file instead of stdout */
	enum out_format format;
	unsigned threads; /* -j; 0: by the CPUs and the trace's size */
};

static bool parse_s64(const char *s, int64_t *ret)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end)
		return false;
	*ret = v;
	return true;
}

/* Calls item() on each comma-separated item of list; false on the first failure. */
static bool for_each_item(const char *list, bool (*item)(struct view_args *, const char *),
			  struct view_args *a)
{
	_cleanup_free_ char *copy = strdup(list);
	char *save = NULL;

	if (!copy) {
		cli_error("Out of memory");
		return false;
	}
	if (!*copy) {
		cli_error("Empty list");
		return false;
	}
	for (char *it = strtok_r(copy, ",", &save); it; it = strtok_r(NULL, ",", &save))
		if (!item(a, it))
			return false;
	return true;
}

static bool names_item(struct view_args *a, const char *it)
{
	struct strata_ctf_pretty_options *o = &a->pretty;

	if (!strcmp(it, "payload") || !strcmp(it, "args") || !strcmp(it, "arg")) {
		o->name_payload = o->name_payload_set = true;
	} else if (!strcmp(it, "context") || !strcmp(it, "ctx")) {
		o->name_context = o->name_context_set = true;
	} else if (!strcmp(it, "scope")) {
		o->name_scope = o->name_scope_set = true;
	} else if (!strcmp(it, "header")) {
		o->name_header = o->name_header_set = true;
	} else if (!strcmp(it, "all")) {
		a->names_all = true;
		return true;
	} else if (!strcmp(it, "none")) {
		a->names_none = true;
		return true;
	} else {
		cli_error("Unknown item '%s' in --names (expected payload, context, scope, header, "
			  "all or none)",
			  it);
		return false;
	}
	a->names_item = true;
	return true;
}

static bool fields_item(struct view_args *a, const char *it)
{
	struct strata_ctf_pretty_options *o = &a->pretty;

	if (!strcmp(it, "trace")) {
		o->field_trace = o->field_trace_set = true;
	} else if (!strcmp(it, "trace:hostname")) {
		o->field_hostname = o->field_hostname_set = true;
	} else if (!strcmp(it, "trace:domain")) {
		o->field_domain = o->field_domain_set = true;
	} else if (!strcmp(it, "trace:procname")) {
		o->field_procname = o->field_procname_set = true;
	} else if (!strcmp(it, "trace:vpid")) {
		o->field_vpid = o->field_vpid_set = true;
	} else if (!strcmp(it, "loglevel")) {
		o->field_loglevel = o->field_loglevel_set = true;
	} else if (!strcmp(it, "emf")) {
		o->field_emf = o->field_emf_set = true;
	} else if (!strcmp(it, "callsite")) {
		o->field_callsite = o->field_callsite_set = true;
	} else if (!strcmp(it, "all")) {
		a->fields_all = true;
		return true;
	} else if (!strcmp(it, "none")) {
		/* babeltrace2 rejects it too; leaving every field out is `-f callsite`. */
		cli_error("'none' is not a --fields item: list the fields to print, or use "
			  "'-f callsite' to print no header field");
		return false;
	} else {
		cli_error(
			"Unknown item '%s' in --fields (expected trace, trace:hostname, "
			"trace:domain, trace:procname, trace:vpid, loglevel, emf, callsite or all)",
			it);
		return false;
	}
	a->fields_item = true;
	return true;
}

/*
 * babeltrace2's terminal test (bt_common_colors_supported()): colors only
 * on a known terminal type with both stdout and stderr being terminals;
 * BABELTRACE_TERM_COLOR=always|never overrides it.
 */
static bool term_colors_supported(void)
{
	static const char *const terms[] = { "xterm",  "rxvt", "konsole", "gnome",
					     "screen", "tmux", "putty" };
	const char *force = getenv("BABELTRACE_TERM_COLOR");
	const char *term = getenv("TERM");
	struct stat st;
	bool known = false;

	if (force && !strcasecmp(force, "always"))
		return true;
	if (force && !strcasecmp(force, "never"))
		return false;
	if (!term)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(terms); i++)
		if (!strncmp(term, terms[i], strlen(terms[i])))
			known = true;
	if (!known)
		return false;
	for (int fd = 1; fd <= 2; fd++) {
		if (!isatty(fd))
			return false;
		if (fstat(fd, &st) == 0 && !S_ISCHR(st.st_mode))
			return false;
	}
	return true;
}

/*
 * --timerange as babeltrace2 splits it: an optional '[', BEGIN up to the
 * first ',', END up to the first ']' or the end; neither may be empty.
 */
static int split_range(struct view_args *a, const char *arg)
{
	char *b, *comma, *e;

	free(a->range);
	a->range = strdup(arg);
	if (!a->range)
		return -ENOMEM;
	b = a->range + (a->range[0] == '[');
	comma = strchr(b, ',');
	if (!comma || comma == b)
		return -EINVAL;
	*comma = '\0';
	e = comma + 1;
	e[strcspn(e, "]")] = '\0';
	if (!*e)
		return -EINVAL;
	a->begin = b;
	a->end = e;
	a->begin_from = a->end_from = "--timerange";
	return 0;
}

static bool parse_bound(const char *opt, const char *text, bool gmt, struct strata_ctf_bound *ret)
{
	int r;

	if (!text)
		return true;
	r = strata_ctf_bound_parse(text, gmt, ret);
	if (r == -ERANGE) {
		cli_error("Invalid %s time '%s': out of range (dates must be after 1970-01-01 "
			  "00:00:00, seconds within +/-9223372036)",
			  opt, text);
		return false;
	}
	if (r < 0) {
		cli_error("Invalid %s time '%s': expected 'YYYY-MM-DD hh:mm[:ss[.NS]]', "
			  "'YYYY-MM-DD', 'hh:mm[:ss[.NS]]' or '[-]SEC[.NS]' (NS: 1 to 9 digits)",
			  opt, text);
		return false;
	}
	return true;
}

static int parse_args(int argc, char **argv, struct view_args *a)
{
	int c, ret;

	/* Leading '+' would stop at the first path; options may follow paths. */
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":t:b:e:w:o:n:f:j:h", view_options, NULL)) != -1) {
		switch (c) {
		case 't':
			a->paths[a->n_paths++] = optarg;
			break;
		/*
		 * babeltrace2 refuses a second --begin or --end, and --timerange
		 * after either, but lets --timerange be given again or be
		 * followed by one of them.
		 */
		case 'b':
			if (a->begin_opt) {
				cli_error("--begin given twice");
				return -1;
			}
			a->begin = optarg;
			a->begin_from = "--begin";
			a->begin_opt = true;
			break;
		case 'e':
			if (a->end_opt) {
				cli_error("--end given twice");
				return -1;
			}
			a->end = optarg;
			a->end_from = "--end";
			a->end_opt = true;
			break;
		case OPT_TIMERANGE:
			if (a->begin_opt || a->end_opt) {
				cli_error("--timerange cannot follow --%s: give the range once",
					  a->begin_opt ? "begin" : "end");
				return -1;
			}
			ret = split_range(a, optarg);
			if (ret == -ENOMEM) {
				cli_error("Out of memory");
				return -1;
			}
			if (ret < 0) {
				cli_error("Invalid --timerange '%s': expected BEGIN,END or "
					  "[BEGIN,END]",
					  optarg);
				return -1;
			}
			break;
		case OPT_NO_DELTA:
			a->pretty.no_delta = true;
			break;
		case OPT_CLOCK_CYCLES:
			a->pretty.clock_cycles = true;
			break;
		case OPT_CLOCK_SECONDS:
			a->pretty.clock_seconds = true;
			break;
		case OPT_CLOCK_DATE:
			a->pretty.clock_date = true;
			break;
		case OPT_CLOCK_GMT:
			a->pretty.clock_gmt = true;
			break;
		case OPT_CLOCK_OFFSET:
			if (!parse_s64(optarg, &a->reader.clock_offset_s)) {
				cli_error(
					"Invalid --clock-offset '%s': expected an integer number of "
					"seconds",
					optarg);
				return -1;
			}
			break;
		case OPT_CLOCK_OFFSET_NS:
			if (!parse_s64(optarg, &a->reader.clock_offset_ns)) {
				cli_error(
					"Invalid --clock-offset-ns '%s': expected an integer number "
					"of nanoseconds",
					optarg);
				return -1;
			}
			break;
		case OPT_CLOCK_FORCE_CORRELATE:
			a->reader.force_correlate = true;
			break;
		case 'w':
			a->output = optarg;
			break;
		case 'n':
			if (!for_each_item(optarg, names_item, a))
				return -1;
			break;
		case 'f':
			if (!for_each_item(optarg, fields_item, a))
				return -1;
			break;
		case OPT_COLOR:
			if (!strcmp(optarg, "never")) {
				a->color = COLOR_NEVER;
			} else if (!strcmp(optarg, "auto")) {
				a->color = COLOR_AUTO;
			} else if (!strcmp(optarg, "always")) {
				a->color = COLOR_ALWAYS;
			} else {
				cli_error("Invalid --color '%s': expected never, auto or always",
					  optarg);
				return -1;
			}
			break;
		case OPT_DECODE_ONLY:
			a->decode_only = true;
			break;
		case 'j': {
			int64_t v;

			if (!parse_s64(optarg, &v) || v < 1 || v > MAX_THREADS) {
				cli_error("Invalid --threads '%s': expected a number of threads "
					  "from 1 to %u",
					  optarg, MAX_THREADS);
				return -1;
			}
			a->threads = (unsigned)v;
			break;
		}
		case 'o':
			if (strcmp(optarg, "text") == 0) {
				a->format = OUT_TEXT;
			} else if (strcmp(optarg, "dummy") == 0) {
				a->format = OUT_DUMMY;
			} else if (strcmp(optarg, "ctf-metadata") == 0) {
				a->format = OUT_CTF_METADATA;
			} else {
				cli_error("Invalid --output-format '%s': expected text, dummy or "
					  "ctf-metadata",
					  optarg);
				return -1;
			}
			break;
		case ':':
			cli_error("Option '%s' needs a value", argv[optind - 1]);
			return -1;
		default:
			cli_error("Unknown option '%s'", argv[optind - 1]);
			return -1;
		}
	}
	for (int i = optind; i < argc; i++)
		a->paths[a->n_paths++] = argv[i];

	a->reader.bounds_gmt = a->pretty.clock_gmt;
	if (!parse_bound(a->begin_from, a->begin, a->reader.bounds_gmt, &a->reader.begin) ||
	    !parse_bound(a->end_from, a->end, a->reader.bounds_gmt, &a->reader.end))
		return -1;
	if (a->reader.begin.set && a->reader.end.set && !a->reader.begin.time_of_day &&
	    !a->reader.end.time_of_day && a->reader.begin.ns > a->reader.end.ns) {
		cli_error("The time range begins after it ends: '%s' (%s) is after '%s' (%s)",
			  a->begin, a->begin_from, a->end, a->end_from);
		return -1;
	}
	if (a->names_all && a->names_none) {
		cli_error("--names cannot contain both 'all' and 'none'");
		return -1;
	}
	if (a->names_all)
		a->pretty.name_default = STRATA_CTF_SHOW;
	else if (a->names_none || a->names_item)
		a->pretty.name_default = STRATA_CTF_HIDE;
	if (a->fields_all)
		a->pretty.field_default = STRATA_CTF_SHOW;
	else if (a->fields_item)
		a->pretty.field_default = STRATA_CTF_HIDE;

	return 0;
}

/*
 * `strata view` with no PATH reads the current session's trace, and a
 * single argument without a '/' that is not an existing file names a
 * session, as `lttng view [SESSION]` does. Paths never reach the daemon,
 * so viewing files does not spawn one.
 */
static int resolve_session(struct view_args *a, char *out, size_t outlen)
{
	struct ipc_request req = { .cmd = IPC_CMD_LIST_SESSIONS };
	const char *arg = NULL;
	struct ipc_reply rep;
	char name[IPC_NAME_MAX];
	struct stat st;
	int ret = -ENOENT;

	if (a->n_paths > 1)
		return 0;
	if (a->n_paths == 1) {
		arg = a->paths[0];
		if (strchr(arg, '/') || stat(arg, &st) == 0 || strlen(arg) >= IPC_NAME_MAX)
			return 0;
	}
	if (sc_resolve_session(arg, name) < 0)
		return -ENOENT;
	snprintf(req.session, sizeof(req.session), "%s", name);
	if (sc_request(&req, &rep) < 0)
		return -ECONNREFUSED;
	if (rep.status < 0) {
		sc_print_message(&rep);
	} else {
		for (uint32_t i = 0; i < rep.nr_sessions; i++) {
			if (strcmp(rep.sessions[i].name, name) != 0)
				continue;
			snprintf(out, outlen, "%s", rep.sessions[i].output);
			a->paths[0] = out;
			a->n_paths = 1;
			ret = 0;
			break;
		}
		if (ret < 0)
			cli_error("Session '%s' not found: run 'strata list' to see the sessions",
				  name);
	}
	ipc_reply_release(&rep);
	return ret;
}

/*
 * Each input must be an existing file or directory. This is where a
 * session name will be resolved to its output directory once sessions
 * exist; for now a name that is not a path is reported as such.
 */
static int check_inputs(const struct view_args *a)
{
	struct stat st;

	for (unsigned i = 0; i < a->n_paths; i++) {
		if (stat(a->paths[i], &st) == 0)
			continue;
		if (errno == ENOENT)
			cli_error("No trace at '%s': there is no such file or directory (a trace "
				  "directory contains a 'metadata' file)",
				  a->paths[i]);
		else
			cli_error("No trace at '%s': %s", a->paths[i], strerror(errno));
		return CLI_EXIT_NOTRACE;
	}
	return CLI_EXIT_OK;
}

static int open_error(const struct view_args *a, int err, const char *msg)
{
	switch (err) {
	case -STRATA_ENOTRACE:
		if (a->n_paths == 1)
			cli_error("No trace at '%s': no 'metadata' file at or below it (a trace "
				  "directory contains a 'metadata' file)",
				  a->paths[0]);
		else
			cli_error("No trace found at or below any of the %u paths given (a trace "
				  "directory contains a 'metadata' file)",
				  a->n_paths);
		return CLI_EXIT_NOTRACE;
	case -STRATA_EMETADATA:
	case -STRATA_ESTREAM:
	case -STRATA_EUNSUPPORTED:
	case -STRATA_ECLOCK:
		cli_error("Malformed trace: %s", msg && *msg ? msg : strata_strerror(err));
		return CLI_EXIT_MALFORMED;
	case -ENOMEM:
		cli_error("Failed to open the traces: %s", strata_strerror(err));
		return CLI_EXIT_OUTPUT;
	case -EINVAL:
		/* Only the time range makes a readable trace unacceptable. */
		cli_error("Cannot select the time range: %s",
			  msg && *msg ? msg : strata_strerror(err));
		return CLI_EXIT_USAGE;
	default:
		cli_error("Failed to read the traces: %s",
			  msg && *msg ? msg : strata_strerror(err));
		return CLI_EXIT_NOTRACE;
	}
}

/* Maps a write error: a closed pipe (`strata view | head`) is a normal end. */
static int output_error(int err)
{
	if (err == -EPIPE)
		return CLI_EXIT_OK;
	cli_error("Failed to write the events: %s", strerror(-err));
	return CLI_EXIT_OUTPUT;
}

/*
 * -o ctf-metadata: the text and a newline, as babeltrace2 prints it; the
 * other options change nothing. One trace only, as babeltrace2 requires.
 */
static int print_metadata(const struct view_args *a)
{
	_cleanup_free_ char *text = NULL, *errmsg = NULL;
	FILE *out = stdout;
	int ret, status = CLI_EXIT_OK;

	if (a->n_paths != 1) {
		cli_error("--output-format=ctf-metadata prints one trace's metadata: give one "
			  "path, not %u",
			  a->n_paths);
		return CLI_EXIT_USAGE;
	}
	ret = strata_ctf_metadata_text(a->paths[0], &text, &errmsg);
	if (ret == -ENOTUNIQ) {
		cli_error("%s", errmsg ? errmsg : strata_strerror(ret));
		return CLI_EXIT_USAGE;
	}
	if (ret == -STRATA_ENOTRACE || ret == -STRATA_EMETADATA || ret == -STRATA_EUNSUPPORTED ||
	    ret == -ENOMEM)
		return open_error(a, ret, errmsg);
	if (ret < 0) {
		/* A file that cannot be read (not a regular file, no permission). */
		cli_error("Cannot read the metadata: %s", errmsg ? errmsg : strata_strerror(ret));
		return CLI_EXIT_NOTRACE;
	}
	if (a->output) {
		out = fopen(a->output, "we");
		if (!out) {
			cli_error("Cannot write the metadata to '%s': %s", a->output,
				  strerror(errno));
			return CLI_EXIT_OUTPUT;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (fprintf(out, "%s\n", text) < 0 || fflush(out) != 0)
		status = output_error(-errno);
	if (out != stdout && fclose(out) != 0 && status == CLI_EXIT_OK)
		status = output_error(-errno);
	/*
	 * babeltrace2 refuses to print metadata it cannot parse; showing it is
	 * what one looks at metadata for, so strata prints it and says why the
	 * events cannot be read.
	 */
	if (ret == 1)
		cli_warn("The metadata does not parse, so 'strata view' cannot read the events: %s",
			 errmsg ? errmsg : "out of memory");
	return status;
}

/* How many slices --decode-only reads the traces in (1: whole, on this thread). */
static unsigned slice_count(const struct view_args *a, const struct strata_ctf_reader *reader)
{
	uint64_t n = strata_ctf_reader_stream_bytes(reader) / SLICE_MIN_BYTES;
	uint64_t budget = SLICE_MEMORY_MAX, per_reader;
	long cpus, pages, page_size;

	if (a->reader.begin.set || a->reader.end.set)
		return 1;
	if (a->threads)
		return a->threads;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1)
		return 1;
	n = MIN(n, MIN((uint64_t)cpus, (uint64_t)MAX_THREADS));
	pages = sysconf(_SC_PHYS_PAGES);
	page_size = sysconf(_SC_PAGESIZE);
	if (pages > 0 && page_size > 0)
		budget = MIN(budget, (uint64_t)pages * (uint64_t)page_size / 8);
	per_reader = (uint64_t)MAX(1u, strata_ctf_reader_stream_count(reader)) * SLICE_STREAM_BYTES;
	n = MIN(n, budget / per_reader);
	return (unsigned)MAX(n, UINT64_C(1));
}

/*
 * net://RELAY[/host/HOSTNAME/SESSION]: a session read live from a relay
 * daemon (view-live.c), or the relay's sessions listed. What babeltrace2's
 * lttng-live source takes: the text's options and -w.
 */
static int run_live(const struct view_args *a)
{
	struct view_live_opts o = { .url = a->paths[0], .pretty = a->pretty, .output = a->output };
	const char *bad = NULL;

	if (a->n_paths > 1)
		bad = "other inputs";
	else if (a->begin || a->end)
		bad = "--begin, --end and --timerange";
	else if (a->decode_only || a->format != OUT_TEXT)
		bad = "--decode-only and output formats other than text";
	else if (a->reader.clock_offset_s || a->reader.clock_offset_ns)
		bad = "--clock-offset and --clock-offset-ns";
	else if (a->reader.force_correlate)
		bad = "--clock-force-correlate";
	else if (a->threads)
		bad = "--threads";
	if (bad) {
		cli_error("A live session ('%s') is read alone and printed as text: %s do not "
			  "apply to it",
			  a->paths[0], bad);
		return CLI_EXIT_USAGE;
	}
	o.colors = term_colors_supported();
	o.pretty.color = o.colors && a->color != COLOR_NEVER;
	o.pretty.color_warnings = o.colors;
	return view_live_run(&o);
}

static int run_view(int argc, char **argv)
{
	_cleanup_free_ const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	struct view_args a = { 0 };
	_cleanup_free_ char *range = NULL;
	char session_output[IPC_PATH_MAX];
	struct strata_ctf_reader *reader = NULL;
	struct strata_ctf_pretty *pretty = NULL;
	_cleanup_free_ char *errmsg = NULL;
	FILE *out = stdout;
	bool colors;
	int ret, code, status = CLI_EXIT_OK;

	if (!paths) {
		cli_error("Out of memory");
		return CLI_EXIT_OUTPUT;
	}
	a.paths = paths;
	ret = parse_args(argc, argv, &a);
	range = a.range;
	if (ret < 0)
		return cli_usage_error("view");
	if (a.n_paths && view_live_is_url(a.paths[0]))
		return run_live(&a);
	if (resolve_session(&a, session_output, sizeof(session_output)) < 0)
		return CLI_EXIT_NOTRACE;
	ret = check_inputs(&a);
	if (ret != CLI_EXIT_OK)
		return ret;
	if (a.format == OUT_CTF_METADATA)
		return print_metadata(&a);
	if (a.format == OUT_DUMMY)
		a.decode_only = true;

	colors = term_colors_supported();
	a.pretty.color = colors && a.color != COLOR_NEVER;
	a.pretty.color_warnings = colors;

	/*
	 * The reader's decode_threads option stays off: two threads decode the
	 * 2 M-event bench trace slower than one (0.25 s against 0.165 s), since
	 * its streams take turns in runs of thousands of events and a stream
	 * decodes on one thread; and the text path already uses both CPUs. See
	 * docs/benchmarks.md, session 10 (and session 12: whole packets
	 * decoded on a second thread were slower still).
	 */
	/* What babeltrace2 prints needs its stale strings; decoding alone does not. */
	a.reader.bt_stale_strings = !a.decode_only;
	ret = strata_ctf_reader_create(a.paths, a.n_paths, &a.reader, &reader, &errmsg);
	if (ret < 0)
		return open_error(&a, ret, errmsg);

	/* Only once the traces opened: a bad path must not truncate the file. */
	if (a.output) {
		out = fopen(a.output, "we");
		if (!out) {
			cli_error("Cannot write the events to '%s': %s", a.output, strerror(errno));
			strata_ctf_reader_destroy(reader);
			return CLI_EXIT_OUTPUT;
		}
	}
	pretty = strata_ctf_pretty_create(&a.pretty, out, stderr);
	if (!pretty) {
		cli_error("Failed to create the printer: %s", strerror(errno));
		strata_ctf_reader_destroy(reader);
		if (out != stdout)
			fclose(out);
		return CLI_EXIT_OUTPUT;
	}
	/* A closed pipe must surface as EPIPE from write(), not kill us. */
	signal(SIGPIPE, SIG_IGN);
	if (out != stdout || !isatty(STDOUT_FILENO))
		setvbuf(out, NULL, _IOFBF, 1 << 20);

	ret = 0;
	if (a.decode_only) {
		unsigned n = slice_count(&a, reader);

		/* 1: decoded on n threads; 0: not in slices, nothing printed yet. */
		ret = n > 1 ? view_decode_slices(a.paths, a.n_paths, &a.reader, n,
						 a.format != OUT_DUMMY, pretty) :
			      0;
	}
	if (ret == 1) {
		ret = 0;
	} else if (ret < 0) {
		/* A notice could not be printed: reported below. */
	} else if (a.decode_only) {
		for (;;) {
			struct strata_ctf_msg msg;
			/* Events are only decoded: the notices come back. */
			enum strata_ctf_status st = strata_ctf_reader_next_notice(reader, &msg);

			if (st == STRATA_CTF_END)
				break;
			if (st != STRATA_CTF_OK) {
				ret = -STRATA_ESTREAM;
				break;
			}
			/* Warnings are still shown (not with -o dummy). */
			if (a.format == OUT_DUMMY)
				continue;
			ret = strata_ctf_pretty_print(pretty, &msg);
			if (ret < 0)
				break;
		}
	} else {
		ret = strata_ctf_pretty_run(pretty, reader);
	}
	if (ret == -STRATA_ESTREAM) {
		/* The events decoded before the error come out first. */
		ret = strata_ctf_pretty_flush(pretty);
		if (ret < 0) {
			status = output_error(ret);
			goto out;
		}
		fflush(out);
		code = strata_ctf_reader_last_code(reader);
		if (code == -STRATA_ESTREAM || code == -STRATA_ECLOCK) {
			cli_error("Malformed trace: %s", strata_ctf_reader_last_error(reader));
			status = CLI_EXIT_MALFORMED;
		} else {
			/* A file that went away, a descriptor limit, memory: not the data. */
			cli_error("Cannot read the trace: %s",
				  strata_ctf_reader_last_error(reader));
			status = CLI_EXIT_NOTRACE;
		}
	} else if (ret == -ENOMEM) {
		cli_error("Failed to print the events: %s", strerror(ENOMEM));
		status = CLI_EXIT_OUTPUT;
		goto out;
	} else if (ret < 0) {
		status = output_error(ret);
		goto out;
	}
	if (status == CLI_EXIT_OK) {
		ret = strata_ctf_pretty_flush(pretty);
		/* babeltrace2 resets the terminal's colors when it succeeds. */
		if (ret == 0 && colors)
			fputs("\033[0m", stdout);
		if (ret < 0)
			status = output_error(ret);
		else if (fflush(out) != 0 || (out != stdout && fflush(stdout) != 0))
			status = output_error(-errno);
		else if (colors)
			fputs("\033[0m", stderr);
	}
out:
	strata_ctf_pretty_destroy(pretty);
	strata_ctf_reader_destroy(reader);
	/* A file's last bytes reach the disk only now: a full disk shows here. */
	if (out != stdout && fclose(out) != 0 && status == CLI_EXIT_OK)
		status = output_error(-errno);
	return status;
}

const struct cli_command cli_cmd_view = {
	.name = "view",
	.run = run_view,
	.help = view_help,
	.summary = "print the events of traces, as babeltrace2 does",
};
