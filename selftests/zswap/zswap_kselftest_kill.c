// SPDX-License-Identifier: GPL-2.0
/*
 * test_zswap (the kselftest, with the cases of patches/selftests-zswap)
 * killed with SIGKILL in the middle of a case must leave the host as it
 * found it: its guard puts back what the case changed. Each case here runs
 * test_zswap in a process group of its own, waits until the change shows
 * (a zram device of its own, added or swapped on; the 64 KiB mTHP setting
 * set to madvise), kills the whole group and waits for the change to go.
 * And the other way round: the guard killed (its session's leader, a child
 * of test_zswap), test_zswap must put the change back itself when the case
 * ends. Skips where test_zswap is not in the image or never makes the
 * change (a tree without those cases).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "zswap_util.h"

/*
 * Read and written with cgroup_util.c's cg_read() and cg_write(), which
 * take a folder and a file: v6.1's keeps read_text() and write_text() to
 * itself.
 */
#define KK_THP_DIR "/sys/kernel/mm/transparent_hugepage/hugepages-64kB"
#define KK_THP KK_THP_DIR "/enabled"
/*
 * How long test_zswap may take to reach the case (its whole run takes 150 s
 * on a kernel with KASAN and lockdep in TCG), and the guard to act; each
 * case's harness timeout covers both.
 */
#define KK_REACH_MS 240000
#define KK_UNDO_MS 5000
#define KK_TIMEOUT_S 300

FIXTURE(kk) {
};

FIXTURE_SETUP(kk)
{
}

FIXTURE_TEARDOWN(kk)
{
}

static bool zram_swapped_on(void)
{
	char line[256];
	bool on = false;
	FILE *f = fopen("/proc/swaps", "r");

	while (f && !on && fgets(line, sizeof(line), f))
		on = !strncmp(line, "/dev/zram", 9);
	if (f)
		fclose(f);
	return on;
}

/* The zram devices there before test_zswap ran */
static int zram_before;

static int zram_count(void)
{
	struct dirent *de;
	DIR *dir = opendir("/sys/block");
	int n = 0;

	while (dir && (de = readdir(dir)))
		n += !strncmp(de->d_name, "zram", 4);
	if (dir)
		closedir(dir);
	return n;
}

/* A zram device of test_zswap's: added, or swapped on */
static bool zram_added(void)
{
	return zram_swapped_on() || zram_count() > zram_before;
}

static bool thp_madvise(void)
{
	char buf[128];

	return !cg_read(KK_THP_DIR, "enabled", buf, sizeof(buf)) &&
	       strstr(buf, "[madvise]");
}

/* Poll @cond every 10 ms for @ms; the milliseconds it took, or -1 */
static long wait_for(bool (*cond)(void), bool want, long ms, pid_t pid)
{
	long t;

	for (t = 0; t < ms; t += 10) {
		if (cond() == want)
			return t;
		if (pid > 0 && waitpid(pid, NULL, WNOHANG) == pid)
			return -1;
		usleep(10000);
	}
	return -1;
}

/*
 * The guards of test_zswap @pid, its children that lead a session of
 * their own: at most @max into @pids; how many.
 */
static int guards_of(pid_t pid, pid_t *pids, int max)
{
	struct dirent *de;
	int n = 0, ppid, sid;
	char path[300];
	DIR *dir;
	FILE *f;

	dir = opendir("/proc");
	while (dir && n < max && (de = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* pid (comm) state ppid pgrp session */
		if (fscanf(f, "%*d (%*[^)]) %*c %d %*d %d", &ppid, &sid) == 2 &&
		    ppid == pid && sid == atoi(de->d_name))
			pids[n++] = sid;
		fclose(f);
	}
	if (dir)
		closedir(dir);
	return n;
}

/*
 * Run test_zswap until @changed shows, then kill its group and time the
 * undo; or, with @guard, kill its guards alone, let the case end, and
 * check that it put the change back itself. Either way, no zram device of the
 * case may be left.
 */
static void kill_when(struct __test_metadata *_metadata,
		      bool (*changed)(void), const char *what, bool guard)
{
	long reach, undo;
	pid_t pid;

	if (access("./test_zswap", X_OK))
		SKIP(return, "no test_zswap next to this test");
	zram_before = zram_count();
	ASSERT_FALSE(changed()) TH_LOG("%s before test_zswap ran", what);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		setpgid(0, 0);
		if (!freopen("/dev/null", "w", stdout))
			_exit(1);
		execl("./test_zswap", "test_zswap", NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	reach = wait_for(changed, true, KK_REACH_MS, pid);
	if (reach < 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		SKIP(return, "test_zswap showed no %s within %d s (no such case, or a slow kernel)",
		     what, KK_REACH_MS / 1000);
	}
	if (guard) {
		pid_t g[4];
		int i, n = guards_of(pid, g, 4);

		if (!n)
			kill(-pid, SIGKILL);
		ASSERT_GT(n, 0) TH_LOG("no guard of test_zswap found");
		for (i = 0; i < n; i++)
			ASSERT_EQ(0, kill(g[i], SIGKILL));
		/*
		 * The case puts the change back when it ends; the rest of
		 * test_zswap's run is not this test's (on a debug kernel it
		 * outlasts the harness timeout), and later cases have guards
		 * of their own, which outlive the group's SIGKILL.
		 */
		undo = wait_for(changed, false, KK_REACH_MS, pid);
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		TH_LOG("%s after %ld ms of test_zswap; put back by its case %ld ms after its guard(s) were killed",
		       what, reach, undo);
		EXPECT_FALSE(changed()) TH_LOG("%s still there when its case ended, its %d guard(s) killed",
					       what, n);
		EXPECT_GE(wait_for(zram_added, false, KK_UNDO_MS, 0), 0)
			TH_LOG("a zram device left when its case ended, its %d guard(s) killed",
			       n);
		return;
	}
	ASSERT_EQ(0, kill(-pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	undo = wait_for(changed, false, KK_UNDO_MS, 0);
	TH_LOG("%s after %ld ms of test_zswap; put back %ld ms after SIGKILL",
	       what, reach, undo);
	EXPECT_GE(undo, 0) TH_LOG("%s still there %d ms after SIGKILL", what,
				  KK_UNDO_MS);
	EXPECT_GE(wait_for(zram_added, false, KK_UNDO_MS, 0), 0)
		TH_LOG("a zram device of test_zswap's still there %d ms after SIGKILL",
		       KK_UNDO_MS);
}

static void device(struct __test_metadata *_metadata, bool guard)
{
	if (zram_swapped_on())
		SKIP(return, "a zram device is swapped on already");
	kill_when(_metadata, zram_added, "a zram device added", guard);
}

static void thp_setting(struct __test_metadata *_metadata, bool guard)
{
	char old[128];

	if (cg_read(KK_THP_DIR, "enabled", old, sizeof(old)))
		SKIP(return, "no %s", KK_THP);
	/* The case sets madvise: start from another setting to see it */
	if (strstr(old, "[madvise]"))
		ASSERT_EQ(0, cg_write(KK_THP_DIR, "enabled", "never"));
	kill_when(_metadata, thp_madvise, "the 64 KiB mTHP setting at madvise",
		  guard);
	if (strstr(old, "[madvise]"))
		ASSERT_EQ(0, cg_write(KK_THP_DIR, "enabled", "madvise"));
}

TEST_F_TIMEOUT(kk, device_removed, KK_TIMEOUT_S)
{
	device(_metadata, false);
}

TEST_F_TIMEOUT(kk, thp_setting_restored, KK_TIMEOUT_S)
{
	thp_setting(_metadata, false);
}

TEST_F_TIMEOUT(kk, device_removed_guard_killed, KK_TIMEOUT_S)
{
	device(_metadata, true);
}

TEST_F_TIMEOUT(kk, thp_setting_restored_guard_killed, KK_TIMEOUT_S)
{
	thp_setting(_metadata, true);
}

TEST_HARNESS_MAIN
