/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the filter compiler: any text. A refusal must name an offset inside
 * the text and format a caret display; an accepted expression must give
 * bytecode that the validator accepts (unless it needs more stack than the
 * interpreter has, which the validator must say).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "filter/filter.h"

#include "common/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flt_error err;
	char *expr = malloc(size + 1);
	void *bc = NULL;
	size_t len = 0;
	int r;

	if (!expr)
		return 0;
	memcpy(expr, data, size);
	expr[size] = 0;
	r = flt_compile(expr, &bc, &len, &err);
	if (r == 0) {
		struct flt_program *p = NULL;
		const char *why = NULL;

		if (flt_validate(bc, len, &p, &why) && (!why || !strstr(why, "stack")))
			abort();
		flt_program_destroy(p);
		free(bc);
	} else {
		char caret[512];

		if (!err.msg[0] || err.offset > strlen(expr))
			abort();
		if (flt_error_caret(expr, &err, caret, sizeof(caret)) < 0)
			abort();
	}
	free(expr);
	return 0;
}
