/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe-elf.h"

#include "common/common.h"

#define KT_NT_STAPSDT 3

/* File offset of virtual address v: the PT_LOAD segment whose file bytes hold it. */
static int kt_elf_vaddr_offset(Elf *e, uint64_t v, uint64_t *ret)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (v >= ph.p_vaddr && v - ph.p_vaddr < ph.p_filesz) {
			*ret = v - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* Find func in one symbol table: 1 and its address (a global first), 0 if absent. */
static int kt_elf_symtab_find(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, const char *func,
			      uint64_t *ret)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n;
	bool found = false;

	if (!d || !sh->sh_entsize)
		return 0;
	n = MIN(sh->sh_size / sh->sh_entsize, d->d_size / sh->sh_entsize);
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || strcmp(name, func))
			continue;
		if (GELF_ST_BIND(sym.st_info) != STB_LOCAL) {
			*ret = sym.st_value;
			return 1;
		}
		if (!found) {
			*ret = sym.st_value;
			found = true;
		}
	}
	return found;
}

static int kt_elf_function_elf(Elf *e, const char *func, uint64_t *ret_offset, char *why,
			       size_t len)
{
	static const unsigned int kinds[2] = { SHT_SYMTAB, SHT_DYNSYM };
	uint64_t addr = 0;
	int found = 0;

	for (int k = 0; k < 2 && !found; k++) {
		Elf_Scn *scn = NULL;

		while (!found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;

			if (gelf_getshdr(scn, &sh) && sh.sh_type == kinds[k])
				found = kt_elf_symtab_find(e, scn, &sh, func, &addr);
		}
	}
	if (!found) {
		snprintf(why, len,
			 "function '%s' is not in its symbol tables (a static function inlined "
			 "away, a stripped binary, or a misspelled name)",
			 func);
		return -ENOENT;
	}
	if (kt_elf_vaddr_offset(e, addr, ret_offset)) {
		snprintf(why, len, "function '%s' (0x%llx) lies in no loadable segment", func,
			 (unsigned long long)addr);
		return -ENOEXEC;
	}
	return 0;
}

/* The .stapsdt.base section's address (0 when absent): prelink moves notes' addresses. */
static uint64_t kt_elf_sdt_base(Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".stapsdt.base"))
			return sh.sh_addr;
	}
	return 0;
}

static uint64_t kt_elf_addr(const uint8_t *p, bool is64, bool swap)
{
	uint64_t v = 0;

	if (is64) {
		memcpy(&v, p, 8);
		return swap ? __builtin_bswap64(v) : v;
	}
	{
		uint32_t w;

		memcpy(&w, p, 4);
		return swap ? __builtin_bswap32(w) : w;
	}
}

/*
 * One stapsdt note: pc, base and semaphore addresses (4 or 8 bytes each),
 * then "provider\0name\0args\0". Returns 1 when it is provider:name.
 */
static int kt_elf_sdt_note(const uint8_t *desc, size_t dlen, bool is64, bool swap,
			   const char *provider, const char *name, uint64_t *pc, uint64_t *base,
			   uint64_t *sem)
{
	size_t asz = is64 ? 8 : 4, off = 3 * asz, n;

	if (dlen < off)
		return 0;
	*pc = kt_elf_addr(desc, is64, swap);
	*base = kt_elf_addr(desc + asz, is64, swap);
	*sem = kt_elf_addr(desc + 2 * asz, is64, swap);
	n = strnlen((const char *)desc + off, dlen - off);
	if (off + n >= dlen || strcmp((const char *)desc + off, provider))
		return 0;
	off += n + 1;
	n = strnlen((const char *)desc + off, dlen - off);
	if (off + n >= dlen || strcmp((const char *)desc + off, name))
		return 0;
	return 1;
}

static int kt_elf_usdt_elf(Elf *e, const char *provider, const char *name,
			   struct kt_usdt_site *sites, char *why, size_t len)
{
	GElf_Ehdr eh;
	uint64_t sdt_base;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool is64, swap;
	int n = 0;

	if (!gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx)) {
		snprintf(why, len, "malformed ELF headers");
		return -ENOEXEC;
	}
	is64 = gelf_getclass(e) == ELFCLASS64;
	swap = (eh.e_ident[EI_DATA] == ELFDATA2MSB) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	sdt_base = kt_elf_sdt_base(e);
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;
		const char *sname;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".note.stapsdt"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		while (off < d->d_size && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			uint64_t pc, base, sem, pc_off, sem_off = 0;

			if (nh.n_type != KT_NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((const char *)d->d_buf + noff, "stapsdt", 8))
				continue;
			if (!kt_elf_sdt_note((const uint8_t *)d->d_buf + doff, nh.n_descsz, is64,
					     swap, provider, name, &pc, &base, &sem))
				continue;
			/* Prelinked: the note's base was the section's address at link time. */
			if (sdt_base && base)
				pc += sdt_base - base;
			if (kt_elf_vaddr_offset(e, pc, &pc_off) ||
			    (sem && kt_elf_vaddr_offset(e, sem, &sem_off))) {
				snprintf(why, len,
					 "USDT probe %s:%s has an address outside the loadable "
					 "segments",
					 provider, name);
				return -ENOEXEC;
			}
			if (n == KT_ELF_MAX_SITES) {
				snprintf(why, len, "USDT probe %s:%s has more than %d sites",
					 provider, name, KT_ELF_MAX_SITES);
				return -E2BIG;
			}
			sites[n].offset = pc_off;
			sites[n].sem_offset = sem_off;
			n++;
		}
	}
	if (!n) {
		snprintf(why, len, "no USDT probe %s:%s in its .note.stapsdt section", provider,
			 name);
		return -ENOENT;
	}
	return n;
}

typedef int (*kt_elf_fn)(Elf *e, const void *arg, void *ret, char *why, size_t len);

struct kt_elf_func_arg {
	const char *func;
};
struct kt_elf_usdt_arg {
	const char *provider, *name;
};

static int kt_elf_do_func(Elf *e, const void *arg, void *ret, char *why, size_t len)
{
	return kt_elf_function_elf(e, ((const struct kt_elf_func_arg *)arg)->func, ret, why, len);
}

static int kt_elf_do_usdt(Elf *e, const void *arg, void *ret, char *why, size_t len)
{
	const struct kt_elf_usdt_arg *a = arg;

	return kt_elf_usdt_elf(e, a->provider, a->name, ret, why, len);
}

static int kt_elf_run(Elf *e, kt_elf_fn fn, const void *arg, void *ret, char *why, size_t len)
{
	int r;

	if (!e || elf_kind(e) != ELF_K_ELF) {
		snprintf(why, len, "not an ELF file");
		r = -ENOEXEC;
	} else {
		r = fn(e, arg, ret, why, len);
	}
	elf_end(e);
	return r;
}

static int kt_elf_mem(const void *image, size_t size, kt_elf_fn fn, const void *arg, void *ret,
		      char *why, size_t len)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	/* libelf's ELF_C_READ_MEMORY never writes the image. */
	return kt_elf_run(elf_memory((char *)(uintptr_t)image, size), fn, arg, ret, why, len);
}

static int kt_elf_file(const char *path, kt_elf_fn fn, const void *arg, void *ret, char *why,
		       size_t len)
{
	struct stat st;
	int fd, r;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		r = -errno;
		snprintf(why, len, "cannot open '%s': %s", path, strerror(-r));
		if (fd >= 0)
			close(fd);
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, len, "'%s' is not a regular file", path);
		return -ENOEXEC;
	}
	r = kt_elf_run(elf_begin(fd, ELF_C_READ_MMAP, NULL), fn, arg, ret, why, len);
	close(fd);
	return r;
}

int kt_elf_function(const char *path, const char *func, uint64_t *ret_offset, char *why, size_t len)
{
	struct kt_elf_func_arg a = { func };

	return kt_elf_file(path, kt_elf_do_func, &a, ret_offset, why, len);
}

int kt_elf_usdt(const char *path, const char *provider, const char *name,
		struct kt_usdt_site *sites, char *why, size_t len)
{
	struct kt_elf_usdt_arg a = { provider, name };

	return kt_elf_file(path, kt_elf_do_usdt, &a, sites, why, len);
}

int kt_elf_function_mem(const void *image, size_t size, const char *func, uint64_t *ret_offset,
			char *why, size_t len)
{
	struct kt_elf_func_arg a = { func };

	return kt_elf_mem(image, size, kt_elf_do_func, &a, ret_offset, why, len);
}

int kt_elf_usdt_mem(const void *image, size_t size, const char *provider, const char *name,
		    struct kt_usdt_site *sites, char *why, size_t len)
{
	struct kt_elf_usdt_arg a = { provider, name };

	return kt_elf_mem(image, size, kt_elf_do_usdt, &a, sites, why, len);
}
