/* SPDX-License-Identifier: MIT */
/*
 * strata-gen-tp: a tracepoint template (.tp) -> provider header (.h),
 * provider source (.c) and optionally its object (.o), like lttng-gen-tp(1)
 * with STRATA_ names.
 *
 * A template holds STRATA_TRACEPOINT_EVENT / _CLASS / _INSTANCE / _ENUM /
 * _LOGLEVEL / _MODEL_EMF_URI invocations, C comments, `#include` lines
 * (kept) and `#` comment lines (dropped). The provider name is the first
 * argument of those invocations; they must all agree.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/common.h"

extern char **environ;

/* Templates are small; anything larger is a mistake. */
#define TP_MAX_SIZE (16u << 20)

static const char usage_text[] =
	"Usage: strata-gen-tp TEMPLATE.tp [-o OUTPUT.h] [-o OUTPUT.c] [-o OUTPUT.o]\n"
	"\n"
	"Generate the strata tracepoint provider header and source from a template.\n"
	"Without -o, write TEMPLATE.h, TEMPLATE.c and TEMPLATE.o next to the template.\n"
	"Each -o names one output; its suffix (.h, .c or .o) says which.\n"
	"The .o is compiled with $CC (default cc), $CPPFLAGS and $CFLAGS.\n"
	"\n"
	"The template contains STRATA_TRACEPOINT_EVENT(), STRATA_TRACEPOINT_LOGLEVEL()...\n"
	"as documented in <strata/tracepoint.h>. Lines starting with '#' are\n"
	"comments, except #include lines, which are copied.\n"
	"\n"
	"  -o, --output FILE   output file (.h, .c or .o), may be repeated\n"
	"  -v, --verbose       print the compile command\n"
	"  -h, --help          this help\n";

static bool verbose;

static char *read_file(const char *path)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			char *p;

			if (cap >= TP_MAX_SIZE) {
				free(buf);
				errno = EFBIG;
				return NULL;
			}
			cap = cap ? cap * 2 : 8192;
			p = realloc(buf, cap + 1);
			if (!p) {
				free(buf);
				return NULL;
			}
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

/*
 * The text copied into the header: the template without its '#' comment
 * lines (#include lines stay).
 */
static char *template_body(const char *text)
{
	size_t len = strlen(text);
	char *out = malloc(len + 1), *o = out;
	const char *line = text;

	if (!out)
		return NULL;
	while (*line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
		const char *p = line;

		while (p < line + n && (*p == ' ' || *p == '\t'))
			p++;
		if (*p != '#' || strncmp(p + 1, "include", 7) == 0) {
			memcpy(o, line, n);
			o += n;
		} else if (end) {
			*o++ = '\n'; /* keep line numbers */
		}
		line += n;
	}
	*o = '\0';
	return out;
}

/* Copy of text with comments and '#' lines blanked, for scanning. */
static char *strip_for_scan(const char *text)
{
	char *s = strdup(text);
	bool line_start = true;

	if (!s)
		return NULL;
	for (char *p = s; *p;) {
		if (p[0] == '/' && p[1] == '*') {
			char *e = strstr(p + 2, "*/");
			char *stop = e ? e + 2 : p + strlen(p);

			memset(p, ' ', (size_t)(stop - p));
			p = stop;
			continue;
		}
		if ((p[0] == '/' && p[1] == '/') || (line_start && *p == '#')) {
			while (*p && *p != '\n')
				*p++ = ' ';
			continue;
		}
		if (*p == '"') {
			/* Skip string literals: they may contain anything. */
			p++;
			while (*p && *p != '"') {
				if (*p == '\\' && p[1])
					p++;
				p++;
			}
			if (*p)
				p++;
			line_start = false;
			continue;
		}
		if (*p == '\n')
			line_start = true;
		else if (*p != ' ' && *p != '\t')
			line_start = false;
		p++;
	}
	return s;
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The provider named by every STRATA_TRACEPOINT_*( invocation. */
static int find_provider(const char *tp_path, const char *text, char **ret_provider)
{
	_cleanup_free_ char *s = strip_for_scan(text);
	char *provider = NULL;
	static const char key[] = "STRATA_TRACEPOINT_";

	if (!s)
		return -ENOMEM;
	for (const char *p = s; (p = strstr(p, key));) {
		const char *q = p + sizeof(key) - 1, *start;
		size_t n;

		if (p > s && is_ident(p[-1])) {
			p = q;
			continue;
		}
		while (is_ident(*q))
			q++;
		while (isspace((unsigned char)*q))
			q++;
		if (*q != '(') {
			p = q;
			continue;
		}
		q++;
		while (isspace((unsigned char)*q))
			q++;
		start = q;
		while (is_ident(*q))
			q++;
		n = (size_t)(q - start);
		if (n == 0) {
			fprintf(stderr,
				"strata-gen-tp: Failed to parse '%s': a tracepoint macro has no provider argument\n",
				tp_path);
			free(provider);
			return -EINVAL;
		}
		if (!provider) {
			provider = strndup(start, n);
			if (!provider)
				return -ENOMEM;
		} else if (strlen(provider) != n || strncmp(provider, start, n) != 0) {
			fprintf(stderr,
				"strata-gen-tp: Failed to parse '%s': providers differ ('%s' and '%.*s'); one template describes one provider\n",
				tp_path, provider, (int)n, start);
			free(provider);
			return -EINVAL;
		}
		p = q;
	}
	if (!provider) {
		fprintf(stderr,
			"strata-gen-tp: Failed to parse '%s': no STRATA_TRACEPOINT_EVENT found\n",
			tp_path);
		return -EINVAL;
	}
	*ret_provider = provider;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int write_text(const char *path, const char *text)
{
	_cleanup_fclose_ FILE *f = fopen(path, "we");

	if (!f || fputs(text, f) < 0 || fflush(f) != 0) {
		fprintf(stderr, "strata-gen-tp: Failed to write '%s': %s\n", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

static int write_header(const char *path, const char *provider, const char *body)
{
	_cleanup_fclose_ FILE *f = fopen(path, "we");
	_cleanup_free_ char *guard = strdup(base_name(path));
	int ret;

	if (!guard)
		return -ENOMEM;
	for (char *g = guard; *g; g++)
		*g = is_ident(*g) ? (char)toupper((unsigned char)*g) : '_';
	if (!f) {
		fprintf(stderr, "strata-gen-tp: Failed to write '%s': %s\n", path, strerror(errno));
		return -errno;
	}
	ret = fprintf(
		f,
		"/* Generated by strata-gen-tp from a template: edit the template instead. */\n"
		"\n"
		"#undef STRATA_TRACEPOINT_PROVIDER\n"
		"#define STRATA_TRACEPOINT_PROVIDER %s\n"
		"\n"
		"#undef STRATA_TRACEPOINT_INCLUDE\n"
		"#define STRATA_TRACEPOINT_INCLUDE \"./%s\"\n"
		"\n"
		"#if !defined(%s) || defined(STRATA_TRACEPOINT_HEADER_MULTI_READ)\n"
		"#define %s\n"
		"\n"
		"#include <strata/tracepoint.h>\n"
		"\n"
		"%s\n"
		"#endif /* %s */\n"
		"\n"
		"#include <strata/tracepoint-event.h>\n",
		provider, base_name(path), guard, guard, body, guard);
	if (ret < 0 || fflush(f) != 0) {
		fprintf(stderr, "strata-gen-tp: Failed to write '%s': %s\n", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

static int write_source(const char *path, const char *header_path)
{
	char text[4096];

	snprintf(text, sizeof(text),
		 "/* Generated by strata-gen-tp from a template: edit the template instead. */\n"
		 "\n"
		 "#define STRATA_TRACEPOINT_CREATE_PROBES\n"
		 "/* The header containing the STRATA_TRACEPOINT_EVENTs. */\n"
		 "#define STRATA_TRACEPOINT_DEFINE\n"
		 "#include \"%s\"\n",
		 base_name(header_path));
	return write_text(path, text);
}

/* Split a space-separated environment value into argv entries. */
static int push_words(char **argv, int *argc, int max, char *value)
{
	char *save = NULL;

	if (!value)
		return 0;
	for (char *w = strtok_r(value, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (*argc >= max - 1)
			return -E2BIG;
		argv[(*argc)++] = w;
	}
	return 0;
}

static int compile_object(const char *obj_path, const char *c_path)
{
	_cleanup_free_ char *cc = strdup(getenv("CC") ? getenv("CC") : "cc");
	_cleanup_free_ char *cppflags = getenv("CPPFLAGS") ? strdup(getenv("CPPFLAGS")) : NULL;
	_cleanup_free_ char *cflags = getenv("CFLAGS") ? strdup(getenv("CFLAGS")) : NULL;
	char *argv[256];
	int argc = 0, status, ret;
	pid_t pid;

	if (!cc)
		return -ENOMEM;
	ret = push_words(argv, &argc, 256, cc);
	if (ret == 0 && argc == 0)
		ret = -EINVAL;
	if (ret == 0 && argc + 1 < 256)
		argv[argc++] = "-c";
	if (ret == 0)
		ret = push_words(argv, &argc, 256, cppflags);
	if (ret == 0)
		ret = push_words(argv, &argc, 256, cflags);
	if (ret < 0 || argc + 6 >= 256) {
		fprintf(stderr,
			"strata-gen-tp: Failed to build the compile command: too many flags\n");
		return -E2BIG;
	}
	argv[argc++] = "-I.";
	argv[argc++] = "-o";
	argv[argc++] = (char *)obj_path;
	argv[argc++] = (char *)c_path;
	argv[argc] = NULL;
	if (verbose) {
		fprintf(stdout, "Compile command:");
		for (int i = 0; i < argc; i++)
			fprintf(stdout, " %s", argv[i]);
		fprintf(stdout, "\n");
	}
	ret = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (ret != 0) {
		fprintf(stderr, "strata-gen-tp: Failed to run '%s': %s\n", argv[0], strerror(ret));
		return -ret;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr,
			"strata-gen-tp: Failed to compile '%s' (set CPPFLAGS to find <strata/tracepoint.h>)\n",
			c_path);
		return -EIO;
	}
	return 0;
}

static char *replace_suffix(const char *path, const char *suffix)
{
	size_t len = strlen(path) - 3; /* ".tp" */
	char *out = malloc(len + strlen(suffix) + 1);

	if (!out)
		return NULL;
	memcpy(out, path, len);
	memcpy(out + len, suffix, strlen(suffix) + 1);
	return out;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *h_out = NULL, *c_out = NULL, *o_out = NULL, *tp;
	_cleanup_free_ char *text = NULL, *body = NULL, *provider = NULL;
	_cleanup_free_ char *h_def = NULL, *c_def = NULL, *o_def = NULL;
	bool explicit = false;
	int c;

	while ((c = getopt_long(argc, argv, "o:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			explicit = true;
			if (has_suffix(optarg, ".h")) {
				h_out = optarg;
			} else if (has_suffix(optarg, ".c")) {
				c_out = optarg;
			} else if (has_suffix(optarg, ".o")) {
				o_out = optarg;
			} else {
				fprintf(stderr,
					"strata-gen-tp: Failed to use output '%s': the name must end in .h, .c or .o\n",
					optarg);
				return 4;
			}
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			fputs("Try 'strata-gen-tp --help'.\n", stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr,
			"strata-gen-tp: No template file given. Try 'strata-gen-tp --help'.\n");
		return 2;
	}
	if (argc - optind > 1) {
		fprintf(stderr,
			"strata-gen-tp: Failed to read templates: give one template at a time\n");
		return 3;
	}
	tp = argv[optind];
	if (!has_suffix(tp, ".tp")) {
		fprintf(stderr,
			"strata-gen-tp: Failed to read '%s': a template's name ends in .tp\n", tp);
		return 2;
	}
	text = read_file(tp);
	if (!text) {
		fprintf(stderr, "strata-gen-tp: Failed to read '%s': %s\n", tp, strerror(errno));
		return 1;
	}
	body = template_body(text);
	if (!body || find_provider(tp, text, &provider) < 0)
		return 1;

	if (!explicit) {
		h_out = h_def = replace_suffix(tp, ".h");
		c_out = c_def = replace_suffix(tp, ".c");
		o_out = o_def = replace_suffix(tp, ".o");
		if (!h_def || !c_def || !o_def)
			return 1;
	}
	if (h_out && write_header(h_out, provider, body) < 0)
		return 1;
	if (c_out || o_out) {
		/* The .c includes the header by its name next to it. */
		_cleanup_free_ char *hdr = h_out ? strdup(h_out) : replace_suffix(tp, ".h");

		if (!hdr)
			return 1;
		if (c_out && write_source(c_out, hdr) < 0)
			return 1;
		if (o_out) {
			_cleanup_free_ char *src = c_out ? strdup(c_out) : replace_suffix(tp, ".c");

			if (!src)
				return 1;
			if (!c_out && write_source(src, hdr) < 0)
				return 1;
			if (compile_object(o_out, src) < 0)
				return 1;
		}
	}
	return 0;
}
