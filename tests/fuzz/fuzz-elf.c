/* SPDX-License-Identifier: MIT */
/*
 * Fuzz the ELF reader of user-space probes (src/sessiond/kernel/probe-elf.c):
 * the input is an ELF image, searched for the function touch_pages and the
 * USDT probe strata_test:tick (those of tests/e2e/probe-target, whose
 * binaries seed the corpus). Whatever is found must lie inside the image.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "probe-elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kt_usdt_site sites[KT_ELF_MAX_SITES];
	char why[256];
	uint64_t off;
	int r;

	r = kt_elf_function_mem(data, size, "touch_pages", &off, why, sizeof(why));
	if (r == 0 && off >= size)
		abort();
	if (r > 0 || (r < 0 && r != -ENOENT && r != -ENOEXEC && r != -E2BIG && r != -ENOTSUP))
		abort();
	r = kt_elf_usdt_mem(data, size, "strata_test", "tick", sites, why, sizeof(why));
	if (r > KT_ELF_MAX_SITES)
		abort();
	for (int i = 0; i < r; i++)
		if (sites[i].offset >= size || sites[i].sem_offset >= size)
			abort();
	return 0;
}
