/* SPDX-License-Identifier: MIT */
#define STRATA_TRACEPOINT_CREATE_PROBES
#define STRATA_TRACEPOINT_DEFINE
#include "tp-ported.h"
