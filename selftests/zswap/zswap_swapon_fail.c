// SPDX-License-Identifier: GPL-2.0
/*
 * swapon(2) must fail cleanly when zswap cannot allocate its trees for the
 * device: an error to the caller, the device not enabled, and a later swapon
 * that works.
 *
 * With fail-nth (fault injection), make the n-th slab or page allocation of
 * a swapon call fail, for n = 1, 2, ... until swapon gets through without
 * an injected failure. Every try must leave the device fully on (then it is
 * turned off again) or fully off. The tries whose failure was in zswap
 * (the fault-injection stack trace in the kernel log names zswap_swapon(),
 * or zswap_frontswap_init() on v6.1) must fail with ENOMEM.
 *
 * How many allocations precede zswap's changes from try to try: vmalloc()
 * takes its pages in bulk from the per-CPU lists and falls back to one
 * allocation a page when they run short, so the maps that swapon
 * vmallocs before calling zswap cost a varying number of calls. A walk can
 * step over zswap's allocation (seen under KASAN: three walks in a row).
 * The swap header therefore declares a small device (SF_SWAP_MIB, still
 * several zswap trees), which keeps those maps to a few pages; and when the
 * walk has not hit zswap, the last SF_AIM_SPAN positions before its end,
 * where zswap's allocation lies, are tried again, up to SF_AIM_ROUNDS times.
 *
 * The console log level is lowered during the walk, as fault injection
 * prints a stack trace per injected failure; the kernel log is scanned here
 * instead, and a warning, BUG or lockdep report fails the test.
 *
 * Runs in the boot without swap: it needs /dev/ram0 (ZSWAP_SF_DEV) unused.
 * Kernel: CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC,
 * FAULT_INJECTION_DEBUG_FS, KALLSYMS (configs/faultinject.config).
 */
#define _GNU_SOURCE
#include "kselftest_harness.h"
#include "zswap_util.h"

#define SF_FAIL_NTH_DIR	"/proc/thread-self"
#define SF_FAIL_NTH	SF_FAIL_NTH_DIR "/fail-nth"
#define SF_PRINTK_DIR	"/proc/sys/kernel"
#define SF_PRINTK	SF_PRINTK_DIR "/printk"
#define SF_MAX_TRIES	3000
#define SF_SWAP_MIB	160	/* three trees of 64 MiB, the last partial */
#define SF_AIM_SPAN	16
#define SF_AIM_ROUNDS	40

static const char * const sf_zswap_funcs[] = {
	"zswap_swapon+", "zswap_frontswap_init+",
};

static const char * const sf_splats[] = {
	"WARNING: ", "BUG: ", "kernel BUG at ", "Oops", "KASAN", "UBSAN",
	"general protection fault", "possible circular locking",
	"possible recursive locking", "inconsistent lock state",
	"list_add corruption", "list_del corruption",
};

struct sf_log {
	int fd;
	bool zswap;	/* a record named zswap's swapon allocation */
	int splats;
};

/* Read the kernel log records written since the last call. */
static void sf_drain(struct sf_log *log)
{
	char rec[8192];
	ssize_t n;
	size_t i;

	log->zswap = false;
	for (;;) {
		n = read(log->fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records were overwritten: go on */
		if (n <= 0)
			break;
		rec[n] = 0;
		for (i = 0; i < ARRAY_SIZE(sf_zswap_funcs); i++)
			if (strstr(rec, sf_zswap_funcs[i]))
				log->zswap = true;
		for (i = 0; i < ARRAY_SIZE(sf_splats); i++) {
			if (!strstr(rec, sf_splats[i]))
				continue;
			if (log->splats++ < 8)
				zsw_log("kernel: %s", strchr(rec, ';') ?
					strchr(rec, ';') + 1 : rec);
			break;
		}
	}
}

static int sf_set_fail_nth(int n)
{
	return cg_write_numeric(SF_FAIL_NTH_DIR, "fail-nth", n);
}

/* What is left of fail-nth: 0 once the n-th call failed, else > 0 */
static long sf_fail_nth_left(void)
{
	return cg_read_long(SF_FAIL_NTH_DIR, "fail-nth");
}

FIXTURE(swapon_fail) {
	const char *dev;
	char printk[64];
	struct sf_log log;
	int tries, failed, zswap_hits, bad;
};

FIXTURE_SETUP(swapon_fail)
{
	/* Not const: cg_write() takes a char * */
	static char * const knobs[][2] = {
		{ "failslab/ignore-gfp-wait", "N" },
		{ "fail_page_alloc/ignore-gfp-wait", "N" },
		{ "fail_page_alloc/ignore-gfp-highmem", "N" },
		{ "fail_page_alloc/min-order", "0" },
		{ "failslab/verbose", "2" },
		{ "fail_page_alloc/verbose", "2" },
		{ "failslab/verbose_ratelimit_burst", "100000" },
		{ "fail_page_alloc/verbose_ratelimit_burst", "100000" },
	};
	size_t i;
	FILE *f;
	int ret;

	memset(&self->log, 0, sizeof(self->log));
	self->log.fd = -1;
	self->printk[0] = 0;
	self->dev = getenv("ZSWAP_SF_DEV") ?: "/dev/ram0";

	if (geteuid())
		SKIP(return, "needs root");
	if (access(self->dev, R_OK | W_OK))
		SKIP(return, "no %s to swap on", self->dev);
	if (zsw_in_swaps(self->dev) != 0)
		SKIP(return, "%s is in use as swap: this test belongs to the boot without swap",
		     self->dev);
	if (access(SF_FAIL_NTH, W_OK))
		SKIP(return, "no %s: kernel without CONFIG_FAULT_INJECTION",
		     SF_FAIL_NTH);
	if (access("/proc/kallsyms", R_OK))
		SKIP(return, "no /proc/kallsyms: without CONFIG_KALLSYMS the stack traces cannot name zswap");
	if (!zsw_debugfs_ready() || access(ZSW_DEBUGFS "/failslab", R_OK))
		SKIP(return, "no failslab in debugfs: kernel without CONFIG_FAILSLAB or FAULT_INJECTION_DEBUG_FS");
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		ret = cg_write(ZSW_DEBUGFS, knobs[i][0], knobs[i][1]);
		ASSERT_EQ(0, ret)
			TH_LOG("cannot set " ZSW_DEBUGFS "/%s: %s", knobs[i][0],
			       strerror(-ret));
	}
	ASSERT_EQ(0, zsw_mkswap(self->dev,
				(SF_SWAP_MIB << 20) / zsw_page_size()))
		TH_LOG("cannot write a swap header to %s", self->dev);

	self->log.fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, self->log.fd);
	lseek(self->log.fd, 0, SEEK_END);

	/* Keep the per-failure stack traces off the (slow) serial console. */
	f = fopen(SF_PRINTK, "r");
	ASSERT_NE(NULL, f);
	if (!fgets(self->printk, sizeof(self->printk), f))
		self->printk[0] = 0;
	fclose(f);
	ASSERT_EQ(0, cg_write(SF_PRINTK_DIR, "printk", "1"));
}

FIXTURE_TEARDOWN(swapon_fail)
{
	sf_set_fail_nth(0);
	if (self->printk[0])
		cg_write(SF_PRINTK_DIR, "printk", self->printk);
	if (self->log.fd >= 0)
		close(self->log.fd);
	if (self->dev && zsw_in_swaps(self->dev) == 1)
		swapoff(self->dev);
}

enum sf_result { SF_STOP, SF_FAILED, SF_DONE };

/*
 * One swapon with its n-th allocation failing: SF_FAILED when it used up
 * the fault, SF_DONE when it succeeded with allocations to spare (n is past
 * its last one), SF_STOP when the test cannot go on.
 */
static enum sf_result sf_try(FIXTURE_DATA(swapon_fail) *self, int n)
{
	int ret, err;
	long left;

	self->tries++;
	if (sf_set_fail_nth(n))
		return SF_STOP;
	ret = swapon(self->dev, 0);
	err = errno;
	left = sf_fail_nth_left();
	sf_set_fail_nth(0);
	sf_drain(&self->log);

	if (self->log.zswap) {
		self->zswap_hits++;
		zsw_log("n=%d: zswap's allocation failed: swapon %s",
			n, ret ? strerror(err) : "succeeded");
		if (!ret || err != ENOMEM) {
			zsw_log("n=%d: swapon must fail with ENOMEM when zswap cannot allocate",
				n);
			self->bad++;
		}
	}
	if (ret) {
		self->failed++;
		if (zsw_in_swaps(self->dev) != 0) {
			zsw_log("n=%d: swapon failed (%s) but %s is in /proc/swaps",
				n, strerror(err), self->dev);
			self->bad++;
			swapoff(self->dev);
		}
		return SF_FAILED;
	}
	if (zsw_in_swaps(self->dev) != 1) {
		zsw_log("n=%d: swapon succeeded but %s is not in /proc/swaps",
			n, self->dev);
		self->bad++;
	}
	if (swapoff(self->dev)) {
		zsw_log("n=%d: swapoff: %s", n, strerror(errno));
		self->bad++;
		return SF_STOP;
	}
	sf_drain(&self->log);
	return left > 0 ? SF_DONE : SF_FAILED;
}

TEST_F_TIMEOUT(swapon_fail, walk, 900)
{
	enum sf_result r = SF_FAILED;
	int n, end = 0, round;

	/* Every allocation of swapon in turn. */
	for (n = 1; n <= SF_MAX_TRIES && r == SF_FAILED; n++) {
		r = sf_try(self, n);
		if (r == SF_DONE)
			end = n;
	}
	ASSERT_NE(0, end)
		TH_LOG("the walk did not reach the end of swapon (%d tries)", n - 1);
	zsw_log("walk ended at n=%d: swapon has %d allocations that can fail",
		end, end - 1);

	/* zswap's allocation, if the walk stepped over it: near the end. */
	for (round = 0; round < SF_AIM_ROUNDS && !self->zswap_hits; round++)
		for (n = end - 1; n > 0 && n >= end - SF_AIM_SPAN &&
		     !self->zswap_hits; n--)
			ASSERT_NE(SF_STOP, sf_try(self, n));
	TH_LOG("%d swapon calls, %d failed, %d in zswap's allocation (%d aimed rounds), %d bad",
	       self->tries, self->failed, self->zswap_hits, round, self->bad);

	/* The device still works afterwards. */
	ASSERT_EQ(0, swapon(self->dev, 0))
		TH_LOG("final swapon: %s", strerror(errno));
	ASSERT_EQ(1, zsw_in_swaps(self->dev));
	ASSERT_EQ(0, swapoff(self->dev));
	sf_drain(&self->log);

	EXPECT_EQ(0, self->log.splats)
		TH_LOG("the kernel log has warnings or errors (see above)");
	EXPECT_EQ(0, self->bad);
	EXPECT_LT(0, self->zswap_hits)
		TH_LOG("no try made zswap's allocation at swapon fail");
}

TEST_HARNESS_MAIN
