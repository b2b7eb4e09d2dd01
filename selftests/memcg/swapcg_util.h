/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the swap_cgroup selftests: futex mailboxes for worker
 * processes and threads that take turns, a calibrated busy wait, and the
 * count of neighbouring swap slots (offsets 2k and 2k + 1, which share one
 * word of the swap_cgroup map) that belong to different memory cgroups.
 *
 * Include after zswap_util.h, which provides the generic helpers.
 */
#ifndef __SWAPCG_UTIL_H
#define __SWAPCG_UTIL_H

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>

/* How long a waiter sleeps before it looks at its abort flag again */
#define SCG_WAIT_NS		100000000L

static inline uint32_t scg_load(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void scg_store(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline uint32_t scg_add(uint32_t *p, uint32_t v)
{
	return __atomic_add_fetch(p, v, __ATOMIC_ACQ_REL);
}

/* Futexes on MAP_SHARED memory: not FUTEX_PRIVATE_FLAG. */
static inline void scg_futex_wait(uint32_t *p, uint32_t val)
{
	struct timespec ts = { .tv_nsec = SCG_WAIT_NS };

	syscall(SYS_futex, p, FUTEX_WAIT, val, &ts, NULL, 0);
}

static inline void scg_futex_wake(uint32_t *p, int n)
{
	syscall(SYS_futex, p, FUTEX_WAKE, n, NULL, NULL, 0);
}

/*
 * A mailbox: one futex word per waiter. Posting bumps it and wakes the
 * waiter, which then reads what to do from memory both share.
 */
static inline void scg_post(uint32_t *mbox)
{
	scg_add(mbox, 1);
	scg_futex_wake(mbox, 1);
}

/*
 * Sleep until @mbox differs from *@seen, or *@abort is set, or the
 * deadline passes (0: none). Updates *@seen; returns false on abort or
 * timeout.
 */
static inline bool scg_wait(uint32_t *mbox, uint32_t *seen,
			    const uint32_t *abort, double deadline)
{
	uint32_t v;

	for (;;) {
		v = scg_load(mbox);
		if (v != *seen) {
			*seen = v;
			return true;
		}
		if (scg_load(abort) || (deadline && zsw_now() > deadline))
			return false;
		scg_futex_wait(mbox, v);
	}
}

/*
 * Wait for the next command in a mailbox: *@seq counts the commands sent,
 * *@done is the last one carried out, so that posts left over from taking
 * turns are skipped. Returns false on abort.
 */
static inline bool scg_next_cmd(uint32_t *mbox, uint32_t *seen,
				const uint32_t *seq, uint32_t *done,
				const uint32_t *abort)
{
	while (scg_load(seq) == *done)
		if (!scg_wait(mbox, seen, abort, 0))
			return false;
	*done = scg_load(seq);
	return true;
}

/* One more of @total has answered; the last one wakes the waiter. */
static inline void scg_ack(uint32_t *acked, uint32_t total)
{
	if (scg_add(acked, 1) == total)
		scg_futex_wake(acked, INT_MAX);
}

/* Spin until *@p == @val; false on abort or after @max_s seconds */
static inline bool scg_spin_until(const uint32_t *p, uint32_t val,
				  const uint32_t *abort, double max_s)
{
	double end = 0;
	unsigned long n;

	for (n = 1; scg_load(p) != val; n++) {
		if (n % 4096)
			continue;
		if (scg_load(abort))
			return false;
		if (!end)
			end = zsw_now() + max_s;
		else if (zsw_now() > end)
			return false;
	}
	return true;
}

/* A busy wait of @loops iterations that the compiler keeps */
static inline void scg_delay(unsigned long loops)
{
	while (loops--)
		__asm__ __volatile__("" ::: "memory");
}

/* scg_delay() loops per microsecond on this machine, at least 1 */
static inline unsigned long scg_loops_per_us(void)
{
	unsigned long loops = 1000000;
	double t0, t;

	t0 = zsw_now();
	scg_delay(loops);
	t = zsw_now() - t0;
	if (t <= 0)
		return 1000;
	t = loops / (t * 1e6);
	return t < 1 ? 1 : (unsigned long)t;
}

static inline uint64_t scg_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* xorshift64; *@s must not be 0 */
static inline uint64_t scg_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A swap slot and the memcg (index) whose page went there */
struct scg_slot {
	unsigned long off;
	unsigned int type;
	int owner;		/* -1: the page was not swapped out */
};

static inline int scg_slot_cmp(const void *a, const void *b)
{
	const struct scg_slot *x = a, *y = b;

	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return 0;
}

/*
 * Sort @slots and count the words of the swap_cgroup map (slots 2k and
 * 2k + 1) whose two slots are both used here: *@pairs in all, the return
 * value where the two belong to different owners.
 */
static inline long scg_split_pairs(struct scg_slot *slots, size_t n,
				   long *pairs)
{
	long split = 0;
	size_t i;

	qsort(slots, n, sizeof(*slots), scg_slot_cmp);
	*pairs = 0;
	for (i = 0; i + 1 < n; i++) {
		const struct scg_slot *s = &slots[i], *t = &slots[i + 1];

		if (s->owner < 0 || t->owner < 0 || s->type != t->type ||
		    s->off % 2 || t->off != s->off + 1)
			continue;
		(*pairs)++;
		split += s->owner != t->owner;
	}
	return split;
}

/* Record where page @i of @npages at @buf went, as owned by @owner. */
static inline int scg_slots_of(char *buf, size_t npages, int owner,
			       struct scg_slot *slots)
{
	uint64_t *ents;
	size_t i;
	int ret;

	ents = malloc(npages * sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	ret = zsw_pagemap_entries(buf, npages, ents);
	for (i = 0; !ret && i < npages; i++) {
		slots[i].owner = ents[i] & PM_SWAP ? owner : -1;
		slots[i].type = PM_SWAP_TYPE(ents[i]);
		slots[i].off = PM_SWAP_OFFSET(ents[i]);
	}
	free(ents);
	return ret;
}

#endif /* __SWAPCG_UTIL_H */
