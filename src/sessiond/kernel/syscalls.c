/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "syscalls.h"

#include "common/common.h"

const struct kt_syscall *kt_syscall_by_nr(int nr)
{
	unsigned int lo = 0, hi = kt_nsyscalls;

	/* The generated table is sorted by number. */
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (kt_syscalls[mid].nr == nr)
			return &kt_syscalls[mid];
		if (kt_syscalls[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct kt_syscall *kt_syscall_by_name(const char *name)
{
	for (unsigned int i = 0; i < kt_nsyscalls; i++)
		if (!strcmp(kt_syscalls[i].name, name))
			return &kt_syscalls[i];
	return NULL;
}

unsigned int kt_syscall_strmask(const struct kt_syscall *sc)
{
	unsigned int mask = 0;

	for (int i = 0; i < sc->nargs && i < 6; i++)
		if (sc->args[i].is_string)
			mask |= 1U << i;
	return mask;
}
