/* SPDX-License-Identifier: MIT */
/*
 * Reading a `metadata` file (plain TSDL text or LTTng-style packets) and
 * the parse entry point. Packet validation follows babeltrace2 2.0.4
 * (decoder-packetized-file-stream-to-buf.c), plus bounds checks it lacks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <strata/error.h>

#include "ctf/tsdl-internal.h"
#include "common/common.h"

#define TSDL_PACKET_MAGIC 0x75D11D57u
#define TSDL_PACKET_HEADER_SIZE 37

static uint32_t get_u32(const uint8_t *p, bool be)
{
	if (be)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static int read_error(struct ctf_parse_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int read_error(struct ctf_parse_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->line = 0;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -STRATA_EMETADATA;
}

static int join_packets(const uint8_t *buf, size_t size, bool be, char *out, size_t *ret_len,
			struct ctf_parse_error *err)
{
	const uint8_t *uuid = NULL;
	size_t off = 0, len = 0;

	/* A trailing partial header ends the stream, as in babeltrace2. */
	while (size - off >= TSDL_PACKET_HEADER_SIZE) {
		const uint8_t *h = buf + off;
		uint32_t magic = get_u32(h, be);
		uint32_t checksum = get_u32(h + 20, be);
		uint32_t content_bits = get_u32(h + 24, be);
		uint32_t packet_bits = get_u32(h + 28, be);
		size_t content = content_bits / 8, packet = packet_bits / 8;

		if (magic != TSDL_PACKET_MAGIC)
			return read_error(err, "metadata packet at offset %zu: bad magic 0x%08x",
					  off, magic);
		if (h[32])
			return read_error(err,
					  "metadata packet at offset %zu: compression scheme %u is "
					  "not supported",
					  off, h[32]);
		if (h[33])
			return read_error(err,
					  "metadata packet at offset %zu: encryption scheme %u is "
					  "not supported",
					  off, h[33]);
		if (checksum || h[34])
			return read_error(
				err,
				"metadata packet at offset %zu: checksum (scheme %u, value "
				"0x%x) is not supported",
				off, h[34], checksum);
		if (h[35] != 1 || h[36] != 8)
			return read_error(err,
					  "metadata packet at offset %zu: invalid version %u.%u "
					  "(need 1.8)",
					  off, h[35], h[36]);
		if (!uuid)
			uuid = h + 4;
		else if (memcmp(uuid, h + 4, 16))
			return read_error(
				err,
				"metadata packet at offset %zu: UUID differs from the first "
				"packet's",
				off);
		if (content < TSDL_PACKET_HEADER_SIZE)
			return read_error(err,
					  "metadata packet at offset %zu: content size %u bits is "
					  "smaller than the header",
					  off, content_bits);
		if (packet_bits < content_bits)
			return read_error(err,
					  "metadata packet at offset %zu: content size %u bits "
					  "exceeds packet size %u bits",
					  off, content_bits, packet_bits);
		if (content > size - off)
			return read_error(
				err,
				"metadata packet at offset %zu: content size %u bits goes "
				"beyond the end of the file (%zu bytes)",
				off, content_bits, size);
		memcpy(out + len, h + TSDL_PACKET_HEADER_SIZE, content - TSDL_PACKET_HEADER_SIZE);
		len += content - TSDL_PACKET_HEADER_SIZE;
		/* Padding past the end of the file: this was the last packet. */
		if (packet > size - off)
			break;
		off += packet;
	}
	out[len] = '\0';
	*ret_len = len;
	return 0;
}

int ctf_metadata_read_buf(const uint8_t *buf, size_t size, char **ret_text, size_t *ret_len,
			  struct ctf_parse_error *err)
{
	char *out;
	size_t len = 0;
	int ret;

	if (size > TSDL_MAX_TEXT)
		return read_error(err, "metadata file too large (%zu bytes)", size);
	out = malloc(size + 1);
	if (!out)
		return -ENOMEM;
	if (size >= 4 &&
	    (get_u32(buf, false) == TSDL_PACKET_MAGIC || get_u32(buf, true) == TSDL_PACKET_MAGIC)) {
		ret = join_packets(buf, size, get_u32(buf, true) == TSDL_PACKET_MAGIC, out, &len,
				   err);
		if (ret) {
			free(out);
			return ret;
		}
	} else {
		unsigned major = 0, minor = 0;

		/*
		 * Plain text must start with the `/ * CTF 1.8` signature: babeltrace2
		 * 2.0.4 scans it with this very format and, when it is missing,
		 * validates an uninitialized version, i.e. fails.
		 */
		memcpy(out, buf, size);
		out[size] = '\0';
		len = size;
		if (sscanf(out, "/* CTF %10u.%10u", &major, &minor) != 2) {
			free(out);
			return read_error(err,
					  "metadata at offset 0: missing `/* CTF 1.8` signature "
					  "in plain text metadata");
		}
		if (major != 1 || minor != 8) {
			free(out);
			return read_error(err,
					  "metadata at offset 0: invalid version %u.%u (need 1.8)",
					  major, minor);
		}
	}
	*ret_text = out;
	*ret_len = len;
	return 0;
}

int ctf_metadata_read(const char *path, char **ret_text, size_t *ret_len,
		      struct ctf_parse_error *err)
{
	struct stat st;
	uint8_t *buf;
	size_t off = 0;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > TSDL_MAX_TEXT) {
		close(fd);
		return read_error(err, "metadata file too large (%lld bytes)",
				  (long long)st.st_size);
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (off < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + off, (size_t)st.st_size - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			free(buf);
			close(fd);
			return ret;
		}
		if (!n)
			break; /* shrank meanwhile: use what is there */
		off += (size_t)n;
	}
	close(fd);
	ret = ctf_metadata_read_buf(buf, off, ret_text, ret_len, err);
	free(buf);
	return ret;
}

int ctf_metadata_parse(const char *text, size_t len, struct ctf_trace_class **ret_tc,
		       struct ctf_parse_error *err)
{
	struct tsdl_lexer lx;
	struct ctf_trace_class *tc = NULL;
	int ret;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	ret = tsdl_lex(&lx, text, len, err);
	if (ret)
		return ret;
	ret = tsdl_parse_tokens(&lx, &tc, err);
	tsdl_lexer_release(&lx);
	if (ret)
		return ret;
	ret = tsdl_resolve(tc, err);
	if (ret) {
		ctf_trace_class_destroy(tc);
		return ret;
	}
	*ret_tc = tc;
	return 0;
}
