// SPDX-License-Identifier: GPL-2.0
/*
 * memcg v1 charge moving of swap entries (memory.move_charge_at_immigrate),
 * the one user of swap_cgroup_cmpxchg() in v6.12: a process in memcg A
 * swaps out pages and moves to memcg B, back to A and so on, ending in B.
 * With MOVE_ANON (bit 0) set in move_charge_at_immigrate the swap charge
 * of those pages, memsw usage minus memory usage, must follow it to B;
 * without it, it must stay with A.
 *
 * A neighbour process in memcg C first takes turns with the mover on one
 * CPU, one page each, so that the slots next to many of the mover's hold
 * C's id in the same word of the swap_cgroup map. While the charge moves,
 * C keeps reading back and paging out its pages on the other CPU, freeing
 * and taking slots next to the mover's: its charge must stay exactly what
 * it has swapped out. Once all pages are read back and freed every charge
 * is gone.
 *
 * Needs the memory controller on a cgroup v1 hierarchy. One that is
 * mounted is used, else one is mounted here; that fails with EBUSY once
 * cgroup v2 has used the controller (a memcg below its root, even a dying
 * one), so the guest runs this in a boot of its own (zs.cgroup=none).
 *
 * Environment: SWAPCG_V1_PAGES (the mover's pages, default 2048),
 * SWAPCG_LOCKSTEP (of which paged out taking turns with C, default 256),
 * SWAPCG_V1_MOVES (round trips from B to A before the last move to B,
 * default 5).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "zswap_util.h"
#include "swapcg_util.h"

#define V1_NEEDS	(ZSW_NEED_ROOT | ZSW_NEED_SWAP | ZSW_NEED_PAGEOUT)
#define V1_MNT		"/tmp/swapcg_v1"
#define V1_MOVE_ANON	1
#define V1_WHY_BUSY	"the memory controller is in use by cgroup v2, which has memcgs below its root: needs a boot that leaves it to cgroup v1 (zs.cgroup=none)"
#define V1_WHY_NONE	"no cgroup v1 memory controller (CONFIG_MEMCG_V1=n, or cgroup_no_v1= on the command line)"
#define V1_WHY_NOMOVE	"this kernel has no memory.move_charge_at_immigrate (charge moving was removed in v6.13)"
#define V1_WHY_NOTMOVING "this kernel no longer moves charges: memory.move_charge_at_immigrate takes only 0 (writing a move mode returns EINVAL)"
#define V1_WHY_NOMEMSW	"no memory.memsw.* files: swap accounting is off (swapaccount=0) or not built"

/* Pages a charge may be off by: none is expected once slots are flushed */
#define V1_SLACK	4
#define V1_GRACE	300	/* seconds a child may take to answer */

enum { V1_MOVER, V1_NEIGHBOUR, V1_CHILDREN };

enum v1_cmd {
	V1_LOCKSTEP = 1,
	V1_REPORT,
	V1_CHURN,
	V1_VERIFY,
	V1_EXIT,
};

/* Shared by the parent and the two children */
struct v1_ctl {
	uint32_t mbox[V1_CHILDREN];
	uint32_t acked;
	uint32_t cmd;
	uint32_t seq;		/* commands sent */
	uint32_t abort;
	uint32_t turn;
	uint32_t stop;		/* ends V1_CHURN */
	long swapped[V1_CHILDREN];	/* at V1_REPORT */
	long bad_page[V1_CHILDREN];
	int err[V1_CHILDREN];
	const char *what[V1_CHILDREN];
	long churns;
	struct scg_slot slots[];	/* lockstep pages, child by child */
};

FIXTURE(v1move) {
	char root[ZSW_PATH_LEN];
	bool mounted;
	size_t npages;
	size_t lockstep;
	size_t ctl_len;
	struct v1_ctl *ctl;
	struct zsw_memcg a, b, c;
	pid_t pids[V1_CHILDREN];
};

FIXTURE_VARIANT(v1move) {
	unsigned int move;	/* B's move_charge_at_immigrate */
};

/* The value of the documented example, anon and file pages */
FIXTURE_VARIANT_ADD(v1move, anon_and_file) {
	.move = 3,
};

/* File pages only: swapped-out anon pages stay */
FIXTURE_VARIANT_ADD(v1move, file_only) {
	.move = 2,
};

FIXTURE_VARIANT_ADD(v1move, off) {
	.move = 0,
};

/* A v1 memory hierarchy in the mount table, if any */
static bool v1_find(char *root, size_t len)
{
	char dev[64], dir[ZSW_PATH_LEN], type[64], opts[512], *tok, *save;
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/mounts", "r");
	if (!f)
		return false;
	while (!found && fscanf(f, "%63s %255s %63s %511s %*d %*d", dev, dir,
				type, opts) == 4) {
		if (strcmp(type, "cgroup"))
			continue;
		for (tok = strtok_r(opts, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			if (!strcmp(tok, "memory"))
				found = true;
	}
	fclose(f);
	if (found)
		snprintf(root, len, "%s", dir);
	return found;
}

/* Find or mount the v1 memory hierarchy; NULL, or why there is none */
static const char *v1_root(FIXTURE_DATA(v1move) *self)
{
	static char why[128];
	int err;

	if (v1_find(self->root, sizeof(self->root)))
		return NULL;
	if (mkdir(V1_MNT, 0755) && errno != EEXIST) {
		snprintf(why, sizeof(why), "mkdir %s: %s", V1_MNT,
			 strerror(errno));
		return why;
	}
	if (!mount("none", V1_MNT, "cgroup", 0, "memory")) {
		self->mounted = true;
		snprintf(self->root, sizeof(self->root), "%s", V1_MNT);
		return NULL;
	}
	err = errno;
	rmdir(V1_MNT);
	switch (err) {
	case EBUSY:
		return V1_WHY_BUSY;
	case EINVAL:
	case ENODEV:
	case ENOENT:
		return V1_WHY_NONE;
	}
	snprintf(why, sizeof(why), "mounting a cgroup v1 memory hierarchy: %s",
		 strerror(err));
	return why;
}

static bool v1_has(const struct zsw_memcg *cg, const char *file)
{
	char buf[32];

	return !cg_read(cg->path, file, buf, sizeof(buf));
}

/* Swap charged to @cg in pages: memsw usage minus memory usage */
static long v1_swap_pages(const struct zsw_memcg *cg)
{
	long memsw = cg_read_long(cg->path, "memory.memsw.usage_in_bytes");
	long mem = cg_read_long(cg->path, "memory.usage_in_bytes");

	if (memsw < 0 || mem < 0)
		return LONG_MIN;
	return (memsw - mem) / (long)zsw_page_size();
}

FIXTURE_SETUP(v1move)
{
	self->root[0] = '\0';
	self->mounted = false;
	self->ctl = NULL;
	memset(&self->a, 0, sizeof(self->a));
	memset(&self->b, 0, sizeof(self->b));
	memset(&self->c, 0, sizeof(self->c));
	memset(self->pids, 0, sizeof(self->pids));
	self->lockstep = zsw_env_ulong("SWAPCG_LOCKSTEP", 256);
	if (!self->lockstep)
		self->lockstep = 1;
	self->npages = zsw_env_ulong("SWAPCG_V1_PAGES", 2048);
	if (self->npages < 2 * self->lockstep)
		self->npages = 2 * self->lockstep;
}

FIXTURE_TEARDOWN(v1move)
{
	int i;

	if (self->ctl)
		scg_store(&self->ctl->abort, 1);
	for (i = 0; i < V1_CHILDREN; i++) {
		if (self->pids[i] <= 0)
			continue;
		kill(self->pids[i], SIGKILL);
		waitpid(self->pids[i], NULL, 0);
	}
	/* cg_destroy() also kills what a child may have left behind. */
	zsw_memcg_destroy(&self->a);
	zsw_memcg_destroy(&self->b);
	zsw_memcg_destroy(&self->c);
	if (self->mounted) {
		umount2(self->root, MNT_DETACH);
		rmdir(self->root);
	}
	if (self->ctl)
		munmap(self->ctl, self->ctl_len);
}

struct v1_child {
	struct v1_ctl *ctl;
	int id;
	char *buf;
	size_t npages;
	size_t lockstep;
	uint32_t seen;		/* mailbox value last seen */
	uint32_t done;		/* last command carried out */
	uint64_t seed;
};

static bool v1_fail(struct v1_child *ch, int err, const char *what)
{
	struct v1_ctl *ctl = ch->ctl;

	if (!ctl->err[ch->id] && ctl->bad_page[ch->id] < 0) {
		ctl->err[ch->id] = err;
		ctl->what[ch->id] = what;
		zsw_log("child %d: %s: %s", ch->id, what, strerror(err));
	}
	scg_store(&ctl->abort, 1);
	scg_futex_wake(&ctl->acked, INT_MAX);
	return false;
}

/* The page's tag: the child, and how often the page was rewritten */
static unsigned long v1_tag(const struct v1_child *ch, uint32_t gen)
{
	return ((unsigned long)(ch->id + 1) << 32) | gen;
}

static bool v1_check(struct v1_child *ch, size_t i, uint32_t gen)
{
	if (zsw_page_diff(ch->buf + i * zsw_page_size(), ZSW_PAT_SPARSE, i,
			  v1_tag(ch, gen)) < 0)
		return true;
	zsw_check_range(ch->buf, i, 1, ZSW_PAT_SPARSE, v1_tag(ch, gen));
	if (ch->ctl->bad_page[ch->id] < 0)
		ch->ctl->bad_page[ch->id] = i;
	return v1_fail(ch, EIO, "reading back");
}

static bool v1_pageout(struct v1_child *ch, size_t first, size_t n)
{
	unsigned long ps = zsw_page_size();

	if (madvise(ch->buf + first * ps, n * ps, MADV_PAGEOUT))
		return v1_fail(ch, errno, "MADV_PAGEOUT");
	return true;
}

/* Take turns with the other child on CPU 0, then page out the rest. */
static bool v1_lockstep(struct v1_child *ch)
{
	struct v1_ctl *ctl = ch->ctl;
	size_t i;

	if (zsw_pin_cpu(0))
		return v1_fail(ch, errno, "sched_setaffinity");
	for (i = 0; i < ch->lockstep; i++) {
		while (scg_load(&ctl->turn) != i * V1_CHILDREN + ch->id)
			if (!scg_wait(&ctl->mbox[ch->id], &ch->seen,
				      &ctl->abort, 0))
				return false;
		if (!v1_pageout(ch, i, 1))
			return false;
		scg_store(&ctl->turn, i * V1_CHILDREN + ch->id + 1);
		scg_post(&ctl->mbox[!ch->id]);
	}
	return v1_pageout(ch, ch->lockstep, ch->npages - ch->lockstep);
}

/*
 * The neighbour, on CPU 1 until told to stop: read back, rewrite and page
 * out its lockstep pages one at a time, which frees and takes slots.
 */
static bool v1_churn(struct v1_child *ch, uint32_t *gen)
{
	struct v1_ctl *ctl = ch->ctl;
	size_t i;

	/* The mover paged out on CPU 0; the other one if there is one. */
	if (zsw_pin_cpu(sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0))
		return v1_fail(ch, errno, "sched_setaffinity");
	while (!scg_load(&ctl->stop) && !scg_load(&ctl->abort)) {
		i = scg_rnd(&ch->seed) % ch->lockstep;
		if (!v1_check(ch, i, gen[i]))
			return false;
		zsw_fill_page(ch->buf + i * zsw_page_size(), ZSW_PAT_SPARSE, i,
			      v1_tag(ch, ++gen[i]));
		if (!v1_pageout(ch, i, 1))
			return false;
		ctl->churns++;
	}
	return true;
}

static int v1_child_main(FIXTURE_DATA(v1move) *self, int id,
			 struct zsw_memcg *cg)
{
	struct v1_child ch = {
		.ctl = self->ctl,
		.id = id,
		.npages = id == V1_MOVER ? self->npages : self->lockstep,
		.lockstep = self->lockstep,
		.seed = 0x9e3779b97f4a7c15ULL * (id + 1),
	};
	struct v1_ctl *ctl = self->ctl;
	uint32_t *gen;
	size_t i;
	bool ok;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	ch.seen = scg_load(&ctl->mbox[id]);
	/*
	 * Not cg_run_nowait(): it clones into the group, which only cgroup
	 * v2 allows, and falls back to entering it only without clone3().
	 */
	if (cg_enter_current(cg->path))
		return !v1_fail(&ch, EIO, "entering the memcg");
	ch.buf = zsw_map(ch.npages * zsw_page_size());
	gen = calloc(ch.npages, sizeof(*gen));
	if (!ch.buf || !gen)
		return !v1_fail(&ch, ENOMEM, "allocating the region");
	for (i = 0; i < ch.npages; i++)
		zsw_fill_page(ch.buf + i * zsw_page_size(), ZSW_PAT_SPARSE, i,
			      v1_tag(&ch, gen[i]));
	for (ok = true; ok;) {
		scg_ack(&ctl->acked, V1_CHILDREN);
		if (!scg_next_cmd(&ctl->mbox[id], &ch.seen, &ctl->seq,
				  &ch.done, &ctl->abort))
			return 1;
		switch (scg_load(&ctl->cmd)) {
		case V1_LOCKSTEP:
			ok = v1_lockstep(&ch);
			break;
		case V1_REPORT:
			if (scg_slots_of(ch.buf, ch.lockstep, id,
					 ctl->slots + id * ch.lockstep))
				ok = v1_fail(&ch, errno, "pagemap");
			ctl->swapped[id] = zsw_count_swapped(ch.buf, ch.npages);
			break;
		case V1_CHURN:
			if (id == V1_NEIGHBOUR)
				ok = v1_churn(&ch, gen);
			break;
		case V1_VERIFY:
			for (i = 0; ok && i < ch.npages; i++)
				ok = v1_check(&ch, i, gen[i]);
			break;
		case V1_EXIT:
			munmap(ch.buf, ch.npages * zsw_page_size());
			scg_ack(&ctl->acked, V1_CHILDREN);
			return 0;
		}
	}
	return 1;
}

static void v1_send(FIXTURE_DATA(v1move) *self, enum v1_cmd cmd)
{
	int i;

	scg_store(&self->ctl->acked, 0);
	scg_store(&self->ctl->cmd, cmd);
	scg_add(&self->ctl->seq, 1);
	for (i = 0; i < V1_CHILDREN; i++)
		scg_post(&self->ctl->mbox[i]);
}

/* Wait for both children to answer; false if one failed or died */
static bool v1_wait(FIXTURE_DATA(v1move) *self)
{
	double end = zsw_now() + V1_GRACE;
	struct v1_ctl *ctl = self->ctl;
	int i, status;
	uint32_t a;

	while ((a = scg_load(&ctl->acked)) != V1_CHILDREN) {
		if (scg_load(&ctl->abort) || zsw_now() > end)
			return false;
		for (i = 0; i < V1_CHILDREN; i++) {
			if (!self->pids[i] ||
			    waitpid(self->pids[i], &status, WNOHANG) !=
			    self->pids[i])
				continue;
			/* A child told to exit acks first: it may be gone. */
			if (scg_load(&ctl->cmd) == V1_EXIT &&
			    WIFEXITED(status) && !WEXITSTATUS(status)) {
				self->pids[i] = 0;
				continue;
			}
			zsw_log("child %d ended early, status 0x%x", i, status);
			self->pids[i] = 0;
			return false;
		}
		scg_futex_wait(&ctl->acked, a);
	}
	return !scg_load(&ctl->abort);
}

static void v1_do(struct __test_metadata *_metadata,
		  FIXTURE_DATA(v1move) *self, enum v1_cmd cmd, const char *what)
{
	struct v1_ctl *ctl = self->ctl;
	bool ok;
	int i;

	v1_send(self, cmd);
	ok = v1_wait(self);
	for (i = 0; !ok && i < V1_CHILDREN; i++) {
		EXPECT_EQ(-1, ctl->bad_page[i])
			TH_LOG("child %d: page %ld read back wrong", i,
			       ctl->bad_page[i]);
		EXPECT_EQ(0, ctl->err[i])
			TH_LOG("child %d: %s: %s", i,
			       ctl->what[i] ? ctl->what[i] : "?",
			       strerror(ctl->err[i]));
	}
	ASSERT_TRUE(ok)
		TH_LOG("%s: the children stopped", what);
}

struct v1_charges {
	long a, b, c;
};

/* Flush the per-CPU slot caches, then read the swap charges. */
static void v1_charges(struct __test_metadata *_metadata,
		       FIXTURE_DATA(v1move) *self, struct v1_charges *ch,
		       const char *what)
{
	ASSERT_EQ(0, zsw_flush_freed_slots());
	ch->a = v1_swap_pages(&self->a);
	ch->b = v1_swap_pages(&self->b);
	ch->c = v1_swap_pages(&self->c);
	ASSERT_NE(LONG_MIN, ch->a);
	ASSERT_NE(LONG_MIN, ch->b);
	ASSERT_NE(LONG_MIN, ch->c);
	TH_LOG("%s: swap charged (memsw - memory) A %ld, B %ld, C %ld pages",
	       what, ch->a, ch->b, ch->c);
	/* v1's memory.stat: "swap " comes before "total_swap " */
	TH_LOG("%s: memory.stat swap A %ld, B %ld, C %ld bytes", what,
	       cg_read_key_long(self->a.path, "memory.stat", "swap "),
	       cg_read_key_long(self->b.path, "memory.stat", "swap "),
	       cg_read_key_long(self->c.path, "memory.stat", "swap "));
}

/* @what, @seen pages, must be @expect within V1_SLACK. */
static void v1_near(struct __test_metadata *_metadata, long expect, long seen,
		    const char *what)
{
	ASSERT_LE(labs(seen - expect), V1_SLACK)
		TH_LOG("%s: %ld pages, expected %ld", what, seen, expect);
}

TEST_F_TIMEOUT(v1move, swap_charge, 600)
{
	size_t nslots = V1_CHILDREN * self->lockstep;
	struct zsw_counters base;
	struct v1_charges ch;
	long pairs, split, moved, mover, nb;
	const char *why;
	int i, ret, status, moves = zsw_env_ulong("SWAPCG_V1_MOVES", 5);
	struct v1_ctl *ctl;

	if (!zsw_require(_metadata, V1_NEEDS))
		return;
	if (!zsw_require_free_swap(_metadata, self->npages + self->lockstep +
				   zsw_tolerance()))
		return;
	why = v1_root(self);
	if (why)
		SKIP(return, "%s", why);
	ret = zsw_memcg_mkdir(&self->a, self->root, "swapcg_v1_a");
	ASSERT_EQ(0, ret)
		TH_LOG("creating A: %s", strerror(-ret));
	if (!v1_has(&self->a, "memory.move_charge_at_immigrate"))
		SKIP(return, V1_WHY_NOMOVE);
	if (!v1_has(&self->a, "memory.memsw.usage_in_bytes"))
		SKIP(return, V1_WHY_NOMEMSW);
	ret = zsw_memcg_mkdir(&self->b, self->root, "swapcg_v1_b");
	ASSERT_EQ(0, ret)
		TH_LOG("creating B: %s", strerror(-ret));
	ret = zsw_memcg_mkdir(&self->c, self->root, "swapcg_v1_c");
	ASSERT_EQ(0, ret)
		TH_LOG("creating C: %s", strerror(-ret));
	/*
	 * The destination's value decides; the mover goes both ways. Newer
	 * kernels keep the file but refuse any mode but 0.
	 */
	ret = cg_write_numeric(self->a.path, "memory.move_charge_at_immigrate",
			       variant->move);
	if (ret == -EINVAL)
		SKIP(return, V1_WHY_NOTMOVING);
	ASSERT_EQ(0, ret)
		TH_LOG("A's move_charge_at_immigrate: %s", strerror(-ret));
	ret = cg_write_numeric(self->b.path, "memory.move_charge_at_immigrate",
			       variant->move);
	ASSERT_EQ(0, ret)
		TH_LOG("B's move_charge_at_immigrate: %s", strerror(-ret));
	ASSERT_EQ(variant->move, cg_read_long(self->b.path,
					      "memory.move_charge_at_immigrate"));

	self->ctl_len = sizeof(*ctl) + nslots * sizeof(ctl->slots[0]);
	ctl = mmap(NULL, self->ctl_len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ctl);
	memset(ctl, 0, self->ctl_len);
	self->ctl = ctl;
	for (i = 0; i < V1_CHILDREN; i++)
		ctl->bad_page[i] = -1;

	zsw_counters(&base);
	for (i = 0; i < V1_CHILDREN; i++) {
		self->pids[i] = fork();
		ASSERT_GE(self->pids[i], 0);
		if (!self->pids[i])
			_exit(v1_child_main(self, i, i == V1_MOVER ?
					    &self->a : &self->c));
	}
	ASSERT_TRUE(v1_wait(self))
		TH_LOG("the children did not start");

	v1_do(_metadata, self, V1_LOCKSTEP, "lockstep");
	v1_do(_metadata, self, V1_REPORT, "report");
	split = scg_split_pairs(ctl->slots, nslots, &pairs);
	TH_LOG("lockstep: %ld of %ld words of the swap_cgroup map hold the mover's and C's ids",
	       split, pairs);
	if (!split)
		TH_LOG("no slot of the mover's shares a word with one of C's");
	mover = ctl->swapped[V1_MOVER];
	nb = ctl->swapped[V1_NEIGHBOUR];
	ASSERT_GE(mover * 10, (long)self->npages * 9)
		TH_LOG("only %ld of %zu pages went out", mover, self->npages);
	v1_charges(_metadata, self, &ch, "before the move");
	v1_near(_metadata, mover, ch.a, "A's swap charge");
	v1_near(_metadata, 0, ch.b, "B's swap charge");
	v1_near(_metadata, nb, ch.c, "C's swap charge");

	/*
	 * Move to B, back to A and so on, ending in B, while C frees and
	 * takes slots next to the mover's.
	 */
	scg_store(&ctl->stop, 0);
	v1_send(self, V1_CHURN);
	for (i = 0; i < 2 * moves + 1; i++) {
		struct zsw_memcg *to = i % 2 ? &self->a : &self->b;

		usleep(20000);
		ret = cg_enter(to->path, self->pids[V1_MOVER]);
		ASSERT_EQ(0, ret)
			TH_LOG("moving to %s: %s", to->path, strerror(-ret));
	}
	scg_store(&ctl->stop, 1);
	ASSERT_TRUE(v1_wait(self))
		TH_LOG("the children stopped during the moves");
	TH_LOG("%d moves; C read back and paged out %ld pages meanwhile",
	       2 * moves + 1, ctl->churns);
	ASSERT_GT(ctl->churns, 0);

	v1_do(_metadata, self, V1_REPORT, "report");
	ASSERT_EQ(mover, ctl->swapped[V1_MOVER])
		TH_LOG("the mover's pages came in meanwhile");
	nb = ctl->swapped[V1_NEIGHBOUR];
	v1_charges(_metadata, self, &ch, "after the move");
	moved = variant->move & V1_MOVE_ANON ? mover : 0;
	v1_near(_metadata, mover - moved, ch.a, "A's swap charge");
	v1_near(_metadata, moved, ch.b, "B's swap charge");
	v1_near(_metadata, nb, ch.c, "C's swap charge");

	/* Swap-in charges the owner swap_cgroup names; then all is freed. */
	v1_do(_metadata, self, V1_VERIFY, "read-back");
	v1_do(_metadata, self, V1_EXIT, "exit");
	for (i = 0; i < V1_CHILDREN; i++) {
		/* v1_wait() has reaped those that exited cleanly already */
		if (!self->pids[i])
			continue;
		ASSERT_EQ(self->pids[i], waitpid(self->pids[i], &status, 0));
		self->pids[i] = 0;
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("child %d exited with status 0x%x", i, status);
	}
	v1_charges(_metadata, self, &ch, "all freed");
	v1_near(_metadata, 0, ch.a, "A's swap charge");
	v1_near(_metadata, 0, ch.b, "B's swap charge");
	v1_near(_metadata, 0, ch.c, "C's swap charge");
	zsw_memcg_destroy(&self->a);
	zsw_memcg_destroy(&self->b);
	zsw_memcg_destroy(&self->c);
	zsw_assert_baseline(_metadata, &base, "all freed");
}

TEST_HARNESS_MAIN
