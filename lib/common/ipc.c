/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <strata/error.h>

#include "common/ipc.h"
#include "common/common.h"

void ipc_buf_init(struct ipc_buf *b)
{
	*b = (struct ipc_buf){ 0 };
	b->data = calloc(1, 256);
	if (!b->data) {
		b->err = -ENOMEM;
		return;
	}
	b->cap = 256;
	b->len = IPC_HEADER_SIZE;
}

void ipc_buf_release(struct ipc_buf *b)
{
	free(b->data);
	*b = (struct ipc_buf){ 0 };
}

static void buf_append(struct ipc_buf *b, const void *src, size_t n)
{
	if (b->err)
		return;
	if (b->len + n - IPC_HEADER_SIZE > IPC_MAX_PAYLOAD) {
		b->err = -EMSGSIZE;
		return;
	}
	if (b->len + n > b->cap) {
		size_t cap = b->cap;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, src, n);
	b->len += n;
}

/* Little-endian regardless of host: the format is the same for everyone. */
static void put_le(struct ipc_buf *b, uint64_t v, size_t n)
{
	uint8_t tmp[8];

	for (size_t i = 0; i < n; i++)
		tmp[i] = (uint8_t)(v >> (8 * i));
	buf_append(b, tmp, n);
}

void ipc_put_u8(struct ipc_buf *b, uint8_t v)
{
	put_le(b, v, 1);
}

void ipc_put_u16(struct ipc_buf *b, uint16_t v)
{
	put_le(b, v, 2);
}

void ipc_put_u32(struct ipc_buf *b, uint32_t v)
{
	put_le(b, v, 4);
}

void ipc_put_u64(struct ipc_buf *b, uint64_t v)
{
	put_le(b, v, 8);
}

void ipc_put_i32(struct ipc_buf *b, int32_t v)
{
	put_le(b, (uint32_t)v, 4);
}

void ipc_put_str(struct ipc_buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n > UINT32_MAX) {
		b->err = b->err ? b->err : -EMSGSIZE;
		return;
	}
	ipc_put_u32(b, (uint32_t)n);
	if (n)
		buf_append(b, s, n);
}

static void write_le(uint8_t *dst, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (uint8_t)(v >> (8 * i));
}

int ipc_buf_finish(struct ipc_buf *b, uint16_t type)
{
	if (b->err)
		return b->err;
	write_le(b->data, IPC_MAGIC, 4);
	write_le(b->data + 4, IPC_VERSION, 2);
	write_le(b->data + 6, type, 2);
	write_le(b->data + 8, b->len - IPC_HEADER_SIZE, 4);
	return 0;
}

void ipc_reader_init(struct ipc_reader *r, const void *payload, size_t len)
{
	*r = (struct ipc_reader){ .p = payload, .len = payload ? len : 0 };
}

static uint64_t get_le(struct ipc_reader *r, size_t n)
{
	uint64_t v = 0;

	if (r->err || r->len - r->pos < n) {
		r->err = -STRATA_EPROTO;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->pos + i] << (8 * i);
	r->pos += n;
	return v;
}

uint8_t ipc_get_u8(struct ipc_reader *r)
{
	return (uint8_t)get_le(r, 1);
}

uint16_t ipc_get_u16(struct ipc_reader *r)
{
	return (uint16_t)get_le(r, 2);
}

uint32_t ipc_get_u32(struct ipc_reader *r)
{
	return (uint32_t)get_le(r, 4);
}

uint64_t ipc_get_u64(struct ipc_reader *r)
{
	return get_le(r, 8);
}

int32_t ipc_get_i32(struct ipc_reader *r)
{
	return (int32_t)(uint32_t)get_le(r, 4);
}

bool ipc_get_bool(struct ipc_reader *r)
{
	uint8_t v = ipc_get_u8(r);

	if (v > 1)
		r->err = -STRATA_EPROTO;
	return v == 1;
}

void ipc_get_str(struct ipc_reader *r, char *dst, size_t dst_size)
{
	uint32_t n = ipc_get_u32(r);

	if (dst_size)
		dst[0] = '\0';
	if (r->err)
		return;
	if ((size_t)n >= dst_size || r->len - r->pos < n || memchr(r->p + r->pos, '\0', n)) {
		r->err = -STRATA_EPROTO;
		return;
	}
	memcpy(dst, r->p + r->pos, n);
	dst[n] = '\0';
	r->pos += n;
}

char *ipc_get_strdup(struct ipc_reader *r, size_t max_len)
{
	uint32_t n = ipc_get_u32(r);
	char *s;

	if (r->err || n == 0)
		return NULL;
	if ((size_t)n > max_len || r->len - r->pos < n || memchr(r->p + r->pos, '\0', n)) {
		r->err = -STRATA_EPROTO;
		return NULL;
	}
	s = malloc((size_t)n + 1);
	if (!s) {
		r->err = -ENOMEM;
		return NULL;
	}
	memcpy(s, r->p + r->pos, n);
	s[n] = '\0';
	r->pos += n;
	return s;
}

uint32_t ipc_get_count(struct ipc_reader *r, uint32_t max, size_t min_elem_size)
{
	uint32_t n = ipc_get_u32(r);

	if (r->err)
		return 0;
	if (n > max || (min_elem_size && (size_t)n > (r->len - r->pos) / min_elem_size)) {
		r->err = -STRATA_EPROTO;
		return 0;
	}
	return n;
}

int ipc_reader_end(const struct ipc_reader *r)
{
	if (r->err)
		return r->err;
	return r->pos == r->len ? 0 : -STRATA_EPROTO;
}

int ipc_header_parse(const void *hdr, size_t len, uint16_t *ret_type, uint32_t *ret_payload_len)
{
	struct ipc_reader r;
	uint32_t magic, plen;
	uint16_t version, type;

	ipc_reader_init(&r, hdr, MIN(len, (size_t)IPC_HEADER_SIZE));
	magic = ipc_get_u32(&r);
	version = ipc_get_u16(&r);
	type = ipc_get_u16(&r);
	plen = ipc_get_u32(&r);
	if (r.err || magic != IPC_MAGIC || version != IPC_VERSION || plen > IPC_MAX_PAYLOAD)
		return -STRATA_EPROTO;
	*ret_type = type;
	*ret_payload_len = plen;
	return 0;
}

int ipc_send_buf(int fd, const struct ipc_buf *b)
{
	size_t off = 0;

	if (b->err)
		return b->err;
	while (off < b->len) {
		ssize_t n = send(fd, b->data + off, b->len - off, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += (size_t)n;
	}
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int recv_full(int fd, void *dst, size_t len, int64_t deadline)
{
	size_t off = 0;

	while (off < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int timeout = -1;
		ssize_t n;
		int ret;

		if (deadline >= 0) {
			int64_t left = deadline - now_ms();

			if (left <= 0)
				return -ETIMEDOUT;
			timeout = (int)MIN(left, (int64_t)INT32_MAX);
		}
		ret = poll(&pfd, 1, timeout);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ret == 0)
			return -ETIMEDOUT;
		n = recv(fd, (uint8_t *)dst + off, len - off, 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		off += (size_t)n;
	}
	return 0;
}

int ipc_recv_msg(int fd, int timeout_ms, uint16_t *ret_type, uint8_t **ret_payload,
		 uint32_t *ret_len)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	uint8_t hdr[IPC_HEADER_SIZE];
	uint8_t *payload;
	uint16_t type;
	uint32_t plen;
	int ret;

	ret = recv_full(fd, hdr, sizeof(hdr), deadline);
	if (ret < 0)
		return ret;
	ret = ipc_header_parse(hdr, sizeof(hdr), &type, &plen);
	if (ret < 0)
		return ret;
	payload = malloc(plen ? plen : 1);
	if (!payload)
		return -ENOMEM;
	ret = recv_full(fd, payload, plen, deadline);
	if (ret < 0) {
		free(payload);
		return ret;
	}
	*ret_type = type;
	*ret_payload = payload;
	*ret_len = plen;
	return 0;
}
