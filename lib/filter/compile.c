/* SPDX-License-Identifier: MIT */
/* flt_compile(): parse, check, emit; and the caret display of a refusal. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "compile-internal.h"

#include "common/common.h"

int flt_compile(const char *expr, void **ret_bc, size_t *ret_len, struct flt_error *err)
{
	struct flt_error local;
	struct flt_node *root = NULL;
	size_t len;
	int r;

	if (!err)
		err = &local;
	memset(err, 0, sizeof(*err));
	if (!expr)
		return -EINVAL;
	len = strnlen(expr, FLT_EXPR_MAX_LEN + 1);
	if (len > FLT_EXPR_MAX_LEN) {
		flt_set_error(err, FLT_EXPR_MAX_LEN,
			      "Filter expression too long (at most %d bytes)", FLT_EXPR_MAX_LEN);
		return -E2BIG;
	}
	r = flt_parse(expr, len, &root, err);
	if (!r)
		r = flt_check(root, err);
	if (!r)
		r = flt_emit(root, ret_bc, ret_len, err);
	flt_node_free(root);
	if (r == -ENOMEM)
		flt_set_error(err, 0, "Out of memory");
	return r;
}

#define CARET_WINDOW 72

int flt_error_caret(const char *expr, const struct flt_error *err, char *buf, size_t len)
{
	size_t n, off, start, end, from, to;
	bool cut_left, cut_right;
	int w;

	if (!expr || !err || !buf || !len)
		return -EINVAL;
	n = strlen(expr);
	off = MIN(err->offset, n);
	/* The line holding the error (expressions may span lines). */
	start = off;
	while (start > 0 && expr[start - 1] != '\n')
		start--;
	end = off;
	while (end < n && expr[end] != '\n')
		end++;
	from = start;
	to = end;
	if (to - from > CARET_WINDOW) {
		from = off > from + CARET_WINDOW / 2 ? off - CARET_WINDOW / 2 : from;
		to = MIN(end, from + CARET_WINDOW);
	}
	cut_left = from > start;
	cut_right = to < end;
	w = snprintf(buf, len, "%s%.*s%s\n%s", cut_left ? "..." : "", (int)(to - from), expr + from,
		     cut_right ? "..." : "", cut_left ? "   " : "");
	if (w < 0)
		return -EINVAL;
	/*
	 * Spaces under the text, tabs under tabs, one per UTF-8 character, so
	 * that the caret lines up in a terminal.
	 */
	for (size_t i = from; i < off; i++) {
		if (((unsigned char)expr[i] & 0xc0) == 0x80)
			continue;
		if ((size_t)w + 1 < len)
			buf[w] = expr[i] == '\t' ? '\t' : ' ';
		w++;
	}
	if ((size_t)w + 2 < len) {
		buf[w] = '^';
		buf[w + 1] = '\n';
		buf[w + 2] = 0;
	} else {
		buf[MIN((size_t)w, len - 1)] = 0;
	}
	w += 2;
	return (size_t)w < len ? w : (int)len - 1;
}
