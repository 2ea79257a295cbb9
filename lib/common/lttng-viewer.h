/* SPDX-License-Identifier: MIT */
/*
 * LTTng's live viewer protocol (lttng-tools' lttng-viewer-abi.h, 2.4 to
 * 2.13), spoken by strata-relayd (src/relayd/live.c) and by the client of
 * `strata view net://` (src/cli/view-live.c). Everything on the wire is
 * big-endian and packed; the layouts below are byte offsets, read and
 * written with the be*() helpers, never through structs.
 *
 * A request is a 16-byte header {data_size u64, cmd u32, cmd_version u32}
 * followed by the command's fixed-size request; each gets one reply.
 * lttng-relayd ignores data_size and reads the size the command implies
 * (Trace Compass sends 20 everywhere), and so does strata-relayd.
 */
#ifndef STRATA_COMMON_LTTNG_VIEWER_H
#define STRATA_COMMON_LTTNG_VIEWER_H

#include <stdint.h>

/* The protocol version both ends announce; they use the lower minor. */
#define LV_VERSION_MAJOR 2
#define LV_VERSION_MINOR 13

#define LV_DEFAULT_PORT 5344

enum lv_cmd {
	LV_CMD_CONNECT = 1,
	LV_CMD_LIST_SESSIONS = 2,
	LV_CMD_ATTACH_SESSION = 3,
	LV_CMD_GET_NEXT_INDEX = 4,
	LV_CMD_GET_PACKET = 5,
	LV_CMD_GET_METADATA = 6,
	LV_CMD_GET_NEW_STREAMS = 7,
	LV_CMD_CREATE_SESSION = 8,
	LV_CMD_DETACH_SESSION = 9,
};

enum lv_attach_status {
	LV_ATTACH_OK = 1,
	LV_ATTACH_ALREADY = 2,
	LV_ATTACH_UNK = 3,
	LV_ATTACH_NOT_LIVE = 4,
	LV_ATTACH_SEEK_ERR = 5,
	LV_ATTACH_NO_SESSION = 6,
};

enum lv_index_status {
	LV_INDEX_OK = 1,
	LV_INDEX_RETRY = 2,
	LV_INDEX_HUP = 3,
	LV_INDEX_ERR = 4,
	LV_INDEX_INACTIVE = 5,
	LV_INDEX_EOF = 6,
};

enum lv_packet_status {
	LV_PACKET_OK = 1,
	LV_PACKET_RETRY = 2,
	LV_PACKET_ERR = 3,
	LV_PACKET_EOF = 4,
};

enum lv_metadata_status {
	LV_METADATA_OK = 1,
	LV_METADATA_NO_NEW = 2,
	LV_METADATA_ERR = 3,
};

enum lv_new_streams_status {
	LV_NEW_STREAMS_OK = 1,
	LV_NEW_STREAMS_NO_NEW = 2,
	LV_NEW_STREAMS_ERR = 3,
	LV_NEW_STREAMS_HUP = 4,
};

enum lv_create_status {
	LV_CREATE_OK = 1,
	LV_CREATE_ERR = 2,
};

enum lv_detach_status {
	LV_DETACH_OK = 1,
	LV_DETACH_UNK = 2,
	LV_DETACH_ERR = 3,
};

enum lv_seek {
	LV_SEEK_BEGINNING = 1,
	LV_SEEK_LAST = 2,
};

enum lv_conn_type {
	LV_CLIENT_COMMAND = 1,
	LV_CLIENT_NOTIFICATION = 2,
};

/* Flags of index and packet replies. */
#define LV_FLAG_NEW_METADATA 0x1u
#define LV_FLAG_NEW_STREAM 0x2u

/* Fixed string fields, NUL-padded. */
#define LV_HOST_NAME_MAX 64
#define LV_NAME_MAX 255
#define LV_PATH_MAX 4096

/*
 * Sizes and offsets.
 *   header:   data_size 0:8, cmd 8:4, cmd_version 12:4
 *   connect:  viewer_session_id 0:8, major 8:4, minor 12:4, type 16:4
 *   session:  id 0:8, live_timer 8:4, clients 12:4, streams 16:4,
 *             hostname 20:64, session_name 84:255
 *   stream:   id 0:8, ctf_trace_id 8:8, metadata_flag 16:4,
 *             path_name 20:4096, channel_name 4116:255
 *   attach request: session_id 0:8, offset 8:8, seek 16:4
 *   attach / new streams reply: status 0:4, streams_count 4:4, streams
 *   index:    offset 0:8, packet_size 8:8 (bits), content_size 16:8 (bits),
 *             timestamp_begin 24:8, timestamp_end 32:8, events_discarded 40:8,
 *             stream_id 48:8 (stream class), status 56:4, flags 60:4
 *   get packet request: stream_id 0:8, offset 8:8, len 16:4
 *   packet reply: status 0:4, len 4:4, flags 8:4, then len bytes
 *   metadata reply: len 0:8, status 8:4, then len bytes
 *   list sessions reply: count 0:4, then count sessions
 */
#define LV_HEADER_SIZE 16
#define LV_CONNECT_SIZE 20
#define LV_SESSION_SIZE 339
#define LV_STREAM_SIZE 4371
#define LV_ATTACH_REQ_SIZE 20
#define LV_STREAMS_REPLY_SIZE 8
#define LV_INDEX_SIZE 64
#define LV_GET_PACKET_SIZE 20
#define LV_PACKET_REPLY_SIZE 12
#define LV_METADATA_REPLY_SIZE 12
#define LV_ID_REQ_SIZE 8 /* get next index, get metadata, new streams, detach */
#define LV_STATUS_SIZE 4 /* create and detach replies */

#define LV_SESSION_OFF_HOSTNAME 20
#define LV_SESSION_OFF_NAME 84
#define LV_STREAM_OFF_PATH 20
#define LV_STREAM_OFF_CHANNEL 4116

static inline void be16_put(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void be32_put(uint8_t *p, uint32_t v)
{
	for (int i = 3; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static inline void be64_put(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static inline uint16_t be16_get(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t be32_get(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t be64_get(const uint8_t *p)
{
	return (uint64_t)be32_get(p) << 32 | be32_get(p + 4);
}

#endif
