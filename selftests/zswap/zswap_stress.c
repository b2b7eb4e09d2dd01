// SPDX-License-Identifier: GPL-2.0
/*
 * Stress zswap from several processes sharing swapped-out pages
 * copy-on-write: each child pages out, reads back and verifies, drops and
 * rewrites, or writes over random parts of the region for a bounded time. A page always
 * holds a pattern derived from its index and from whoever wrote it last, so
 * any mismatch is corruption. When all are gone zswap and swap usage must
 * be back at baseline.
 *
 * Environment: ZSWAP_STRESS_MB (region, default 64), ZSWAP_STRESS_SECONDS
 * (default 20, at most 240), ZSWAP_STRESS_CHILDREN (default 4).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "zswap_util.h"

#define STRESS_NEEDS (ZSW_NEED_ROOT | ZSW_NEED_SWAP | ZSW_NEED_STATS | \
		      ZSW_NEED_ZSWAP_ON | ZSW_NEED_PAGEOUT)
#define STRESS_MAX_SECONDS	240
#define STRESS_MAX_CHILDREN	32
#define STRESS_MAX_RUN		256	/* pages per random sub-range */
#define STRESS_CHECKS		32	/* random pages verified per round */

/* What a child did, shared with the parent */
struct stress_stats {
	long pageouts;
	long checks;
	long rewrites;
	long bad_page;		/* first corrupted page, or -1 */
	int err;
};

FIXTURE(stress) {
	char *buf;
	size_t npages;
	size_t len;
	unsigned int nchild;
	unsigned int seconds;
	pid_t pids[STRESS_MAX_CHILDREN];
	struct stress_stats *stats;
};

FIXTURE_SETUP(stress)
{
	size_t mib = zsw_env_ulong("ZSWAP_STRESS_MB", 64);

	self->npages = (mib << 20) / zsw_page_size();
	if (self->npages < ZSW_MIN_PAGES)
		self->npages = ZSW_MIN_PAGES;
	self->len = self->npages * zsw_page_size();
	self->seconds = zsw_env_ulong("ZSWAP_STRESS_SECONDS", 20);
	if (self->seconds > STRESS_MAX_SECONDS)
		self->seconds = STRESS_MAX_SECONDS;
	if (!self->seconds)
		self->seconds = 1;
	self->nchild = zsw_env_ulong("ZSWAP_STRESS_CHILDREN", 4);
	if (self->nchild > STRESS_MAX_CHILDREN)
		self->nchild = STRESS_MAX_CHILDREN;
	if (!self->nchild)
		self->nchild = 1;
	memset(self->pids, 0, sizeof(self->pids));
	self->buf = NULL;
	self->stats = NULL;
}

FIXTURE_TEARDOWN(stress)
{
	unsigned int i;

	for (i = 0; i < self->nchild; i++) {
		if (self->pids[i] <= 0)
			continue;
		kill(self->pids[i], SIGKILL);
		waitpid(self->pids[i], NULL, 0);
	}
	if (self->buf)
		munmap(self->buf, self->len);
	if (self->stats)
		munmap(self->stats, self->nchild * sizeof(*self->stats));
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A random run of pages, at most STRESS_MAX_RUN long */
static void rnd_range(uint64_t *s, size_t npages, size_t *first, size_t *n)
{
	*first = rnd(s) % npages;
	*n = 1 + rnd(s) % STRESS_MAX_RUN;
	if (*first + *n > npages)
		*n = npages - *first;
}

/* Page @i must hold the pattern of its last writer. */
static bool page_ok(char *buf, const unsigned char *owner, size_t i,
		    struct stress_stats *st)
{
	if (zsw_page_diff(buf + i * zsw_page_size(), ZSW_PAT_MIXED, i,
			  owner[i]) < 0)
		return true;
	/* Log the details from the shared helper, then stop. */
	zsw_check_range(buf, i, 1, ZSW_PAT_MIXED, owner[i]);
	st->bad_page = i;
	return false;
}

static int stress_child(FIXTURE_DATA(stress) *self, unsigned int id)
{
	struct stress_stats *st = &self->stats[id];
	unsigned long ps = zsw_page_size();
	double end = zsw_now() + self->seconds;
	uint64_t seed = (0x2545f4914f6cdd1dULL * (id + 1) ^ getpid()) | 1;
	unsigned char tag = id + 1;	/* tag 0 is the parent's */
	unsigned char *owner;
	size_t first, n, i;

	/* Pages start with the parent's data until this child rewrites. */
	owner = calloc(self->npages, 1);
	if (!owner) {
		st->err = ENOMEM;
		return 1;
	}
	while (zsw_now() < end) {
		switch (rnd(&seed) % 4) {
		case 0:
			rnd_range(&seed, self->npages, &first, &n);
			if (madvise(self->buf + first * ps, n * ps,
				    MADV_PAGEOUT)) {
				st->err = errno;
				return 1;
			}
			st->pageouts++;
			break;
		case 1:
			for (i = 0; i < STRESS_CHECKS; i++)
				if (!page_ok(self->buf, owner,
					     rnd(&seed) % self->npages, st))
					return 1;
			st->checks++;
			break;
		case 2:
			rnd_range(&seed, self->npages, &first, &n);
			if (madvise(self->buf + first * ps, n * ps,
				    MADV_DONTNEED)) {
				st->err = errno;
				return 1;
			}
			/* Dropped private pages must read as zero. */
			if (zsw_check_range(self->buf, first, n, ZSW_PAT_ZERO,
					    0) >= 0) {
				st->bad_page = first;
				return 1;
			}
			for (i = first; i < first + n; i++)
				owner[i] = tag;
			zsw_fill_range(self->buf, first, n, ZSW_PAT_MIXED, tag);
			st->rewrites++;
			break;
		case 3:
			/* Write over pages in place: swap-in, then COW. */
			rnd_range(&seed, self->npages, &first, &n);
			for (i = first; i < first + n; i++) {
				if (!page_ok(self->buf, owner, i, st))
					return 1;
				owner[i] = tag;
			}
			zsw_fill_range(self->buf, first, n, ZSW_PAT_MIXED, tag);
			st->rewrites++;
			break;
		}
	}
	for (i = 0; i < self->npages; i++)
		if (!page_ok(self->buf, owner, i, st))
			return 1;
	return 0;
}

TEST_F_TIMEOUT(stress, cow_children, STRESS_MAX_SECONDS + 120)
{
	struct zsw_counters base;
	struct stress_stats *st;
	unsigned int i;
	int status;

	if (!zsw_require(_metadata, STRESS_NEEDS))
		return;
	/* The region, and room for what the children rewrite and page out */
	if (!zsw_require_free_swap(_metadata, 2 * self->npages + zsw_tolerance()))
		return;

	self->stats = mmap(NULL, self->nchild * sizeof(*self->stats),
			   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			   -1, 0);
	ASSERT_NE(MAP_FAILED, self->stats);
	memset(self->stats, 0, self->nchild * sizeof(*self->stats));

	zsw_counters(&base);
	self->buf = zsw_map(self->len);
	ASSERT_NE(NULL, self->buf);
	zsw_fill_range(self->buf, 0, self->npages, ZSW_PAT_MIXED, 0);
	/* Out before fork: the children share the swapped-out entries. */
	zsw_pageout(_metadata, self->buf, self->npages, true);

	TH_LOG("%u children on %zu pages for %u s", self->nchild,
	       self->npages, self->seconds);
	for (i = 0; i < self->nchild; i++) {
		self->stats[i].bad_page = -1;
		self->pids[i] = fork();
		ASSERT_GE(self->pids[i], 0);
		if (!self->pids[i])
			_exit(stress_child(self, i));
	}
	for (i = 0; i < self->nchild; i++) {
		st = &self->stats[i];
		ASSERT_EQ(self->pids[i], waitpid(self->pids[i], &status, 0));
		self->pids[i] = 0;
		TH_LOG("child %u: %ld pageouts, %ld checks, %ld rewrites",
		       i, st->pageouts, st->checks, st->rewrites);
		ASSERT_EQ(-1, st->bad_page)
			TH_LOG("child %u found page %ld corrupted", i,
			       st->bad_page);
		ASSERT_EQ(0, st->err)
			TH_LOG("child %u: %s", i, strerror(st->err));
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("child %u exited with status 0x%x", i, status);
		ASSERT_GT(st->pageouts, 0);
		ASSERT_GT(st->checks, 0);
		ASSERT_GT(st->rewrites, 0);
	}

	/* The children's writes must not have leaked into the parent. */
	ASSERT_EQ(-1, zsw_check_range(self->buf, 0, self->npages,
				      ZSW_PAT_MIXED, 0));
	ASSERT_EQ(0, munmap(self->buf, self->len));
	self->buf = NULL;
	zsw_assert_baseline(_metadata, &base, "all exited");
}

TEST_HARNESS_MAIN
