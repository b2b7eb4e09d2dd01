// SPDX-License-Identifier: GPL-2.0
/*
 * Every way a swapped-out page held in zswap can go away must free its zswap
 * entry (zswap_invalidate) and its swap slot: munmap, MADV_DONTNEED (of
 * the whole region, and of single pages), MADV_FREE, process exit and
 * swapoff. After each, zswap stored_pages and
 * the swap devices' Used must be back at their starting values, within what
 * the per-CPU swap slot caches may hold.
 *
 * Environment: ZSWAP_INV_PAGES (region size in pages, default 8192).
 */
#define _GNU_SOURCE
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "zswap_util.h"

#define INV_NEEDS (ZSW_NEED_ROOT | ZSW_NEED_SWAP | ZSW_NEED_STATS | \
		   ZSW_NEED_ZSWAP_ON | ZSW_NEED_PAGEOUT)

FIXTURE(inval) {
	char *buf;
	size_t npages;
	size_t len;
	struct zsw_counters base;
	struct zsw_swapdev devs[ZSW_MAX_SWAPS];
	int ndevs;		/* devices turned off, to turn back on */
};

FIXTURE_SETUP(inval)
{
	self->npages = zsw_region_pages("ZSWAP_INV_PAGES", ZSW_MIN_PAGES);
	self->len = self->npages * zsw_page_size();
	self->buf = NULL;
	self->ndevs = 0;
}

FIXTURE_TEARDOWN(inval)
{
	/* Never leave the machine without its swap. */
	if (self->ndevs)
		zsw_swapon_all(self->devs, self->ndevs);
	if (self->buf)
		munmap(self->buf, self->len);
}

/* Take the baseline, then put a region of 0x01 pages into zswap. */
static void push_out(struct __test_metadata *_metadata,
		     FIXTURE_DATA(inval) *self)
{
	long swapped;

	zsw_counters(&self->base);
	self->buf = zsw_map(self->len);
	ASSERT_NE(NULL, self->buf);
	zsw_fill_range(self->buf, 0, self->npages, ZSW_PAT_ONES, 0);
	swapped = zsw_pageout(_metadata, self->buf, self->npages, true);
	TH_LOG("%ld of %zu pages in zswap", swapped, self->npages);
}

TEST_F_TIMEOUT(inval, munmap, 120)
{
	if (!zsw_require(_metadata, INV_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	push_out(_metadata, self);
	ASSERT_EQ(0, munmap(self->buf, self->len));
	self->buf = NULL;
	zsw_assert_baseline(_metadata, &self->base, "munmap");
}

TEST_F_TIMEOUT(inval, madv_dontneed, 120)
{
	if (!zsw_require(_metadata, INV_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	push_out(_metadata, self);
	ASSERT_EQ(0, madvise(self->buf, self->len, MADV_DONTNEED));
	zsw_assert_baseline(_metadata, &self->base, "MADV_DONTNEED");
	/* The swap entries are gone: the range reads as fresh zero pages. */
	ASSERT_EQ(-1, zsw_check_range(self->buf, 0, self->npages,
				      ZSW_PAT_ZERO, 0));
}

TEST_F_TIMEOUT(inval, madv_free, 120)
{
	uint64_t *ents;
	long bad = 0;
	size_t i;

	if (!zsw_require(_metadata, INV_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	push_out(_metadata, self);
	ents = calloc(self->npages, sizeof(*ents));
	ASSERT_NE(NULL, ents);
	ASSERT_EQ(0, zsw_pagemap_entries(self->buf, self->npages, ents));
	/* MADV_FREE drops swap entries at once, like MADV_DONTNEED. */
	ASSERT_EQ(0, madvise(self->buf, self->len, MADV_FREE));
	zsw_assert_baseline(_metadata, &self->base, "MADV_FREE");
	/*
	 * A page that was swapped out reads as a fresh zero page. One that
	 * MADV_PAGEOUT left in memory is only lazily freed: it keeps its
	 * data until reclaim takes it.
	 */
	for (i = 0; i < self->npages; i++) {
		const char *page = self->buf + i * zsw_page_size();

		if (zsw_page_diff(page, ZSW_PAT_ZERO, i, 0) < 0)
			continue;
		if (!(ents[i] & PM_SWAP) &&
		    zsw_page_diff(page, ZSW_PAT_ONES, i, 0) < 0)
			continue;
		if (bad++ < 4)
			TH_LOG("page %zu (%s before): byte 0 is 0x%02x", i,
			       ents[i] & PM_SWAP ? "swapped" : "resident",
			       (unsigned char)page[0]);
	}
	free(ents);
	ASSERT_EQ(0, bad);
}

/*
 * Free every other page on its own, each a range of one slot whose entry
 * is still there, as exit or munmap() do with swap entries that lie on
 * no run of slots. Half the entries must go, the other half must stay and
 * still hold their pages: a search that misses the range's last slot
 * leaks the first half, one that reaches past it frees the second.
 */
TEST_F_TIMEOUT(inval, single_pages, 120)
{
	struct zsw_counters mid;
	long swapped, stored;
	size_t i;

	if (!zsw_require(_metadata, INV_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	push_out(_metadata, self);
	swapped = zsw_count_swapped(self->buf, self->npages);
	stored = zsw_stored_pages();
	for (i = 0; i < self->npages; i += 2)
		ASSERT_EQ(0, madvise(self->buf + i * zsw_page_size(),
				     zsw_page_size(), MADV_DONTNEED));
	/* The freed half is gone from zswap, the rest is still there. */
	mid.stored = stored - swapped / 2;
	mid.used = self->base.used + swapped - swapped / 2;
	zsw_assert_baseline(_metadata, &mid, "MADV_DONTNEED of every other page");
	ASSERT_GE(zsw_stored_pages(), stored - swapped / 2 - zsw_tolerance())
		TH_LOG("entries of pages still swapped out were freed");
	/* Every kept page reads back from zswap as it was written. */
	for (i = 1; i < self->npages; i += 2)
		ASSERT_EQ(-1, zsw_check_range(self->buf, i, 1, ZSW_PAT_ONES, 0))
			TH_LOG("page %zu came back wrong", i);
	ASSERT_EQ(0, munmap(self->buf, self->len));
	self->buf = NULL;
	zsw_assert_baseline(_metadata, &self->base, "munmap");
}

/* What the exiting child saw while its pages were out */
struct exit_report {
	long swapped;
	long stored_grew;
	int err;
};

static void exit_child(FIXTURE_DATA(inval) *self, struct exit_report *rep)
{
	long stored0 = zsw_stored_pages();
	char *buf;

	buf = zsw_map(self->len);
	if (!buf) {
		rep->err = errno;
		_exit(1);
	}
	zsw_fill_range(buf, 0, self->npages, ZSW_PAT_ONES, 0);
	if (madvise(buf, self->len, MADV_PAGEOUT)) {
		rep->err = errno;
		_exit(1);
	}
	rep->swapped = zsw_count_swapped(buf, self->npages);
	rep->stored_grew = zsw_stored_pages() - stored0;
	/* Exit with everything still swapped out and mapped. */
	_exit(0);
}

TEST_F_TIMEOUT(inval, exit, 120)
{
	struct exit_report *rep;
	int status;
	pid_t pid;

	if (!zsw_require(_metadata, INV_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, rep);
	memset(rep, 0, sizeof(*rep));

	zsw_counters(&self->base);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		exit_child(self, rep);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("child failed: %s", strerror(rep->err));

	TH_LOG("child exited with %ld pages swapped out, zswap grew by %ld",
	       rep->swapped, rep->stored_grew);
	ASSERT_GE(rep->swapped * 10, (long)self->npages * 9);
	ASSERT_GE(rep->stored_grew, rep->swapped * 9 / 10 - zsw_tolerance());
	zsw_assert_baseline(_metadata, &self->base, "exit");
	munmap(rep, sizeof(*rep));
}

TEST_F_TIMEOUT(inval, swapoff, 120)
{
	long stored;
	int ret;

	if (!zsw_require(_metadata, INV_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	push_out(_metadata, self);

	/* swapoff reads every entry back in and frees it from zswap. */
	ret = zsw_swapoff_all(self->devs, &self->ndevs);
	ASSERT_GT(ret, 0)
		TH_LOG("swapoff: %s", strerror(-ret));
	ASSERT_EQ(0, zsw_count_swapped(self->buf, self->npages));
	stored = zsw_stored_pages();
	ASSERT_LE(stored, self->base.stored + zsw_tolerance())
		TH_LOG("%ld zswap entries left with all swap off",
		       stored - self->base.stored);
	ASSERT_EQ(-1, zsw_check_range(self->buf, 0, self->npages,
				      ZSW_PAT_ONES, 0));

	ASSERT_EQ(0, zsw_swapon_all(self->devs, self->ndevs));
	self->ndevs = 0;
	zsw_assert_baseline(_metadata, &self->base, "swapoff and swapon");
}

TEST_HARNESS_MAIN
