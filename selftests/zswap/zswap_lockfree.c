// SPDX-License-Identifier: GPL-2.0
/*
 * Freeing swap slots that hold no zswap entry must not take zswap's tree
 * lock, even when the tree holds entries of other slots: the search
 * without the lock of the mainline series (2/2) returns before it, where the
 * per-slot loop it replaces took the lock for every slot.
 *
 * A region of blocks of 64 pages, each a page of 0x01 (zswap stores it)
 * and 63 zero-filled pages (the swap core keeps them, zswap never sees
 * them), is swapped out, so that every tree the blocks' slots fall in
 * holds entries. The 63 zero pages of each block are then freed with one
 * MADV_DONTNEED a block: no freed slot has an entry. /proc/lock_stat
 * (CONFIG_LOCK_STAT, the debug configuration) counts the acquisitions of
 * the XArray lock classes meanwhile; they must stay below one for two
 * blocks (a freed range that takes the lock at all takes it at least
 * once a block). The 0x01 pages must then read back as they were.
 *
 * entry_at_range_end frees blocks whose only entry is their last page:
 * it must be erased (a search that stops one slot short leaves it).
 *
 * Environment: ZSWAP_LOCKFREE_BLOCKS (blocks, default 64).
 */
#define _GNU_SOURCE

#include "kselftest_harness.h"
#include "zswap_util.h"

#define LF_BLOCK	64
#define LF_LOCK_STAT	"/proc/lock_stat"

/* Acquisitions of every "&xa->xa_lock" class since the last clear, -1 on error */
static long xa_lock_acquisitions(void)
{
	char line[512], cls[64];
	unsigned long con, acq;
	long sum = 0;
	FILE *f = fopen(LF_LOCK_STAT, "r");

	if (!f)
		return -1;
	/* class: con-bounces contentions 4 wait times acq-bounces acquisitions */
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " %63[^: ]: %*u %lu %*s %*s %*s %*s %*u %lu",
			   cls, &con, &acq) == 3 &&
		    !strncmp(cls, "&xa->xa_lock", 12))
			sum += acq;
	fclose(f);
	return sum;
}

static int lock_stat_clear(void)
{
	int fd = open(LF_LOCK_STAT, O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

#define LF_NEEDS (ZSW_NEED_ROOT | ZSW_NEED_SWAP | ZSW_NEED_STATS | \
		  ZSW_NEED_ZSWAP_ON | ZSW_NEED_PAGEOUT)

/* Where zswap keeps zero-filled pages, neither test can be set up */
#define LF_SKIP_SAME_FILLED()						\
	do {								\
		if (zsw_keeps_zero_pages())				\
			SKIP(return, "zswap stores zero-filled pages here (%s): no freed slot is without an entry", \
			     ZSW_SAME_FILLED);				\
	} while (0)

/*
 * Swap out @blocks blocks of LF_BLOCK zero-filled pages but for a page of
 * 0x01 at index @one of each: zswap stores those, the swap core keeps the
 * zero pages. Returns the region.
 */
static char *push_blocks(struct __test_metadata *_metadata, size_t blocks,
			 size_t one)
{
	size_t ps = zsw_page_size(), b;
	long stored0, stored;
	char *buf;

	buf = zsw_map(blocks * LF_BLOCK * ps);
	ASSERT_NE(NULL, buf);
	for (b = 0; b < blocks; b++) {
		zsw_fill_range(buf, b * LF_BLOCK, LF_BLOCK, ZSW_PAT_ZERO, 0);
		zsw_fill_range(buf, b * LF_BLOCK + one, 1, ZSW_PAT_ONES, 0);
	}
	stored0 = zsw_stored_pages();
	zsw_pageout(_metadata, buf, blocks * LF_BLOCK, false);
	stored = zsw_stored_pages() - stored0;
	ASSERT_GE(stored, (long)blocks / 2);
	ASSERT_LE(stored, 2 * (long)blocks)
		TH_LOG("zswap stored %ld pages for %zu pages of 0x01", stored,
		       blocks);
	return buf;
}

TEST(no_entry_no_lock)
{
	size_t blocks = zsw_env_ulong("ZSWAP_LOCKFREE_BLOCKS", 64);
	size_t ps = zsw_page_size(), b;
	long acq;
	char *buf;

	if (!zsw_require(_metadata, LF_NEEDS))
		return;
	LF_SKIP_SAME_FILLED();
	if (access(LF_LOCK_STAT, R_OK | W_OK))
		SKIP(return, "no " LF_LOCK_STAT ": the kernel has no CONFIG_LOCK_STAT");
	if (!zsw_require_free_swap(_metadata, blocks * LF_BLOCK))
		return;
	buf = push_blocks(_metadata, blocks, 0);

	ASSERT_EQ(0, lock_stat_clear());
	for (b = 0; b < blocks; b++)
		ASSERT_EQ(0, madvise(buf + (b * LF_BLOCK + 1) * ps,
				     (LF_BLOCK - 1) * ps, MADV_DONTNEED));
	acq = xa_lock_acquisitions();
	ASSERT_GE(acq, 0);
	TH_LOG("%zu slots without an entry freed: %ld XArray lock acquisitions",
	       blocks * (LF_BLOCK - 1), acq);
	/*
	 * The per-slot loop takes the lock once a slot, 63 a block; a walk
	 * under the lock without the search first, once a freed range, at
	 * least one a block. A search that finds nothing takes it never.
	 */
	EXPECT_LT(acq, (long)blocks / 2);

	for (b = 0; b < blocks; b++)
		EXPECT_EQ(-1, zsw_check_range(buf, b * LF_BLOCK, 1,
					     ZSW_PAT_ONES, 0));
	munmap(buf, blocks * LF_BLOCK * ps);
}

/*
 * Blocks of 63 zero-filled pages and a page of 0x01 last, each block freed
 * with one MADV_DONTNEED: every freed range's only entry is its last
 * slot, which a search of the range must not miss.
 */
TEST(entry_at_range_end)
{
	size_t blocks = zsw_env_ulong("ZSWAP_LOCKFREE_BLOCKS", 64);
	size_t ps = zsw_page_size(), b;
	long stored0, left;
	char *buf;

	if (!zsw_require(_metadata, LF_NEEDS))
		return;
	LF_SKIP_SAME_FILLED();
	if (!zsw_require_free_swap(_metadata, blocks * LF_BLOCK))
		return;
	stored0 = zsw_stored_pages();
	buf = push_blocks(_metadata, blocks, LF_BLOCK - 1);

	for (b = 0; b < blocks; b++)
		ASSERT_EQ(0, madvise(buf + b * LF_BLOCK * ps, LF_BLOCK * ps,
				     MADV_DONTNEED));
	left = zsw_stored_pages() - stored0;
	/* None is left: a search that misses the last slot leaves them all */
	EXPECT_LT(left, (long)blocks / 4)
		TH_LOG("%ld entries still in zswap after their ranges were freed",
		       left);
	munmap(buf, blocks * LF_BLOCK * ps);
}

TEST_HARNESS_MAIN
