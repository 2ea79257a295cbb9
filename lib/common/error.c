/* SPDX-License-Identifier: MIT */
#include <string.h>

#include <strata/error.h>

#include "common/common.h"

static const char *const strata_errors[] = {
	[STRATA_EMETADATA - STRATA_EBASE] = "Malformed CTF metadata",
	[STRATA_ESTREAM - STRATA_EBASE] = "Malformed CTF stream data",
	[STRATA_ENOTRACE - STRATA_EBASE] = "No CTF trace found",
	[STRATA_EPROTO - STRATA_EBASE] = "Malformed protocol message",
	[STRATA_EUNSUPPORTED - STRATA_EBASE] = "Unsupported feature",
	[STRATA_ECLOCK - STRATA_EBASE] = "Clock value out of range",
};

const char *strata_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= STRATA_EBASE && err < STRATA_ELAST)
		return strata_errors[err - STRATA_EBASE];
	return strerrordesc_np(err) ? strerrordesc_np(err) : "Unknown error";
}
