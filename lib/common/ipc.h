/* SPDX-License-Identifier: MIT */
/*
 * The control-socket codec shared by the strata CLI and strata-sessiond.
 *
 * A message on the wire is a 12-byte header followed by a payload:
 *
 *   u32 magic (IPC_MAGIC) | u16 version (IPC_VERSION) | u16 type | u32 payload_len
 *
 * all little-endian, payload_len <= IPC_MAX_PAYLOAD. The payload is a
 * sequence of primitives written by struct ipc_buf and read back by struct
 * ipc_reader: fixed-width little-endian integers and strings (u32 length, then
 * that many bytes, no NUL, length < the caller's buffer). Every decode is
 * bounds-checked against the payload; errors are sticky, so a decoder reads a
 * whole structure and checks the reader once at the end.
 *
 * The schema of each request and reply is in common/ipc-msg.h.
 * Thread-safety: objects are used by one thread at a time.
 */
#ifndef STRATA_COMMON_IPC_H
#define STRATA_COMMON_IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IPC_MAGIC 0x43525453u /* "STRC" as little-endian bytes */
#define IPC_VERSION 1
#define IPC_HEADER_SIZE 12
#define IPC_MAX_PAYLOAD (8u << 20)

/* Growable encoder. The header is reserved at init and filled by finish. */
struct ipc_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
	int err; /* first error (-ENOMEM, -EMSGSIZE), sticky */
};

void ipc_buf_init(struct ipc_buf *b);
void ipc_buf_release(struct ipc_buf *b);
void ipc_put_u8(struct ipc_buf *b, uint8_t v);
void ipc_put_u16(struct ipc_buf *b, uint16_t v);
void ipc_put_u32(struct ipc_buf *b, uint32_t v);
void ipc_put_u64(struct ipc_buf *b, uint64_t v);
void ipc_put_i32(struct ipc_buf *b, int32_t v);
void ipc_put_str(struct ipc_buf *b, const char *s);
/* Write the header for message `type`; returns 0 or the sticky error. */
int ipc_buf_finish(struct ipc_buf *b, uint16_t type);

/* Bounds-checked decoder over one payload (not owned). */
struct ipc_reader {
	const uint8_t *p;
	size_t len;
	size_t pos;
	int err; /* -STRATA_EPROTO once anything was out of bounds, sticky */
};

void ipc_reader_init(struct ipc_reader *r, const void *payload, size_t len);
uint8_t ipc_get_u8(struct ipc_reader *r);
uint16_t ipc_get_u16(struct ipc_reader *r);
uint32_t ipc_get_u32(struct ipc_reader *r);
uint64_t ipc_get_u64(struct ipc_reader *r);
int32_t ipc_get_i32(struct ipc_reader *r);
/* Boolean stored as u8; anything but 0/1 is a protocol error. */
bool ipc_get_bool(struct ipc_reader *r);
/* Copy a string into dst (NUL-terminated); fails unless it fits in dst_size
 * and holds no NUL byte. dst is "" on failure. */
void ipc_get_str(struct ipc_reader *r, char *dst, size_t dst_size);
/* A string of at most max_len bytes, malloc'd; NULL when empty or on error. */
char *ipc_get_strdup(struct ipc_reader *r, size_t max_len);
/* Read a count and check it against max and against the bytes left, each
 * element taking at least min_elem_size bytes on the wire. 0 on failure. */
uint32_t ipc_get_count(struct ipc_reader *r, uint32_t max, size_t min_elem_size);
/* 0 when everything read so far was valid and the payload is consumed. */
int ipc_reader_end(const struct ipc_reader *r);

/* Parse a header: 0 and the type and payload length, or -STRATA_EPROTO. */
int ipc_header_parse(const void *hdr, size_t len, uint16_t *ret_type, uint32_t *ret_payload_len);

/*
 * Blocking socket I/O for clients: send a finished buffer whole; receive one
 * message within timeout_ms (-1: forever) into a malloc'd payload the caller
 * frees. Return 0 or -errno (-ETIMEDOUT, -ECONNRESET on EOF, -STRATA_EPROTO).
 */
int ipc_send_buf(int fd, const struct ipc_buf *b);
int ipc_recv_msg(int fd, int timeout_ms, uint16_t *ret_type, uint8_t **ret_payload,
		 uint32_t *ret_len);

#endif
