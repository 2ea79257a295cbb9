/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf-ir.h"
#include "common/common.h"

const struct ctf_stream_class *ctf_trace_class_stream(const struct ctf_trace_class *tc,
						      uint64_t id)
{
	size_t lo = 0, hi = tc->n_streams;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t mid_id = tc->streams[mid]->id;

		if (mid_id == id)
			return tc->streams[mid];
		if (mid_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct ctf_event_class *ctf_stream_class_event(const struct ctf_stream_class *sc,
						     uint64_t id)
{
	size_t lo = 0, hi = sc->n_events;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t mid_id = sc->events[mid]->id;

		if (mid_id == id)
			return sc->events[mid];
		if (mid_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct ctf_env_entry *ctf_trace_class_env(const struct ctf_trace_class *tc,
						const char *key)
{
	for (size_t i = 0; i < tc->n_env; i++)
		if (strcmp(tc->env[i].key, key) == 0)
			return &tc->env[i];
	return NULL;
}
