/* SPDX-License-Identifier: MIT */
/*
 * Binary pieces of a CTF trace in LTTng's layout: metadata packets, data
 * packet header + context, index files, and small helpers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "ctf/writer.h"

#include "common/common.h"

#define CTF_METADATA_MAGIC 0x75D11D57u
#define CTF_INDEX_MAGIC 0xC1F1DCC1u

static void put_u32(uint8_t *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[be ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v, bool be)
{
	for (int i = 0; i < 8; i++)
		p[be ? 7 - i : i] = (uint8_t)(v >> (8 * i));
}

size_t ctf_metadata_packet_count(size_t len)
{
	return len ? (len + CTF_METADATA_PACKET_PAYLOAD - 1) / CTF_METADATA_PACKET_PAYLOAD : 0;
}

void ctf_metadata_packetize(const uint8_t uuid[16], bool big_endian, const char *text, size_t len,
			    uint8_t *out)
{
	while (len) {
		size_t chunk = MIN(len, (size_t)CTF_METADATA_PACKET_PAYLOAD);

		memset(out, 0, CTF_METADATA_PACKET_SIZE);
		put_u32(out, CTF_METADATA_MAGIC, big_endian);
		memcpy(out + 4, uuid, 16);
		put_u32(out + 20, 0, big_endian); /* checksum */
		put_u32(out + 24, (uint32_t)((CTF_METADATA_HEADER_LEN + chunk) * 8), big_endian);
		put_u32(out + 28, CTF_METADATA_PACKET_SIZE * 8, big_endian);
		out[32] = 0; /* compression_scheme */
		out[33] = 0; /* encryption_scheme */
		out[34] = 0; /* checksum_scheme */
		out[35] = 1; /* major */
		out[36] = 8; /* minor */
		memcpy(out + CTF_METADATA_HEADER_LEN, text, chunk);
		out += CTF_METADATA_PACKET_SIZE;
		text += chunk;
		len -= chunk;
	}
}

int ctf_write_rewind(int fd, uint64_t offset, int idx_fd, off_t idx_off)
{
	if (ftruncate(fd, (off_t)offset) < 0 || lseek(fd, (off_t)offset, SEEK_SET) < 0)
		return -errno;
	if (idx_off >= 0 &&
	    (ftruncate(idx_fd, idx_off) < 0 || lseek(idx_fd, idx_off, SEEK_SET) < 0))
		return -errno;
	return 0;
}

int ctf_write_packet(int fd, uint64_t offset, int idx_fd, const struct ctf_write_piece *pieces,
		     unsigned int n, const struct ctf_packet_info *pi, bool *ret_broken)
{
	uint8_t idx[CTF_INDEX_ENTRY_LEN];
	off_t idx_off = lseek(idx_fd, 0, SEEK_CUR);
	int ret = 0;

	for (unsigned int i = 0; ret == 0 && i < n; i++)
		if (pieces[i].len)
			ret = ctf_write_full(fd, pieces[i].data, pieces[i].len);
	if (ret == 0) {
		ctf_index_entry_write(idx, offset, pi);
		ret = ctf_write_full(idx_fd, idx, sizeof(idx));
	}
	/*
	 * A full disk (or any write error): take back what this packet wrote,
	 * so the files end on a whole packet and stay readable. Later packets
	 * are still tried; the sequence-number gap makes readers report the
	 * packets lost here.
	 */
	if (ret < 0 && ctf_write_rewind(fd, offset, idx_fd, idx_off) < 0)
		*ret_broken = true;
	return ret;
}

int ctf_write_full(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ctf_metadata_write_packets(int fd, const struct ctf_metadata *md, size_t from, size_t to)
{
	uint8_t packet[CTF_METADATA_PACKET_SIZE];

	if (from > to || to > md->len)
		return -EINVAL;
	/* One packet at a time: no allocation, bounded stack. */
	while (from < to) {
		size_t chunk = MIN(to - from, (size_t)CTF_METADATA_PACKET_PAYLOAD);
		int ret;

		ctf_metadata_packetize(md->uuid, md->big_endian, md->text + from, chunk, packet);
		ret = ctf_write_full(fd, packet, sizeof(packet));
		if (ret < 0)
			return ret;
		from += chunk;
	}
	return 0;
}

int ctf_metadata_write_text(int fd, const struct ctf_metadata *md, size_t from, size_t to)
{
	if (from > to || to > md->len)
		return -EINVAL;
	return ctf_write_full(fd, md->text + from, to - from);
}

size_t ctf_packet_size(size_t event_bytes)
{
	size_t content = CTF_PACKET_HEADER_LEN + event_bytes;

	return (content + CTF_PACKET_ALIGN - 1) / CTF_PACKET_ALIGN * CTF_PACKET_ALIGN;
}

void ctf_packet_header_write(uint8_t out[CTF_PACKET_HEADER_LEN], const struct ctf_packet_info *pi,
			     bool big_endian)
{
	put_u32(out + 0x00, CTF_PACKET_MAGIC, big_endian);
	memcpy(out + 0x04, pi->uuid, 16);
	put_u32(out + 0x14, pi->stream_id, big_endian);
	put_u64(out + 0x18, pi->stream_instance_id, big_endian);
	put_u64(out + 0x20, pi->timestamp_begin, big_endian);
	put_u64(out + 0x28, pi->timestamp_end, big_endian);
	put_u64(out + 0x30, pi->content_size, big_endian);
	put_u64(out + 0x38, pi->packet_size, big_endian);
	put_u64(out + 0x40, pi->packet_seq_num, big_endian);
	put_u64(out + 0x48, pi->events_discarded, big_endian);
	put_u32(out + 0x50, pi->cpu_id, big_endian);
}

void ctf_index_header_write(uint8_t out[CTF_INDEX_HEADER_LEN])
{
	put_u32(out + 0, CTF_INDEX_MAGIC, true);
	put_u32(out + 4, 1, true); /* index_major */
	put_u32(out + 8, 1, true); /* index_minor */
	put_u32(out + 12, CTF_INDEX_ENTRY_LEN, true); /* packet_index_len */
}

void ctf_index_entry_write(uint8_t out[CTF_INDEX_ENTRY_LEN], uint64_t offset,
			   const struct ctf_packet_info *pi)
{
	put_u64(out + 0, offset, true);
	put_u64(out + 8, pi->packet_size, true);
	put_u64(out + 16, pi->content_size, true);
	put_u64(out + 24, pi->timestamp_begin, true);
	put_u64(out + 32, pi->timestamp_end, true);
	put_u64(out + 40, pi->events_discarded, true);
	put_u64(out + 48, pi->stream_id, true);
	put_u64(out + 56, pi->stream_instance_id, true);
	put_u64(out + 64, pi->packet_seq_num, true);
}

int ctf_uuid_generate(uint8_t ret_uuid[16])
{
	uint8_t u[16];
	size_t got = 0;

	while (got < sizeof(u)) {
		ssize_t n = getrandom(u + got, sizeof(u) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)n;
	}
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40); /* version 4 */
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80); /* RFC 4122 variant */
	memcpy(ret_uuid, u, 16);
	return 0;
}

void ctf_uuid_format(const uint8_t uuid[16], char out[37])
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hex[uuid[i] >> 4];
		out[o++] = hex[uuid[i] & 0xf];
	}
	out[o] = '\0';
}

int ctf_format_datetime(time_t t, char out[32])
{
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return -EINVAL;
	if (strftime(out, 32, "%Y%m%dT%H%M%S%z", &tm) == 0)
		return -EINVAL;
	return 0;
}
