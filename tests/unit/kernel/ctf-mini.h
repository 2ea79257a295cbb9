/* SPDX-License-Identifier: MIT */
/*
 * A deliberately tiny CTF stream writer for the kernel-domain tests: it packs
 * kernel_record values into one packet (event_header_compact or _large, always
 * the extended form, so no timestamp-wrap logic is needed) so that babeltrace2
 * can check the metadata and the encodings together. Not the project's writer
 * (lib/ctf/writer.h); only tests use it.
 */
#ifndef STRATA_TESTS_KERNEL_CTF_MINI_H
#define STRATA_TESTS_KERNEL_CTF_MINI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctf_mini {
	uint8_t *buf;
	size_t len, cap;
	uint64_t ts_begin, ts_end;
	uint64_t nevents;
	bool compact;
};

void ctf_mini_init(struct ctf_mini *m, bool compact);
void ctf_mini_event(struct ctf_mini *m, uint32_t id, uint64_t ts, const void *ctx, size_t ctx_len,
		    const void *payload, size_t payload_len);
/* Write the packet (header for stream 0, instance/cpu_id cpu) to path; returns 0 or -errno. */
int ctf_mini_write(struct ctf_mini *m, const uint8_t uuid[16], uint32_t cpu, uint64_t discarded,
		   const char *path);
void ctf_mini_release(struct ctf_mini *m);

/* Run a command, capture stdout+stderr into a malloc'ed string; returns the exit status. */
int ctf_mini_run(const char *cmd, char **out);

#endif
