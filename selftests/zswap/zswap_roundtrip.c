// SPDX-License-Identifier: GPL-2.0
/*
 * Round trips through zswap: fill a region with a pattern, push it out with
 * MADV_PAGEOUT or with a memcg limit smaller than the region, read it back
 * and compare every byte. Pages must really have left memory (pagemap), and
 * compressible patterns must have been held by zswap while out.
 *
 * Environment: ZSWAP_RT_PAGES (region size in pages, default 8192).
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "zswap_util.h"

FIXTURE(roundtrip) {
	char *buf;
	size_t npages;
	size_t len;
	struct zsw_memcg cg;
};

FIXTURE_VARIANT(roundtrip) {
	enum zsw_pattern pat;
	/*
	 * Whether zswap must hold the pages. Not for zero pages (v6.12 keeps
	 * them in the swap core's zeromap, v6.1 in zswap) nor random ones
	 * (zswap may reject what does not compress).
	 */
	bool in_zswap;
};

FIXTURE_VARIANT_ADD(roundtrip, zero) {
	.pat = ZSW_PAT_ZERO,
	.in_zswap = false,
};

FIXTURE_VARIANT_ADD(roundtrip, ones) {
	.pat = ZSW_PAT_ONES,
	.in_zswap = true,
};

FIXTURE_VARIANT_ADD(roundtrip, compressible) {
	.pat = ZSW_PAT_TEXT,
	.in_zswap = true,
};

FIXTURE_VARIANT_ADD(roundtrip, random) {
	.pat = ZSW_PAT_RANDOM,
	.in_zswap = false,
};

FIXTURE_SETUP(roundtrip)
{
	memset(&self->cg, 0, sizeof(self->cg));
	self->npages = zsw_region_pages("ZSWAP_RT_PAGES", ZSW_MIN_PAGES);
	self->len = self->npages * zsw_page_size();
	self->buf = NULL;
}

FIXTURE_TEARDOWN(roundtrip)
{
	zsw_memcg_destroy(&self->cg);
	if (self->buf)
		munmap(self->buf, self->len);
}

static unsigned int roundtrip_needs(const FIXTURE_VARIANT(roundtrip) *variant)
{
	unsigned int needs = ZSW_NEED_ROOT | ZSW_NEED_SWAP | ZSW_NEED_PAGEOUT;

	if (variant->in_zswap)
		needs |= ZSW_NEED_STATS | ZSW_NEED_ZSWAP_ON;
	return needs;
}

/* Read every page back, swapping it in, and compare every byte. */
static void check_back_in(struct __test_metadata *_metadata,
			  FIXTURE_DATA(roundtrip) *self,
			  const FIXTURE_VARIANT(roundtrip) *variant)
{
	ASSERT_EQ(-1, zsw_check_range(self->buf, 0, self->npages,
				      variant->pat, 0))
		TH_LOG("%s pages came back corrupted",
		       zsw_pattern_name(variant->pat));
}

TEST_F_TIMEOUT(roundtrip, pageout, 120)
{
	struct zsw_counters base;
	long swapped;

	if (!zsw_require(_metadata, roundtrip_needs(variant)))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	zsw_counters(&base);
	self->buf = zsw_map(self->len);
	ASSERT_NE(NULL, self->buf);
	zsw_fill_range(self->buf, 0, self->npages, variant->pat, 0);

	swapped = zsw_pageout(_metadata, self->buf, self->npages,
			      variant->in_zswap);
	TH_LOG("%ld of %zu %s pages swapped out", swapped, self->npages,
	       zsw_pattern_name(variant->pat));

	check_back_in(_metadata, self, variant);
	ASSERT_EQ(0, zsw_count_swapped(self->buf, self->npages));

	ASSERT_EQ(0, munmap(self->buf, self->len));
	self->buf = NULL;
	zsw_assert_baseline(_metadata, &base, "after munmap");
}

TEST_F_TIMEOUT(roundtrip, memcg_limit, 120)
{
	struct zsw_counters base;
	long swapped, grew;
	int ret;

	if (!zsw_require(_metadata, roundtrip_needs(variant) | ZSW_NEED_MEMCG))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	zsw_counters(&base);
	/* A quarter of the region fits: the rest must go out to (z)swap. */
	ret = zsw_memcg_create(&self->cg, "zswap_roundtrip", self->len / 4);
	ASSERT_EQ(0, ret)
		TH_LOG("creating the memcg: %s", strerror(-ret));
	ret = zsw_memcg_enter(&self->cg);
	ASSERT_EQ(0, ret)
		TH_LOG("entering %s: %s", self->cg.path, strerror(-ret));

	/* Faulting the pages in here charges them to the memcg. */
	self->buf = zsw_map(self->len);
	ASSERT_NE(NULL, self->buf);
	zsw_fill_range(self->buf, 0, self->npages, variant->pat, 0);

	swapped = zsw_count_swapped(self->buf, self->npages);
	ASSERT_GE(swapped * 2, (long)self->npages)
		TH_LOG("only %ld of %zu pages were swapped out under memory.max=%zu",
		       swapped, self->npages, self->len / 4);
	if (variant->in_zswap) {
		grew = zsw_stored_pages() - base.stored;
		/* A zswap shrinker, if enabled, may write some back. */
		ASSERT_GE(grew, swapped / 2 - zsw_tolerance())
			TH_LOG("zswap stored_pages grew by %ld for %ld swapped pages",
			       grew, swapped);
	}
	TH_LOG("%ld of %zu %s pages out under the memcg limit", swapped,
	       self->npages, zsw_pattern_name(variant->pat));

	/* Reading back under the limit swaps out other pages meanwhile. */
	check_back_in(_metadata, self, variant);

	ASSERT_EQ(0, munmap(self->buf, self->len));
	self->buf = NULL;
	zsw_memcg_destroy(&self->cg);
	zsw_assert_baseline(_metadata, &base, "after munmap");
}

TEST_HARNESS_MAIN
