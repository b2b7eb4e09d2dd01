// SPDX-License-Identifier: GPL-2.0
/*
 * Writeback from a pool over its limit: zswap's accept threshold raised
 * to 100%, its limit set to 2% of memory while distinct compressible
 * pages are paged out until the pool is full, then lowered to 1%, so that
 * the pool holds twice its limit and every store that comes next finds
 * it full and has it send its oldest entries to the swap device (on 6.1
 * the zpool's reclaim, zbud's or z3fold's, one zpool page a store that
 * finds the pool full; later the shrink worker). Pages go on being
 * paged out, a batch at a time, until zswap has written back twice
 * ZSWAP_WB_MIN entries or the region ends. Every page must come back
 * intact, those read from the device included; zswap must have written
 * back at least ZSWAP_WB_MIN entries, and those must have left it (its
 * stored_pages from the pool's full at 2%, plus the stores since, less
 * the entries written back: a writeback that leaves its entry behind
 * writes the page out and keeps it too); and once the region is
 * unmapped no entry or slot may be left.
 *
 * A pool merely at its limit writes back little on 6.1: a store that
 * finds it full writes back one zpool page, which leaves the pool at its
 * limit, and zswap then refuses stores until frees bring it under its
 * accept threshold, without writing back again (a run of 12288 pages at
 * max_pool_percent 1 wrote back 6 entries). Lowering the limit under a
 * full pool is what makes it write back thousands.
 *
 * zsmalloc cannot write back before 6.5 (its reclaims fail, counted in
 * reject_reclaim_fail): a skip that says so. The z3fold case switches the
 * pool to z3fold and skips where it cannot; where z3fold writes nothing
 * back and every reclaim fails, it skips saying so: Debian's 6.1.192
 * does that under this load with or without the LTS series (measured
 * on the debug row with Debian's choices; why is not known). The pool
 * in use must write back.
 *
 * Environment: ZSWAP_WB_PAGES (region, default 24 times the 1% limit in
 * pages, at most half the free swap), ZSWAP_WB_MIN (entries that must be
 * written back, default 1000).
 */
#define _GNU_SOURCE
#include <sys/sysinfo.h>
#include "kselftest_harness.h"
#include "zswap_util.h"

#define WB_NEEDS (ZSW_NEED_ROOT | ZSW_NEED_SWAP | ZSW_NEED_STATS | \
		  ZSW_NEED_ZSWAP_ON | ZSW_NEED_PAGEOUT)
/* Pages paged out at a time: the shrink work runs between the batches. */
#define WB_BATCH 256

/* wb_fill's random part, a page (at most 64 KiB: the largest page size) */
static char wb_scratch[65536];

/* A parameter of zswap saved to be put back, "" when it has none */
struct wb_param {
	const char *name;
	char old[64];
};

FIXTURE(writeback) {
	char *buf;
	size_t npages;
	size_t len;
	struct wb_param params[3];	/* max_pool_percent, accept, zpool */
};

FIXTURE_VARIANT(writeback) {
	const char *zpool;	/* the pool to switch to, NULL for the one in use */
};

FIXTURE_VARIANT_ADD(writeback, pool_in_use) {
	.zpool = NULL,
};

FIXTURE_VARIANT_ADD(writeback, z3fold) {
	.zpool = "z3fold",
};

static long wb_stat(const char *name)
{
	return cg_read_long(ZSW_STATS, name);
}

/*
 * A page that compresses to about half: its first third pseudo-random,
 * the rest text, each from its index. Text alone packs so densely into
 * zsmalloc that a pool at 2% of memory holds more pages than the swap
 * device has room for; zbud takes one or two such pages a zpool page.
 */
static void wb_fill(char *page, unsigned long idx)
{
	unsigned long ps = zsw_page_size();

	zsw_fill_page(page, ZSW_PAT_TEXT, idx, 0);
	zsw_fill_page(wb_scratch, ZSW_PAT_RANDOM, idx, 0);
	memcpy(page, wb_scratch, ps / 3);
}

/* The index of the first of @n pages at @buf that is not wb_fill's, or -1 */
static long wb_check(const char *buf, size_t n)
{
	unsigned long ps = zsw_page_size();
	static char expect[65536];
	size_t i;

	for (i = 0; i < n; i++) {
		wb_fill(expect, i);
		if (memcmp(buf + i * ps, expect, ps))
			return i;
	}
	return -1;
}

/* The count of pages stored into zswap, -1 without it in /proc/vmstat */
static long wb_zswpout(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "zswpout %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Save @p's value; false when zswap has no such parameter. */
static bool wb_save(struct wb_param *p, const char *name)
{
	char *nl;

	p->name = name;
	if (cg_read(ZSW_PARAMS, name, p->old, sizeof(p->old))) {
		p->old[0] = '\0';
		return false;
	}
	nl = strchr(p->old, '\n');
	if (nl)
		*nl = '\0';
	return true;
}

static void wb_restore(struct wb_param *p)
{
	if (p->name && p->old[0] && cg_write(ZSW_PARAMS, p->name, p->old))
		zsw_log("could not put %s back to %s", p->name, p->old);
	p->old[0] = '\0';
}

FIXTURE_SETUP(writeback)
{
	struct sysinfo si;
	size_t limit = 0;

	memset(self->params, 0, sizeof(self->params));
	self->buf = NULL;
	if (!sysinfo(&si))
		limit = (size_t)si.totalram * si.mem_unit / 100 / zsw_page_size();
	self->npages = zsw_region_pages("ZSWAP_WB_PAGES", 24 * limit);
	if (zsw_swap_free_pages() > 0 &&
	    self->npages > (size_t)zsw_swap_free_pages() / 2)
		self->npages = zsw_swap_free_pages() / 2;
	self->len = self->npages * zsw_page_size();
}

FIXTURE_TEARDOWN(writeback)
{
	unsigned int i;

	if (self->buf)
		munmap(self->buf, self->len);
	for (i = 0; i < ARRAY_SIZE(self->params); i++)
		wb_restore(&self->params[i]);
}

TEST_F_TIMEOUT(writeback, full_pool, 300)
{
	long wb0, fail0, limit0, written, failed, hits;
	long stored_full = -1, out_full = -1, stored_end, out_end;
	unsigned long min = zsw_env_ulong("ZSWAP_WB_MIN", 1000);
	unsigned long ps = zsw_page_size();
	struct zsw_counters base;
	char pool[64] = "";
	size_t i, n, used, full_at = 0;

	if (!zsw_require(_metadata, WB_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, 2 * zsw_tolerance()))
		return;
	if (!wb_save(&self->params[0], "max_pool_percent") ||
	    !wb_save(&self->params[1], "accept_threshold_percent"))
		SKIP(return, "zswap has no max_pool_percent or accept_threshold_percent");
	if (variant->zpool) {
		if (!wb_save(&self->params[2], "zpool"))
			SKIP(return, "zswap has no zpool parameter");
		if (cg_write(ZSW_PARAMS, "zpool", (char *)variant->zpool)) {
			self->params[2].old[0] = '\0';
			SKIP(return, "zswap cannot use %s here", variant->zpool);
		}
	}
	if (!cg_read(ZSW_PARAMS, "zpool", pool, sizeof(pool)))
		pool[strcspn(pool, "\n")] = '\0';

	zsw_counters(&base);
	ASSERT_EQ(0, cg_write(ZSW_PARAMS, "accept_threshold_percent", "100"));
	ASSERT_EQ(0, cg_write(ZSW_PARAMS, "max_pool_percent", "2"));
	wb0 = wb_stat("written_back_pages");
	fail0 = wb_stat("reject_reclaim_fail");
	limit0 = wb_stat("pool_limit_hit");
	ASSERT_GE(wb0, 0);

	self->buf = zsw_map(self->len);
	ASSERT_NE(NULL, self->buf);
	for (i = 0; i < self->npages; i += n) {
		n = self->npages - i < WB_BATCH ? self->npages - i : WB_BATCH;
		for (size_t j = i; j < i + n; j++)
			wb_fill(self->buf + j * ps, j);
		ASSERT_EQ(0, madvise(self->buf + i * ps, n * ps, MADV_PAGEOUT))
			TH_LOG("MADV_PAGEOUT: %s", strerror(errno));
		usleep(1000);
		if (!full_at) {
			/* Full at 2%: now twice the limit. */
			if (wb_stat("pool_limit_hit") > limit0) {
				full_at = i + n;
				stored_full = zsw_stored_pages();
				out_full = wb_zswpout();
				wb0 = wb_stat("written_back_pages");
				ASSERT_EQ(0, cg_write(ZSW_PARAMS, "max_pool_percent", "1"));
			}
			continue;
		}
		written = wb_stat("written_back_pages") - wb0;
		failed = fail0 >= 0 ? wb_stat("reject_reclaim_fail") - fail0 : -1;
		/* Enough; or a pool that fails every reclaim (the skip below). */
		if (written >= 2 * (long)min || (!written && failed >= 64)) {
			i += n;
			break;
		}
	}
	used = i;
	stored_end = zsw_stored_pages();
	out_end = wb_zswpout();
	written = wb_stat("written_back_pages") - wb0;
	failed = fail0 >= 0 ? wb_stat("reject_reclaim_fail") - fail0 : -1;
	hits = limit0 >= 0 ? wb_stat("pool_limit_hit") - limit0 : -1;
	TH_LOG("%s: %zu of %zu pages paged out (the pool full at 2%% after %zu), %ld swapped; pool limit hit %ld times, %ld entries written back, %ld reclaims failed",
	       pool[0] ? pool : "zswap", used, self->npages, full_at,
	       zsw_count_swapped(self->buf, used), hits, written, failed);
	/* Put the limits back before reading in: the pool may refill now. */
	wb_restore(&self->params[0]);
	wb_restore(&self->params[1]);

	ASSERT_EQ(-1, wb_check(self->buf, used))
		TH_LOG("pages came back corrupted after %ld were written back",
		       written);
	ASSERT_EQ(0, munmap(self->buf, self->len));
	self->buf = NULL;
	zsw_assert_baseline(_metadata, &base, "after munmap");

	ASSERT_NE(0, full_at)
		TH_LOG("the pool never filled at 2%% of memory in %zu pages",
		       used);
	if (out_full >= 0 && out_end >= 0) {
		TH_LOG("stored_pages %ld when full, %ld at the end; %ld stores since, %ld written back",
		       stored_full, stored_end, out_end - out_full, written);
		ASSERT_LE(stored_end, stored_full + (out_end - out_full) -
			  written + zsw_tolerance())
			TH_LOG("entries written back stayed in zswap");
	} else {
		TH_LOG("no zswpout in /proc/vmstat: whether written-back entries left zswap is not checked");
	}
	if (!written && failed > 0 && !strcmp(pool, "zsmalloc"))
		SKIP(return, "zsmalloc cannot write back here (%ld reclaims failed)",
		     failed);
	if (!written && failed > 0 && variant->zpool)
		SKIP(return, "%s wrote nothing back: its %ld reclaims all failed",
		     variant->zpool, failed);
	ASSERT_GE(written, (long)min)
		TH_LOG("%ld entries written back, fewer than %lu", written, min);
}

TEST_HARNESS_MAIN
