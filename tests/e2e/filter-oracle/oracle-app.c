/* SPDX-License-Identifier: MIT */
/* Emits one fo:ev per row of oracle-rows.h, with lttng-ust. */
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "oracle-tp.h"

int main(void)
{
	for (uint32_t i = 0; i < FO_NROWS; i++)
		lttng_ust_tracepoint(fo, ev, i, &fo_rows[i]);
	return 0;
}
