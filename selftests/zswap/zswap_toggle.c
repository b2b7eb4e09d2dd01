// SPDX-License-Identifier: GPL-2.0
/*
 * zswap state changes while pages are swapped out: turning zswap off must
 * not lose what it holds, pages swapped out while it is off must bypass it,
 * pages it holds freed while it is off must still leave it (and their
 * slots, used again meanwhile, read back what the device holds), so must
 * those of pages stored again while it is off (v6.1), and
 * swapoff/swapon cycles with entries in zswap must bring every page
 * back intact and leave no entries or slots behind.
 *
 * Environment: ZSWAP_TOGGLE_PAGES (region, default 8192 pages),
 * ZSWAP_TOGGLE_CYCLES (swapoff/swapon cycles, default 3).
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "zswap_util.h"

#define TOGGLE_NEEDS (ZSW_NEED_ROOT | ZSW_NEED_SWAP | ZSW_NEED_STATS | \
		      ZSW_NEED_ZSWAP | ZSW_NEED_PAGEOUT)

FIXTURE(toggle) {
	char *a, *b;
	size_t npages;
	size_t len;
	int orig_enabled;	/* zswap's setting to restore, -1 if unknown */
	struct zsw_swapdev devs[ZSW_MAX_SWAPS];
	int ndevs;		/* devices turned off, to turn back on */
};

FIXTURE_SETUP(toggle)
{
	self->npages = zsw_region_pages("ZSWAP_TOGGLE_PAGES", ZSW_MIN_PAGES);
	self->len = self->npages * zsw_page_size();
	self->a = NULL;
	self->b = NULL;
	self->ndevs = 0;
	self->orig_enabled = zsw_zswap_enabled();
}

FIXTURE_TEARDOWN(toggle)
{
	if (self->ndevs)
		zsw_swapon_all(self->devs, self->ndevs);
	if (self->orig_enabled >= 0)
		zsw_set_zswap_enabled(self->orig_enabled);
	if (self->a)
		munmap(self->a, self->len);
	if (self->b)
		munmap(self->b, self->len);
}

/*
 * With zswap on, @base taken first, swap a (0x01 pages) out into zswap;
 * then turn zswap off.
 */
static void held_then_off(struct __test_metadata *_metadata,
			  FIXTURE_DATA(toggle) *self, struct zsw_counters *base)
{
	int ret;

	ret = zsw_set_zswap_enabled(true);
	ASSERT_EQ(0, ret)
		TH_LOG("enabling zswap: %s", strerror(-ret));
	zsw_counters(base);
	self->a = zsw_map(self->len);
	ASSERT_NE(NULL, self->a);
	zsw_fill_range(self->a, 0, self->npages, ZSW_PAT_ONES, 0);
	zsw_pageout(_metadata, self->a, self->npages, true);

	ret = zsw_set_zswap_enabled(false);
	ASSERT_EQ(0, ret)
		TH_LOG("disabling zswap: %s", strerror(-ret));
}

TEST_F_TIMEOUT(toggle, disable_while_out, 120)
{
	struct zsw_counters base, mid;
	long swapped, stored;
	int ret;

	if (!zsw_require(_metadata, TOGGLE_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, 2 * self->npages + zsw_tolerance()))
		return;

	held_then_off(_metadata, self, &base);
	ASSERT_EQ(-1, zsw_check_range(self->a, 0, self->npages,
				      ZSW_PAT_ONES, 0))
		TH_LOG("pages stored with zswap on were lost when turned off");

	/* b: out while zswap is off, compressible, so only "off" keeps it out */
	self->b = zsw_map(self->len);
	ASSERT_NE(NULL, self->b);
	zsw_fill_range(self->b, 0, self->npages, ZSW_PAT_TEXT, 1);
	zsw_counters(&mid);
	swapped = zsw_pageout(_metadata, self->b, self->npages, false);
	stored = zsw_stored_pages();
	ASSERT_LE(stored, mid.stored)
		TH_LOG("zswap stored %ld pages while disabled",
		       stored - mid.stored);
	ASSERT_GE(zsw_swap_used_pages() - mid.used,
		  swapped - zsw_tolerance())
		TH_LOG("the pages did not go to the swap device");

	/* Read b back from the device with zswap on again. */
	ret = zsw_set_zswap_enabled(true);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(-1, zsw_check_range(self->b, 0, self->npages,
				      ZSW_PAT_TEXT, 1));

	ASSERT_EQ(0, munmap(self->a, self->len));
	ASSERT_EQ(0, munmap(self->b, self->len));
	self->a = NULL;
	self->b = NULL;
	zsw_assert_baseline(_metadata, &base, "munmap");
}

/*
 * Pages held in zswap freed while zswap is off: zswap_invalidate() must
 * still erase their entries. Pages swapped out next, with zswap still off,
 * take the freed slots again and must read back from the device: an entry
 * left at a slot would be loaded in their place.
 */
TEST_F_TIMEOUT(toggle, free_while_off, 120)
{
	struct zsw_counters base;
	long stored;

	if (!zsw_require(_metadata, TOGGLE_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	held_then_off(_metadata, self, &base);
	ASSERT_EQ(0, munmap(self->a, self->len));
	self->a = NULL;
	stored = zsw_stored_pages();
	EXPECT_LE(stored, base.stored + zsw_tolerance())
		TH_LOG("%ld entries left in zswap by frees while it was off",
		       stored - base.stored);

	self->b = zsw_map(self->len);
	ASSERT_NE(NULL, self->b);
	zsw_fill_range(self->b, 0, self->npages, ZSW_PAT_TEXT, 2);
	zsw_pageout(_metadata, self->b, self->npages, false);
	EXPECT_EQ(-1, zsw_check_range(self->b, 0, self->npages,
				      ZSW_PAT_TEXT, 2))
		TH_LOG("pages swapped out while zswap was off came back changed");
	ASSERT_EQ(0, munmap(self->b, self->len));
	self->b = NULL;
	zsw_assert_baseline(_metadata, &base, "munmap");
}

/*
 * A store refused, as zswap is off, for pages that are still in the swap
 * cache with their old entries: those entries must go, or they stay in
 * zswap, and where the kernel would load them the old pages come back.
 * The pages get there by MADV_WILLNEED, which reads them into the swap
 * cache, a read that maps them, and a write that dirties them in place
 * (their swap entries were exclusive, so nothing is copied). Kernels that
 * erase an entry when they load its page into the swap cache (v6.12 and
 * later) have no old entry left by then: the case skips, saying so; on
 * v6.1, whose frontswap load keeps it, the store meets it.
 */
TEST_F_TIMEOUT(toggle, refused_over_old, 120)
{
	struct zsw_counters base;
	long out, stored0, stored1;
	int ret;

	if (!zsw_require(_metadata, TOGGLE_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	ret = zsw_set_zswap_enabled(true);
	ASSERT_EQ(0, ret)
		TH_LOG("enabling zswap: %s", strerror(-ret));
	zsw_counters(&base);
	self->a = zsw_map(self->len);
	ASSERT_NE(NULL, self->a);
	zsw_fill_range(self->a, 0, self->npages, ZSW_PAT_ONES, 0);
	out = zsw_pageout(_metadata, self->a, self->npages, true);

	stored0 = zsw_stored_pages();
	ASSERT_EQ(0, madvise(self->a, self->len, MADV_WILLNEED));
	ASSERT_EQ(-1, zsw_check_range(self->a, 0, self->npages,
				      ZSW_PAT_ONES, 0));
	stored1 = zsw_stored_pages();
	TH_LOG("stored_pages %ld before the pages were read back, %ld after",
	       stored0, stored1);
	if (stored1 < stored0 - out / 2)
		SKIP(return, "reading a page into the swap cache erased its entry: no old entry is left for a store to be refused over");

	zsw_fill_range(self->a, 0, self->npages, ZSW_PAT_TEXT, 3);
	ret = zsw_set_zswap_enabled(false);
	ASSERT_EQ(0, ret)
		TH_LOG("disabling zswap: %s", strerror(-ret));
	zsw_pageout(_metadata, self->a, self->npages, false);
	stored1 = zsw_stored_pages();
	EXPECT_LE(stored1, stored0 - out + zsw_tolerance())
		TH_LOG("%ld old entries left in zswap by refused stores",
		       stored1 - (stored0 - out));
	EXPECT_EQ(-1, zsw_check_range(self->a, 0, self->npages,
				      ZSW_PAT_TEXT, 3))
		TH_LOG("pages swapped out again while zswap was off came back changed");
	ASSERT_EQ(0, munmap(self->a, self->len));
	self->a = NULL;
	zsw_assert_baseline(_metadata, &base, "munmap");
}

TEST_F_TIMEOUT(toggle, swapoff_cycles, 240)
{
	unsigned long c, cycles = zsw_env_ulong("ZSWAP_TOGGLE_CYCLES", 3);
	struct zsw_counters base;
	long stored;
	int ret;

	if (!zsw_require(_metadata, TOGGLE_NEEDS | ZSW_NEED_ZSWAP_ON))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	zsw_counters(&base);
	self->a = zsw_map(self->len);
	ASSERT_NE(NULL, self->a);
	for (c = 0; c < cycles; c++) {
		/* New contents each cycle: stale data would not match. */
		zsw_fill_range(self->a, 0, self->npages, ZSW_PAT_TEXT, c);
		zsw_pageout(_metadata, self->a, self->npages, true);

		ret = zsw_swapoff_all(self->devs, &self->ndevs);
		ASSERT_GT(ret, 0)
			TH_LOG("cycle %lu: swapoff: %s", c, strerror(-ret));
		ASSERT_EQ(0, zsw_count_swapped(self->a, self->npages));
		stored = zsw_stored_pages();
		ASSERT_LE(stored, base.stored + zsw_tolerance())
			TH_LOG("cycle %lu: %ld zswap entries left with swap off",
			       c, stored - base.stored);
		ASSERT_EQ(-1, zsw_check_range(self->a, 0, self->npages,
					      ZSW_PAT_TEXT, c))
			TH_LOG("cycle %lu: data lost by swapoff", c);

		ASSERT_EQ(0, zsw_swapon_all(self->devs, self->ndevs));
		self->ndevs = 0;
		zsw_assert_baseline(_metadata, &base, "swapon");
	}
	ASSERT_EQ(0, munmap(self->a, self->len));
	self->a = NULL;
	zsw_assert_baseline(_metadata, &base, "munmap");
}

TEST_HARNESS_MAIN
