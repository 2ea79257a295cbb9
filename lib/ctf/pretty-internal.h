/* SPDX-License-Identifier: MIT */
/*
 * Building blocks of the babeltrace2-compatible text printer (pretty.c):
 * an append-only line buffer and the value formatters, each reproducing
 * one piece of babeltrace2 2.0.4's sink.text.pretty byte for byte
 * (ctf.md §3.3, §3.6). They are exposed to the unit tests, which check
 * each against outputs observed from babeltrace2.
 *
 * None of these allocate except ctf_pbuf_reserve(); a failed allocation
 * is remembered in the buffer (oom) and reported once at flush time, so
 * the formatters need no error paths.
 */
#ifndef STRATA_CTF_PRETTY_INTERNAL_H
#define STRATA_CTF_PRETTY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A growable byte buffer holding one output line (not NUL-terminated). */
struct ctf_pbuf {
	char *data;
	size_t len;
	size_t cap;
	bool oom; /* an allocation failed: the content is truncated */
};

void ctf_pbuf_release(struct ctf_pbuf *b);
/* Slow path of ctf_pbuf_reserve(). */
char *ctf_pbuf_grow(struct ctf_pbuf *b, size_t n);
/* What an allocation failure does: the content is dropped, oom is set. */
void ctf_pbuf_set_oom(struct ctf_pbuf *b);

/*
 * Room for n more bytes at the end; the caller writes there and adds what
 * it wrote to b->len. On allocation failure returns a scratch area of the
 * calling thread that is discarded (b->oom is set), so callers never
 * check. (len + n, not cap - len: after a failure len may pass cap.)
 */
static inline char *ctf_pbuf_reserve(struct ctf_pbuf *b, size_t n)
{
	if (__builtin_expect(b->len + n <= b->cap, 1))
		return b->data + b->len;
	return ctf_pbuf_grow(b, n);
}

static inline void ctf_pbuf_add(struct ctf_pbuf *b, const char *s, size_t n)
{
	char *p = ctf_pbuf_reserve(b, n);

	memcpy(p, s, n);
	b->len += n;
}

static inline void ctf_pbuf_addc(struct ctf_pbuf *b, char c)
{
	char *p = ctf_pbuf_reserve(b, 1);

	*p = c;
	b->len++;
}

/* Adds a string literal without strlen(). */
#define ctf_pbuf_lit(b, s) ctf_pbuf_add((b), "" s, sizeof(s) - 1)

static inline void ctf_pbuf_str(struct ctf_pbuf *b, const char *s)
{
	ctf_pbuf_add(b, s, strlen(s));
}

/*
 * Decimal; return the number of bytes written to p (at most 20 / 21).
 * Inline: they run for nearly every field of every line.
 */
static const char ctf_digits2[201] = "00010203040506070809"
				     "10111213141516171819"
				     "20212223242526272829"
				     "30313233343536373839"
				     "40414243444546474849"
				     "50515253545556575859"
				     "60616263646566676869"
				     "70717273747576777879"
				     "80818283848586878889"
				     "90919293949596979899";

static inline unsigned ctf_count_digits(uint64_t v)
{
	unsigned n = 1;

	for (;;) {
		if (v < 10)
			return n;
		if (v < 100)
			return n + 1;
		if (v < 1000)
			return n + 2;
		if (v < 10000)
			return n + 3;
		v /= 10000;
		n += 4;
	}
}

static inline size_t ctf_fmt_u64(char *p, uint64_t v)
{
	unsigned n;
	char *t;

	/* Most values in traces are small. */
	if (v < 10) {
		*p = (char)('0' + v);
		return 1;
	}
	if (v < 100) {
		p[0] = ctf_digits2[v * 2];
		p[1] = ctf_digits2[v * 2 + 1];
		return 2;
	}
	n = ctf_count_digits(v);
	t = p + n;

	/* Two digits at a time, from the end, straight into place. */
	while (v >= 100) {
		unsigned i = (unsigned)(v % 100) * 2;

		v /= 100;
		t -= 2;
		t[0] = ctf_digits2[i];
		t[1] = ctf_digits2[i + 1];
	}
	if (v >= 10) {
		unsigned i = (unsigned)v * 2;

		t[-2] = ctf_digits2[i];
		t[-1] = ctf_digits2[i + 1];
	} else {
		t[-1] = (char)('0' + v);
	}
	return n;
}

static inline size_t ctf_fmt_s64(char *p, int64_t v)
{
	if (v < 0) {
		*p = '-';
		/* Negate in unsigned arithmetic: INT64_MIN has no positive twin. */
		return 1 + ctf_fmt_u64(p + 1, -(uint64_t)v);
	}
	return ctf_fmt_u64(p, (uint64_t)v);
}

static inline size_t ctf_fmt_u64_pad(char *p, uint64_t v, unsigned width)
{
	char tmp[20];
	size_t n = ctf_fmt_u64(tmp, v);

	if (n >= width) {
		memcpy(p, tmp, n);
		return n;
	}
	memset(p, '0', width - n);
	memcpy(p + (width - n), tmp, n);
	return width;
}

/* Exactly 9 digits (nanoseconds), v < 10^9. */
static inline void ctf_fmt_9(char *p, uint32_t v)
{
	for (int i = 7; i >= 1; i -= 2) {
		uint32_t r = v % 100;

		v /= 100;
		p[i] = ctf_digits2[r * 2];
		p[i + 1] = ctf_digits2[r * 2 + 1];
	}
	p[0] = (char)('0' + v);
}

/*
 * babeltrace2 masks a hex value to its size rounded up to 4 bits with a
 * 64-bit shift: for rounded == 64 the x86-64 shift count wraps to 0 and
 * the mask becomes 0, so a 61..63-bit integer prints as 0x0.
 */
static inline uint64_t ctf_hex_mask(uint32_t size)
{
	uint32_t rounded = (size + 3) & ~UINT32_C(3);

	if (size >= 64)
		return UINT64_MAX;
	return rounded >= 64 ? 0 : (UINT64_C(1) << rounded) - 1;
}

/* "0x" and the uppercase hex digits of v; returns the length (at most 18). */
static inline size_t ctf_fmt_x64(char *p, uint64_t v)
{
	static const char hex[] = "0123456789ABCDEF";
	/* Digits: significant bits rounded up to a multiple of 4, at least one. */
	unsigned n = v ? (unsigned)(67 - __builtin_clzll(v)) / 4 : 1;

	p[0] = '0';
	p[1] = 'x';
	for (unsigned i = n + 1; i >= 2; i--) {
		p[i] = hex[v & 15];
		v >>= 4;
	}
	return n + 2;
}

/*
 * An integer of `size` bits (1..64) in base 2, 8, 10 or 16, exactly as
 * babeltrace2 prints it: "0b" + size digits; "0" + octal (signed values
 * masked to size rounded up to a multiple of 3); "0x" + uppercase hex
 * (values masked to size rounded up to a multiple of 4 — a 61..63-bit
 * integer therefore prints as 0x0, as babeltrace2's shift by 64 does on
 * x86-64); decimal as signed or unsigned.
 */
void ctf_fmt_int(struct ctf_pbuf *b, uint64_t raw, bool is_signed, uint32_t size, uint32_t base);

/* C "%g" as glibc prints a double (also nan, -nan, inf, -0). */
void ctf_fmt_double(struct ctf_pbuf *b, double v);

/* '"' + bytes escaped as babeltrace2's print_escape_string() + '"'. */
void ctf_fmt_string(struct ctf_pbuf *b, const char *s, size_t len);

/*
 * Wall-clock formatting (§3.3) with a per-second cache of the
 * "[YYYY-MM-DD ]HH:MM:SS." part, since localtime_r() costs far more than
 * the rest of a line.
 */
struct ctf_pretty_clock {
	bool gmt, date, seconds;
	bool negative_warned;
	bool cache_valid;
	int64_t cache_sec;
	uint8_t cache_len;
	char cache[48];
	FILE *err; /* receives babeltrace2's fallback warnings */
};

void ctf_pretty_clock_init(struct ctf_pretty_clock *c, bool gmt, bool date, bool seconds,
			   FILE *err);
/* Appends the time of ns (from the Unix epoch) as babeltrace2 does. */
void ctf_fmt_wall(struct ctf_pretty_clock *c, struct ctf_pbuf *b, int64_t ns);

/* "+S.NNNNNNNNN" for a delta in ns (printed as unsigned, as babeltrace2 does). */
void ctf_fmt_delta(struct ctf_pbuf *b, uint64_t delta_ns);

/* Lowercase 8-4-4-4-12 UUID (36 bytes). */
void ctf_fmt_uuid(struct ctf_pbuf *b, const uint8_t uuid[16]);

/*
 * For strata_ctf_pretty_run() (pretty-run.c), which formats some batches
 * of events on its helper thread with a second printer.
 */
struct strata_ctf_pretty;
struct strata_ctf_event;

/* What the delta of the next event depends on; UINT64_MAX: no previous event. */
struct ctf_pretty_times {
	uint64_t last_real, delta_real;
	uint64_t last_cycles, delta_cycles;
};

void ctf_pretty_times_init(struct ctf_pretty_times *t);
/* Advances t past ev as printing ev with p's options does. */
void ctf_pretty_track(const struct strata_ctf_pretty *p, struct ctf_pretty_times *t,
		      const struct strata_ctf_event *ev);
void ctf_pretty_set_times(struct strata_ctf_pretty *p, const struct ctf_pretty_times *t);

/*
 * A printer with p's options that only formats: its lines stay pending
 * until taken with ctf_pretty_swap_line(). Warnings (never expected: the
 * caller keeps negative times away from it) go to p's error stream.
 * Destroy with strata_ctf_pretty_destroy().
 */
struct strata_ctf_pretty *ctf_pretty_clone(const struct strata_ctf_pretty *p);
/* Appends the line of ev to the pending lines, never writing. */
void ctf_pretty_format(struct strata_ctf_pretty *p, const struct strata_ctf_event *ev);
/* Exchanges the pending lines with the content of b. */
void ctf_pretty_swap_line(struct strata_ctf_pretty *p, struct ctf_pbuf *b);

/* Bytes formatted and not yet taken. */
size_t ctf_pretty_line_len(const struct strata_ctf_pretty *p);
/* Writes the pending lines, then text (emptied), to p's output. Returns 0 or -errno. */
int ctf_pretty_write(struct strata_ctf_pretty *p, struct ctf_pbuf *text);

/* Which batches strata_ctf_pretty_run()'s helper thread formats itself. */
enum ctf_run_self {
	CTF_RUN_SELF_ADAPTIVE, /* those started while the printing thread lags */
	CTF_RUN_SELF_NEVER,
	CTF_RUN_SELF_ALWAYS,
};

struct strata_ctf_reader;

/*
 * strata_ctf_pretty_run() with the helper's policy and the messages per
 * batch (0: the default) chosen, so the tests can cover every path.
 */
int ctf_pretty_run_with(struct strata_ctf_pretty *p, struct strata_ctf_reader *reader,
			enum ctf_run_self self, size_t batch);

#endif
