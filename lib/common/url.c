/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/url.h"
#include "common/common.h"

int strata_url_hostport(const char *s, char *host, size_t hlen, uint16_t *ret_port,
			const char **ret_rest)
{
	const char *end;
	size_t n;

	if (*s == '[') {
		end = strchr(s, ']');
		if (!end)
			return -EINVAL;
		n = (size_t)(end - s - 1);
		s++;
		end++;
	} else {
		end = s + strcspn(s, ":/");
		n = (size_t)(end - s);
	}
	if (n == 0 || n >= hlen)
		return -EINVAL;
	if (*end == ':') {
		char *e;
		unsigned long v = strtoul(end + 1, &e, 10);

		if (e == end + 1 || v == 0 || v > 65535)
			return -EINVAL;
		*ret_port = (uint16_t)v;
		end = e;
	}
	memcpy(host, s, n);
	host[n] = '\0';
	*ret_rest = end;
	return 0;
}
