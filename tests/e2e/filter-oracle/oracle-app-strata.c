/* SPDX-License-Identifier: MIT */
/* Emits one fo:ev per row of oracle-rows.h, with libstrata-ust (oracle-app.c's twin). */
#define STRATA_TRACEPOINT_DEFINE
#define STRATA_TRACEPOINT_CREATE_PROBES
#include "oracle-tp-strata.h"

int main(void)
{
	for (uint32_t i = 0; i < FO_NROWS; i++)
		strata_tracepoint(fo, ev, i, &fo_rows[i]);
	return 0;
}
