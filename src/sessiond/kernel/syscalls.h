/* SPDX-License-Identifier: MIT */
/*
 * The x86_64 syscall table, generated at build time by gen-syscall-table.py
 * (from tracefs when readable, else from the committed syscalls-x86_64.txt).
 */
#ifndef STRATA_KERNEL_SYSCALLS_H
#define STRATA_KERNEL_SYSCALLS_H

struct kt_syscall_arg {
	const char *name;
	unsigned char size; /* bytes in CTF (the raw argument is 8 bytes) */
	unsigned char is_signed;
	unsigned char hex; /* pointers print in base 16 */
	unsigned char is_string; /* NUL-terminated user string read at entry */
};

struct kt_syscall {
	int nr;
	const char *name; /* kernel name: syscall_entry_<name> */
	int nargs; /* -1: no tracepoint format, arguments unknown */
	struct kt_syscall_arg args[6];
};

extern const struct kt_syscall kt_syscalls[];
extern const unsigned int kt_nsyscalls;

/* The entry for nr, or NULL. */
const struct kt_syscall *kt_syscall_by_nr(int nr);
/* The entry named name (kernel name), or NULL. */
const struct kt_syscall *kt_syscall_by_name(const char *name);
/* Bitmask of the arguments of nr that are user strings. */
unsigned int kt_syscall_strmask(const struct kt_syscall *sc);

#endif
