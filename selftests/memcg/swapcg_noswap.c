// SPDX-License-Identifier: GPL-2.0
/*
 * Memory cgroups on a kernel booted without any swap device, where
 * swap_cgroup has no map for any swap type:
 *  - the swap files of a new memcg read as unused and can be written;
 *  - MADV_PAGEOUT of anonymous pages, which has nowhere to put them, keeps
 *    them in memory, intact and uncharged for swap;
 *  - anonymous memory beyond memory.max cannot be reclaimed at all: the
 *    process must be OOM-killed inside the memcg (memory.events oom_kill),
 *    cleanly, and nothing may be swapped.
 *
 * Needs a boot without swap (guest: zs.swap=none); skipped while a swap
 * device is active. Environment: SWAPCG_NOSWAP_MB (working set of the OOM
 * case, default 128; memory.max is a quarter of it).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "zswap_util.h"

#define NOSWAP_NEEDS	(ZSW_NEED_ROOT | ZSW_NEED_MEMCG)
#define NOSWAP_PAGES	256	/* for MADV_PAGEOUT */

FIXTURE(noswap) {
	struct zsw_memcg cg;
	long pswpout;		/* /proc/vmstat at the start */
};

FIXTURE_SETUP(noswap)
{
	memset(&self->cg, 0, sizeof(self->cg));
	self->pswpout = cg_read_key_long("/proc", "vmstat", "pswpout ");
}

/* cg_destroy() kills a child that a failed test left in the memcg. */
FIXTURE_TEARDOWN(noswap)
{
	zsw_memcg_destroy(&self->cg);
}

/* Skip unless the memory controller is there and no swap device is. */
static bool noswap_require(struct __test_metadata *_metadata)
{
	int n;

	if (!zsw_require(_metadata, NOSWAP_NEEDS))
		return false;
	n = zsw_swaps(NULL, 0);
	if (n < 0)
		SKIP(return false, "no /proc/swaps: kernel without CONFIG_SWAP");
	if (n > 0)
		SKIP(return false,
		     "needs a boot without swap (zs.swap=none); %d swap device(s) active",
		     n);
	return true;
}

/* A memcg with @max_bytes of memory; skip if it has no swap files */
static bool noswap_memcg(struct __test_metadata *_metadata,
			 FIXTURE_DATA(noswap) *self, unsigned long max_bytes)
{
	char buf[32];
	int ret;

	ret = zsw_memcg_create(&self->cg, "swapcg_noswap", max_bytes);
	if (ret) {
		TH_LOG("creating the memcg: %s", strerror(-ret));
		return false;
	}
	if (cg_read(self->cg.path, "memory.swap.current", buf, sizeof(buf)))
		SKIP(return false, "no memory.swap.current: swap accounting is not built in");
	return true;
}

/* Nothing went to swap since the test started, and there is none. */
static void noswap_nothing_swapped(struct __test_metadata *_metadata,
				   FIXTURE_DATA(noswap) *self)
{
	EXPECT_EQ(0, zsw_swaps(NULL, 0));
	EXPECT_EQ(0, cg_read_long(self->cg.path, "memory.swap.current"));
	if (self->pswpout >= 0)
		EXPECT_EQ(self->pswpout,
			  cg_read_key_long("/proc", "vmstat", "pswpout "));
}

/*
 * @key of the memcg's @file must be 0 (or absent, if @optional). Keys end
 * in a blank: cg_read_key_long() looks for the first match anywhere.
 */
static void noswap_expect_zero(struct __test_metadata *_metadata,
			       FIXTURE_DATA(noswap) *self, const char *file,
			       const char *key, bool optional)
{
	long v = cg_read_key_long(self->cg.path, file, key);

	if (v < 0 && optional)
		return;
	EXPECT_EQ(0, v)
		TH_LOG("%s %s", file, key);
}

TEST_F(noswap, files)
{
	static const char * const stat_keys[] = {
		"swapcached ", "zswap ", "zswapped ",
	};
	static const char * const event_keys[] = { "high ", "max ", "fail " };
	unsigned int i;
	char buf[64];
	int ret;

	if (!noswap_require(_metadata) || !noswap_memcg(_metadata, self, 1UL << 30))
		return;
	ASSERT_NE(NULL, self->cg.path);

	EXPECT_EQ(0, cg_read_long(self->cg.path, "memory.swap.current"));
	EXPECT_EQ(0, cg_read_strcmp(self->cg.path, "memory.swap.max", "max\n"));
	/* Limits can be set and read back, even with nothing to limit. */
	ret = cg_write(self->cg.path, "memory.swap.max", "0");
	ASSERT_EQ(0, ret)
		TH_LOG("writing 0 to memory.swap.max: %s", strerror(-ret));
	EXPECT_EQ(0, cg_read_strcmp(self->cg.path, "memory.swap.max", "0\n"));
	ret = cg_write(self->cg.path, "memory.swap.max", "max");
	ASSERT_EQ(0, ret)
		TH_LOG("writing max to memory.swap.max: %s", strerror(-ret));
	EXPECT_EQ(0, cg_read_strcmp(self->cg.path, "memory.swap.max", "max\n"));
	if (!cg_read(self->cg.path, "memory.swap.peak", buf, sizeof(buf)))
		EXPECT_EQ(0, cg_read_long(self->cg.path, "memory.swap.peak"));
	for (i = 0; i < ARRAY_SIZE(event_keys); i++)
		noswap_expect_zero(_metadata, self, "memory.swap.events",
				   event_keys[i], false);

	/* memory.stat reads, and its swap lines say nothing is out. */
	ASSERT_LE(0, cg_read_key_long(self->cg.path, "memory.stat", "anon "))
		TH_LOG("cannot read %s/memory.stat", self->cg.path);
	for (i = 0; i < ARRAY_SIZE(stat_keys); i++)
		noswap_expect_zero(_metadata, self, "memory.stat", stat_keys[i],
				   true);
	EXPECT_EQ(0, cg_read_key_long("/proc", "meminfo", "SwapTotal:"));
	noswap_nothing_swapped(_metadata, self);
}

/* A child in the memcg (cg_run()) pages out its pages: they must stay. */
static int noswap_pageout_child(const char *cgroup, void *arg)
{
	unsigned long ps = zsw_page_size();
	char *buf;
	long n;

	(void)cgroup;
	(void)arg;
	buf = zsw_map(NOSWAP_PAGES * ps);
	if (!buf)
		return 11;
	zsw_fill_range(buf, 0, NOSWAP_PAGES, ZSW_PAT_TEXT, 7);
	if (madvise(buf, NOSWAP_PAGES * ps, MADV_PAGEOUT)) {
		zsw_log("MADV_PAGEOUT: %s", strerror(errno));
		return 12;
	}
	n = zsw_count_swapped(buf, NOSWAP_PAGES);
	if (n) {
		zsw_log("%ld pages swapped out with no swap device", n);
		return 13;
	}
	if (zsw_check_range(buf, 0, NOSWAP_PAGES, ZSW_PAT_TEXT, 7) >= 0)
		return 14;
	return 0;
}

TEST_F(noswap, pageout)
{
	int ret;

	if (!noswap_require(_metadata) || !noswap_memcg(_metadata, self, 1UL << 30))
		return;
	ASSERT_NE(NULL, self->cg.path);
	ret = cg_run(self->cg.path, noswap_pageout_child, NULL);
	ASSERT_EQ(0, ret)
		TH_LOG("child: %d (-1 killed, 1 enter, 11 mmap, 12 madvise, 13 swapped, 14 data)",
		       ret);
	/* Reclaim tried and failed to get a swap slot: say how often. */
	TH_LOG("memory.swap.events fail %ld",
	       cg_read_key_long(self->cg.path, "memory.swap.events", "fail "));
	noswap_nothing_swapped(_metadata, self);
}

/*
 * Touch *@arg bytes of anonymous memory in the memcg (cg_run_nowait());
 * only the OOM killer stops this.
 */
static int noswap_hog(const char *cgroup, void *arg)
{
	unsigned long ps = zsw_page_size();
	size_t i, bytes = *(size_t *)arg;
	char *buf;

	(void)cgroup;
	buf = zsw_map(bytes);
	if (!buf)
		return 11;
	for (i = 0; i < bytes / ps; i++)
		zsw_fill_page(buf + i * ps, ZSW_PAT_SPARSE, i, 1);
	return 0;
}

TEST_F_TIMEOUT(noswap, oom, 300)
{
	size_t bytes = zsw_env_ulong("SWAPCG_NOSWAP_MB", 128) << 20;
	long ooms, kills, cur;
	int status;
	pid_t pid;

	if (!noswap_require(_metadata) ||
	    !noswap_memcg(_metadata, self, bytes / 4))
		return;
	ASSERT_NE(NULL, self->cg.path);
	ASSERT_EQ(0, cg_read_key_long(self->cg.path, "memory.events",
				      "oom_kill "));

	/* Not cg_run(): how the child ended is part of the test. */
	pid = cg_run_nowait(self->cg.path, noswap_hog, &bytes);
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));

	ooms = cg_read_key_long(self->cg.path, "memory.events", "oom ");
	kills = cg_read_key_long(self->cg.path, "memory.events", "oom_kill ");
	cur = cg_read_long(self->cg.path, "memory.current");
	TH_LOG("child status 0x%x; memory.events oom %ld, oom_kill %ld; memory.current %ld after",
	       status, ooms, kills, cur);
	ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		TH_LOG("%zu MiB in a memcg of %zu MiB, no swap: not OOM-killed",
		       bytes >> 20, bytes >> 22);
	ASSERT_GE(kills, 1);
	ASSERT_GE(ooms, 1);
	/* The killed child's memory is gone with it. */
	ASSERT_LT(cur, (long)(bytes / 4))
		TH_LOG("memory.current %ld after the child died", cur);
	noswap_nothing_swapped(_metadata, self);
}

TEST_HARNESS_MAIN
