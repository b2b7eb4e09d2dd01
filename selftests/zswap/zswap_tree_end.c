// SPDX-License-Identifier: GPL-2.0
/*
 * zswap keeps one tree per 16384 swap slots (64 MiB of 4 KiB pages), and
 * frees the entries of a range of slots, which lies in one swap cluster and
 * so in one tree, with one call. The last cluster of a tree, and the last
 * cluster of the device, are where a range placed in the wrong tree shows:
 * computed from its end rather than its start, it lands in the next tree,
 * or past the device's last one.
 *
 * Turn every swap device off, swap on /dev/ram0 (ZSWAP_TE_DEV) with a
 * header that makes it exactly two trees long, and fill it: its last
 * cluster is then its second tree's last cluster too.
 * Free, with one MADV_DONTNEED each, the run of pages whose slots end at
 * the first tree's last slot and the run that ends at the device's last.
 * Those pages read back as zero, the page in the slot after the first run
 * (the second tree's first) keeps its data, and once the area is unmapped
 * and the device turned off, zswap holds no entry. The devices that were
 * on are turned on again at the end, /dev/ram0 with its whole size.
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "zswap_util.h"

#define TE_TREES	2
#define TE_SLOTS	(TE_TREES * ZSW_TREE_SLOTS)
/* More pages than the device has slots, so that every slot gets one */
#define TE_PAGES	(TE_SLOTS + 1024)
/* Slots of a swap cluster: a freed range never crosses one */
#define TE_CLUSTER	512

FIXTURE(te) {
	const char *dev;
	char *buf;
	size_t len;
	uint64_t *ents;
	long *page_at;		/* the page in each slot, or -1 */
	long stored0;
	struct zsw_swapdev devs[ZSW_MAX_SWAPS];	/* on before the test */
	int ndevs;
	bool header;		/* ours is on the device: put its own back */
};

FIXTURE_SETUP(te)
{
	unsigned long ps = zsw_page_size();
	const char *why;
	int fd;
	off_t size;

	self->dev = getenv("ZSWAP_TE_DEV") ?: "/dev/ram0";
	self->len = (size_t)TE_PAGES * ps;
	self->buf = NULL;
	self->ents = NULL;
	self->page_at = NULL;

	self->ndevs = 0;
	self->header = false;

	why = zsw_missing(ZSW_NEED_ROOT | ZSW_NEED_STATS | ZSW_NEED_ZSWAP_ON |
			  ZSW_NEED_PAGEOUT);
	if (why)
		SKIP(return, "%s", why);
	if (ps != 4096)
		SKIP(return, "trees of 16384 slots are 64 MiB with 4 KiB pages only");
	fd = open(self->dev, O_RDWR);
	if (fd < 0)
		SKIP(return, "cannot open %s to swap on: %s", self->dev,
		     strerror(errno));
	size = lseek(fd, 0, SEEK_END);
	close(fd);
	if (size < (off_t)TE_SLOTS * (off_t)ps)
		SKIP(return, "%s has %lld bytes, fewer than %d trees of slots",
		     self->dev, (long long)size, TE_TREES);

	ASSERT_LE(0, zsw_swapoff_all(self->devs, &self->ndevs))
		TH_LOG("cannot turn the swap devices off: %s", strerror(errno));
	/* Without swap, zswap holds nothing: what is left at the end leaked. */
	self->stored0 = zsw_stored_pages();
	self->header = true;
	ASSERT_EQ(0, zsw_mkswap(self->dev, TE_SLOTS))
		TH_LOG("cannot write a swap header to %s", self->dev);
	ASSERT_EQ(0, swapon(self->dev, 0))
		TH_LOG("swapon %s: %s", self->dev, strerror(errno));
}

FIXTURE_TEARDOWN(te)
{
	if (self->buf)
		munmap(self->buf, self->len);
	free(self->ents);
	free(self->page_at);
	if (zsw_in_swaps(self->dev) == 1)
		swapoff(self->dev);
	/* The device's whole size for those that had it on */
	if (self->header && zsw_mkswap(self->dev, ULONG_MAX))
		TH_LOG("cannot write %s's swap header back", self->dev);
	if (zsw_swapon_all(self->devs, self->ndevs))
		TH_LOG("cannot turn the swap devices back on: %s",
		       strerror(errno));
}

/*
 * The run of pages, consecutive in memory and in their slots, whose last
 * slot is @last: its first page, or -1 when no page is in slot @last.
 */
static long run_ending_at(FIXTURE_DATA(te) *self, unsigned long last)
{
	unsigned long slot = last;
	long p = self->page_at[last];

	if (p < 0)
		return -1;
	while (slot % TE_CLUSTER && p > 0 && self->page_at[slot - 1] == p - 1) {
		slot--;
		p--;
	}
	return p;
}

TEST_F_TIMEOUT(te, ranges, 300)
{
	static const unsigned long ends[] = { ZSW_TREE_SLOTS - 1, TE_SLOTS - 1 };
	unsigned long ps = zsw_page_size(), slot;
	long first[ARRAY_SIZE(ends)], n[ARRAY_SIZE(ends)], next, stored;
	size_t i;

	self->buf = zsw_map(self->len);
	ASSERT_NE(NULL, self->buf);
	zsw_fill_range(self->buf, 0, TE_PAGES, ZSW_PAT_ONES, 0);
	ASSERT_EQ(0, madvise(self->buf, self->len, MADV_PAGEOUT))
		TH_LOG("MADV_PAGEOUT: %s", strerror(errno));

	self->ents = calloc(TE_PAGES, sizeof(*self->ents));
	self->page_at = malloc(TE_SLOTS * sizeof(*self->page_at));
	ASSERT_NE(NULL, self->ents);
	ASSERT_NE(NULL, self->page_at);
	ASSERT_EQ(0, zsw_pagemap_entries(self->buf, TE_PAGES, self->ents));
	for (slot = 0; slot < TE_SLOTS; slot++)
		self->page_at[slot] = -1;
	for (i = 0; i < TE_PAGES; i++) {
		if (!(self->ents[i] & PM_SWAP))
			continue;
		slot = PM_SWAP_OFFSET(self->ents[i]);
		ASSERT_LT(slot, TE_SLOTS)
			TH_LOG("page %zu is in slot %lu of a %lu-slot device",
			       i, slot, (unsigned long)TE_SLOTS);
		self->page_at[slot] = i;
	}

	for (i = 0; i < ARRAY_SIZE(ends); i++) {
		first[i] = run_ending_at(self, ends[i]);
		ASSERT_LE(0, first[i])
			TH_LOG("no page in slot %lu: the device did not fill",
			       ends[i]);
		n[i] = self->page_at[ends[i]] - first[i] + 1;
		TH_LOG("pages %ld..%ld are in slots %lu..%lu, the end of tree %lu%s",
		       first[i], first[i] + n[i] - 1, ends[i] - n[i] + 1,
		       ends[i], ends[i] / ZSW_TREE_SLOTS,
		       ends[i] == TE_SLOTS - 1 ? " and of the device" : "");
	}
	next = self->page_at[ZSW_TREE_SLOTS];
	ASSERT_LE(0, next)
		TH_LOG("no page in the first slot of the second tree");

	for (i = 0; i < ARRAY_SIZE(ends); i++)
		ASSERT_EQ(0, madvise(self->buf + first[i] * ps, n[i] * ps,
				     MADV_DONTNEED));
	for (i = 0; i < ARRAY_SIZE(ends); i++)
		ASSERT_EQ(-1, zsw_check_range(self->buf, first[i], n[i],
					      ZSW_PAT_ZERO, 0))
			TH_LOG("a freed page of slots ..%lu does not read as zero",
			       ends[i]);
	ASSERT_EQ(-1, zsw_check_range(self->buf, next, 1, ZSW_PAT_ONES, 0))
		TH_LOG("page %ld, in the slot after the first tree's end, lost its data",
		       next);

	ASSERT_EQ(0, munmap(self->buf, self->len));
	self->buf = NULL;
	ASSERT_EQ(0, swapoff(self->dev))
		TH_LOG("swapoff %s: %s", self->dev, strerror(errno));
	stored = zsw_stored_pages();
	TH_LOG("stored_pages %ld once the device is off (%ld before swapon)",
	       stored, self->stored0);
	ASSERT_LE(stored, self->stored0)
		TH_LOG("%ld zswap entries outlived their device",
		       stored - self->stored0);
}

TEST_HARNESS_MAIN
