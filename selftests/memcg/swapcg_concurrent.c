// SPDX-License-Identifier: GPL-2.0
/*
 * swap_cgroup keeps the memcg id of each swap slot in 16 bits, two slots to
 * a 32-bit word (offsets 2k and 2k + 1). Swap out, swap in and free pages
 * of several memory cgroups at once, arranged so that the two slots of many
 * words belong to different memcgs and change on different CPUs at the same
 * time: an exchange of one id that is not atomic on the whole word loses
 * the other id, and its charge then stays with, or is taken from, the wrong
 * memcg.
 *
 * Every memcg gets a worker process with two threads, thread t pinned to
 * CPU t while pinned:
 *  - lockstep: the workers take turns on CPU 0 paging out one page each,
 *    so that consecutive slots from that CPU's slot cache go to different
 *    memcgs; pagemap tells how many words are split, and there must be some;
 *  - race rounds: memcg B pages out a run of pages on CPU x, then memcg A
 *    pages out the next slot, the neighbour of B's last one, on CPU x while
 *    B frees its run on the other CPU; a handshake starts both at once and
 *    a random delay on one side, up to the length of the other side's
 *    system call, sweeps all the ways the two can overlap;
 *  - free running, unpinned: each thread pages out, reads back and checks,
 *    drops and refills, rewrites and remaps random runs of its own pages.
 * After each phase every worker is parked and reads back its race pages,
 * which frees their slots: a slot whose id was lost can only be uncharged
 * from the wrong memcg, or not at all. Each memcg's memory.swap.current
 * must then equal the pages its worker has swapped out (pagemap; on swap
 * other than a ram disk or zram, pages read back may keep their slots in
 * the swap cache, so it may be more by the slot cache tolerance), and the
 * sum of all the swap in use over the baseline. At the end every page must
 * read back intact, and once the workers are gone every memory.swap.current
 * must be 0 and swap usage back at baseline.
 *
 * A plain read-modify-write of the word instead of an atomic exchange
 * loses an id only if the other CPU writes the word between its read and
 * its write: a few instructions, which a run catches only by luck. The
 * wider the window (an interrupt, a preempted vCPU, a delay put there on
 * purpose) and the more truly parallel the CPUs, the likelier the race
 * rounds are to catch it.
 *
 * Environment: SWAPCG_SECONDS (race rounds and free running, default 15,
 * at most 240), SWAPCG_GROUPS (memcgs, default 4), SWAPCG_PAGES (pages a
 * worker, default 2048), SWAPCG_LOCKSTEP (of which paged out in lockstep,
 * default 256), SWAPCG_CHECKPOINTS (default 3).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "zswap_util.h"
#include "swapcg_util.h"

#define SCG_NEEDS	(ZSW_NEED_ROOT | ZSW_NEED_SWAP | ZSW_NEED_MEMCG | \
			 ZSW_NEED_PAGEOUT)
#define SCG_MAX_GROUPS	16
#define SCG_THREADS	2	/* a worker's threads, one per CPU */
#define SCG_MAX_SECONDS	240
#define SCG_RACE_PAGES	64	/* a worker's pages for race rounds */
#define SCG_MAX_RUN	32	/* pages per random run */
#define SCG_MAX_B	8	/* pages B frees in a race round */
#define SCG_MAX_A	4	/* pages A pages out in a race round */
/* How long a worker may take to answer a command past its deadline */
#define SCG_GRACE	300

enum scg_cmd {
	SCG_LOCKSTEP = 1,
	SCG_REPORT,
	SCG_RACE,
	SCG_RUN,
	SCG_CHECK,
	SCG_VERIFY,
	SCG_EXIT,
};

/* What a worker did, shared with the parent */
struct scg_worker {
	long swapped;		/* its swapped-out pages, at SCG_CHECK */
	long bad_page;		/* first page that read back wrong, or -1 */
	int err;		/* errno of the first failed call */
	const char *what;	/* that call */
	long pageouts;
	long reads;
	long drops;
	uint32_t race_pos;	/* next page of its race area */
};

/* Shared by the parent and all workers */
struct scg_ctl {
	uint32_t mbox[SCG_MAX_GROUPS][SCG_THREADS];
	uint32_t acked;		/* threads done with the command */
	uint32_t cmd;
	uint32_t seq;		/* commands sent */
	uint32_t abort;
	uint32_t ngroups;
	uint32_t ncpus;		/* CPUs the pinned threads use: 1 or 2 */
	double deadline;
	unsigned long loops_per_us;
	uint32_t turn;		/* lockstep: pages paged out so far */
	/* race rounds: state is round * 4 + stage */
	uint32_t state;
	uint32_t ready;
	uint32_t go;
	uint32_t finished;
	uint32_t end;
	uint32_t a_first;
	uint32_t b_first;
	double us_a, us_b;	/* how long A's and B's system calls take */
	unsigned long delay_b;	/* B's delay in this round, microseconds */
	unsigned long b_last;	/* swap offset of B's last page */
	unsigned int b_type;
	bool b_out;		/* B's last page went out */
	long rounds;
	long contiguous;	/* rounds where B's slots were consecutive */
	long neighbours;	/* rounds where B's last and A's first slot
				 * shared a word
				 */
	long unsynced;		/* rounds where the handshake timed out */
	struct scg_worker w[SCG_MAX_GROUPS];
	struct scg_slot slots[];	/* lockstep pages, worker by worker */
};

FIXTURE(swapcg) {
	unsigned int ngroups;
	unsigned int seconds;
	unsigned int checkpoints;
	size_t npages;		/* a worker's pages */
	size_t lockstep;	/* [0, lockstep): paged out in lockstep */
	size_t race_first;	/* then SCG_RACE_PAGES for race rounds */
	size_t free_first;	/* the rest: free running, half a thread */
	size_t ctl_len;
	struct scg_ctl *ctl;
	struct zsw_counters base;
	pid_t pids[SCG_MAX_GROUPS];
	struct zsw_memcg cg[SCG_MAX_GROUPS];
};

/* A worker's private state */
struct scg_proc {
	FIXTURE_DATA(swapcg) *cfg;
	struct scg_ctl *ctl;
	unsigned int id;
	char *buf;
	uint32_t *gen;		/* page contents: 0 reads as zero */
};

struct scg_thr {
	struct scg_proc *p;
	unsigned int t;
	uint32_t seen;		/* mailbox value last seen */
	uint32_t done;		/* last command carried out */
	uint32_t acted;		/* race state last acted on, plus one */
	uint64_t seed;
};

/* What race round @round does */
struct scg_round {
	unsigned int x;		/* CPU where B and A page out */
	unsigned int a, b;	/* workers */
	unsigned int na, nb;	/* pages */
	double frac;		/* where in the sweep of B's delay, 0 to 1 */
};

static void scg_plan(const struct scg_ctl *ctl, uint32_t round,
		     struct scg_round *r)
{
	uint32_t n = ctl->ngroups;
	uint64_t h = scg_mix(round + 1);

	r->x = ctl->ncpus > 1 ? (h >> 40) & 1 : 0;
	r->b = round % n;
	r->a = (r->b + 1 + (round / n) % (n - 1)) % n;
	r->nb = 2 + h % (SCG_MAX_B - 1);
	r->na = 1 + (h >> 8) % SCG_MAX_A;
	r->frac = (double)((h >> 16) & 0xffff) / 0x10000;
}

/* A moving average of how long a system call took, in microseconds */
static void scg_took(double *avg, double t0)
{
	double us = (zsw_now() - t0) * 1e6;

	*avg = *avg ? (7 * *avg + us) / 8 : us;
}

static void scg_post_all(struct scg_ctl *ctl)
{
	unsigned int i, t;

	for (i = 0; i < ctl->ngroups; i++)
		for (t = 0; t < SCG_THREADS; t++)
			scg_post(&ctl->mbox[i][t]);
	scg_futex_wake(&ctl->acked, INT_MAX);
}

/* Record the first error of a worker and stop everybody. */
static bool scg_fail(struct scg_proc *p, int err, const char *what)
{
	struct scg_worker *w = &p->ctl->w[p->id];

	if (!w->err && w->bad_page < 0) {
		w->err = err;
		w->what = what;
		zsw_log("worker %u: %s: %s", p->id, what, strerror(err));
	}
	scg_store(&p->ctl->abort, 1);
	scg_post_all(p->ctl);
	return false;
}

static unsigned long scg_tag(const struct scg_proc *p, size_t i)
{
	return ((unsigned long)(p->id + 1) << 32) | p->gen[i];
}

/* Page @i must hold what was last written to it (swapping it in). */
static bool scg_page_ok(struct scg_proc *p, size_t i)
{
	struct scg_worker *w = &p->ctl->w[p->id];
	enum zsw_pattern pat = p->gen[i] ? ZSW_PAT_SPARSE : ZSW_PAT_ZERO;

	if (zsw_page_diff(p->buf + i * zsw_page_size(), pat, i,
			  scg_tag(p, i)) < 0)
		return true;
	zsw_log("worker %u (memcg %s): page %zu is not generation %u",
		p->id, p->cfg->cg[p->id].path, i, p->gen[i]);
	zsw_check_range(p->buf, i, 1, pat, scg_tag(p, i));
	if (w->bad_page < 0 && !w->err)
		w->bad_page = i;
	scg_store(&p->ctl->abort, 1);
	scg_post_all(p->ctl);
	return false;
}

static void scg_page_write(struct scg_proc *p, size_t i)
{
	if (!++p->gen[i])
		p->gen[i] = 1;
	zsw_fill_page(p->buf + i * zsw_page_size(), ZSW_PAT_SPARSE, i,
		      scg_tag(p, i));
}

/* Check pages [first, first + n) and write new contents. */
static bool scg_refresh(struct scg_proc *p, size_t first, size_t n)
{
	size_t i;

	for (i = first; i < first + n; i++) {
		if (!scg_page_ok(p, i))
			return false;
		scg_page_write(p, i);
	}
	__atomic_fetch_add(&p->ctl->w[p->id].reads, n, __ATOMIC_RELAXED);
	return true;
}

static bool scg_pageout(struct scg_proc *p, size_t first, size_t n)
{
	unsigned long ps = zsw_page_size();

	if (madvise(p->buf + first * ps, n * ps, MADV_PAGEOUT))
		return scg_fail(p, errno, "MADV_PAGEOUT");
	__atomic_fetch_add(&p->ctl->w[p->id].pageouts, n, __ATOMIC_RELAXED);
	return true;
}

/* Free pages [first, first + n): MADV_DONTNEED, or munmap and map again */
static bool scg_drop(struct scg_proc *p, size_t first, size_t n, bool remap)
{
	unsigned long ps = zsw_page_size();
	char *addr = p->buf + first * ps;
	size_t i;

	if (!remap) {
		if (madvise(addr, n * ps, MADV_DONTNEED))
			return scg_fail(p, errno, "MADV_DONTNEED");
	} else {
		if (munmap(addr, n * ps))
			return scg_fail(p, errno, "munmap");
		if (mmap(addr, n * ps, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != addr)
			return scg_fail(p, errno, "mmap MAP_FIXED");
		madvise(addr, n * ps, MADV_NOHUGEPAGE);
	}
	for (i = first; i < first + n; i++)
		p->gen[i] = 0;
	__atomic_fetch_add(&p->ctl->w[p->id].drops, n, __ATOMIC_RELAXED);
	return true;
}

static void scg_done(struct scg_ctl *ctl)
{
	scg_ack(&ctl->acked, ctl->ngroups * SCG_THREADS);
}

static int scg_pin(const struct scg_thr *th)
{
	return zsw_pin_cpu(th->t % th->p->ctl->ncpus);
}

/* Lockstep: page i of worker w goes out as turn i * ngroups + w. */
static void scg_lockstep(struct scg_thr *th)
{
	struct scg_proc *p = th->p;
	struct scg_ctl *ctl = p->ctl;
	uint32_t n = ctl->ngroups, next = (p->id + 1) % n;
	size_t i;

	if (zsw_pin_cpu(0)) {
		scg_fail(p, errno, "sched_setaffinity");
		return;
	}
	for (i = 0; i < p->cfg->lockstep; i++) {
		while (scg_load(&ctl->turn) != i * n + p->id)
			if (!scg_wait(&ctl->mbox[p->id][0], &th->seen,
				      &ctl->abort, 0))
				return;
		if (!scg_pageout(p, i, 1))
			return;
		scg_store(&ctl->turn, i * n + p->id + 1);
		scg_post(&ctl->mbox[next][0]);
	}
}

/* A run of @n pages of the worker's race area */
static size_t scg_race_range(struct scg_proc *p, unsigned int n)
{
	struct scg_worker *w = &p->ctl->w[p->id];
	size_t first = w->race_pos;

	if (first + n > SCG_RACE_PAGES)
		first = 0;
	w->race_pos = first + n;
	return p->cfg->race_first + first;
}

static void scg_set_state(struct scg_ctl *ctl, uint32_t round, uint32_t stage)
{
	scg_store(&ctl->state, round * 4 + stage);
}

/* Both sides of stage 2 are done: start the next round, or end. */
static void scg_round_done(struct scg_ctl *ctl, uint32_t round)
{
	struct scg_round r;

	if (scg_add(&ctl->finished, 1) != 2)
		return;
	__atomic_fetch_add(&ctl->rounds, 1, __ATOMIC_RELAXED);
	if (zsw_now() > ctl->deadline) {
		scg_store(&ctl->end, 1);
		scg_post_all(ctl);
		return;
	}
	scg_plan(ctl, round + 1, &r);
	scg_set_state(ctl, round + 1, 0);
	scg_post(&ctl->mbox[r.a][r.x]);
}

/* Stage 0, A on CPU x: read back and rewrite the pages it will page out. */
static void scg_stage_a_prepare(struct scg_thr *th, uint32_t round,
				const struct scg_round *r)
{
	struct scg_proc *p = th->p;
	struct scg_ctl *ctl = p->ctl;
	size_t first = scg_race_range(p, r->na);

	if (!scg_refresh(p, first, r->na))
		return;
	ctl->a_first = first;
	scg_set_state(ctl, round, 1);
	scg_post(&ctl->mbox[r->b][r->x]);
}

/* Stage 1, B on CPU x: page out a run; its slots are the latest. */
static void scg_stage_b_pageout(struct scg_thr *th, uint32_t round,
				const struct scg_round *r)
{
	struct scg_proc *p = th->p;
	struct scg_ctl *ctl = p->ctl;
	size_t first = scg_race_range(p, r->nb);
	struct scg_slot s[SCG_MAX_B];
	unsigned int i;
	bool contig;

	if (!scg_refresh(p, first, r->nb) || !scg_pageout(p, first, r->nb))
		return;
	if (scg_slots_of(p->buf + first * zsw_page_size(), r->nb, 0, s)) {
		scg_fail(p, errno, "pagemap");
		return;
	}
	contig = s[0].owner == 0;
	for (i = 1; i < r->nb; i++)
		contig &= s[i].owner == 0 && s[i].type == s[0].type &&
			  s[i].off == s[0].off + i;
	if (contig)
		__atomic_fetch_add(&ctl->contiguous, 1, __ATOMIC_RELAXED);
	ctl->b_first = first;
	ctl->b_out = s[r->nb - 1].owner == 0;
	ctl->b_last = s[r->nb - 1].off;
	ctl->b_type = s[r->nb - 1].type;
	scg_store(&ctl->ready, 0);
	scg_store(&ctl->go, 0);
	scg_store(&ctl->finished, 0);
	scg_set_state(ctl, round, 2);
	/* The other CPU first: its wake-up takes longer. */
	scg_post(&ctl->mbox[r->b][!r->x]);
	scg_post(&ctl->mbox[r->a][r->x]);
}

/* Stage 2, B on the other CPU: free the run the moment A pages out. */
static void scg_stage_b_free(struct scg_thr *th, uint32_t round,
			     const struct scg_round *r)
{
	struct scg_proc *p = th->p;
	struct scg_ctl *ctl = p->ctl;
	double t0;

	scg_store(&ctl->ready, round + 1);
	/* On one CPU the other side cannot run while this one spins. */
	if (ctl->ncpus > 1 &&
	    !scg_spin_until(&ctl->go, round + 1, &ctl->abort, 1.0))
		__atomic_fetch_add(&ctl->unsynced, 1, __ATOMIC_RELAXED);
	scg_delay(ctl->delay_b * ctl->loops_per_us);
	t0 = zsw_now();
	if (!scg_drop(p, ctl->b_first, r->nb, false))
		return;
	scg_took(&ctl->us_b, t0);
	scg_round_done(ctl, round);
}

/* Stage 2, A on CPU x: page out into the slots next to B's. */
static void scg_stage_a_pageout(struct scg_thr *th, uint32_t round,
				const struct scg_round *r)
{
	struct scg_proc *p = th->p;
	struct scg_ctl *ctl = p->ctl;
	struct scg_slot s;
	double off, t0;

	/*
	 * B's free clears its last id late in its system call, A's page-out
	 * records the neighbour somewhere in its own: B may have to start
	 * up to its length earlier than A, or up to A's length later.
	 */
	off = r->frac * (ctl->us_a + ctl->us_b) - ctl->us_b;
	ctl->delay_b = off > 0 ? off : 0;
	if (ctl->ncpus > 1 &&
	    !scg_spin_until(&ctl->ready, round + 1, &ctl->abort, 1.0))
		__atomic_fetch_add(&ctl->unsynced, 1, __ATOMIC_RELAXED);
	scg_store(&ctl->go, round + 1);
	scg_delay((off < 0 ? -off : 0) * ctl->loops_per_us);
	t0 = zsw_now();
	if (!scg_pageout(p, ctl->a_first, r->na))
		return;
	scg_took(&ctl->us_a, t0);
	if (scg_slots_of(p->buf + ctl->a_first * zsw_page_size(), 1, 0, &s)) {
		scg_fail(p, errno, "pagemap");
		return;
	}
	if (ctl->b_out && !s.owner && s.type == ctl->b_type &&
	    s.off == ctl->b_last + 1 && !(ctl->b_last % 2))
		__atomic_fetch_add(&ctl->neighbours, 1, __ATOMIC_RELAXED);
	scg_round_done(ctl, round);
}

static void scg_race(struct scg_thr *th)
{
	struct scg_proc *p = th->p;
	struct scg_ctl *ctl = p->ctl;
	uint32_t state, round, stage;
	struct scg_round r;

	if (scg_pin(th)) {
		scg_fail(p, errno, "sched_setaffinity");
		return;
	}
	for (;;) {
		if (scg_load(&ctl->end) || scg_load(&ctl->abort))
			return;
		state = scg_load(&ctl->state);
		round = state / 4;
		stage = state % 4;
		scg_plan(ctl, round, &r);
		if (th->acted != state + 1) {
			th->acted = state + 1;
			if (stage == 0 && p->id == r.a && th->t == r.x) {
				scg_stage_a_prepare(th, round, &r);
				continue;
			}
			if (stage == 1 && p->id == r.b && th->t == r.x) {
				scg_stage_b_pageout(th, round, &r);
				continue;
			}
			if (stage == 2 && p->id == r.b && th->t != r.x) {
				scg_stage_b_free(th, round, &r);
				continue;
			}
			if (stage == 2 && p->id == r.a && th->t == r.x) {
				scg_stage_a_pageout(th, round, &r);
				continue;
			}
		}
		scg_wait(&ctl->mbox[p->id][th->t], &th->seen, &ctl->abort, 0);
	}
}

/* Pages [*lo, *hi) are the thread's own while running free. */
static void scg_free_range(const struct scg_thr *th, size_t *lo, size_t *hi)
{
	const FIXTURE_DATA(swapcg) *cfg = th->p->cfg;
	size_t half = (cfg->npages - cfg->free_first) / 2;

	*lo = cfg->free_first + th->t * half;
	*hi = th->t ? cfg->npages : *lo + half;
}

static void scg_run(struct scg_thr *th)
{
	struct scg_proc *p = th->p;
	struct scg_ctl *ctl = p->ctl;
	size_t lo, hi, first, n, i;

	if (zsw_pin_cpu(-1)) {
		scg_fail(p, errno, "sched_setaffinity");
		return;
	}
	scg_free_range(th, &lo, &hi);
	while (zsw_now() < ctl->deadline && !scg_load(&ctl->abort)) {
		first = lo + scg_rnd(&th->seed) % (hi - lo);
		n = 1 + scg_rnd(&th->seed) % SCG_MAX_RUN;
		if (first + n > hi)
			n = hi - first;
		switch (scg_rnd(&th->seed) % 10) {
		case 0:
		case 1:
		case 2:
			if (!scg_pageout(p, first, n))
				return;
			break;
		case 3:
			/* Single pages: slots interleave with other memcgs'. */
			for (i = first; i < first + n; i += 2)
				if (!scg_pageout(p, i, 1))
					return;
			break;
		case 4:
		case 5:
			for (i = 0; i < 8; i++)
				if (!scg_page_ok(p, lo + scg_rnd(&th->seed) %
						 (hi - lo)))
					return;
			__atomic_fetch_add(&ctl->w[p->id].reads, 8,
					   __ATOMIC_RELAXED);
			break;
		case 6:
		case 7:
			if (!scg_drop(p, first, n, scg_rnd(&th->seed) % 4 == 0))
				return;
			/* Dropped pages read as zero, then get new data. */
			if (!scg_refresh(p, first, n))
				return;
			break;
		default:
			if (!scg_refresh(p, first, n))
				return;
			break;
		}
	}
}

/*
 * Parked for a checkpoint. A slot whose id was lost only shows when it is
 * freed: read back (swap in) the race area first, then count what is out.
 */
static void scg_check(struct scg_thr *th)
{
	struct scg_proc *p = th->p;
	size_t i;

	if (th->t)
		return;
	for (i = 0; i < SCG_RACE_PAGES; i++)
		if (!scg_page_ok(p, p->cfg->race_first + i))
			return;
	p->ctl->w[p->id].swapped = zsw_count_swapped(p->buf, p->cfg->npages);
}

/* Read back every page the thread owns. */
static void scg_verify(struct scg_thr *th)
{
	struct scg_proc *p = th->p;
	size_t lo, hi, i;

	scg_free_range(th, &lo, &hi);
	if (!th->t)
		lo = 0;
	for (i = lo; i < hi; i++)
		if (!scg_page_ok(p, i))
			return;
	__atomic_fetch_add(&p->ctl->w[p->id].reads, hi - lo, __ATOMIC_RELAXED);
}

static void *scg_thread(void *arg)
{
	struct scg_thr *th = arg;
	struct scg_proc *p = th->p;
	struct scg_ctl *ctl = p->ctl;
	uint32_t *mbox = &ctl->mbox[p->id][th->t];

	scg_done(ctl);	/* ready */
	for (;;) {
		if (!scg_next_cmd(mbox, &th->seen, &ctl->seq, &th->done,
				  &ctl->abort))
			return NULL;
		switch (scg_load(&ctl->cmd)) {
		case SCG_LOCKSTEP:
			if (!th->t)
				scg_lockstep(th);
			break;
		case SCG_REPORT:
			if (!th->t && scg_slots_of(p->buf, p->cfg->lockstep,
						   p->id, ctl->slots +
						   p->id * p->cfg->lockstep))
				scg_fail(p, errno, "pagemap");
			break;
		case SCG_RACE:
			scg_race(th);
			break;
		case SCG_RUN:
			scg_run(th);
			break;
		case SCG_CHECK:
			scg_check(th);
			break;
		case SCG_VERIFY:
			scg_verify(th);
			break;
		case SCG_EXIT:
			return NULL;
		}
		if (scg_load(&ctl->abort))
			return NULL;
		scg_done(ctl);
	}
}

/* What cg_run_nowait() hands a worker, in its copy of the test's memory */
struct scg_start {
	FIXTURE_DATA(swapcg) *self;
	unsigned int id;
};

/* A worker, started in its memcg by cg_run_nowait() */
static int scg_worker_main(const char *cgroup, void *arg)
{
	FIXTURE_DATA(swapcg) *self = ((struct scg_start *)arg)->self;
	unsigned int id = ((struct scg_start *)arg)->id;
	struct scg_proc p = { .ctl = self->ctl, .cfg = self, .id = id };
	struct scg_thr th[SCG_THREADS];
	pthread_t tid;
	unsigned int t;
	size_t i;

	(void)cgroup;
	/* Never outlive the test, whatever happens to it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	p.buf = zsw_map(self->npages * zsw_page_size());
	p.gen = calloc(self->npages, sizeof(*p.gen));
	if (!p.buf || !p.gen) {
		scg_fail(&p, ENOMEM, "allocating the region");
		return 1;
	}
	for (i = 0; i < self->npages; i++)
		scg_page_write(&p, i);
	for (t = 0; t < SCG_THREADS; t++) {
		th[t] = (struct scg_thr) {
			.p = &p,
			.t = t,
			.seen = scg_load(&self->ctl->mbox[id][t]),
			.seed = scg_mix((id + 1) * 131 + t) | 1,
		};
	}
	if (pthread_create(&tid, NULL, scg_thread, &th[1])) {
		scg_fail(&p, EAGAIN, "pthread_create");
		return 1;
	}
	scg_thread(&th[0]);
	pthread_join(tid, NULL);
	return self->ctl->w[id].err || self->ctl->w[id].bad_page >= 0;
}

FIXTURE_SETUP(swapcg)
{
	unsigned long pages;

	memset(self->pids, 0, sizeof(self->pids));
	memset(self->cg, 0, sizeof(self->cg));
	self->ctl = NULL;
	self->ngroups = zsw_env_ulong("SWAPCG_GROUPS", 4);
	if (self->ngroups < 2)
		self->ngroups = 2;
	if (self->ngroups > SCG_MAX_GROUPS)
		self->ngroups = SCG_MAX_GROUPS;
	self->seconds = zsw_env_ulong("SWAPCG_SECONDS", 15);
	if (self->seconds > SCG_MAX_SECONDS)
		self->seconds = SCG_MAX_SECONDS;
	if (!self->seconds)
		self->seconds = 1;
	self->checkpoints = zsw_env_ulong("SWAPCG_CHECKPOINTS", 3);
	if (!self->checkpoints)
		self->checkpoints = 1;
	self->lockstep = zsw_env_ulong("SWAPCG_LOCKSTEP", 256);
	if (!self->lockstep)
		self->lockstep = 1;
	pages = zsw_env_ulong("SWAPCG_PAGES", 2048);
	/* At least a run of SCG_MAX_RUN for each free-running thread */
	if (pages < self->lockstep + SCG_RACE_PAGES + 2 * SCG_MAX_RUN)
		pages = self->lockstep + SCG_RACE_PAGES + 2 * SCG_MAX_RUN;
	self->npages = pages;
	self->race_first = self->lockstep;
	self->free_first = self->race_first + SCG_RACE_PAGES;
}

FIXTURE_TEARDOWN(swapcg)
{
	unsigned int i;

	if (self->ctl)
		scg_store(&self->ctl->abort, 1);
	for (i = 0; i < self->ngroups; i++) {
		if (self->pids[i] <= 0)
			continue;
		kill(self->pids[i], SIGKILL);
		waitpid(self->pids[i], NULL, 0);
	}
	/* cg_destroy() also kills what a worker may have left behind. */
	for (i = 0; i < self->ngroups; i++)
		zsw_memcg_destroy(&self->cg[i]);
	if (self->ctl)
		munmap(self->ctl, self->ctl_len);
}

/* A worker that exited or was killed: log it, false */
static bool scg_reap(FIXTURE_DATA(swapcg) *self)
{
	unsigned int i;
	int status;

	for (i = 0; i < self->ngroups; i++) {
		if (self->pids[i] <= 0 ||
		    waitpid(self->pids[i], &status, WNOHANG) != self->pids[i])
			continue;
		zsw_log("worker %u ended early, status 0x%x", i, status);
		self->pids[i] = 0;
		return false;
	}
	return true;
}

/* Wait until every thread has acknowledged; false if one failed */
static bool scg_wait_acks(FIXTURE_DATA(swapcg) *self, double deadline)
{
	struct scg_ctl *ctl = self->ctl;
	uint32_t a;

	while ((a = scg_load(&ctl->acked)) != self->ngroups * SCG_THREADS) {
		if (scg_load(&ctl->abort) || !scg_reap(self))
			return false;
		if (zsw_now() > deadline) {
			zsw_log("workers did not answer in time");
			return false;
		}
		scg_futex_wait(&ctl->acked, a);
	}
	return !scg_load(&ctl->abort);
}

/* Have every worker thread carry out @cmd, for @seconds where it runs. */
static bool scg_command(FIXTURE_DATA(swapcg) *self, enum scg_cmd cmd,
			double seconds)
{
	struct scg_ctl *ctl = self->ctl;

	ctl->deadline = zsw_now() + seconds;
	scg_store(&ctl->acked, 0);
	scg_store(&ctl->cmd, cmd);
	scg_add(&ctl->seq, 1);
	scg_post_all(ctl);
	return scg_wait_acks(self, ctl->deadline + SCG_GRACE);
}

/* Say what went wrong in a worker. */
static void scg_report_workers(struct __test_metadata *_metadata,
			       FIXTURE_DATA(swapcg) *self)
{
	unsigned int i;

	for (i = 0; i < self->ngroups; i++) {
		const struct scg_worker *w = &self->ctl->w[i];

		EXPECT_EQ(-1, w->bad_page)
			TH_LOG("memcg %u: page %ld read back wrong", i,
			       w->bad_page);
		EXPECT_EQ(0, w->err)
			TH_LOG("memcg %u: %s failed: %s", i,
			       w->what ? w->what : "?", strerror(w->err));
	}
}

static void scg_run_command(struct __test_metadata *_metadata,
			    FIXTURE_DATA(swapcg) *self, enum scg_cmd cmd,
			    double seconds, const char *what)
{
	bool ok = scg_command(self, cmd, seconds);

	if (!ok)
		scg_report_workers(_metadata, self);
	ASSERT_TRUE(ok)
		TH_LOG("%s: the workers stopped", what);
}

/*
 * All workers are parked: every memcg's swap charge must be what its worker
 * has swapped out, and all of them together the swap in use. A page read
 * back from a disk can keep its slot, and the charge, in the swap cache;
 * from a ram disk or zram it cannot.
 */
static void scg_checkpoint(struct __test_metadata *_metadata,
			   FIXTURE_DATA(swapcg) *self, const char *what)
{
	long cur, swapped, sum = 0, nsw = 0, used, tol = zsw_tolerance();
	long slack = zsw_swap_synchronous() ? 0 : tol;
	unsigned long ps = zsw_page_size();
	unsigned int i;

	scg_run_command(_metadata, self, SCG_CHECK, 0, what);
	/* Slots freed into a per-CPU cache are still charged: flush. */
	ASSERT_EQ(0, zsw_flush_freed_slots())
		TH_LOG("%s: could not flush the per-CPU slot caches", what);
	for (i = 0; i < self->ngroups; i++) {
		swapped = self->ctl->w[i].swapped;
		cur = cg_read_long(self->cg[i].path, "memory.swap.current");
		ASSERT_GE(swapped, 0);
		ASSERT_GE(cur, 0)
			TH_LOG("%s: cannot read %s/memory.swap.current", what,
			       self->cg[i].path);
		cur /= ps;
		if (cur != swapped)
			TH_LOG("%s: memcg %u: swap.current %ld pages, %ld swapped out",
			       what, i, cur, swapped);
		ASSERT_GE(cur, swapped)
			TH_LOG("%s: memcg %u was uncharged for swap it still uses",
			       what, i);
		ASSERT_LE(cur, swapped + slack)
			TH_LOG("%s: memcg %u keeps swap charges of freed slots",
			       what, i);
		sum += cur;
		nsw += swapped;
	}
	used = zsw_swap_used_pages() - self->base.used;
	TH_LOG("%s: %ld pages swapped out, charged %ld, swap used +%ld",
	       what, nsw, sum, used);
	ASSERT_LE(labs(used - sum), tol)
		TH_LOG("%s: swap in use grew by %ld pages, the memcgs are charged for %ld",
		       what, used, sum);
}

TEST_F_TIMEOUT(swapcg, concurrent, SCG_MAX_SECONDS + 600)
{
	size_t nslots = self->ngroups * self->lockstep;
	long online = sysconf(_SC_NPROCESSORS_ONLN), pairs, split, cur;
	struct scg_start start = { .self = self };
	unsigned int i, c, leaked = 0;
	struct scg_ctl *ctl;
	double slice;
	char name[64];
	int status, ret;

	if (!zsw_require(_metadata, SCG_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, self->ngroups * self->npages +
				   zsw_tolerance()))
		return;
	if (online < 2)
		TH_LOG("one CPU: nothing runs in parallel");

	self->ctl_len = sizeof(*ctl) + nslots * sizeof(ctl->slots[0]);
	ctl = mmap(NULL, self->ctl_len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ctl);
	self->ctl = ctl;
	memset(ctl, 0, self->ctl_len);
	ctl->ngroups = self->ngroups;
	ctl->ncpus = online < 2 ? 1 : 2;
	ctl->loops_per_us = scg_loops_per_us();
	for (i = 0; i < self->ngroups; i++)
		ctl->w[i].bad_page = -1;

	zsw_counters(&self->base);
	for (i = 0; i < self->ngroups; i++) {
		snprintf(name, sizeof(name), "swapcg_concurrent_%u", i);
		/* No limit: only swap.current is looked at. */
		ret = zsw_memcg_create(&self->cg[i], name, 1UL << 40);
		ASSERT_EQ(0, ret)
			TH_LOG("creating memcg %s: %s", name, strerror(-ret));
	}
	TH_LOG("%u memcgs, %zu pages each, %zu in lockstep; %u s on %u CPUs, %u checkpoints",
	       self->ngroups, self->npages, self->lockstep, self->seconds,
	       ctl->ncpus, self->checkpoints);
	for (i = 0; i < self->ngroups; i++) {
		start.id = i;
		self->pids[i] = cg_run_nowait(self->cg[i].path,
					      scg_worker_main, &start);
		ASSERT_LT(0, self->pids[i]);
	}
	/* Every thread acknowledges once its pages are filled. */
	if (!scg_wait_acks(self, zsw_now() + SCG_GRACE))
		scg_report_workers(_metadata, self);
	ASSERT_TRUE(scg_load(&ctl->acked) == self->ngroups * SCG_THREADS &&
		    !scg_load(&ctl->abort))
		TH_LOG("the workers did not start");

	/* Neighbouring slots for different memcgs */
	scg_run_command(_metadata, self, SCG_LOCKSTEP, 0, "lockstep");
	scg_run_command(_metadata, self, SCG_REPORT, 0, "lockstep report");
	split = scg_split_pairs(ctl->slots, nslots, &pairs);
	TH_LOG("lockstep: %ld of %ld words of the swap_cgroup map hold two memcgs (%zu pages)",
	       split, pairs, nslots);
	ASSERT_GT(split, 0)
		TH_LOG("no two neighbouring swap slots went to different memcgs");
	scg_checkpoint(_metadata, self, "after lockstep");

	/* Two thirds for race rounds: only they pit neighbours in a word. */
	slice = (double)self->seconds / self->checkpoints / 3;
	for (c = 1; c <= self->checkpoints; c++) {
		/* Race rounds go on from the next round. */
		if (c > 1)
			scg_set_state(ctl, ctl->state / 4 + 1, 0);
		scg_store(&ctl->end, 0);
		scg_run_command(_metadata, self, SCG_RACE, 2 * slice,
				"race rounds");
		snprintf(name, sizeof(name), "race rounds %u", c);
		scg_checkpoint(_metadata, self, name);
		scg_run_command(_metadata, self, SCG_RUN, slice, "free running");
		snprintf(name, sizeof(name), "free running %u", c);
		scg_checkpoint(_metadata, self, name);
	}
	TH_LOG("race rounds: %ld, B's slots in a row in %ld, sharing a word with A's in %ld",
	       ctl->rounds, ctl->contiguous, ctl->neighbours);
	TH_LOG("race rounds: system calls of A %.0f us, B %.0f us; %ld handshakes timed out",
	       ctl->us_a, ctl->us_b, ctl->unsynced);
	for (i = 0; i < self->ngroups; i++)
		TH_LOG("memcg %u: %ld pages paged out, %ld read back, %ld dropped",
		       i, ctl->w[i].pageouts, ctl->w[i].reads, ctl->w[i].drops);

	scg_run_command(_metadata, self, SCG_VERIFY, 0, "final read-back");
	/* Workers exit as they get it: wait for them, not for answers. */
	scg_store(&ctl->cmd, SCG_EXIT);
	scg_add(&ctl->seq, 1);
	scg_post_all(ctl);
	for (i = 0; i < self->ngroups; i++) {
		ASSERT_EQ(self->pids[i], waitpid(self->pids[i], &status, 0));
		self->pids[i] = 0;
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("worker %u exited with status 0x%x", i, status);
	}

	/* Nothing swapped out is left: no memcg may keep a swap charge. */
	ASSERT_EQ(0, zsw_flush_freed_slots());
	for (i = 0; i < self->ngroups; i++) {
		cur = cg_read_long(self->cg[i].path, "memory.swap.current");
		TH_LOG("memcg %u: swap.current %ld after its worker exited",
		       i, cur);
		if (cur)
			leaked++;
	}
	ASSERT_EQ(0, leaked)
		TH_LOG("%u memcgs kept a swap charge with nothing swapped out",
		       leaked);
	for (i = 0; i < self->ngroups; i++)
		zsw_memcg_destroy(&self->cg[i]);
	zsw_assert_baseline(_metadata, &self->base, "all exited");
}

TEST_HARNESS_MAIN
