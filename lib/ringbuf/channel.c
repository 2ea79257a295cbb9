/* SPDX-License-Identifier: MIT */
/*
 * Channel creation, attachment and validation of the shared header. The
 * design (layout, protocol, ordering pairs) is described in layout.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "ringbuf/layout.h"
#include "strata/error.h"

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static uint32_t log2_u64(uint64_t v)
{
	return (uint32_t)(63 - __builtin_clzll(v));
}

static int check_config(const struct rb_config *cfg)
{
	if (!cfg)
		return -EINVAL;
	if (!is_pow2(cfg->subbuf_size) || cfg->subbuf_size < RB_SUBBUF_SIZE_MIN ||
	    cfg->subbuf_size > RB_SUBBUF_SIZE_MAX)
		return -EINVAL;
	if (!is_pow2(cfg->num_subbufs) || cfg->num_subbufs < RB_NUM_SUBBUFS_MIN ||
	    cfg->num_subbufs > RB_NUM_SUBBUFS_MAX)
		return -EINVAL;
	if (cfg->nr_cpus < 1 || cfg->nr_cpus > RB_NR_CPUS_MAX)
		return -EINVAL;
	if (cfg->mode != RB_MODE_DISCARD && cfg->mode != RB_MODE_OVERWRITE)
		return -EINVAL;
	if (cfg->subbuf_size * cfg->num_subbufs > RB_CPU_BUF_SIZE_MAX)
		return -EINVAL;
	return 0;
}

/* Fill the process-local geometry of ch from a validated config. */
static int compute_geometry(struct rb_channel *ch, const struct rb_config *cfg)
{
	uint64_t ctl_size, data;

	ch->subbuf_size = cfg->subbuf_size;
	ch->num_subbufs = cfg->num_subbufs;
	ch->cpu_buf_size = cfg->subbuf_size * cfg->num_subbufs;
	ch->subbuf_shift = log2_u64(ch->subbuf_size);
	ch->cpu_buf_shift = log2_u64(ch->cpu_buf_size);
	ch->nr_cpus = cfg->nr_cpus;
	ch->mode = cfg->mode;
	ch->ctl_offset = ALIGN_UP((uint64_t)sizeof(struct rb_shm_header), (uint64_t)RB_CACHELINE);
	ctl_size = sizeof(struct rb_cpu_ctl) +
		   (uint64_t)cfg->num_subbufs * sizeof(struct rb_subbuf_ctl);
	ch->cpu_ctl_size = ALIGN_UP(ctl_size, (uint64_t)RB_CACHELINE);
	data = ch->ctl_offset + ch->cpu_ctl_size * cfg->nr_cpus;
	ch->data_offset = ALIGN_UP(data, (uint64_t)RB_PAGE);
	ch->map_size = ch->data_offset + ch->cpu_buf_size * cfg->nr_cpus;
	if (ch->map_size > RB_CHANNEL_SIZE_MAX)
		return -EINVAL;
	return 0;
}

static struct rb_channel *channel_alloc(void)
{
	struct rb_channel *ch = calloc(1, sizeof(*ch));

	if (!ch)
		return NULL;
	ch->shm_fd = -1;
	ch->wake_fd = -1;
	ch->cons_wake_fd = -1;
	return ch;
}

void rb_channel_destroy(struct rb_channel *ch)
{
	if (!ch)
		return;
	if (ch->base)
		munmap(ch->base, ch->map_size);
	if (ch->shm_fd >= 0)
		close(ch->shm_fd);
	if (ch->wake_fd >= 0)
		close(ch->wake_fd);
	if (ch->cons_wake_fd >= 0)
		close(ch->cons_wake_fd);
	free(ch);
}

int rb_channel_create(const struct rb_config *cfg, struct rb_channel **ret_ch)
{
	struct rb_channel *ch = NULL;
	struct rb_shm_header *hdr;
	void *map;
	int r;

	r = check_config(cfg);
	if (r < 0)
		return r;
	ch = channel_alloc();
	if (!ch)
		return -ENOMEM;
	r = compute_geometry(ch, cfg);
	if (r < 0)
		goto err;

	ch->shm_fd = memfd_create("strata-ringbuf", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (ch->shm_fd < 0) {
		r = -errno;
		goto err;
	}
	if (ftruncate(ch->shm_fd, (off_t)ch->map_size) < 0) {
		r = -errno;
		goto err;
	}
	/* Apps must not be able to shrink the file under the daemon's mapping (SIGBUS). */
	if (fcntl(ch->shm_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		r = -errno;
		goto err;
	}
	map = mmap(NULL, ch->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, ch->shm_fd, 0);
	if (map == MAP_FAILED) {
		r = -errno;
		goto err;
	}
	ch->base = map;
	/*
	 * Wakeups travel over a datagram socket pair, not an eventfd: the
	 * producers (apps, untrusted) hold one end and the consumer reads the
	 * other, a separate open file. File status flags are shared by every
	 * holder of an open file, so with one shared eventfd an app clearing
	 * O_NONBLOCK made the consumer's read() block for good. Both sides
	 * also pass MSG_DONTWAIT on every call.
	 */
	{
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0) {
			r = -errno;
			goto err;
		}
		ch->wake_fd = sv[0];
		ch->cons_wake_fd = sv[1];
	}

	/* The memfd is zero-filled: all positions 0, all headers invalid. */
	hdr = (struct rb_shm_header *)(void *)ch->base;
	hdr->magic = RB_SHM_MAGIC;
	hdr->version = RB_SHM_VERSION;
	hdr->word_size = (uint32_t)sizeof(long);
	hdr->header_size = (uint32_t)sizeof(*hdr);
	hdr->subbuf_size = ch->subbuf_size;
	hdr->num_subbufs = ch->num_subbufs;
	hdr->nr_cpus = ch->nr_cpus;
	hdr->mode = (uint32_t)ch->mode;
	hdr->cpu_ctl_size = (uint32_t)ch->cpu_ctl_size;
	hdr->ctl_offset = ch->ctl_offset;
	hdr->data_offset = ch->data_offset;
	hdr->total_size = ch->map_size;
	ch->hdr = hdr;
	*ret_ch = ch;
	return 0;
err:
	rb_channel_destroy(ch);
	return r;
}

/*
 * Validate a header read from a file another process wrote, into ch's
 * geometry. Every field is checked against our own computation.
 */
static int validate_header(struct rb_channel *ch, const struct rb_shm_header *h, uint64_t file_size)
{
	struct rb_config cfg;
	int r;

	if (h->magic != RB_SHM_MAGIC)
		return -STRATA_ESTREAM;
	if (h->version != RB_SHM_VERSION || h->word_size != sizeof(long) ||
	    h->header_size != sizeof(*h))
		return -EPROTONOSUPPORT;
	cfg.subbuf_size = h->subbuf_size;
	cfg.num_subbufs = h->num_subbufs;
	cfg.nr_cpus = h->nr_cpus;
	cfg.mode = h->mode == RB_MODE_OVERWRITE ? RB_MODE_OVERWRITE : RB_MODE_DISCARD;
	if (h->mode != (uint32_t)cfg.mode)
		return -STRATA_ESTREAM;
	r = check_config(&cfg);
	if (r < 0)
		return -STRATA_ESTREAM;
	r = compute_geometry(ch, &cfg);
	if (r < 0)
		return -STRATA_ESTREAM;
	if (h->ctl_offset != ch->ctl_offset || h->data_offset != ch->data_offset ||
	    h->cpu_ctl_size != ch->cpu_ctl_size || h->total_size != ch->map_size ||
	    file_size != ch->map_size)
		return -STRATA_ESTREAM;
	return 0;
}

int rb_channel_attach(const int *fds, unsigned int nr_fds, struct rb_channel **ret_ch)
{
	struct rb_shm_header hcopy;
	struct rb_channel *ch = NULL;
	struct stat st;
	void *map;
	int r;

	if (!fds || nr_fds < 1 || nr_fds > RB_CHANNEL_NR_FDS || fds[0] < 0)
		return -EINVAL;
	ch = channel_alloc();
	if (!ch)
		return -ENOMEM;
	if (fstat(fds[0], &st) < 0) {
		r = -errno;
		goto err;
	}
	if (st.st_size < (off_t)sizeof(hcopy) || (uint64_t)st.st_size > RB_CHANNEL_SIZE_MAX) {
		r = -STRATA_ESTREAM;
		goto err;
	}
	/* Read the header by pread: no mapping of an unvalidated size. */
	if (pread(fds[0], &hcopy, sizeof(hcopy), 0) != (ssize_t)sizeof(hcopy)) {
		r = -STRATA_ESTREAM;
		goto err;
	}
	r = validate_header(ch, &hcopy, (uint64_t)st.st_size);
	if (r < 0)
		goto err;
	map = mmap(NULL, ch->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	if (map == MAP_FAILED) {
		r = -errno;
		goto err;
	}
	ch->base = map;
	ch->hdr = (struct rb_shm_header *)map;
	ch->shm_fd = fcntl(fds[0], F_DUPFD_CLOEXEC, 3);
	if (ch->shm_fd < 0) {
		r = -errno;
		goto err;
	}
	if (nr_fds > 1 && fds[1] >= 0) {
		ch->wake_fd = fcntl(fds[1], F_DUPFD_CLOEXEC, 3);
		if (ch->wake_fd < 0) {
			r = -errno;
			goto err;
		}
	}
	*ret_ch = ch;
	return 0;
err:
	rb_channel_destroy(ch);
	return r;
}

int rb_channel_fds(const struct rb_channel *ch, int ret_fds[RB_CHANNEL_NR_FDS])
{
	ret_fds[0] = ch->shm_fd;
	ret_fds[1] = ch->wake_fd;
	return RB_CHANNEL_NR_FDS;
}

void rb_channel_config(const struct rb_channel *ch, struct rb_config *ret_cfg)
{
	ret_cfg->subbuf_size = ch->subbuf_size;
	ret_cfg->num_subbufs = ch->num_subbufs;
	ret_cfg->nr_cpus = ch->nr_cpus;
	ret_cfg->mode = ch->mode;
}

void rb_channel_set_clock(struct rb_channel *ch, rb_clock_fn clock)
{
	ch->clock = clock;
}
