// SPDX-License-Identifier: GPL-2.0
/*
 * Only zero-filled pages skip compression. A page of one repeated byte or
 * word other than zero must be compressed like any other page, and every
 * page must read back byte for byte.
 *
 * The check is on zswap's compressed pool (debugfs pool_total_size):
 * swapping out zero-filled pages must not grow it, whether the pages end up
 * in zswap without a compressed copy (zswap's own zero-page handling, whose
 * debugfs counter is still called same_filled_pages) or never reach zswap
 * (v6.12's zeromap in the swap core); swapping out pages of a non-zero
 * repeated byte or word must grow it, and must not count as same-filled.
 *
 * Before zswap's same-filled handling was reduced to zero-filled pages
 * (v6.1 and its series up to that patch), non-zero same-filled pages were
 * kept without compression too, and the second half fails there: see
 * selftests/since.
 *
 * Environment: ZSWAP_ZF_PAGES (region size in pages, default 8192).
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "zswap_util.h"

#define ZSW_POOL_SIZE	"pool_total_size"	/* in ZSW_STATS */
#define ZSW_SAME_FILLED	"same_filled_pages"

/*
 * Bytes of pool a compressed page takes at least: zsmalloc's smallest size
 * class is 32 bytes, zbud and z3fold use more. Half of that leaves room for
 * pool pages freed meanwhile; a zero page must take less than an eighth.
 */
#define ZSW_MIN_COMPRESSED	32L

FIXTURE(zerofill) {
	char *buf;
	size_t npages;
	size_t len;
};

FIXTURE_VARIANT(zerofill) {
	enum zsw_pattern pat;
	/* Whether the pages must be compressed into the pool */
	bool compressed;
};

FIXTURE_VARIANT_ADD(zerofill, zero) {
	.pat = ZSW_PAT_ZERO,
	.compressed = false,
};

FIXTURE_VARIANT_ADD(zerofill, byte_0x01) {
	.pat = ZSW_PAT_ONES,
	.compressed = true,
};

FIXTURE_VARIANT_ADD(zerofill, word) {
	.pat = ZSW_PAT_WORD,
	.compressed = true,
};

FIXTURE_SETUP(zerofill)
{
	self->npages = zsw_region_pages("ZSWAP_ZF_PAGES", ZSW_MIN_PAGES);
	self->len = self->npages * zsw_page_size();
	self->buf = NULL;
}

FIXTURE_TEARDOWN(zerofill)
{
	if (self->buf)
		munmap(self->buf, self->len);
}

TEST_F_TIMEOUT(zerofill, pageout, 120)
{
	long pool0, pool, same0 = -1, same, stored0, stored, swapped;
	struct zsw_counters base;
	char samebuf[32];

	if (!zsw_require(_metadata, ZSW_NEED_ROOT | ZSW_NEED_SWAP |
			 ZSW_NEED_PAGEOUT | ZSW_NEED_STATS |
			 ZSW_NEED_ZSWAP_ON))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;
	pool0 = cg_read_long(ZSW_STATS, ZSW_POOL_SIZE);
	ASSERT_GE(pool0, 0)
		TH_LOG("cannot read %s/%s", ZSW_STATS, ZSW_POOL_SIZE);
	/* Kernels that store zero pages in zswap count them here. */
	same0 = cg_read_long(ZSW_STATS, ZSW_SAME_FILLED);

	zsw_counters(&base);
	stored0 = zsw_stored_pages();
	self->buf = zsw_map(self->len);
	ASSERT_NE(NULL, self->buf);
	zsw_fill_range(self->buf, 0, self->npages, variant->pat, 0);

	swapped = zsw_pageout(_metadata, self->buf, self->npages, false);
	pool = cg_read_long(ZSW_STATS, ZSW_POOL_SIZE) - pool0;
	stored = zsw_stored_pages() - stored0;
	same = same0 < 0 ? -1 : cg_read_long(ZSW_STATS, ZSW_SAME_FILLED) - same0;
	if (same0 < 0)
		snprintf(samebuf, sizeof(samebuf), "none");
	else
		snprintf(samebuf, sizeof(samebuf), "%+ld", same);
	TH_LOG("%ld %s pages out: zswap stored_pages %+ld, same_filled_pages %s, pool %+ld bytes (%.1f a page)",
	       swapped, zsw_pattern_name(variant->pat), stored, samebuf,
	       pool, (double)pool / (swapped ? swapped : 1));

	if (variant->compressed) {
		ASSERT_GE(stored, swapped * 9 / 10 - zsw_tolerance())
			TH_LOG("zswap did not take the %s pages",
			       zsw_pattern_name(variant->pat));
		ASSERT_GE(pool, swapped * ZSW_MIN_COMPRESSED / 2)
			TH_LOG("%s pages were not compressed: the pool grew by %ld bytes for %ld pages",
			       zsw_pattern_name(variant->pat), pool, swapped);
		if (same0 >= 0)
			ASSERT_LE(same, zsw_tolerance())
				TH_LOG("%ld %s pages counted as same-filled",
				       same, zsw_pattern_name(variant->pat));
	} else {
		ASSERT_LT(pool, swapped * ZSW_MIN_COMPRESSED / 8)
			TH_LOG("zero pages were compressed: the pool grew by %ld bytes for %ld pages",
			       pool, swapped);
		if (same0 >= 0)
			ASSERT_GE(same, swapped * 9 / 10 - zsw_tolerance())
				TH_LOG("only %ld of %ld zero pages counted in same_filled_pages",
				       same, swapped);
	}

	ASSERT_EQ(-1, zsw_check_range(self->buf, 0, self->npages,
				      variant->pat, 0))
		TH_LOG("%s pages came back corrupted",
		       zsw_pattern_name(variant->pat));
	ASSERT_EQ(0, zsw_count_swapped(self->buf, self->npages));
	ASSERT_EQ(0, munmap(self->buf, self->len));
	self->buf = NULL;
	zsw_assert_baseline(_metadata, &base, "after munmap");
}

TEST_HARNESS_MAIN
