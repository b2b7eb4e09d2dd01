/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the zswap selftests that the kernel's selftests lack:
 * zswap and swap counters, page patterns, swap-out checks and the
 * "counters are back to baseline" check. Memory cgroups are made, read,
 * entered and removed with the tree's cgroup/cgroup_util.c, which the
 * Makefile links in; pagemap is read with the names of mm/vm_util.h.
 *
 * Include after kselftest_harness.h: some helpers use its ASSERT and SKIP
 * macros and take the harness' _metadata.
 */
#ifndef __ZSWAP_UTIL_H
#define __ZSWAP_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/vfs.h>

#include "cgroup_util.h"

/*
 * cg_find_unified_root() takes (root, len) in v6.1; v6.12's and v7.x's take
 * a third argument that reports nsdelegate. The Makefile looks at the
 * tree's cgroup_util.h and defines CG_ROOT_NSDELEGATE for the newer form.
 */
#ifdef CG_ROOT_NSDELEGATE
#define zsw_find_unified_root(root, len) cg_find_unified_root(root, len, NULL)
#else
#define zsw_find_unified_root(root, len) cg_find_unified_root(root, len)
#endif

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

#define ZSW_DEBUGFS		"/sys/kernel/debug"
#define ZSW_STATS		ZSW_DEBUGFS "/zswap"
#define ZSW_STORED_PAGES	ZSW_STATS "/stored_pages"
#define ZSW_PARAMS		"/sys/module/zswap/parameters"
#define ZSW_CGROUP_DIR		"/sys/fs/cgroup"
#define ZSW_DEBUGFS_MAGIC	0x64626720

/* Swap slots per zswap tree (SWAP_ADDRESS_SPACE_PAGES, 64 MiB of 4 KiB) */
#define ZSW_TREE_SLOTS		16384UL
/* Slots a CPU may cache for allocation and as many for freeing */
#define ZSW_SLOT_CACHE		64L
/* Smallest region the leak checks use: a full leak is far over tolerance */
#define ZSW_MIN_PAGES		8192UL

#define ZSW_PATH_LEN		256
#define ZSW_MAX_SWAPS		8

#ifndef BIT_ULL
#define BIT_ULL(nr)		(1ULL << (nr))
#endif

/*
 * Diagnostics for helpers without the harness' _metadata. stderr as for
 * TH_LOG: unbuffered, so nothing is lost when a test process calls _exit().
 */
#define zsw_log(fmt, ...) fprintf(stderr, "# " fmt "\n", ##__VA_ARGS__)

static inline unsigned long zsw_page_size(void)
{
	return (unsigned long)sysconf(_SC_PAGESIZE);
}

/* Sizes and durations can be overridden from the environment. */
static inline unsigned long zsw_env_ulong(const char *name, unsigned long def)
{
	const char *s = getenv(name);
	unsigned long v;
	char *end;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end) {
		zsw_log("ignoring bad %s=%s", name, s);
		return def;
	}
	return v;
}

static inline double zsw_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* zswap's count of stored pages, -1 when debugfs or zswap is missing */
static inline long zsw_stored_pages(void)
{
	return cg_read_long(ZSW_STATS, "stored_pages");
}

static inline bool zsw_debugfs_ready(void)
{
	struct statfs sfs;

	if (!access(ZSW_STORED_PAGES, R_OK))
		return true;
	/* A bare initramfs may not have mounted debugfs yet. */
	if (!statfs(ZSW_DEBUGFS, &sfs) && sfs.f_type != ZSW_DEBUGFS_MAGIC)
		mount("debugfs", ZSW_DEBUGFS, "debugfs", 0, NULL);
	return !access(ZSW_STORED_PAGES, R_OK);
}

/* 1 when zswap is enabled, 0 when disabled, -1 when not built in */
static inline int zsw_zswap_enabled(void)
{
	char buf[8];

	if (cg_read(ZSW_PARAMS, "enabled", buf, sizeof(buf)))
		return -1;
	switch (buf[0]) {
	case 'Y': case 'y': case '1':
		return 1;
	case 'N': case 'n': case '0':
		return 0;
	}
	return -1;
}

static inline int zsw_set_zswap_enabled(bool on)
{
	return cg_write(ZSW_PARAMS, "enabled", on ? "Y" : "N");
}

struct zsw_swapdev {
	char path[ZSW_PATH_LEN];
	long size_kib;
	long used_kib;
	int prio;
};

/* Parse /proc/swaps; returns the number of active devices or -1. */
static inline int zsw_swaps(struct zsw_swapdev *devs, int max)
{
	struct zsw_swapdev d;
	char line[512];
	int n = 0;
	FILE *f;

	f = fopen("/proc/swaps", "r");
	if (!f)
		return -1;
	/* The first line is a header. */
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %*s %ld %ld %d", d.path, &d.size_kib,
			   &d.used_kib, &d.prio) != 4)
			continue;
		if (n < max)
			devs[n] = d;
		n++;
	}
	fclose(f);
	return n;
}

/* Sum of 'Used' over all swap devices, in pages; -1 on error */
static inline long zsw_swap_used_pages(void)
{
	struct zsw_swapdev devs[ZSW_MAX_SWAPS];
	long kib = 0;
	int i, n;

	n = zsw_swaps(devs, ZSW_MAX_SWAPS);
	if (n < 0 || n > ZSW_MAX_SWAPS)
		return -1;
	for (i = 0; i < n; i++)
		kib += devs[i].used_kib;
	return kib / (long)(zsw_page_size() / 1024);
}

/*
 * Whether every active swap device is a ram disk (brd) or zram: swapping a
 * page in from those frees its slot at once, it does not stay in the swap
 * cache, so swap charges match the swapped-out pages exactly.
 */
static inline bool zsw_swap_synchronous(void)
{
	struct zsw_swapdev devs[ZSW_MAX_SWAPS];
	int i, n;

	n = zsw_swaps(devs, ZSW_MAX_SWAPS);
	if (n <= 0 || n > ZSW_MAX_SWAPS)
		return false;
	for (i = 0; i < n; i++)
		if (strncmp(devs[i].path, "/dev/ram", 8) &&
		    strncmp(devs[i].path, "/dev/zram", 9))
			return false;
	return true;
}

/* Free swap over all devices, in pages */
static inline long zsw_swap_free_pages(void)
{
	struct zsw_swapdev devs[ZSW_MAX_SWAPS];
	long kib = 0;
	int i, n;

	n = zsw_swaps(devs, ZSW_MAX_SWAPS);
	if (n < 0 || n > ZSW_MAX_SWAPS)
		return 0;
	for (i = 0; i < n; i++)
		kib += devs[i].size_kib - devs[i].used_kib;
	return kib / (long)(zsw_page_size() / 1024);
}

/*
 * Turn off every active swap device, remembering them in @devs so that
 * zsw_swapon_all() can bring them back. Returns the number turned off
 * (also stored in *@n) or -errno.
 */
static inline int zsw_swapoff_all(struct zsw_swapdev *devs, int *n)
{
	int i, cnt;

	*n = 0;
	cnt = zsw_swaps(devs, ZSW_MAX_SWAPS);
	if (cnt < 0)
		return -ENOENT;
	if (cnt > ZSW_MAX_SWAPS)
		return -E2BIG;
	for (i = 0; i < cnt; i++) {
		if (swapoff(devs[i].path))
			return -errno;
		*n = i + 1;
	}
	return cnt;
}

/* Turn the devices recorded by zsw_swapoff_all() back on. */
static inline int zsw_swapon_all(const struct zsw_swapdev *devs, int n)
{
	int i, flags, ret = 0;

	for (i = 0; i < n; i++) {
		flags = 0;
		/* Negative priorities are assigned by the kernel. */
		if (devs[i].prio >= 0)
			flags = SWAP_FLAG_PREFER |
				((devs[i].prio << SWAP_FLAG_PRIO_SHIFT) &
				 SWAP_FLAG_PRIO_MASK);
		if (swapon(devs[i].path, flags) && errno != EBUSY)
			ret = -errno;
	}
	return ret;
}

/* 1 if @dev is an active swap device, 0 if not, -1 on error */
static inline int zsw_in_swaps(const char *dev)
{
	struct zsw_swapdev devs[ZSW_MAX_SWAPS];
	int i, n;

	n = zsw_swaps(devs, ZSW_MAX_SWAPS);
	if (n < 0 || n > ZSW_MAX_SWAPS)
		return -1;
	for (i = 0; i < n; i++)
		if (!strcmp(devs[i].path, dev))
			return 1;
	return 0;
}

/*
 * Write a swap header (mkswap without bad blocks or label) to @dev that
 * declares at most @max_pages pages, the header's own included: a device
 * of a size chosen by the test, whatever the size of the disk. Returns 0,
 * or -1 when the disk is smaller than 16 pages or cannot be written.
 */
static inline int zsw_mkswap(const char *dev, unsigned long max_pages)
{
	unsigned long ps = zsw_page_size();
	uint32_t *info;
	off_t size;
	char *page;
	int fd, ret = -1;

	fd = open(dev, O_RDWR);
	if (fd < 0)
		return -1;
	size = lseek(fd, 0, SEEK_END);
	page = calloc(1, ps);
	if (size >= (off_t)(16 * ps) && page) {
		/* version, last_page, nr_badpages after 1024 boot bytes */
		info = (uint32_t *)(page + 1024);
		info[0] = 1;
		if ((unsigned long)(size / ps) > max_pages)
			size = (off_t)max_pages * ps;
		info[1] = size / ps - 1;
		info[2] = 0;
		memcpy(page + ps - 10, "SWAPSPACE2", 10);
		if (pwrite(fd, page, ps, 0) == (ssize_t)ps && !fsync(fd))
			ret = 0;
	}
	free(page);
	close(fd);
	return ret;
}

/*
 * /proc/self/pagemap with the names and meaning of mm/vm_util.[ch]. That
 * file is not linked: v6.1's (then selftests/vm/) has no
 * pagemap_is_swapped(), and v6.12's and v7.x's do not build against the
 * uapi headers of a Debian 12 host (PAGEMAP_SCAN, struct procmap_query).
 */
#define PM_SWAP			BIT_ULL(62)
/* Not in vm_util.h: the swap entry of a PM_SWAP entry (pagemap.rst) */
#define PM_SWAP_TYPE(ent)	((unsigned int)((ent) & 0x1f))
#define PM_SWAP_OFFSET(ent)	((unsigned long)(((ent) >> 5) & (BIT_ULL(50) - 1)))

/* Like vm_util.c's, a failed read ends the process, here as a failure. */
static inline uint64_t pagemap_get_entry(int fd, char *start)
{
	off_t pos = (uintptr_t)start / zsw_page_size() * sizeof(uint64_t);
	uint64_t ent;

	if (pread(fd, &ent, sizeof(ent), pos) != sizeof(ent)) {
		zsw_log("reading pagemap at %p: %s", start, strerror(errno));
		_exit(KSFT_FAIL);
	}
	return ent;
}

static inline bool pagemap_is_swapped(int fd, char *start)
{
	return pagemap_get_entry(fd, start) & PM_SWAP;
}

/* The pagemap entries of @npages pages at @buf; 0 or -errno */
static inline int zsw_pagemap_entries(char *buf, size_t npages, uint64_t *ents)
{
	unsigned long ps = zsw_page_size();
	size_t i;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -errno;
	for (i = 0; i < npages; i++)
		ents[i] = pagemap_get_entry(fd, buf + i * ps);
	close(fd);
	return 0;
}

/* How many of @npages pages at @buf are swapped out; -1 on error */
static inline long zsw_count_swapped(char *buf, size_t npages)
{
	unsigned long ps = zsw_page_size();
	long cnt = 0;
	size_t i;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -1;
	for (i = 0; i < npages; i++)
		cnt += pagemap_is_swapped(fd, buf + i * ps);
	close(fd);
	return cnt;
}

/* Private anonymous region of 4 KiB pages (zswap does not store THPs). */
static inline void *zsw_map(size_t len)
{
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_NOHUGEPAGE);
	return p;
}

enum zsw_pattern {
	ZSW_PAT_ZERO,	/* every byte 0: zeromap in v6.12, zswap in v6.1 */
	ZSW_PAT_ONES,	/* every byte 0x01: same-filled before v6.12 */
	ZSW_PAT_TEXT,	/* repeated text carrying page index and tag */
	ZSW_PAT_RANDOM,	/* pseudo-random from index and tag: incompressible */
	ZSW_PAT_MIXED,	/* one page in four filled with a tag byte, else text */
	ZSW_PAT_SPARSE,	/* zero but for index and tag at both ends: cheap */
	ZSW_PAT_WORD,	/* one 64-bit word of different bytes, repeated */
};

/* Marks a ZSW_PAT_SPARSE page, so that it is never all zero */
#define ZSW_SPARSE_MAGIC	0x7a73776170706167ULL

static inline const char *zsw_pattern_name(enum zsw_pattern pat)
{
	switch (pat) {
	case ZSW_PAT_ZERO:
		return "zero";
	case ZSW_PAT_ONES:
		return "0x01";
	case ZSW_PAT_TEXT:
		return "text";
	case ZSW_PAT_RANDOM:
		return "random";
	case ZSW_PAT_MIXED:
		return "mixed";
	case ZSW_PAT_SPARSE:
		return "sparse";
	case ZSW_PAT_WORD:
		return "word";
	}
	return "?";
}

static inline void zsw_fill_page(void *page, enum zsw_pattern pat,
				 unsigned long idx, unsigned long tag)
{
	unsigned long ps = zsw_page_size();
	char line[128], *p = page;
	uint64_t x, *w = page;
	unsigned long i, n;

	switch (pat) {
	case ZSW_PAT_ZERO:
		memset(page, 0, ps);
		return;
	case ZSW_PAT_ONES:
		memset(page, 0x01, ps);
		return;
	case ZSW_PAT_WORD:
		for (i = 0; i < ps / sizeof(*w); i++)
			w[i] = 0x0123456789abcdefULL;
		return;
	case ZSW_PAT_RANDOM:
		/* xorshift64, seeded so that every page and tag differs */
		x = (idx + 1) * 0x9e3779b97f4a7c15ULL ^ (tag + 1) * 0xbf58476d1ce4e5b9ULL;
		x |= 1;	/* xorshift never leaves 0 */
		for (i = 0; i < ps / sizeof(*w); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			w[i] = x;
		}
		return;
	case ZSW_PAT_MIXED:
		if (idx % 4 == 0)
			memset(page, 0x10 + (tag & 0x7f), ps);
		else
			zsw_fill_page(page, ZSW_PAT_TEXT, idx, tag);
		return;
	case ZSW_PAT_SPARSE:
		memset(page, 0, ps);
		n = ps / sizeof(*w);
		w[0] = ZSW_SPARSE_MAGIC;
		w[1] = idx;
		w[2] = tag;
		memcpy(&w[n - 3], w, 3 * sizeof(*w));
		return;
	case ZSW_PAT_TEXT:
		n = snprintf(line, sizeof(line),
			     "zswap selftest page %lu tag %lu: the quick brown fox jumps over the lazy dog\n",
			     idx, tag);
		for (i = 0; i < ps; i += n)
			memcpy(p + i, line, ps - i < n ? ps - i : n);
		return;
	}
}

/* Byte offset of the first difference from the pattern, or -1 */
static inline long zsw_page_diff(const void *page, enum zsw_pattern pat,
				 unsigned long idx, unsigned long tag)
{
	static __thread char *expect;
	unsigned long ps = zsw_page_size(), i;
	const unsigned char *p = page;

	if (!expect) {
		expect = malloc(ps);
		if (!expect)
			return 0;
	}
	zsw_fill_page(expect, pat, idx, tag);
	if (!memcmp(page, expect, ps))
		return -1;
	for (i = 0; i < ps; i++)
		if (p[i] != (unsigned char)expect[i])
			break;
	return i;
}

static inline void zsw_fill_range(char *base, size_t first, size_t n,
				  enum zsw_pattern pat, unsigned long tag)
{
	unsigned long ps = zsw_page_size();
	size_t i;

	for (i = first; i < first + n; i++)
		zsw_fill_page(base + i * ps, pat, i, tag);
}

/*
 * Check pages [first, first + n) of the region at @base, page i holding
 * the pattern for index i. Returns the index of the first bad page, or -1;
 * the first few mismatches are logged.
 */
static inline long zsw_check_range(const char *base, size_t first, size_t n,
				   enum zsw_pattern pat, unsigned long tag)
{
	unsigned long ps = zsw_page_size();
	long bad = -1, nbad = 0, off;
	size_t i;

	for (i = first; i < first + n; i++) {
		off = zsw_page_diff(base + i * ps, pat, i, tag);
		if (off < 0)
			continue;
		if (nbad++ < 4)
			zsw_log("page %zu (%s, tag %lu): byte %ld is 0x%02x",
				i, zsw_pattern_name(pat), tag, off,
				(unsigned char)base[i * ps + off]);
		if (bad < 0)
			bad = i;
	}
	if (nbad)
		zsw_log("%ld of %zu pages differ", nbad, n);
	return bad;
}

/*
 * A memory cgroup of a test. The test process itself may enter it; it
 * leaves again before cg_destroy(), which kills every task still in it.
 */
struct zsw_memcg {
	char root[PATH_MAX];
	char *path;		/* from cg_name(); NULL when there is none */
	bool entered;		/* the test process moved in */
};

static inline bool zsw_dir_empty(const char *path)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(path);
	if (!d)
		return false;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return !n;
}

/* Mount point of cgroup v2; mounts it if nothing is mounted in its place. */
static inline int zsw_cgroup2_root(char *root, size_t len)
{
	if (!zsw_find_unified_root(root, len))
		return 0;
	/* A bare initramfs; never cover a cgroup v1 hierarchy. */
	if (!zsw_dir_empty(ZSW_CGROUP_DIR) ||
	    mount("cgroup2", ZSW_CGROUP_DIR, "cgroup2", 0, NULL))
		return -1;
	snprintf(root, len, "%s", ZSW_CGROUP_DIR);
	return 0;
}

/*
 * Check that cgroup v2 with the memory controller is usable and enable the
 * controller for the root's children. Returns NULL or why it is not.
 */
static inline const char *zsw_memcg_available(char *root, size_t len)
{
	if (zsw_cgroup2_root(root, len))
		return "cgroup v2 is not mounted";
	if (cg_read_strstr(root, "cgroup.controllers", "memory"))
		return "the memory controller is not available in cgroup v2";
	if (cg_read_strstr(root, "cgroup.subtree_control", "memory") &&
	    cg_write(root, "cgroup.subtree_control", "+memory"))
		return "cannot enable the memory controller for children";
	return NULL;
}

/*
 * Make cgroup @name under @root, of cgroup v2 or of a v1 hierarchy.
 * Returns 0 or -errno.
 */
static inline int zsw_memcg_mkdir(struct zsw_memcg *cg, const char *root,
				  const char *name)
{
	int ret;

	if (root != cg->root)
		snprintf(cg->root, sizeof(cg->root), "%s", root);
	cg->path = cg_name(root, name);
	if (!cg->path)
		return -ENOMEM;
	/* A leftover of an earlier, killed run goes, with what is in it. */
	if (!cg_destroy(cg->path) && !cg_create(cg->path))
		return 0;
	ret = -errno;
	free(cg->path);
	cg->path = NULL;
	return ret;
}

/*
 * Create memcg @name under the cgroup v2 root with memory.max @max_bytes.
 * Returns 0 or -errno. Callers check zsw_memcg_available() first (through
 * ZSW_NEED_MEMCG) to tell "unsupported" from "broken".
 */
static inline int zsw_memcg_create(struct zsw_memcg *cg, const char *name,
				   unsigned long max_bytes)
{
	int ret;

	if (zsw_memcg_available(cg->root, sizeof(cg->root)))
		return -ENODEV;
	ret = zsw_memcg_mkdir(cg, cg->root, name);
	if (ret)
		return ret;
	return cg_write_numeric(cg->path, "memory.max", max_bytes);
}

/* Move the test process itself into the memcg. */
static inline int zsw_memcg_enter(struct zsw_memcg *cg)
{
	int ret = cg_enter_current(cg->path);

	if (!ret)
		cg->entered = true;
	return ret;
}

/*
 * Move the test process back to the root, then remove the memcg with
 * cg_destroy(), killing whatever a failed test left running in it.
 */
static inline void zsw_memcg_destroy(struct zsw_memcg *cg)
{
	if (cg->entered) {
		/* Never kill the test process itself. */
		if (cg_enter_current(cg->root)) {
			zsw_log("cannot leave %s: not removed", cg->path);
			return;
		}
		cg->entered = false;
	}
	if (!cg->path)
		return;
	if (cg_destroy(cg->path))
		zsw_log("removing %s: %s", cg->path, strerror(errno));
	free(cg->path);
	cg->path = NULL;
}

/*
 * The v6.12 swap core keeps up to ZSW_SLOT_CACHE allocated slots and as
 * many freed-but-not-yet-released slots per CPU; a freed slot waiting in
 * that cache still has its zswap entry. Counters therefore only come back
 * to baseline within this many pages.
 */
static inline long zsw_tolerance(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	return 2 * ZSW_SLOT_CACHE * (cpus > 0 ? cpus : 1);
}

/* A region size in pages, large enough that a leak exceeds tolerance. */
static inline size_t zsw_region_pages(const char *env, size_t def)
{
	size_t n = zsw_env_ulong(env, def);
	size_t min = ZSW_MIN_PAGES;

	if ((size_t)zsw_tolerance() * 8 > min)
		min = zsw_tolerance() * 8;
	return n < min ? min : n;
}

/* Run the calling thread on @cpu only, or on every CPU when @cpu < 0. */
static inline int zsw_pin_cpu(int cpu)
{
	long i, n = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	for (i = 0; cpu < 0 && i < n && i < CPU_SETSIZE; i++)
		CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/*
 * Empty the per-CPU caches of freed swap slots (v6.12 swap_slots.c, up to
 * ZSW_SLOT_CACHE slots a CPU): a slot waiting there is still in use and
 * still charged to its memcg. On every CPU in turn, swap out single pages
 * and write-fault them back in, more than a cache holds: each fault frees
 * one slot into the CPU's cache, which returns everything it held once it
 * is full. Afterwards only this helper's own slots can be cached. Returns
 * 0 or -errno.
 */
static inline int zsw_flush_freed_slots(void)
{
	size_t npages = 2 * ZSW_SLOT_CACHE + 2, i;
	long cpu, ncpu = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long ps = zsw_page_size();
	cpu_set_t old;
	int ret = 0;
	char *p;

	if (sched_getaffinity(0, sizeof(old), &old))
		return -errno;
	p = zsw_map(npages * ps);
	if (!p)
		return -ENOMEM;
	for (cpu = 0; cpu < ncpu && cpu < CPU_SETSIZE && !ret; cpu++) {
		if (zsw_pin_cpu(cpu))
			continue;	/* offline */
		for (i = 0; i < npages; i++)
			p[i * ps] = 1;
		if (madvise(p, npages * ps, MADV_PAGEOUT)) {
			ret = -errno;
			break;
		}
		if (zsw_count_swapped(p, npages) <= ZSW_SLOT_CACHE)
			ret = -EAGAIN;
		/* A write fault frees the slot even from the swap cache. */
		for (i = 0; i < npages; i++)
			p[i * ps] = 2;
	}
	if (sched_setaffinity(0, sizeof(old), &old) && !ret)
		ret = -errno;
	munmap(p, npages * ps);
	return ret;
}

struct zsw_counters {
	long stored;		/* zswap stored_pages, -1 if unknown */
	long used;		/* swap in use over all devices, pages */
};

static inline void zsw_counters(struct zsw_counters *c)
{
	c->stored = zsw_stored_pages();
	c->used = zsw_swap_used_pages();
}

static inline bool zsw_within(const struct zsw_counters *base,
			      const struct zsw_counters *now)
{
	long tol = zsw_tolerance();

	/* Only growth is a leak: caches from before may have drained. */
	if (base->stored >= 0 && now->stored > base->stored + tol)
		return false;
	return now->used <= base->used + tol;
}

/*
 * Before v6.12 zswap keeps zero-filled pages itself, as same-filled
 * entries (its same_filled_pages_enabled parameter): a test that needs
 * freed slots without an entry cannot set them up there.
 */
#define ZSW_SAME_FILLED		ZSW_PARAMS "/same_filled_pages_enabled"

static inline bool zsw_keeps_zero_pages(void)
{
	return !access(ZSW_SAME_FILLED, F_OK);
}

/*
 * Assert that zswap stored_pages and swap used come back to within
 * tolerance of @base, polling for up to ZSWAP_SETTLE_MS (2 s).
 */
static inline void zsw_assert_baseline(struct __test_metadata *_metadata,
				       const struct zsw_counters *base,
				       const char *what)
{
	double end = zsw_now() + zsw_env_ulong("ZSWAP_SETTLE_MS", 2000) / 1e3;
	long tol = zsw_tolerance();
	struct zsw_counters now;

	for (;;) {
		zsw_counters(&now);
		if (zsw_within(base, &now) || zsw_now() > end)
			break;
		usleep(50000);
	}
	TH_LOG("%s: stored_pages %ld/%ld, swap used %ld/%ld (now/baseline), tolerance %ld",
	       what, now.stored, base->stored, now.used, base->used, tol);
	ASSERT_GE(now.used, 0);
	ASSERT_TRUE(base->stored < 0 || now.stored <= base->stored + tol)
		TH_LOG("%s: %ld zswap entries leaked", what,
		       now.stored - base->stored);
	ASSERT_LE(now.used, base->used + tol)
		TH_LOG("%s: %ld swap slots leaked", what, now.used - base->used);
}

enum {
	ZSW_NEED_ROOT		= 1 << 0,
	ZSW_NEED_SWAP		= 1 << 1,	/* an active swap device */
	ZSW_NEED_STATS		= 1 << 2,	/* debugfs zswap/stored_pages */
	ZSW_NEED_ZSWAP		= 1 << 3,	/* zswap built in */
	ZSW_NEED_ZSWAP_ON	= 1 << 4,	/* ... and enabled */
	ZSW_NEED_MEMCG		= 1 << 5,	/* cgroup v2 memory controller */
	ZSW_NEED_PAGEOUT	= 1 << 6,	/* MADV_PAGEOUT */
};

static inline bool zsw_has_pageout(void)
{
	unsigned long ps = zsw_page_size();
	bool ok;
	char *p;

	p = zsw_map(ps);
	if (!p)
		return false;
	p[0] = 1;
	ok = !madvise(p, ps, MADV_PAGEOUT);
	munmap(p, ps);
	return ok;
}

/* NULL when everything in @needs is there, else why the test can't run */
static inline const char *zsw_missing(unsigned int needs)
{
	static char root[ZSW_PATH_LEN];
	int en;

	if ((needs & ZSW_NEED_ROOT) && geteuid())
		return "must be run as root";
	if ((needs & (ZSW_NEED_ZSWAP | ZSW_NEED_ZSWAP_ON))) {
		en = zsw_zswap_enabled();
		if (en < 0)
			return "zswap is not built in (no " ZSW_PARAMS "/enabled)";
		if ((needs & ZSW_NEED_ZSWAP_ON) && !en)
			return "zswap is disabled";
	}
	if ((needs & ZSW_NEED_SWAP) && zsw_swaps(NULL, 0) <= 0)
		return "no active swap device in /proc/swaps";
	if ((needs & ZSW_NEED_STATS) && !zsw_debugfs_ready())
		return "no " ZSW_STORED_PAGES " (debugfs or zswap missing)";
	if (needs & ZSW_NEED_MEMCG) {
		const char *why = zsw_memcg_available(root, sizeof(root));

		if (why)
			return why;
	}
	if ((needs & ZSW_NEED_PAGEOUT) && !zsw_has_pageout())
		return "MADV_PAGEOUT is not supported";
	return NULL;
}

/*
 * Mark the calling test skipped unless everything in @needs is there.
 * Returns false when the test should return.
 */
static inline bool zsw_require(struct __test_metadata *_metadata,
			       unsigned int needs)
{
	const char *why = zsw_missing(needs);

	if (why)
		SKIP(return false, "%s", why);
	return true;
}

/* Likewise, unless @pages pages of swap are free. */
static inline bool zsw_require_free_swap(struct __test_metadata *_metadata,
					 long pages)
{
	long avail = zsw_swap_free_pages();

	if (avail < pages)
		SKIP(return false, "need %ld free swap pages, have %ld",
		     pages, avail);
	return true;
}

/*
 * Swap out @npages pages at @buf with MADV_PAGEOUT and assert that at least
 * 90% of them left memory. When @in_zswap, also assert that zswap's
 * stored_pages grew by about as many. Returns the number swapped out.
 */
static inline long zsw_pageout(struct __test_metadata *_metadata, char *buf,
			       size_t npages, bool in_zswap)
{
	long stored0 = zsw_stored_pages(), swapped, grew;

	ASSERT_EQ(0, madvise(buf, npages * zsw_page_size(), MADV_PAGEOUT))
		TH_LOG("MADV_PAGEOUT: %s", strerror(errno));
	swapped = zsw_count_swapped(buf, npages);
	ASSERT_GE(swapped, 0);
	ASSERT_GE(swapped * 10, (long)npages * 9)
		TH_LOG("only %ld of %zu pages were swapped out", swapped,
		       npages);
	if (!in_zswap)
		return swapped;
	grew = zsw_stored_pages() - stored0;
	/* Frees still cached from before may drain meanwhile. */
	ASSERT_GE(grew, swapped * 9 / 10 - zsw_tolerance())
		TH_LOG("zswap stored_pages grew by %ld for %ld swapped pages",
		       grew, swapped);
	return swapped;
}

#endif /* __ZSWAP_UTIL_H */
