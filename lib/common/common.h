/* SPDX-License-Identifier: MIT */
/* Included by every strata source file, after system headers. */
#ifndef STRATA_COMMON_COMMON_H
#define STRATA_COMMON_COMMON_H

#include "common/macro.h"
#include "common/banned.h"

#endif
