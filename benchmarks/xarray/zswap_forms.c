// SPDX-License-Identifier: GPL-2.0
/*
 * zswap_forms.c: the XArray part of forms of zswap_invalidate() (7.3-rc7's,
 * mm-stable's, mainline v3's candidates, the mainline patch and the
 * locked walk a reviewer names against it), each with a free() where it
 * frees an entry, timed on the host's own CPUs with the kernel's userspace
 * XArray harness (tools/testing/radix-tree: lib/xarray.c built in
 * userspace against liburcu). benchmarks/xarray-bench.sh builds it in a
 * copy of the harness and writes the report; benchmarks/README.md
 * describes both.
 *
 *   zswap_forms [--threads 1,2] [--sizes 1,16,512] [--reps N]
 *               [--warmup N] [--first-rep N] [--pin]
 *
 * (--first-rep numbers the repetitions from N, for a run made of rounds.)
 *
 * A tree is what zswap keeps for 64 MiB of swap: 16384 slots, entries that
 * are real pointers (one malloc()ed 64-byte object each). Ranges of R
 * slots, aligned to R, are freed at every other R-slot block; the blocks
 * between them keep their entries, so the tree is never empty. "present":
 * every slot holds an entry; "absent": the ranges to free are empty, the
 * blocks between them full. Thread t frees the ranges that lie in the
 * clusters c (512 slots; 1024-slot blocks for R = 512, as only every other
 * cluster holds a range) with c % threads == t: swap hands each CPU
 * clusters of its own. "same": all threads free in one tree, so they share
 * its lock and upper nodes; "own": each thread frees the same ranges in a
 * tree of its own, the trees adjacent in one array as zswap_swapon()
 * allocates them, so that neighbouring trees share a cache line and with
 * it their locks; "padded": as "own", but each tree alone in a cache line,
 * as if the array's element were a struct holding the xarray, aligned
 * with ____cacheline_aligned_in_smp. With one thread only "same" runs.
 * For each range size and entries present or absent the layouts run one
 * after the other, "own" and "padded" swapping places from one run to the
 * next (the run: --first-rep / --reps), so that those two, which the
 * report compares repetition by repetition, meet nearly the same load.
 *
 * One repetition runs every form once, in an order rotated from one
 * repetition to the next; before each form the threads meet at a barrier,
 * each times its own ranges, they meet again, and then (untimed) each
 * checks the count of entries the form freed and that its ranges are
 * empty, and stores new entries there. Output, on stdout: "# key<TAB>value"
 * lines, a header, then one row per repetition, form and thread with its
 * time in ns and when it started (which shows whether the threads
 * overlapped).
 */
#define _GNU_SOURCE	/* sched_setaffinity() */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "shared.h"
#include <linux/xarray.h>
#include <linux/radix-tree.h>

#include "zs-build-info.h"

#ifdef ZS_SPINLOCK
#define ZS_LOCK "spin"
#define ZS_LOCK_TEXT "spinning (zs-spinlock.h: cmpxchg to lock, a release store to unlock)"
#else
#define ZS_LOCK "mutex"
#define ZS_LOCK_TEXT "the harness's spinlock_t, a pthread mutex"
#endif

#define TREE_SLOTS	16384UL	/* SWAP_ADDRESS_SPACE_PAGES: 64 MiB of 4 KiB */
#define CLUSTER		512UL	/* SWAPFILE_CLUSTER */
#define ERASE_BATCH	16	/* ZSWAP_ERASE_BATCH of the v2 design */
#define MAX_THREADS	64
/*
 * x86's L1_CACHE_BYTES, what ____cacheline_aligned_in_smp aligns to (the
 * harness's tools/include/linux/cache.h says 32).
 */
#define CACHE_LINE	64

/*
 * Stands for a struct zswap_entry: one malloc()ed 64-byte object a slot,
 * its address in the tree. Each form free()s what it erases, where
 * zswap_invalidate() calls zswap_entry_free(): under the lock in C, after
 * it everywhere else.
 */
struct zs_entry {
	unsigned long index;
	unsigned long pad[7];
};

static inline void entry_free(void *entry)
{
	free(entry);
}

/*
 * base, 7.3-rc7: swap_range_free() calls zswap_invalidate() once a slot,
 * which returns at once on an empty tree, else erases under the lock.
 */
static noinline unsigned long base_invalidate(struct xarray *tree,
					      unsigned long index)
{
	void *entry;

	if (xa_empty(tree))
		return 0;
	entry = xa_erase(tree, index);
	if (!entry)
		return 0;
	entry_free(entry);
	return 1;
}

static noinline unsigned long form_base(struct xarray *tree,
					unsigned long first, unsigned int nr)
{
	unsigned long found = 0;
	unsigned int i;

	for (i = 0; i < nr; i++)
		found += base_invalidate(tree, first + i);
	return found;
}

/*
 * mm-stable (2026-10-09, "mm: zswap: convert zswap_invalidate() to take a
 * range"): one call a range, which does 7.3's work slot by slot. (Its
 * zswap_never_enabled() static key and its per-slot swap_zswap_tree(),
 * an array lookup, are left out: here zswap is on and the range is in
 * one tree.)
 */
static noinline unsigned long form_mm_stable(struct xarray *tree,
					     unsigned long first,
					     unsigned int nr)
{
	unsigned long index, end = first + nr, found = 0;
	void *entry;

	for (index = first; index < end; index++) {
		if (xa_empty(tree))
			continue;
		entry = xa_erase(tree, index);
		if (entry) {
			entry_free(entry);
			found++;
		}
	}
	return found;
}

/*
 * A, mainline v3's 0001: one xa_find() over the range without the lock;
 * nothing there, no lock; else mm-stable's per-slot xa_erase() from the
 * entry found to the end of the range.
 */
static noinline unsigned long form_A(struct xarray *tree, unsigned long index,
				     unsigned int nr)
{
	unsigned long last = index + nr - 1, found = 0;
	void *entry;

	if (xa_empty(tree))
		return 0;
	if (!xa_find(tree, &index, last, XA_PRESENT))
		return 0;
	for (; index <= last; index++) {
		entry = xa_erase(tree, index);
		if (entry) {
			entry_free(entry);
			found++;
		}
	}
	return found;
}

/* A1: A, but a single slot is looked up with xa_load(), not xa_find(). */
static noinline unsigned long form_A1(struct xarray *tree, unsigned long index,
				      unsigned int nr)
{
	unsigned long last = index + nr - 1, found = 0;
	void *entry;

	if (xa_empty(tree))
		return 0;
	if (nr == 1) {
		if (!xa_load(tree, index))
			return 0;
	} else if (!xa_find(tree, &index, last, XA_PRESENT)) {
		return 0;
	}
	for (; index <= last; index++) {
		entry = xa_erase(tree, index);
		if (entry) {
			entry_free(entry);
			found++;
		}
	}
	return found;
}

/*
 * B: A's search, then xa_erase() only where an entry is: after each, the
 * next one is searched for without the lock.
 */
static noinline unsigned long form_B(struct xarray *tree, unsigned long index,
				     unsigned int nr)
{
	unsigned long last = index + nr - 1, found = 0;
	void *entry;

	if (xa_empty(tree))
		return 0;
	if (!xa_find(tree, &index, last, XA_PRESENT))
		return 0;
	do {
		entry = xa_erase(tree, index);
		if (entry) {
			entry_free(entry);
			found++;
		}
	} while (index++ < last && xa_find(tree, &index, last, XA_PRESENT));
	return found;
}

/*
 * C: A's search, then one hold of the lock for the rest of the range: an
 * ordered walk that erases every entry and frees it under the lock.
 */
static noinline unsigned long form_C(struct xarray *tree, unsigned long index,
				     unsigned int nr)
{
	unsigned long last = index + nr - 1, found = 0;
	XA_STATE(xas, tree, 0);
	void *entry;

	if (xa_empty(tree))
		return 0;
	if (!xa_find(tree, &index, last, XA_PRESENT))
		return 0;

	xas_set(&xas, index);
	xas_lock(&xas);
	xas_for_each(&xas, entry, last) {
		xas_store(&xas, NULL);
		entry_free(entry);
		found++;
	}
	xas_unlock(&xas);
	return found;
}

/*
 * D, v2's form (mainline v3's benchmark variant D): A's search, then up
 * to 16 entries erased in one hold of the lock into a batch on the stack,
 * freed after the unlock; the walk goes on from the slot after the last
 * one erased while the batch came back full. Out of line, as there, so
 * that a range with nothing in it does not set up the batch.
 */
static noinline unsigned long d_erase_range(struct xarray *tree,
					    unsigned long index,
					    unsigned long last)
{
	void *batch[ERASE_BATCH];
	XA_STATE(xas, tree, index);
	unsigned long found = 0;
	unsigned int i, n;
	void *entry;

	do {
		n = 0;
		xas_lock(&xas);
		xas_for_each(&xas, entry, last) {
			xas_store(&xas, NULL);
			batch[n++] = entry;
			if (n == ERASE_BATCH)
				break;
		}
		xas_unlock(&xas);
		for (i = 0; i < n; i++)
			entry_free(batch[i]);
		found += n;
		xas_set(&xas, xas.xa_index + 1);
	} while (n == ERASE_BATCH && xas.xa_index <= last);
	return found;
}

static noinline unsigned long form_D(struct xarray *tree, unsigned long index,
				     unsigned int nr)
{
	unsigned long last = index + nr - 1;

	if (xa_empty(tree))
		return 0;
	if (!xa_find(tree, &index, last, XA_PRESENT))
		return 0;
	return d_erase_range(tree, index, last);
}

/*
 * The mainline patch (patches/mainline/0001): a single slot is erased
 * with xa_erase() alone; a range is searched without the lock and, where
 * it holds an entry, walked under the lock a batch at a time, the walk
 * paused and resumed across each unlock.
 */
static noinline unsigned long p_erase_range(struct xarray *tree,
					    unsigned long index,
					    unsigned long last)
{
	void *batch[ERASE_BATCH];
	XA_STATE(xas, tree, index);
	unsigned long found = 0;
	unsigned int i, n;
	void *entry;

	do {
		n = 0;
		xas_lock(&xas);
		xas_for_each(&xas, entry, last) {
			xas_store(&xas, NULL);
			batch[n++] = entry;
			if (n == ERASE_BATCH)
				break;
		}
		xas_pause(&xas);
		xas_unlock(&xas);
		for (i = 0; i < n; i++)
			entry_free(batch[i]);
		found += n;
	} while (n == ERASE_BATCH && xas.xa_index <= last);
	return found;
}

static unsigned long erase_one(struct xarray *tree, unsigned long index)
{
	void *entry = xa_erase(tree, index);

	if (!entry)
		return 0;
	entry_free(entry);
	return 1;
}

static noinline unsigned long form_patch(struct xarray *tree,
					 unsigned long index, unsigned int nr)
{
	unsigned long first = index, last = index + nr - 1;

	if (xa_empty(tree))
		return 0;
	if (nr == 1)
		return erase_one(tree, index);
	if (!xa_find(tree, &first, last, XA_PRESENT))
		return 0;
	return p_erase_range(tree, index, last);
}

/* The locked walk: the patch without its search, every range walked. */
static noinline unsigned long form_walk(struct xarray *tree,
					unsigned long index, unsigned int nr)
{
	if (xa_empty(tree))
		return 0;
	if (nr == 1)
		return erase_one(tree, index);
	return p_erase_range(tree, index, index + nr - 1);
}

static const struct form {
	const char *name;
	unsigned long (*fn)(struct xarray *tree, unsigned long first,
			    unsigned int nr);
} forms[] = {
	{ "base", form_base },
	{ "mm-stable", form_mm_stable },
	{ "A", form_A },
	{ "A1", form_A1 },
	{ "B", form_B },
	{ "C", form_C },
	{ "D", form_D },
	{ "patch", form_patch },
	{ "walk", form_walk },
};
#define NR_FORMS ((int)(sizeof(forms) / sizeof(forms[0])))

enum layout { LAYOUT_SAME, LAYOUT_OWN, LAYOUT_PADDED };

static const char *const layout_name[] = {
	[LAYOUT_SAME] = "same",
	[LAYOUT_OWN] = "own",
	[LAYOUT_PADDED] = "padded",
};
#define NR_LAYOUTS ((int)(sizeof(layout_name) / sizeof(layout_name[0])))

/*
 * An element of the "padded" layout's array of trees: the tree and the
 * rest of its cache line, which nothing else uses.
 */
struct padded_tree {
	struct xarray xa;
} __aligned(CACHE_LINE);

struct config {
	unsigned int range;	/* slots a range */
	int present;		/* entries at the ranges' slots */
	int threads;
	enum layout layout;	/* one tree for all threads, or where each is */
};

struct worker {
	pthread_t thread;
	int id;
	const struct config *cfg;
	struct xarray *tree;
	unsigned long *first;	/* the ranges this thread frees */
	unsigned int nr_ranges;
	long long *ns;		/* [rep][form]: time taken */
	long long *start;	/* [rep][form]: since the configuration began */
};

static int reps = 200, warmup = 5, first_rep, pin;
static long long epoch;	/* when the configuration's threads started */

static void die(const char *fmt, const char *what)
{
	fprintf(stderr, "zswap_forms: ");
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	exit(1);
}

/*
 * A spinning barrier (sense-reversing): a thread sleeping in
 * pthread_barrier_wait() takes tens of microseconds to wake, as long as a
 * form takes, and the threads would run one after the other. It yields
 * now and then, so that on a loaded machine a waiter that shares its CPU
 * with the thread it waits for lets that one run.
 */
static struct {
	int count;
	int sense;
} barrier;

static void barrier_wait(int threads, int *sense)
{
	unsigned long spins = 0;
	int s = !*sense;

	*sense = s;
	if (__atomic_add_fetch(&barrier.count, 1, __ATOMIC_ACQ_REL) == threads) {
		__atomic_store_n(&barrier.count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&barrier.sense, s, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&barrier.sense, __ATOMIC_ACQUIRE) != s) {
		if (++spins % 4096 == 0)
			sched_yield();
		else
			__builtin_ia32_pause();
	}
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A new entry at every slot of the range, allocated by the caller's thread. */
static void store_range(struct xarray *tree, unsigned long first,
			unsigned long nr)
{
	struct zs_entry *entry;
	unsigned long i;
	void *old;

	for (i = first; i < first + nr; i++) {
		entry = malloc(sizeof(*entry));
		if (!entry)
			die("%s", "out of memory");
		entry->index = i;
		old = xa_store(tree, i, entry, GFP_KERNEL);
		if (xa_is_err(old))
			die("%s", "xa_store failed (out of memory?)");
		if (old)
			die("%s", "a slot to fill held an entry");
	}
}

/* The range starting at @first is one to free. */
static int is_freed(const struct config *cfg, unsigned long first)
{
	return (first / cfg->range) % 2 == 0;
}

/* Which thread frees the range at @first. */
static int owner(const struct config *cfg, unsigned long first)
{
	unsigned long unit = cfg->range > CLUSTER / 2 ? 2 * cfg->range : CLUSTER;

	return (first / unit) % cfg->threads;
}

/*
 * The blocks between the ranges to free, which keep their entries, and,
 * when entries are present, the ranges that no thread frees in this tree
 * (@thread: the one thread that works in it, or -1 when all do). The
 * entries of the ranges to free are stored by the thread that frees them
 * (work()), so that each thread free()s what its own malloc() arena handed
 * out, as a CPU's zswap_entry_free() mostly frees what that CPU's stores
 * allocated.
 */
static void fill_tree(const struct config *cfg, struct xarray *tree,
		      int thread)
{
	unsigned long i;

	for (i = 0; i < TREE_SLOTS; i += cfg->range)
		if (!is_freed(cfg, i) ||
		    (cfg->present && thread >= 0 && owner(cfg, i) != thread))
			store_range(tree, i, cfg->range);
}

/*
 * After a configuration: every slot holds an entry made for it, except
 * the freed ranges when entries are absent, which are empty. Then the
 * entries are freed.
 */
static void check_tree(const struct config *cfg, struct xarray *tree)
{
	struct zs_entry *entry;
	unsigned long i;

	for (i = 0; i < TREE_SLOTS; i++) {
		int want = cfg->present || !is_freed(cfg, i - i % cfg->range);

		entry = xa_load(tree, i);
		if (want ? !entry || entry->index != i : entry != NULL)
			die("%s", "a tree's contents differ from its layout");
	}
	i = TREE_SLOTS;
	if (xa_find(tree, &i, ULONG_MAX, XA_PRESENT))
		die("%s", "an entry beyond the tree's 16384 slots");
	xa_for_each(tree, i, entry)
		free(entry);
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu % sysconf(_SC_NPROCESSORS_ONLN), &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("%s", "sched_setaffinity failed");
}

static void *work(void *arg)
{
	struct worker *w = arg;
	const struct config *cfg = w->cfg;
	unsigned long want = cfg->present ?
		(unsigned long)w->nr_ranges * cfg->range : 0;
	int rep, j, f, sense = 0;
	unsigned int k;

	rcu_register_thread();
	if (pin)
		pin_to(w->id);
	if (cfg->present)
		for (k = 0; k < w->nr_ranges; k++)
			store_range(w->tree, w->first[k], cfg->range);
	for (rep = 0; rep < warmup + reps; rep++) {
		for (j = 0; j < NR_FORMS; j++) {
			unsigned long found = 0;
			long long t0, t1;

			/* Rotated: each form follows each other in turn. */
			f = (rep + j) % NR_FORMS;
			barrier_wait(cfg->threads, &sense);
			t0 = now_ns();
			for (k = 0; k < w->nr_ranges; k++)
				found += forms[f].fn(w->tree, w->first[k],
						     cfg->range);
			t1 = now_ns();
			barrier_wait(cfg->threads, &sense);

			if (found != want)
				die("form %s returned a wrong number of entries",
				    forms[f].name);
			for (k = 0; k < w->nr_ranges; k++) {
				unsigned long i = w->first[k];

				if (xa_find(w->tree, &i, w->first[k] + cfg->range - 1,
					    XA_PRESENT))
					die("form %s left an entry in its range",
					    forms[f].name);
				if (cfg->present)
					store_range(w->tree, w->first[k],
						    cfg->range);
			}
			if (rep >= warmup) {
				w->ns[(rep - warmup) * NR_FORMS + f] = t1 - t0;
				w->start[(rep - warmup) * NR_FORMS + f] = t0 - epoch;
			}
		}
	}
	rcu_unregister_thread();
	return NULL;
}

static void run_config(const struct config *cfg, const char *lock)
{
	int same = cfg->layout == LAYOUT_SAME;
	int ntrees = same ? 1 : cfg->threads;
	struct xarray *trees[MAX_THREADS];
	struct worker w[MAX_THREADS];
	unsigned long i;
	size_t stride, size;
	void *array;
	int t, r, f;

	/*
	 * Adjacent, as zswap_swapon()'s kvcalloc() of a device's trees, and
	 * at the start of a cache line: kmalloc() aligns the array to its
	 * size class (32 bytes and up), so the kernel's first two 16-byte
	 * trees always share a line. calloc() aligns to 16 only, and where
	 * the trees fell then varied from configuration to configuration.
	 * "padded" spaces them a cache line apart; the array, rounded up to
	 * whole lines, shares none of them with other data in either layout.
	 */
	stride = cfg->layout == LAYOUT_PADDED ? sizeof(struct padded_tree) :
		 sizeof(struct xarray);
	size = (ntrees * stride + CACHE_LINE - 1) / CACHE_LINE * CACHE_LINE;
	array = aligned_alloc(CACHE_LINE, size);
	if (!array)
		die("%s", "out of memory");
	memset(array, 0, size);
	for (t = 0; t < ntrees; t++) {
		trees[t] = (struct xarray *)((char *)array + t * stride);
		xa_init(trees[t]);
		fill_tree(cfg, trees[t], same ? -1 : t);
	}
	barrier.count = 0;
	barrier.sense = 0;

	for (t = 0; t < cfg->threads; t++) {
		w[t].id = t;
		w[t].cfg = cfg;
		w[t].tree = trees[same ? 0 : t];
		w[t].first = malloc(TREE_SLOTS / cfg->range * sizeof(long));
		w[t].ns = calloc((size_t)reps * NR_FORMS, sizeof(long long));
		w[t].start = calloc((size_t)reps * NR_FORMS, sizeof(long long));
		if (!w[t].first || !w[t].ns || !w[t].start)
			die("%s", "out of memory");
		w[t].nr_ranges = 0;
		for (i = 0; i < TREE_SLOTS; i += cfg->range)
			if (is_freed(cfg, i) && owner(cfg, i) == t)
				w[t].first[w[t].nr_ranges++] = i;
		if (!w[t].nr_ranges)
			die("%s", "more threads than clusters to free");
	}
	epoch = now_ns();
	for (t = 0; t < cfg->threads; t++)
		if (pthread_create(&w[t].thread, NULL, work, &w[t]))
			die("%s", "pthread_create failed");
	for (t = 0; t < cfg->threads; t++)
		pthread_join(w[t].thread, NULL);

	for (t = 0; t < ntrees; t++) {
		check_tree(cfg, trees[t]);
		xa_destroy(trees[t]);
	}
	for (r = 0; r < reps; r++)
		for (f = 0; f < NR_FORMS; f++)
			for (t = 0; t < cfg->threads; t++)
				printf("%s\t%d\t%s\t%u\t%s\t%d\t%s\t%d\t%lu\t%lld\t%lld\n",
				       lock, cfg->threads,
				       layout_name[cfg->layout], cfg->range,
				       cfg->present ? "present" : "absent",
				       first_rep + r, forms[f].name, t,
				       (unsigned long)w[t].nr_ranges * cfg->range,
				       w[t].ns[r * NR_FORMS + f],
				       w[t].start[r * NR_FORMS + f]);
	fflush(stdout);
	for (t = 0; t < cfg->threads; t++) {
		free(w[t].first);
		free(w[t].ns);
		free(w[t].start);
	}
	/* Let call_rcu() free the nodes before the next configuration. */
	rcu_barrier();
	free(array);
}

static int parse_list(const char *s, int *out, int max, long lo, long hi)
{
	int n = 0;
	char *end;

	while (*s) {
		long v = strtol(s, &end, 10);

		if (end == s || v < lo || v > hi || n == max ||
		    (*end && *end != ','))
			return -1;
		out[n++] = v;
		s = *end ? end + 1 : end;
	}
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "sizes", required_argument, NULL, 's' },
		{ "reps", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "first-rep", required_argument, NULL, 'f' },
		{ "pin", no_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	int threads[16] = { 1, 2 }, nthreads = 2;
	int sizes[16] = { 1, 16, 512 }, nsizes = 3;
	const char *lock = ZS_LOCK;
	int c, i, s, p, l, run;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			nthreads = parse_list(optarg, threads, 16, 1, MAX_THREADS);
			if (nthreads <= 0)
				die("--threads %s: a list of 1 to 64", optarg);
			break;
		case 's':
			nsizes = parse_list(optarg, sizes, 16, 1, TREE_SLOTS / 4);
			if (nsizes <= 0)
				die("--sizes %s: a list of 1 to 4096", optarg);
			for (i = 0; i < nsizes; i++)
				if (sizes[i] & (sizes[i] - 1))
					die("--sizes %s: powers of two only",
					    optarg);
			break;
		case 'r':
			reps = atoi(optarg);
			if (reps < 1)
				die("--reps %s: at least 1", optarg);
			break;
		case 'w':
			warmup = atoi(optarg);
			if (warmup < 0)
				die("--warmup %s: 0 or more", optarg);
			break;
		case 'f':
			first_rep = atoi(optarg);
			break;
		case 'p':
			pin = 1;
			break;
		default:
			exit(2);
		}
	}

	rcu_register_thread();
	radix_tree_init();

	printf("# build\t%s\n", ZS_BUILD_INFO);
	printf("# compiler\tgcc %s\n", __VERSION__);
	printf("# cflags\t%s\n", ZS_CFLAGS);
	printf("# xa_chunk_shift\t%d\n", XA_CHUNK_SHIFT);
	printf("# lock\t%s: %s\n", lock, ZS_LOCK_TEXT);
	printf("# rcu\tliburcu memb flavour, sys_membarrier %s\n",
	       urcu_memb_has_sys_membarrier ? "used (readers pay no fence)" :
	       "missing (a fence in every rcu_read_lock)");
	printf("# online_cpus\t%ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	printf("# pinned\t%s\n", pin ? "thread t on CPU t" : "no");
	printf("# reps\t%d\n", reps);
	printf("# warmup\t%d\n", warmup);
	printf("# tree_slots\t%lu\n", TREE_SLOTS);
	printf("# forms\t");
	for (i = 0; i < NR_FORMS; i++)
		printf("%s%s", i ? "," : "", forms[i].name);
	printf("\n");
	printf("# entry_free\tfree() of a malloc()ed %zu-byte object\n",
	       sizeof(struct zs_entry));
	printf("# sizeof_xarray\t%zu\n", sizeof(struct xarray));
	printf("# sizeof_padded_tree\t%zu\n", sizeof(struct padded_tree));
	printf("lock\tthreads\ttrees\trange\tentries\trep\tform\tthread\tslots\tns\tstart_ns\n");
	fflush(stdout);

	run = first_rep / reps;
	for (i = 0; i < nthreads; i++)
		for (s = 0; s < nsizes; s++)
			for (p = 1; p >= 0; p--)
				for (l = 0; l < (threads[i] > 1 ? NR_LAYOUTS : 1); l++) {
					struct config cfg = {
						.range = sizes[s], .present = p,
						.threads = threads[i],
						.layout = l == 0 ? LAYOUT_SAME :
							  (l + run) % 2 ? LAYOUT_OWN :
							  LAYOUT_PADDED,
					};

					fprintf(stderr, "zswap_forms: %d thread(s), %s tree, %d-slot ranges, entries %s\n",
						cfg.threads, layout_name[cfg.layout],
						cfg.range, p ? "present" : "absent");
					run_config(&cfg, lock);
				}
	rcu_barrier();
	rcu_unregister_thread();
	return 0;
}
