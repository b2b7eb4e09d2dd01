// SPDX-License-Identifier: GPL-2.0
/*
 * swapbench: push anonymous memory out to swap and fault it back in, and
 * print how long each phase took, for the guest of benchmarks/run.sh.
 *
 *   swapbench -w NAME -d DRIVER -p PATTERN -m MIB [-k PROCS] [-l PCT]
 *
 * Drivers (how memory is pushed out):
 *   pageout  madvise(MADV_PAGEOUT) on the whole buffer; if the swap device
 *            is asynchronous, wait for writeback and reclaim what is left
 *            in the swap cache through memory.reclaim (part of "out")
 *   unmap    "out" as pageout, then munmap() the buffer (phase "free"):
 *            the slots are freed with their zswap entries still there
 *   scatter  "out" as pageout, then madvise(MADV_DONTNEED) of every other
 *            page, the odd ones, one call a page (phase "free"): each call
 *            frees one slot whose neighbours stay in use, with its zswap
 *            entry still there (with pattern mixed the odd pages are the
 *            0x01 ones, which zswap holds); the even pages are checked
 *            after, untimed
 *   exit     a child process does "out" as pageout and waits; the parent
 *            kills it (SIGKILL) and times from the signal to the return of
 *            waitpid() (phase "exit"): the exit frees the slots with their
 *            zswap entries still there
 *   reject   with zswap's pool full (guest/reject sets its limit):
 *            MADV_PAGEOUT of MIB of large folios of PCT KiB (64: an
 *            mTHP size, 2048: a PMD; guest/reject turns that size on),
 *            which zswap refuses, so zswap_store() invalidates every
 *            folio's slots with no entry there (phase "out"); what
 *            fills the pool first keeps the swap device's first tree
 *            from being empty
 *   memcg    fill the buffer inside a memory cgroup limited to PCT% of it
 *            (reclaim pushes out the rest), then lift the limit
 *   par      PROCS processes, each in its own memcg, run "memcg" on
 *            MIB/PROCS each, all at once (usemem-like)
 *   pfree    PROCS processes, each in its own memcg, all at once: the
 *            even ones push their part out, then free it with munmap()
 *            while its entries are in zswap; the odd ones push theirs out
 *            and fault it back in meanwhile (phases "out", "free")
 *   contend  two processes in one tree (guest/contend makes the swap
 *            area one tree's 64 MiB), one on each of CPUs 0 and 1: the
 *            busy one pushes MIB/4 of pattern one out and faults it back
 *            16 pages at a time without pause (zswap stores and loads:
 *            the tree lock taken and dropped all along); the freer, 8
 *            times, fills MIB/2 of zero pages, pushes it out (untimed:
 *            the swap core's zeromap takes them, zswap holds none), then
 *            munmap()s it 16 pages at a time (phase "free"): ranges of 16
 *            slots with no entry, in the tree the busy one keeps busy.
 *            Prints BENCH <name> free-slot <ns a slot freed> and
 *            BENCH <name> busy-page <ns a page pushed out and back by the
 *            busy one while the freer frees>
 *   neighbours  two processes, one on each of CPUs 0 and 1, each in a
 *            zswap tree of its own, the trees neighbours in zswap's array
 *            (guest/contend makes the swap area two trees' 128 MiB): the
 *            first pushes out 64 MiB of pattern one, which fills the first
 *            tree, then the second MIB/2, which goes to the second; both
 *            check where their slots went. Then, at once, each faults
 *            back the first half of its MIB/2 (phase "in": zswap loads,
 *            each in its tree) and, at once again, munmap()s the other
 *            half (phase "free": ranges of entries erased, each in its
 *            tree). Prints BENCH <name> in-page and free-slot, ns a page
 *            or slot, the mean of the two processes
 *   mix      PROCS processes, each in its own memcg with memory.high at
 *            PCT% of its MIB/PROCS (a hard limit OOM-kills such a
 *            thrashing set): a mix of zero, 0x1, half-random and random
 *            pages, then 4 random touches a page (half of them writes)
 * Patterns: zero, one (every byte 0x01), random, mixed (zero and 0x01
 * pages alternating). Swap-in always writes each page first, so that the
 * fault frees the swap slot (and zswap_invalidate() runs) in the phase.
 *
 * Output, one line each (times from CLOCK_MONOTONIC; under QEMU -icount
 * the guest clock counts instructions):
 *   BENCH <name> <phase> <usec>      phase: out, in (mix: fill, run;
 *                                    unmap, scatter: out, free; exit:
 *                                    out, exit); par and mix also
 *                                    <phase>-cpu, the CPU time of all
 *                                    workers in the phase
 *   STAT <name> <phase> <counter> <delta>   /proc/vmstat deltas (unmap,
 *                                    scatter, exit: also zswap_freed_kb,
 *                                    the drop of Zswapped in
 *                                    /proc/meminfo)
 *   LOCK <name> <phase> <class> <contentions> <acquisitions> <wait> <hold>
 *                                    where /proc/lock_stat exists
 *                                    (CONFIG_LOCK_STAT): the XArray lock
 *                                    classes taken in the phase
 *   CALLS <name> <phase> zswap_invalidate <calls> <slots> <largest>
 *                                    where guest/lib.sh set up its kprobe
 *                                    event (lockstat kernels): the calls
 *                                    in the phase, the slots they covered
 *                                    and the most slots of one call
 *   FOUND <name> <phase> <slots> <found> <calls>
 *                                    where the kernel counts them
 *                                    (variants/mainline-v3-count.patch):
 *                                    calls of zswap_invalidate() in the
 *                                    phase by slots (a range lo-hi) and
 *                                    entries found (none, some, all)
 *   BENCH-ERR <name> <what>          and exit 1: data did not come back
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL
#define CGROOT "/sys/fs/cgroup"

enum pattern { P_ZERO, P_ONE, P_RANDOM, P_MIXED, P_MIX4 };

static const char *name = "swapbench";
static const char *const counters[] = {
	"pswpin", "pswpout", "zswpin", "zswpout", "swpin_zero", "swpout_zero",
	"swap_ra", "swap_ra_hit", "pgmajfault", "thp_swpout",
	"thp_swpout_fallback",
};
#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))

static void fail(const char *what)
{
	printf("BENCH-ERR %s %s%s%s\n", name, what, errno ? ": " : "",
	       errno ? strerror(errno) : "");
	fflush(stdout);
	exit(1);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* CPU time of this process, user and system: precise in total (the
 * scheduler's runtime), even where the split between the two is sampled. */
static uint64_t cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000ULL +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* What page i of a buffer holds; the content of a random page depends
 * only on its index, so it can be checked after the round trip. */
static enum pattern page_kind(enum pattern p, size_t i)
{
	if (p == P_MIXED)
		return i & 1 ? P_ONE : P_ZERO;
	if (p != P_MIX4)
		return p;
	switch (i & 3) { /* zero, 0x1, half random, random */
	case 0: return P_ZERO;
	case 1: return P_ONE;
	case 2: return P_MIX4;
	default: return P_RANDOM;
	}
}

static void fill_page(uint64_t *w, enum pattern p, size_t i)
{
	uint64_t s = 0x9e3779b97f4a7c15ULL * (i + 1);
	size_t n = PAGE / 8, j;

	switch (page_kind(p, i)) {
	case P_ZERO:
		memset(w, 0, PAGE);
		break;
	case P_ONE:
		memset(w, 0x01, PAGE);
		break;
	case P_MIX4: /* compresses about 2:1 */
		memset(w + n / 2, 0, PAGE / 2);
		n /= 2;
		/* fall through */
	default:
		for (j = 0; j < n; j++)
			w[j] = xorshift(&s);
	}
}

static int page_ok(const uint64_t *w, enum pattern p, size_t i)
{
	static uint64_t want[PAGE / 8];

	fill_page(want, p, i);
	return !memcmp(w, want, PAGE);
}

/* vmstat counters: fill v[] with the current values. */
static void vmstat(uint64_t *v)
{
	char key[64];
	unsigned long long val;
	FILE *f = fopen("/proc/vmstat", "r");
	size_t i;

	memset(v, 0, NCOUNTERS * sizeof(*v));
	if (!f)
		return;
	while (fscanf(f, "%63s %llu", key, &val) == 2)
		for (i = 0; i < NCOUNTERS; i++)
			if (!strcmp(key, counters[i]))
				v[i] = val;
	fclose(f);
}

/* Lock statistics of the XArray lock classes ("&xa->xa_lock", "#N" for
 * each class of that name, one per file that initialises XArrays) and of
 * swap_cgroup's per-device lock ("&ctrl->lock", where the kernel has it),
 * per phase: cleared at its start, read at its end, both outside its time. */
static void lockstat_clear(void)
{
	int fd = open("/proc/lock_stat", O_WRONLY);

	if (fd >= 0 && write(fd, "0", 1) != 1)
		fail("clear /proc/lock_stat");
	if (fd >= 0)
		close(fd);
}

static void lockstat_print(const char *phase)
{
	char line[512], cls[64], wmax[32], hmax[32];
	unsigned long con, acq;
	FILE *f = fopen("/proc/lock_stat", "r");

	/* class: con-bounces contentions wait-min wait-max wait-total
	 * wait-avg acq-bounces acquisitions hold-min hold-max ... (times in
	 * us): the longest wait for the lock and the longest hold of it */
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " %63[^: ]: %*u %lu %*s %31s %*s %*s %*u %lu %*s %31s",
			   cls, &con, wmax, &acq, hmax) == 5 &&
		    (strstr(cls, "xa_lock") || !strncmp(cls, "&ctrl->lock", 11)))
			printf("LOCK %s %s %s %lu %lu %s %s\n", name, phase, cls,
			       con, acq, wmax, hmax);
	if (f)
		fclose(f);
}

/* Calls of zswap_invalidate() and the slots they cover: guest/lib.sh puts
 * a kprobe event on it whose field nr is the call's slot count (1 where it
 * takes one slot) and a hist trigger keyed by nr, this very INV_HIST, on
 * it. Cleared at the start of a phase, read at its end. */
#define INV_EVENT "/sys/kernel/tracing/events/swapbench/zsinv/"
#define INV_HIST "hist:keys=nr:vals=hitcount:sort=nr"

static void inv_clear(void)
{
	static const char cmd[] = INV_HIST ":clear";
	int fd = open(INV_EVENT "trigger", O_WRONLY | O_APPEND);

	if (fd >= 0 && write(fd, cmd, sizeof(cmd) - 1) != sizeof(cmd) - 1)
		fail("clear the zswap_invalidate histogram");
	if (fd >= 0)
		close(fd);
}

static void inv_print(const char *phase)
{
	unsigned long long calls = 0, slots = 0, nr, hits, most = 0, lost = 0;
	char line[256];
	FILE *f = fopen(INV_EVENT "hist", "r");

	if (!f)
		return;
	/* "{ nr:          1 } hitcount:      16384", then "Dropped: 0" */
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "{ nr: %llu } hitcount: %llu", &nr, &hits) == 2) {
			calls += hits;
			slots += nr * hits;
			most = nr > most ? nr : most;
		}
		sscanf(line, " Dropped: %llu", &lost);
	}
	fclose(f);
	errno = 0;
	if (lost)
		fail("the zswap_invalidate histogram dropped calls");
	printf("CALLS %s %s zswap_invalidate %llu %llu %llu\n", name, phase,
	       calls, slots, most);
}

/* Calls of zswap_invalidate() by slots and entries found, where a
 * counting kernel has this file: cleared at the start of a phase (any
 * write), printed at its end. */
#define FOUND_FILE "/sys/kernel/debug/zswap/invalidate_calls"

static void found_clear(void)
{
	int fd = open(FOUND_FILE, O_WRONLY);

	if (fd >= 0 && write(fd, "0", 1) != 1)
		fail("clear " FOUND_FILE);
	if (fd >= 0)
		close(fd);
	errno = 0;
}

static void found_print(const char *phase)
{
	char slots[64], found[16], line[256];
	unsigned long long calls;
	FILE *f = fopen(FOUND_FILE, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %15s %llu", slots, found, &calls) == 3)
			printf("FOUND %s %s %s %s %llu\n", name, phase, slots,
			       found, calls);
	fclose(f);
	errno = 0;
}

/* The start of a phase: clear the counts, then read vmstat. */
static void begin(uint64_t *v)
{
	inv_clear();
	found_clear();
	lockstat_clear();
	vmstat(v);
}

static void report(const char *phase, uint64_t us, const uint64_t *v0)
{
	uint64_t v1[NCOUNTERS];
	size_t i;

	vmstat(v1);
	lockstat_print(phase);
	inv_print(phase);
	found_print(phase);
	printf("BENCH %s %s %llu\n", name, phase, (unsigned long long)us);
	for (i = 0; i < NCOUNTERS; i++)
		if (v1[i] != v0[i])
			printf("STAT %s %s %s %llu\n", name, phase, counters[i],
			       (unsigned long long)(v1[i] - v0[i]));
	fflush(stdout);
}

/* Write val to a cgroup file; a failure is fatal unless may_fail. */
static void put(const char *path, const char *val, int may_fail)
{
	int fd = open(path, O_WRONLY);
	ssize_t r = -1;

	if (fd >= 0) {
		r = write(fd, val, strlen(val));
		close(fd);
	}
	if (r < 0 && !may_fail)
		fail(path);
}

static char *cgpath(int idx, const char *file)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), CGROOT "/swapbench-%d%s%s", idx,
		 file ? "/" : "", file ? file : "");
	return buf;
}

/* A memory cgroup limited to limit bytes (0: no limit), with this
 * process in it; soft: memory.high (reclaim and throttle, never OOM)
 * rather than memory.max. */
static void cg_enter(int idx, size_t limit, int soft)
{
	char val[32];

	put(CGROOT "/cgroup.subtree_control", "+memory", 0);
	if (mkdir(cgpath(idx, NULL), 0755) && errno != EEXIST)
		fail("mkdir cgroup");
	errno = 0;
	if (limit)
		snprintf(val, sizeof(val), "%zu", limit);
	put(cgpath(idx, soft ? "memory.high" : "memory.max"),
	    limit ? val : "max", 0);
	snprintf(val, sizeof(val), "%d", getpid());
	put(cgpath(idx, "cgroup.procs"), val, 0);
}

static void cg_leave(int idx)
{
	char val[32];

	snprintf(val, sizeof(val), "%d", getpid());
	put(CGROOT "/cgroup.procs", val, 0);
	rmdir(cgpath(idx, NULL));
}

static size_t resident(char *buf, size_t pages)
{
	static unsigned char *vec;
	size_t i, n = 0;

	vec = vec ? vec : malloc(pages);
	if (!vec || mincore(buf, pages * PAGE, vec))
		fail("mincore");
	for (i = 0; i < pages; i++)
		n += vec[i] & 1;
	return n;
}

static long meminfo(const char *key)
{
	char line[128];
	long v = -1;
	size_t n = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = atol(line + n + 1);
	if (f)
		fclose(f);
	return v;
}

static char *map(size_t pages)
{
	char *buf = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		fail("mmap");
	/* One page a fault, as with 4 KiB folios everywhere. */
	madvise(buf, pages * PAGE, MADV_NOHUGEPAGE);
	return buf;
}

static void fill(char *buf, size_t pages, enum pattern p)
{
	size_t i;

	for (i = 0; i < pages; i++)
		fill_page((uint64_t *)(buf + i * PAGE), p, i);
}

/* Fault every page back with a write (a locked add of 0: a write access
 * that leaves the data as it was), so that the slot is freed at once. */
static void touch(char *buf, size_t pages)
{
	size_t i;

	for (i = 0; i < pages; i++)
		__atomic_fetch_add((volatile uint64_t *)(buf + i * PAGE), 0,
				   __ATOMIC_RELAXED);
}

static void check(char *buf, size_t pages, enum pattern p)
{
	size_t i;

	for (i = 0; i < pages; i++)
		if (!page_ok((uint64_t *)(buf + i * PAGE), p, i)) {
			errno = 0;
			fprintf(stderr, "page %zu differs\n", i);
			fail("data differs after swap-in");
		}
}

/* Push a buffer out with MADV_PAGEOUT (phase "out"); an asynchronous
 * device leaves folios in the swap cache, under writeback, where swap-in
 * would find them: push those out too. */
static void push_out(char *buf, size_t pages)
{
	uint64_t v[NCOUNTERS], t;
	size_t left;
	int tries;

	begin(v);
	t = now_us();
	if (madvise(buf, pages * PAGE, MADV_PAGEOUT))
		fail("MADV_PAGEOUT");
	for (tries = 0; (left = resident(buf, pages)) && tries < 50; tries++) {
		char val[32];

		while (meminfo("Writeback") > 0)
			usleep(1000);
		snprintf(val, sizeof(val), "%zu", left * PAGE);
		put(cgpath(0, "memory.reclaim"), val, 1);
	}
	t = now_us() - t;
	if (left)
		printf("STAT %s out resident %zu\n", name, left);
	report("out", t, v);
}

/* Fill a buffer in memcg 0 and push it out. */
static char *pushed_out(size_t pages, enum pattern p)
{
	char *buf;

	cg_enter(0, 0, 0);
	buf = map(pages);
	fill(buf, pages, p);
	push_out(buf, pages);
	return buf;
}

static void run_pageout(size_t pages, enum pattern p)
{
	uint64_t v[NCOUNTERS], t;
	char *buf = pushed_out(pages, p);

	begin(v);
	t = now_us();
	touch(buf, pages);
	report("in", now_us() - t, v);
	check(buf, pages, p);
	munmap(buf, pages * PAGE);
	cg_leave(0);
}

/* Free pages still held in zswap (or on the device): munmap() of the
 * pushed-out buffer, whose slots are freed with their entries there. */
static void run_unmap(size_t pages, enum pattern p)
{
	uint64_t v[NCOUNTERS], t;
	char *buf = pushed_out(pages, p);
	long kb = meminfo("Zswapped");

	begin(v);
	t = now_us();
	if (munmap(buf, pages * PAGE))
		fail("munmap");
	report("free", now_us() - t, v);
	kb -= meminfo("Zswapped");
	if (kb)
		printf("STAT %s free zswap_freed_kb %ld\n", name, kb);
	cg_leave(0);
}

/* Free scattered single pages still held in zswap (or on the device):
 * MADV_DONTNEED of every other page of the pushed-out buffer, the odd ones,
 * one call a page, so that every slot freed is a range of one whose
 * neighbours stay in use (zswap_invalidate() with nr 1 and the entry
 * there). The pages left must then come back as they were (untimed). */
static void run_scatter(size_t pages, enum pattern p)
{
	uint64_t v[NCOUNTERS], t;
	char *buf = pushed_out(pages, p);
	long kb = meminfo("Zswapped");
	size_t i;

	begin(v);
	t = now_us();
	for (i = 1; i < pages; i += 2)
		if (madvise(buf + i * PAGE, PAGE, MADV_DONTNEED))
			fail("MADV_DONTNEED");
	report("free", now_us() - t, v);
	kb -= meminfo("Zswapped");
	if (kb)
		printf("STAT %s free zswap_freed_kb %ld\n", name, kb);
	for (i = 0; i < pages; i += 2) {
		__atomic_fetch_add((volatile uint64_t *)(buf + i * PAGE), 0,
				   __ATOMIC_RELAXED);
		if (!page_ok((uint64_t *)(buf + i * PAGE), p, i)) {
			errno = 0;
			fprintf(stderr, "page %zu differs\n", i);
			fail("data differs after the free of its neighbours");
		}
	}
	munmap(buf, pages * PAGE);
	cg_leave(0);
}

/* Large folios that zswap refuses to store because its pool is full:
 * each refused store invalidates the folio's slots, none of which has an
 * entry (zswap_invalidate() over the folio's range, from zswap_store()).
 * guest/reject sets the pool's limit to 1% of memory; memcg 1, whose
 * zswap writeback is off so that the shrinker cannot empty the pool,
 * first fills it with 24 MiB of pages that compress 2:1 (their entries
 * sit in the swap device's first tree, its first 64 MiB, where the large
 * folios go too: MIB is at most 24 here). Then memcg 0 pushes its large
 * folios out (phase "out"): zswap refuses them, they go to the device;
 * both are read back and checked (untimed). */
static void run_reject(size_t pages, enum pattern p, size_t folio_kb)
{
	size_t hold = 6144, len = pages * PAGE, align = folio_kb * 1024, i;
	char *h, *m, *buf;

	cg_enter(1, 0, 0);
	put(cgpath(1, "memory.zswap.writeback"), "0", 0);
	h = map(hold);
	/* Index 4i + 2 of P_MIX4: half random, half zero. */
	for (i = 0; i < hold; i++)
		fill_page((uint64_t *)(h + i * PAGE), P_MIX4, 4 * i + 2);
	if (madvise(h, hold * PAGE, MADV_PAGEOUT))
		fail("MADV_PAGEOUT");
	if (meminfo("Zswapped") <= 0) {
		errno = 0;
		fail("nothing in zswap before the large folios");
	}

	cg_enter(0, 0, 0);
	/* Aligned to the folio size, so that every fault maps a whole one. */
	m = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		fail("mmap");
	buf = m + (align - (uintptr_t)m % align) % align;
	if (madvise(buf, len, MADV_HUGEPAGE))
		fail("MADV_HUGEPAGE");
	fill(buf, pages, p);
	push_out(buf, pages);
	touch(buf, pages);
	check(buf, pages, p);
	munmap(m, len + align);
	cg_leave(0);
	for (i = 0; i < hold; i++)
		if (!page_ok((uint64_t *)(h + i * PAGE), P_MIX4, 4 * i + 2)) {
			errno = 0;
			fail("data differs after swap-in");
		}
	munmap(h, hold * PAGE);
	cg_leave(1);
}

/* Free pages still held in zswap (or on the device) at process exit: a
 * child pushes its buffer out and waits; SIGKILL, and the exit frees the
 * slots, timed from the signal to waitpid()'s return. */
static void run_exit(size_t pages, enum pattern p)
{
	uint64_t v[NCOUNTERS], t;
	int ready[2], st;
	pid_t pid;
	long kb;
	char c;

	if (pipe(ready))
		fail("pipe");
	pid = fork();
	if (pid < 0)
		fail("fork");
	if (pid == 0) {
		close(ready[0]);
		pushed_out(pages, p);
		if (write(ready[1], "r", 1) != 1)
			fail("sync");
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1) {
		errno = 0;
		waitpid(pid, NULL, 0);
		fail("the child ended before its buffer was out");
	}
	kb = meminfo("Zswapped");
	begin(v);
	t = now_us();
	if (kill(pid, SIGKILL) || waitpid(pid, &st, 0) != pid)
		fail("kill the child");
	report("exit", now_us() - t, v);
	errno = 0;
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL)
		fail("the child did not end by the signal");
	kb -= meminfo("Zswapped");
	if (kb)
		printf("STAT %s exit zswap_freed_kb %ld\n", name, kb);
	/* cg_leave() without the move: the child was the cgroup's one task. */
	rmdir(cgpath(0, NULL));
}

/* Tell the parent a phase is done (with its CPU time), wait for the next. */
static void sync_parent(int go, int done, uint64_t cpu)
{
	char c;

	if (write(done, &cpu, sizeof(cpu)) != sizeof(cpu) ||
	    read(go, &c, 1) != 1)
		fail("sync");
}

/* One process's part of memcg, par, mix and pfree: fill under a limit of
 * pct%, then either lift the limit and touch (memcg/par) or run random
 * touches under the limit (mix). pfree (mix 2, no limit): an even worker
 * fills and pushes its buffer out, then frees it with munmap() while its
 * entries are in zswap; an odd one fills, then pushes its buffer out
 * (zswap stores) and faults it back in (zswap loads) while the even ones
 * free. go, done: -1 alone, else the pipes from and to the parent. */
static int worker(int idx, size_t pages, enum pattern p, int pct, int mix,
		  int go, int done)
{
	uint64_t v[NCOUNTERS], t, cpu, s = idx + 1;
	size_t limit = pages * PAGE * pct / 100, i;
	int freer = mix == 2 && !(idx & 1);
	char *buf;

	cg_enter(idx, mix == 2 ? 0 : limit, mix);
	buf = map(pages);
	if (go >= 0)
		sync_parent(go, done, 0);
	go < 0 ? begin(v) : vmstat(v);
	cpu = cpu_us();
	t = now_us();
	fill(buf, pages, p);
	if (freer && madvise(buf, pages * PAGE, MADV_PAGEOUT))
		fail("MADV_PAGEOUT");
	t = now_us() - t;
	if (go < 0)
		report(mix ? "fill" : "out", t, v);
	else
		sync_parent(go, done, cpu_us() - cpu);
	if (go < 0 && !mix)
		put(cgpath(idx, "memory.max"), "max", 0);

	go < 0 ? begin(v) : vmstat(v);
	cpu = cpu_us();
	t = now_us();
	if (freer) {
		if (munmap(buf, pages * PAGE))
			fail("munmap");
	} else if (mix == 2) {
		if (madvise(buf, pages * PAGE, MADV_PAGEOUT))
			fail("MADV_PAGEOUT");
		touch(buf, pages);
	} else if (mix) {
		for (i = 0; i < 4 * pages; i++) {
			volatile uint64_t *w = (uint64_t *)
				(buf + xorshift(&s) % pages * PAGE);

			if (i & 1)
				__atomic_fetch_add(w, 0, __ATOMIC_RELAXED);
			else
				(void)*w;
		}
	} else {
		touch(buf, pages);
	}
	t = now_us() - t;
	if (go < 0)
		report(mix ? "run" : "in", t, v);
	/* Check only when every worker is done, not to slow the others. */
	else
		sync_parent(go, done, cpu_us() - cpu);
	if (!freer) {
		check(buf, pages, p);
		munmap(buf, pages * PAGE);
	}
	cg_leave(idx);
	return 0;
}

/* Workers exit only when told to, at the end: a SIGCHLD before that
 * means one died (OOM-killed, or it failed), and interrupts the parent's
 * wait, which would otherwise wait for it forever. */
static volatile sig_atomic_t child_died;

static void on_sigchld(int sig)
{
	(void)sig;
	child_died = 1;
}

/* A worker's message: the CPU time of its phase. */
static uint64_t wait_worker(int fd)
{
	uint64_t cpu;

	while (read(fd, &cpu, sizeof(cpu)) != sizeof(cpu)) {
		if (errno != EINTR || child_died) {
			errno = 0;
			fail("a worker died");
		}
	}
	return cpu;
}

/* k workers at once; the parent times each phase from the start signal
 * to the last worker's end. */
static void run_parallel(size_t pages, enum pattern p, int pct, int mix,
			 int k)
{
	const char *phases[2] = { mix == 1 ? "fill" : "out",
				  mix == 1 ? "run" : mix ? "free" : "in" };
	struct sigaction sa = { .sa_handler = on_sigchld }; /* no SA_RESTART */
	int go[2], done[2], i, ph, st, bad = 0;
	uint64_t v[NCOUNTERS], t, cpu;
	char cpuname[32];

	if (pipe(go) || pipe(done) || sigaction(SIGCHLD, &sa, NULL))
		fail("pipe");
	for (i = 0; i < k; i++) {
		if (fork() == 0) {
			close(go[1]);
			close(done[0]);
			exit(worker(i + 1, pages / k, p, pct, mix, go[0],
				    done[1]));
		}
	}
	close(go[0]);
	close(done[1]);
	for (i = 0; i < k; i++)
		wait_worker(done[0]);
	for (ph = 0; ph < 2; ph++) {
		begin(v);
		t = now_us();
		for (i = 0; i < k; i++)
			if (write(go[1], "g", 1) != 1)
				fail("sync");
		for (i = 0, cpu = 0; i < k; i++)
			cpu += wait_worker(done[0]);
		t = now_us() - t;
		report(phases[ph], t, v);
		snprintf(cpuname, sizeof(cpuname), "%s-cpu", phases[ph]);
		printf("BENCH %s %s %llu\n", name, cpuname,
		       (unsigned long long)cpu);
		if (ph == 0 && !mix)
			for (i = 1; i <= k; i++)
				put(cgpath(i, "memory.max"), "max", 0);
	}
	for (i = 0; i < k; i++)
		if (write(go[1], "c", 1) != 1)
			fail("sync");
	signal(SIGCHLD, SIG_DFL);
	for (i = 0; i < k; i++)
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	errno = 0;
	if (bad)
		fail("a worker failed");
}

/* contend: see the top of the file. One shared page: the freer's
 * "freeing now" flag and the end, which the busy one reads. */
#define CONTEND_CHUNK 16
#define CONTEND_ROUNDS 8

struct contend {
	volatile int freeing, done;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		fail("sched_setaffinity");
}

static void contend_busy(struct contend *c, size_t pages)
{
	uint64_t t, busy_ns = 0, busy_pages = 0;
	size_t i = 0, len = CONTEND_CHUNK * PAGE;
	char *buf = map(pages);
	int during;

	pin(1);
	fill(buf, pages, P_ONE);
	while (!c->done) {
		during = c->freeing;
		t = now_us();
		if (madvise(buf + i * PAGE, len, MADV_PAGEOUT))
			fail("MADV_PAGEOUT");
		touch(buf + i * PAGE, CONTEND_CHUNK);
		t = now_us() - t;
		if (during && c->freeing) {
			busy_ns += t * 1000;
			busy_pages += CONTEND_CHUNK;
		}
		i = (i + CONTEND_CHUNK) % pages;
	}
	check(buf, pages, P_ONE);
	if (!busy_pages) {
		errno = 0;
		fail("the busy process never ran while the other freed");
	}
	printf("BENCH %s busy-page %llu\n", name,
	       (unsigned long long)(busy_ns / busy_pages));
}

static void contend_free(struct contend *c, size_t pages)
{
	uint64_t t, ns = 0;
	size_t i;
	int r;
	char *buf;

	pin(0);
	for (r = 0; r < CONTEND_ROUNDS; r++) {
		buf = map(pages);
		fill(buf, pages, P_ZERO);
		if (madvise(buf, pages * PAGE, MADV_PAGEOUT))
			fail("MADV_PAGEOUT");
		if (resident(buf, pages) > pages / 16) {
			errno = 0;
			fail("zero pages not pushed out");
		}
		c->freeing = 1;
		t = now_us();
		for (i = 0; i < pages; i += CONTEND_CHUNK)
			if (munmap(buf + i * PAGE, CONTEND_CHUNK * PAGE))
				fail("munmap");
		ns += (now_us() - t) * 1000;
		c->freeing = 0;
	}
	printf("BENCH %s free-slot %llu\n", name,
	       (unsigned long long)(ns / (pages * CONTEND_ROUNDS)));
}

static void run_contend(size_t pages)
{
	struct contend *c = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t v[NCOUNTERS], t;
	pid_t busy;
	int st;

	if (c == MAP_FAILED)
		fail("mmap");
	pages -= pages % (2 * CONTEND_CHUNK);
	begin(v);
	t = now_us();
	busy = fork();
	if (busy < 0)
		fail("fork");
	if (!busy) {
		contend_busy(c, pages / 4);
		exit(0);
	}
	contend_free(c, pages / 2);
	c->done = 1;
	if (waitpid(busy, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		errno = 0;
		fail("the busy process failed");
	}
	report("run", now_us() - t, v);
}

/* neighbours: see the top of the file. */
#define TREE_PAGES 16384UL	/* a zswap tree's slots, 64 MiB */

struct neighbours {
	volatile int ready, go, done;
	uint64_t ns[2][2];	/* [process][phase: in, free] */
};

/* All of buf's pages swapped out to slots of tree "tree" (0 or 1)? */
static int in_tree(char *buf, size_t pages, unsigned long tree)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	size_t i, ok = 0;
	uint64_t e;

	if (fd < 0)
		fail("open pagemap");
	for (i = 0; i < pages; i++) {
		off_t pos = (uintptr_t)(buf + i * PAGE) / PAGE * 8;

		if (pread(fd, &e, 8, pos) != 8)
			fail("pagemap");
		/* bit 62: swapped; bits 5-54: the slot's offset */
		ok += (e >> 62 & 1) &&
		      ((e >> 5) & ((1ULL << 50) - 1)) / TREE_PAGES == tree;
	}
	close(fd);
	return ok * 100 >= pages * 99;
}

static void meet(volatile int *count, int n)
{
	__atomic_fetch_add(count, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(count, __ATOMIC_SEQ_CST) < n)
		;
}

static void neighbour(struct neighbours *nb, int idx, size_t pages)
{
	size_t fill_pages = idx ? pages : TREE_PAGES - 1, half = pages / 2;
	char *buf;
	uint64_t t;

	pin(idx);
	/* The second waits for the first to fill the first tree. */
	while (idx && !__atomic_load_n(&nb->ready, __ATOMIC_SEQ_CST))
		usleep(1000);
	buf = map(fill_pages);
	fill(buf, fill_pages, P_ONE);
	if (madvise(buf, fill_pages * PAGE, MADV_PAGEOUT))
		fail("MADV_PAGEOUT");
	if (!in_tree(buf, pages, idx)) {
		errno = 0;
		fail(idx ? "the second process's slots are not in the second tree" :
			   "the first process's slots are not in the first tree");
	}
	if (!idx)
		__atomic_store_n(&nb->ready, 1, __ATOMIC_SEQ_CST);

	meet(&nb->go, 2);
	t = now_us();
	touch(buf, half);
	nb->ns[idx][0] = (now_us() - t) * 1000 / half;
	meet(&nb->done, 2);
	t = now_us();
	if (munmap(buf + half * PAGE, (pages - half) * PAGE))
		fail("munmap");
	nb->ns[idx][1] = (now_us() - t) * 1000 / (pages - half);
	check(buf, half, P_ONE);
	munmap(buf, half * PAGE);
	if (fill_pages > pages)
		munmap(buf + pages * PAGE, (fill_pages - pages) * PAGE);
}

static void run_neighbours(size_t pages)
{
	struct neighbours *nb = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t v[NCOUNTERS], t;
	pid_t pid[2];
	int i, st, bad = 0;

	if (nb == MAP_FAILED)
		fail("mmap");
	pages /= 2;
	if (pages < 2 || pages > TREE_PAGES - 1) {
		errno = 0;
		fail("-m: the halves must fit a tree");
	}
	begin(v);
	t = now_us();
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			fail("fork");
		if (!pid[i]) {
			neighbour(nb, i, pages);
			exit(0);
		}
	}
	for (i = 0; i < 2; i++)
		if (waitpid(pid[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad = 1;
	errno = 0;
	if (bad)
		fail("a neighbour failed");
	printf("BENCH %s in-page %llu\n", name,
	       (unsigned long long)(nb->ns[0][0] + nb->ns[1][0]) / 2);
	printf("BENCH %s free-slot %llu\n", name,
	       (unsigned long long)(nb->ns[0][1] + nb->ns[1][1]) / 2);
	report("run", now_us() - t, v);
}

int main(int argc, char **argv)
{
	const char *driver = "pageout", *pat = "zero";
	static const char *const pats[] = { "zero", "one", "random", "mixed" };
	enum pattern p = P_ZERO;
	size_t mib = 64, pages;
	int k = 1, pct = 25, c, found = 0;

	while ((c = getopt(argc, argv, "w:d:p:m:k:l:")) != -1) {
		switch (c) {
		case 'w': name = optarg; break;
		case 'd': driver = optarg; break;
		case 'p': pat = optarg; break;
		case 'm': mib = strtoul(optarg, NULL, 0); break;
		case 'k': k = atoi(optarg); break;
		case 'l': pct = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s -w NAME -d pageout|unmap|scatter|exit|reject|memcg|par|mix|pfree|contend|neighbours -p zero|one|random|mixed -m MIB [-k PROCS] [-l PCT]\n",
				argv[0]);
			return 2;
		}
	}
	for (c = 0; c < 4; c++)
		if (!strcmp(pat, pats[c]))
			p = c, found = 1;
	errno = 0;
	if (!found)
		fail("unknown pattern");
	if (k < 1 || pct < 1 || (pct > 100 && strcmp(driver, "reject")) ||
	    mib < 1)
		fail("bad -k, -l or -m");
	pages = mib * 1024 * 1024 / PAGE;
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(driver, "pageout"))
		run_pageout(pages, p);
	else if (!strcmp(driver, "unmap"))
		run_unmap(pages, p);
	else if (!strcmp(driver, "scatter"))
		run_scatter(pages, p);
	else if (!strcmp(driver, "exit"))
		run_exit(pages, p);
	else if (!strcmp(driver, "reject"))
		run_reject(pages, p, pct);
	else if (!strcmp(driver, "memcg"))
		worker(0, pages, p, pct, 0, -1, -1);
	else if (!strcmp(driver, "par"))
		run_parallel(pages, p, pct, 0, k);
	else if (!strcmp(driver, "mix"))
		run_parallel(pages, P_MIX4, pct, 1, k);
	else if (!strcmp(driver, "pfree"))
		run_parallel(pages, p, pct, 2, k);
	else if (!strcmp(driver, "contend"))
		run_contend(pages);
	else if (!strcmp(driver, "neighbours"))
		run_neighbours(pages);
	else
		fail("unknown driver");
	return 0;
}
