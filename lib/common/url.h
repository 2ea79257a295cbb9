/* SPDX-License-Identifier: MIT */
/* The HOST[:PORT] part of LTTng's URLs (tcp://, net://...), for strata-relayd and `strata view`. */
#ifndef STRATA_COMMON_URL_H
#define STRATA_COMMON_URL_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parse HOST or [IPV6-ADDRESS], then an optional :PORT (1 to 65535; else
 * *ret_port is left as it is), from s: the host into host (hlen bytes),
 * *ret_rest pointing past them. Returns 0, or -EINVAL (no host, a host too
 * long, an unclosed bracket, a bad port).
 */
int strata_url_hostport(const char *s, char *host, size_t hlen, uint16_t *ret_port,
			const char **ret_rest);

#endif
