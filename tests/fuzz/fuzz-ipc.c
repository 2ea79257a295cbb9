/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the control-protocol decoder: the input is one wire message (header
 * and payload). Whatever decodes must re-encode to the same bytes, so the
 * decoder accepts exactly what the encoder can produce.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/ipc-msg.h"
#include "common/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *payload = data + IPC_HEADER_SIZE;
	struct ipc_buf b;
	uint16_t type;
	uint32_t len;

	if (ipc_header_parse(data, size, &type, &len) < 0)
		return 0;
	if ((size_t)len > size - IPC_HEADER_SIZE)
		return 0;
	if (type == IPC_MSG_REPLY) {
		struct ipc_reply rep;

		if (ipc_reply_decode(payload, len, &rep) < 0)
			return 0;
		if (ipc_reply_encode(&rep, &b) == 0 &&
		    (b.len != (size_t)len + IPC_HEADER_SIZE || memcmp(b.data, data, b.len) != 0))
			abort();
		ipc_buf_release(&b);
		ipc_reply_release(&rep);
	} else {
		struct ipc_request req;

		if (ipc_request_decode(payload, len, type, &req) < 0)
			return 0;
		if (ipc_request_encode(&req, &b) == 0 &&
		    (b.len != (size_t)len + IPC_HEADER_SIZE || memcmp(b.data, data, b.len) != 0))
			abort();
		ipc_buf_release(&b);
		ipc_request_release(&req);
	}
	return 0;
}
