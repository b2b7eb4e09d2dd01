// SPDX-License-Identifier: GPL-2.0
/*
 * zswap keeps one tree per 16384 swap slots (64 MiB of 4 KiB pages). Swap
 * out more than two trees' worth of pages and check that lookups and frees
 * work across trees, including concurrent frees within one tree of its
 * first slot and of the rest of the tree: a lockless lookup that keeps a
 * stale walk state across an erase elsewhere in the tree gets this wrong.
 *
 * Needs a swap device larger than 128 MiB (the guest has a 1 GiB brd).
 * Environment: ZSWAP_MT_MB (region size in MiB, default 160).
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "kselftest_harness.h"
#include "zswap_util.h"

#define MT_NEEDS (ZSW_NEED_ROOT | ZSW_NEED_SWAP | ZSW_NEED_STATS | \
		  ZSW_NEED_ZSWAP_ON | ZSW_NEED_PAGEOUT)
/* At most this many trees get the concurrent first-slot treatment. */
#define MT_MAX_FIRST	16

FIXTURE(mt) {
	char *buf;
	size_t npages;
	size_t len;
	uint64_t *ents;		/* pagemap entries right after swap-out */
	struct zsw_counters base;
};

/* Trees are per swap type: key them by type and tree number. */
static uint64_t tree_key(uint64_t ent)
{
	return (uint64_t)PM_SWAP_TYPE(ent) << 48 |
	       PM_SWAP_OFFSET(ent) / ZSW_TREE_SLOTS;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

FIXTURE_SETUP(mt)
{
	size_t mib = zsw_env_ulong("ZSWAP_MT_MB", 160);

	self->npages = (mib << 20) / zsw_page_size();
	self->len = self->npages * zsw_page_size();
	self->buf = NULL;
	self->ents = NULL;
}

FIXTURE_TEARDOWN(mt)
{
	if (self->buf)
		munmap(self->buf, self->len);
	free(self->ents);
}

/* Fill with 0x01, swap out, and record where every page went. */
static void spread_out(struct __test_metadata *_metadata,
		       FIXTURE_DATA(mt) *self)
{
	struct zsw_swapdev devs[ZSW_MAX_SWAPS];
	unsigned long lo = ~0UL, hi = 0, off;
	uint64_t *keys;
	size_t i, n = 0, trees = 0;
	int ndevs;

	/*
	 * Start from a freshly enabled device: its allocator hands out the
	 * lowest clusters first, so swapping out more than 64 MiB reaches the
	 * first slot of the second and later trees.
	 */
	ASSERT_LE(0, zsw_swapoff_all(devs, &ndevs));
	ASSERT_EQ(0, zsw_swapon_all(devs, ndevs));

	zsw_counters(&self->base);
	self->buf = zsw_map(self->len);
	ASSERT_NE(NULL, self->buf);
	zsw_fill_range(self->buf, 0, self->npages, ZSW_PAT_ONES, 0);
	zsw_pageout(_metadata, self->buf, self->npages, true);

	self->ents = malloc(self->npages * sizeof(*self->ents));
	keys = malloc(self->npages * sizeof(*keys));
	ASSERT_NE(NULL, self->ents);
	ASSERT_NE(NULL, keys);
	ASSERT_EQ(0, zsw_pagemap_entries(self->buf, self->npages, self->ents));
	for (i = 0; i < self->npages; i++) {
		if (!(self->ents[i] & PM_SWAP))
			continue;
		off = PM_SWAP_OFFSET(self->ents[i]);
		lo = off < lo ? off : lo;
		hi = off > hi ? off : hi;
		keys[n++] = tree_key(self->ents[i]);
	}
	qsort(keys, n, sizeof(*keys), cmp_u64);
	for (i = 0; i < n; i++)
		trees += !i || keys[i] != keys[i - 1];
	free(keys);

	TH_LOG("%zu pages swapped to offsets %lu..%lu in %zu zswap trees",
	       n, lo, hi, trees);
	ASSERT_GE(trees, 2)
		TH_LOG("pages did not spread over more than one tree");
}

struct mt_worker {
	pthread_barrier_t *start;
	char *buf;
	size_t *pages;
	size_t n;
	int advice;		/* MADV_DONTNEED, or -1 to check 0x01 data */
	long bad;
	int err;
};

static void *mt_work(void *arg)
{
	unsigned long ps = zsw_page_size();
	struct mt_worker *w = arg;
	size_t i;

	w->bad = -1;
	pthread_barrier_wait(w->start);
	for (i = 0; i < w->n; i++) {
		char *page = w->buf + w->pages[i] * ps;

		if (w->advice < 0) {
			if (zsw_page_diff(page, ZSW_PAT_ONES, w->pages[i], 0) >= 0 &&
			    w->bad < 0)
				w->bad = w->pages[i];
		} else if (madvise(page, ps, w->advice) && !w->err) {
			w->err = errno;
		}
	}
	return NULL;
}

/* Run two workers over page lists @a and @b, started together. */
static void run_pair(struct __test_metadata *_metadata, char *buf, int advice,
		     size_t *a, size_t na, size_t *b, size_t nb)
{
	struct mt_worker w[2] = {
		{ .buf = buf, .pages = a, .n = na, .advice = advice },
		{ .buf = buf, .pages = b, .n = nb, .advice = advice },
	};
	pthread_barrier_t start;
	pthread_t t;

	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, 2));
	w[0].start = &start;
	w[1].start = &start;
	ASSERT_EQ(0, pthread_create(&t, NULL, mt_work, &w[1]));
	mt_work(&w[0]);
	ASSERT_EQ(0, pthread_join(t, NULL));
	pthread_barrier_destroy(&start);

	ASSERT_EQ(0, w[0].err);
	ASSERT_EQ(0, w[1].err);
	ASSERT_EQ(-1, w[0].bad)
		TH_LOG("page %ld came back corrupted", w[0].bad);
	ASSERT_EQ(-1, w[1].bad)
		TH_LOG("page %ld came back corrupted", w[1].bad);
}

/* Swap everything back in from two threads, one per half of the trees. */
TEST_F_TIMEOUT(mt, spread, 240)
{
	size_t *even, *odd, ne = 0, no = 0, i;

	if (!zsw_require(_metadata, MT_NEEDS))
		return;
	if (self->npages <= ZSW_TREE_SLOTS)
		SKIP(return, "ZSWAP_MT_MB must exceed one tree (64 MiB)");
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	spread_out(_metadata, self);

	even = malloc(self->npages * sizeof(*even));
	odd = malloc(self->npages * sizeof(*odd));
	ASSERT_NE(NULL, even);
	ASSERT_NE(NULL, odd);
	for (i = 0; i < self->npages; i++) {
		if (tree_key(self->ents[i]) & 1)
			odd[no++] = i;
		else
			even[ne++] = i;
	}
	run_pair(_metadata, self->buf, -1, even, ne, odd, no);
	free(even);
	free(odd);
	ASSERT_EQ(0, zsw_count_swapped(self->buf, self->npages));

	ASSERT_EQ(0, munmap(self->buf, self->len));
	self->buf = NULL;
	zsw_assert_baseline(_metadata, &self->base, "munmap");
}

TEST_F_TIMEOUT(mt, tree_first_slot, 240)
{
	uint64_t keys[MT_MAX_FIRST];
	size_t *first, *rest, nf = 0, nr = 0, nk = 0, i, k;
	unsigned long ps = zsw_page_size();
	long stored0, stored1, nonzero = 0;
	bool in_tree;

	if (!zsw_require(_metadata, MT_NEEDS))
		return;
	if (self->npages <= ZSW_TREE_SLOTS)
		SKIP(return, "ZSWAP_MT_MB must exceed one tree (64 MiB)");
	if (!zsw_require_free_swap(_metadata, self->npages + zsw_tolerance()))
		return;

	spread_out(_metadata, self);

	/* Pages in the first slot of a tree; offset 0 is the swap header. */
	first = malloc(self->npages * sizeof(*first));
	rest = malloc(self->npages * sizeof(*rest));
	ASSERT_NE(NULL, first);
	ASSERT_NE(NULL, rest);
	for (i = 0; i < self->npages && nk < MT_MAX_FIRST; i++) {
		if (!(self->ents[i] & PM_SWAP) ||
		    PM_SWAP_OFFSET(self->ents[i]) % ZSW_TREE_SLOTS)
			continue;
		TH_LOG("page %zu is at swap type %u offset %lu: first slot of tree %lu",
		       i, PM_SWAP_TYPE(self->ents[i]),
		       PM_SWAP_OFFSET(self->ents[i]),
		       PM_SWAP_OFFSET(self->ents[i]) / ZSW_TREE_SLOTS);
		keys[nk++] = tree_key(self->ents[i]);
		first[nf++] = i;
	}
	if (!nf) {
		free(first);
		free(rest);
		SKIP(return, "no page landed on the first slot of a zswap tree");
	}
	/* The other pages of those trees, last first, from another thread */
	for (i = self->npages; i-- > 0;) {
		if (!(self->ents[i] & PM_SWAP) ||
		    !(PM_SWAP_OFFSET(self->ents[i]) % ZSW_TREE_SLOTS))
			continue;
		for (in_tree = false, k = 0; k < nk && !in_tree; k++)
			in_tree = keys[k] == tree_key(self->ents[i]);
		if (in_tree)
			rest[nr++] = i;
	}
	TH_LOG("freeing %zu first-slot pages against %zu others of %zu trees",
	       nf, nr, nk);

	stored0 = zsw_stored_pages();
	run_pair(_metadata, self->buf, MADV_DONTNEED, first, nf, rest, nr);
	stored1 = zsw_stored_pages();
	ASSERT_LE(stored1, stored0 - (long)(nf + nr) + zsw_tolerance())
		TH_LOG("freeing %zu pages dropped stored_pages by %ld only",
		       nf + nr, stored0 - stored1);

	/* Freed pages read as zero, all others still hold their data. */
	for (i = 0; i < nf; i++)
		nonzero += zsw_page_diff(self->buf + first[i] * ps,
					 ZSW_PAT_ZERO, first[i], 0) >= 0;
	for (i = 0; i < nr; i++)
		nonzero += zsw_page_diff(self->buf + rest[i] * ps,
					 ZSW_PAT_ZERO, rest[i], 0) >= 0;
	ASSERT_EQ(0, nonzero)
		TH_LOG("%ld freed pages do not read as zero", nonzero);
	for (i = 0; i < nf; i++)
		memset(self->buf + first[i] * ps, 0x01, ps);
	for (i = 0; i < nr; i++)
		memset(self->buf + rest[i] * ps, 0x01, ps);
	free(first);
	free(rest);
	ASSERT_EQ(-1, zsw_check_range(self->buf, 0, self->npages,
				      ZSW_PAT_ONES, 0));

	ASSERT_EQ(0, munmap(self->buf, self->len));
	self->buf = NULL;
	zsw_assert_baseline(_metadata, &self->base, "munmap");
}

TEST_HARNESS_MAIN
