/* SPDX-License-Identifier: MIT */
/*
 * What a decoded event looks like inside libstrata-ctf: shared by the
 * reader (stream.c, reader.c, merge.c) and the pretty printer (pretty.c).
 */
#ifndef STRATA_CTF_READER_INTERNAL_H
#define STRATA_CTF_READER_INTERNAL_H

#include <strata/ctf.h>

#include "ctf/ctf-ir.h"

/* One trace: a directory with a `metadata` file and its stream files. */
struct ctf_trace {
	struct ctf_trace_class *tc;
	char *path; /* directory, absolute and normalized */
	/*
	 * babeltrace2's trace name: env hostname + "/" + the path relative to
	 * the input argument ("vm/ust/uid/0/64-bit"), just the hostname when
	 * the argument is the trace directory itself; NULL when unnamed.
	 */
	char *name;
};

struct strata_ctf_event {
	const struct ctf_trace *trace;
	const struct ctf_stream_class *sc;
	const struct ctf_event_class *ec;
	bool has_clock;
	uint64_t cycles; /* stream clock value after decoding this event */
	int64_t ns;      /* from origin, babeltrace2's conversion (ctf.md §1.8) */
	/*
	 * Root value (a struct) of each scope, NULL when the class has no such
	 * scope. The packet header and context roots stay the same for every
	 * event of a packet.
	 */
	const struct ctf_value *scope[CTF_SCOPE_COUNT];
	/*
	 * Which packet the event is in: the stream's index in its high 32
	 * bits, the packet's number in the stream in the low ones. Equal for
	 * two events means equal packet header and context values.
	 */
	uint64_t packet;
};

#endif
