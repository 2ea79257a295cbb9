/* SPDX-License-Identifier: MIT */
/*
 * Where to put uprobes in an ELF file: a function's entry, and the sites of
 * a USDT (SystemTap SDT) probe with its semaphore, as file offsets (what
 * the uprobe PMU takes). Reads ELF64 and ELF32 of either byte order through
 * libelf; the file is untrusted input (tests/fuzz/fuzz-elf.c).
 *
 * Errors: -errno, -ENOENT (no such function or probe) or -ENOEXEC (not an
 * ELF file, or a malformed one), with why saying which.
 */
#ifndef STRATA_KERNEL_ELF_H
#define STRATA_KERNEL_ELF_H

#include <stddef.h>
#include <stdint.h>

#define KT_ELF_MAX_SITES 64 /* sites of one USDT probe taken */

struct kt_usdt_site {
	uint64_t offset; /* file offset of the probe's nop */
	uint64_t sem_offset; /* file offset of its semaphore, 0: none */
};

/* File offset of function func's first instruction in the ELF file at path. */
int kt_elf_function(const char *path, const char *func, uint64_t *ret_offset, char *why,
		    size_t len);

/*
 * The sites of USDT probe provider:name (.note.stapsdt notes): up to
 * KT_ELF_MAX_SITES into sites; returns their number (>= 1).
 */
int kt_elf_usdt(const char *path, const char *provider, const char *name,
		struct kt_usdt_site *sites, char *why, size_t len);

/* The same on an ELF image in memory (image[0, size), not modified). */
int kt_elf_function_mem(const void *image, size_t size, const char *func, uint64_t *ret_offset,
			char *why, size_t len);
int kt_elf_usdt_mem(const void *image, size_t size, const char *provider, const char *name,
		    struct kt_usdt_site *sites, char *why, size_t len);

#endif
