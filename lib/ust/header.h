/* SPDX-License-Identifier: MIT */
/*
 * The LTTng "large" event header every strata UST stream declares
 * (struct event_header_large in the metadata), byte-packed, trace byte order
 * = host byte order:
 *
 *   compact   u16 id (< 65535) | u32 low bits of the timestamp     6 bytes
 *   extended  u16 65535 | u32 id | u64 timestamp                  14 bytes
 *
 * The extended form is needed when the id does not fit or when the reader
 * could not rebuild the full timestamp from the previous one: LTTng's rule,
 * (ts - last_ts) >> 27 != 0, also used here for the 32-bit form. last_ts is
 * the previous record's timestamp in the same buffer (0 at packet start so
 * the first record is extended, as LTTng does); a stale, older last_ts only
 * makes the extended form more likely, never wrong.
 */
#ifndef STRATA_UST_HEADER_H
#define STRATA_UST_HEADER_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define UST_HEADER_COMPACT_LEN 6
#define UST_HEADER_EXTENDED_LEN 14
#define UST_HEADER_ID_EXTENDED 65535u
#define UST_HEADER_TS_BITS 27

static inline bool ust_header_extended(uint32_t id, uint64_t ts, uint64_t last_ts)
{
	return id >= UST_HEADER_ID_EXTENDED || ((ts - last_ts) >> UST_HEADER_TS_BITS) != 0;
}

static inline size_t ust_header_len(bool extended)
{
	return extended ? UST_HEADER_EXTENDED_LEN : UST_HEADER_COMPACT_LEN;
}

/* Writes the header at p; returns the byte after it. */
static inline uint8_t *ust_header_write(uint8_t *p, uint32_t id, uint64_t ts, bool extended)
{
	if (extended) {
		uint16_t tag = UST_HEADER_ID_EXTENDED;

		memcpy(p, &tag, 2);
		memcpy(p + 2, &id, 4);
		memcpy(p + 6, &ts, 8);
		return p + UST_HEADER_EXTENDED_LEN;
	} else {
		uint16_t sid = (uint16_t)id;
		uint32_t low = (uint32_t)ts;

		memcpy(p, &sid, 2);
		memcpy(p + 2, &low, 4);
		return p + UST_HEADER_COMPACT_LEN;
	}
}

#endif
