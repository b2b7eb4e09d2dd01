// SPDX-License-Identifier: GPL-2.0
/*
 * The edges of zswap_invalidate()'s batched walk of a freed range: every
 * entry of the range must go, whatever the number of entries and wherever
 * the last one sits, at the ends of the walk's batches of 16 included.
 *
 * A region of blocks of 64 pages is swapped out; in each block the pages
 * [first, first + count) are 0x01 (zswap stores them), the others zero-
 * filled (the swap core keeps those, zswap never sees them). Each block is
 * then freed with one MADV_DONTNEED: where a block's slots follow each
 * other inside one swap cluster, that is one freed range of 64 slots with
 * count entries, the last at slot first + count - 1. Afterwards zswap must
 * hold none of them: stored_pages back exactly where it was.
 *
 * The variants put a batch's end on the range's last slot and on the one
 * before it, with as many entries as a batch, one more, two batches and
 * one more again. A walk that stops one entry early, or one batch early,
 * leaves an entry in every block.
 *
 * Environment: ZSWAP_EDGES_BLOCKS (blocks, default 128).
 */
#define _GNU_SOURCE

#include "kselftest_harness.h"
#include "zswap_util.h"

#define RE_BLOCK	64
#define RE_CLUSTER	512	/* SWAPFILE_CLUSTER, as x86-64 has it */
#define RE_NEEDS	(ZSW_NEED_ROOT | ZSW_NEED_SWAP | ZSW_NEED_STATS | \
			 ZSW_NEED_ZSWAP_ON | ZSW_NEED_PAGEOUT)

FIXTURE(range_edges) {
	char *buf;
	size_t blocks;
};

FIXTURE_VARIANT(range_edges) {
	size_t first;	/* block index of the first entry */
	size_t count;	/* entries, consecutive from first */
};

/* 16 entries, the batch's last on the range's last slot */
FIXTURE_VARIANT_ADD(range_edges, batch_ends_at_last) {
	.first = RE_BLOCK - 16, .count = 16,
};

/* 16 entries, the batch's last on the slot before the range's last */
FIXTURE_VARIANT_ADD(range_edges, batch_ends_before_last) {
	.first = RE_BLOCK - 17, .count = 16,
};

/* 17 entries: a batch ends before the last slot, whose entry is left */
FIXTURE_VARIANT_ADD(range_edges, batch_plus_one) {
	.first = RE_BLOCK - 17, .count = 17,
};

/* 32 entries: two full batches, the second ends at the last slot */
FIXTURE_VARIANT_ADD(range_edges, two_batches) {
	.first = RE_BLOCK - 32, .count = 32,
};

/* 33 entries: two batches and one entry on the last slot */
FIXTURE_VARIANT_ADD(range_edges, two_batches_plus_one) {
	.first = RE_BLOCK - 33, .count = 33,
};

FIXTURE_SETUP(range_edges)
{
	self->buf = NULL;
	self->blocks = zsw_env_ulong("ZSWAP_EDGES_BLOCKS", 128);
}

FIXTURE_TEARDOWN(range_edges)
{
	if (self->buf)
		munmap(self->buf, self->blocks * RE_BLOCK * zsw_page_size());
}

/*
 * Empty the per-CPU caches of freed swap slots of kernels that have them
 * (their slots' entries are invalidated then), with zswap turned off, so
 * that the flush's own pages go to the device and leave no entry.
 */
static int flush_freed_slots(void)
{
	int ret;

	if (zsw_set_zswap_enabled(false))
		return -EIO;
	ret = zsw_flush_freed_slots();
	if (zsw_set_zswap_enabled(true))
		return -EIO;
	return ret;
}

/* Blocks whose 64 slots follow each other inside one swap cluster */
static size_t blocks_in_one_range(char *buf, size_t blocks, uint64_t *ents)
{
	unsigned long lo, hi;
	size_t b, i, n = 0;

	if (zsw_pagemap_entries(buf, blocks * RE_BLOCK, ents))
		return 0;
	for (b = 0; b < blocks; b++) {
		uint64_t *e = ents + b * RE_BLOCK;

		for (i = 0; i < RE_BLOCK; i++)
			if (!(e[i] & PM_SWAP) || PM_SWAP_TYPE(e[i]) !=
			    PM_SWAP_TYPE(e[0]) || PM_SWAP_OFFSET(e[i]) !=
			    PM_SWAP_OFFSET(e[0]) + i)
				break;
		lo = PM_SWAP_OFFSET(e[0]);
		hi = lo + RE_BLOCK - 1;
		n += i == RE_BLOCK && lo / RE_CLUSTER == hi / RE_CLUSTER;
	}
	return n;
}

TEST_F(range_edges, every_entry_erased)
{
	size_t ps = zsw_page_size(), pages, b, whole;
	long stored0, stored, left;
	uint64_t *ents;

	if (!zsw_require(_metadata, RE_NEEDS))
		return;
	if (zsw_keeps_zero_pages())
		SKIP(return, "zswap stores zero-filled pages here (%s): a block's entries cannot be placed",
		     ZSW_SAME_FILLED);
	pages = self->blocks * RE_BLOCK;
	if (!zsw_require_free_swap(_metadata, pages))
		return;

	self->buf = zsw_map(pages * ps);
	ASSERT_NE(NULL, self->buf);
	for (b = 0; b < self->blocks; b++) {
		zsw_fill_range(self->buf, b * RE_BLOCK, RE_BLOCK,
			       ZSW_PAT_ZERO, 0);
		zsw_fill_range(self->buf, b * RE_BLOCK + variant->first,
			       variant->count, ZSW_PAT_ONES, 0);
	}
	/* Freed slots of earlier tests still in a per-CPU cache drain now */
	ASSERT_EQ(0, flush_freed_slots());
	stored0 = zsw_stored_pages();
	zsw_pageout(_metadata, self->buf, pages, false);
	stored = zsw_stored_pages() - stored0;
	ASSERT_EQ((long)(self->blocks * variant->count), stored)
		TH_LOG("zswap stored %ld pages for %zu pages of 0x01", stored,
		       self->blocks * variant->count);

	ents = calloc(pages, sizeof(*ents));
	ASSERT_NE(NULL, ents);
	whole = blocks_in_one_range(self->buf, self->blocks, ents);
	free(ents);
	if (whole * 2 < self->blocks)
		SKIP(return, "only %zu of %zu blocks had their slots in one run of one cluster: the freed ranges are not the ones this case is about",
		     whole, self->blocks);

	for (b = 0; b < self->blocks; b++)
		ASSERT_EQ(0, madvise(self->buf + b * RE_BLOCK * ps,
				     RE_BLOCK * ps, MADV_DONTNEED));
	munmap(self->buf, pages * ps);
	self->buf = NULL;
	/* A kernel that caches freed slots per CPU invalidates them now */
	ASSERT_EQ(0, flush_freed_slots());

	left = zsw_stored_pages() - stored0;
	TH_LOG("%zu blocks of %zu entries from block slot %zu (%zu whole ranges): %ld entries left",
	       self->blocks, variant->count, variant->first, whole, left);
	EXPECT_EQ(0, left);
}

TEST_HARNESS_MAIN
