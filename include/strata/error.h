/* SPDX-License-Identifier: MIT */
/*
 * strata error codes. Every int-returning strata function returns >= 0 on
 * success or a negative error: -errno for system errors, or -STRATA_E* for the
 * project-specific codes below (all >= 4096, fixed forever).
 */
#ifndef STRATA_ERROR_H
#define STRATA_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum strata_error {
	STRATA_EBASE = 4096,
	STRATA_EMETADATA = 4096, /* malformed TSDL metadata */
	STRATA_ESTREAM = 4097,   /* malformed binary stream data */
	STRATA_ENOTRACE = 4098,  /* no CTF trace found at the given path */
	STRATA_EPROTO = 4099,    /* malformed IPC message */
	STRATA_EUNSUPPORTED = 4100, /* valid input using an unsupported feature */
	STRATA_ECLOCK = 4101,    /* clock value cannot be converted */
	STRATA_ELAST,
};

/* Describe err (negative or positive); never returns NULL. Thread-safe. */
const char *strata_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif
