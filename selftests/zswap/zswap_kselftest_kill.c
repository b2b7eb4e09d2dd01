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
 * ends (its result line on test_zswap's KTAP): the setting, and the zram
 * devices the case added, known by name and inode. After each kill, the
 * guards of the killed run are waited for and the cgroups it left removed,
 * so that every test starts from the host as it was. Skips where
 * test_zswap is not in the image or never makes the change (a tree without
 * those cases).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <poll.h>
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
/*
 * How long the guards of a killed run may take to finish: a swapoff of a
 * device full of pages, and their retries (10 s each for swapoff and
 * hot_remove in test_zswap).
 */
#define KK_GONE_MS 60000
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

/*
 * A zram device: its name in /sys/block, and the inode of its folder
 * there. A device added again under the name of one removed has another
 * inode (kernfs numbers its nodes cyclically), so the device a case made
 * is told from the one the next case may add at once.
 */
struct zdev {
	char name[32];
	ino_t ino;
};

#define KK_ZDEVS 16

/* The zram devices now, at most @max into @d; how many */
static int zram_list(struct zdev *d, int max)
{
	char path[300];
	struct dirent *de;
	struct stat st;
	DIR *dir = opendir("/sys/block");
	int n = 0;

	while (dir && n < max && (de = readdir(dir))) {
		if (strncmp(de->d_name, "zram", 4) ||
		    strlen(de->d_name) >= sizeof(d[n].name))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/", de->d_name);
		if (stat(path, &st))
			continue;
		strcpy(d[n].name, de->d_name);
		d[n++].ino = st.st_ino;
	}
	if (dir)
		closedir(dir);
	return n;
}

static bool zram_in(const struct zdev *z, const struct zdev *d, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (d[i].ino == z->ino && !strcmp(d[i].name, z->name))
			return true;
	return false;
}

/* The devices of @d that are not in @than, into @d; how many */
static int zram_not_in(struct zdev *d, int n, const struct zdev *than, int m)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		if (!zram_in(&d[i], than, m))
			d[k++] = d[i];
	return k;
}

/* The zram devices there before test_zswap ran */
static struct zdev zram_before[KK_ZDEVS];
static int zram_nbefore;

/* A zram device of test_zswap's: added, or swapped on */
static bool zram_added(void)
{
	struct zdev now[KK_ZDEVS];
	int n = zram_list(now, KK_ZDEVS);

	return zram_swapped_on() ||
	       zram_not_in(now, n, zram_before, zram_nbefore) > 0;
}

/* Whether one of the @n devices @d is still there, the same device */
static bool zram_still(const struct zdev *d, int n)
{
	struct zdev now[KK_ZDEVS];
	int i, m = zram_list(now, KK_ZDEVS);

	for (i = 0; i < n; i++)
		if (zram_in(&d[i], now, m))
			return true;
	return false;
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
 * Read test_zswap's KTAP on @fd until the result line of a case ("ok " or
 * "not ok " at the start of a line), for at most @ms: whether one came.
 * A case prints it once it has put back what it changed.
 */
static bool case_ended(int fd, long ms)
{
	char line[256];
	size_t len = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long t;

	for (t = 0; t < ms; t += 10) {
		if (poll(&p, 1, 10) <= 0)
			continue;
		while (len < sizeof(line) - 1 && read(fd, &line[len], 1) == 1) {
			if (line[len] != '\n') {
				len++;
				continue;
			}
			line[len] = '\0';
			if (!strncmp(line, "ok ", 3) || !strncmp(line, "not ok ", 7))
				return true;
			len = 0;
			if (poll(&p, 1, 0) <= 0)
				break;
		}
		if (len == sizeof(line) - 1)
			len = 0;
		if (p.revents & POLLHUP && !(p.revents & POLLIN))
			return false;
	}
	return false;
}

/* Drop what test_zswap has written so far on @fd: earlier cases' lines */
static void drain(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[4096];

	while (poll(&p, 1, 0) > 0 && p.revents & POLLIN &&
	       read(fd, buf, sizeof(buf)) > 0)
		;
}

/* The state of @pid in /proc/PID/stat, 'X' if there is no such process */
static char proc_state(pid_t pid)
{
	char path[64], state = 'X';
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 'X';
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 'X';
	fclose(f);
	return state;
}

/* Whether @pid is gone: no such process, or a zombie left to init */
static bool gone(pid_t pid)
{
	char state = proc_state(pid);

	return state == 'Z' || state == 'X';
}

/*
 * Stop @pid, and wait until it is stopped: the case it runs goes no
 * further meanwhile. Whether it stopped within KK_UNDO_MS.
 */
static bool held(pid_t pid)
{
	int t;

	if (kill(pid, SIGSTOP))
		return false;
	for (t = 0; t < KK_UNDO_MS; t += 1) {
		if (proc_state(pid) == 'T')
			return true;
		usleep(1000);
	}
	return false;
}

/*
 * Wait for the guards @g of a test_zswap that was killed to finish: they
 * outlive the group's SIGKILL, and the next test must find the host as
 * they leave it.
 */
static void wait_gone(const pid_t *g, int n)
{
	int i, t;

	for (i = 0; i < n; i++)
		for (t = 0; t < KK_GONE_MS && !gone(g[i]); t += 10)
			usleep(10000);
}

/* The cgroup v2 root, and the cgroups there before test_zswap ran */
static char cg_root[PATH_MAX];
static char cg_before[64][NAME_MAX + 1];
static int cg_nbefore;

static void cgroups_before(void)
{
	struct dirent *de;
	DIR *dir;

	cg_nbefore = 0;
	if (zsw_cgroup2_root(cg_root, sizeof(cg_root)))
		cg_root[0] = '\0';
	dir = cg_root[0] ? opendir(cg_root) : NULL;
	while (dir && (de = readdir(dir))) {
		if (de->d_type != DT_DIR)
			continue;
		/* More than it can remember: it removes nothing, not another's */
		if (cg_nbefore == 64) {
			cg_root[0] = '\0';
			break;
		}
		strcpy(cg_before[cg_nbefore++], de->d_name);
	}
	if (dir)
		closedir(dir);
}

static int rmdir_cgroup(const char *path,
			const struct stat *st __attribute__((unused)), int flag,
			struct FTW *ftw __attribute__((unused)))
{
	int i;

	/* Emptied of its processes once init has reaped them */
	for (i = 0; flag == FTW_DP && rmdir(path) && errno == EBUSY && i < 100; i++)
		usleep(10000);
	return 0;
}

/*
 * Remove the cgroups a killed test_zswap left: its cases make them as
 * upstream's do, and no guard takes them down; the next test's run makes
 * them again.
 */
static void cgroups_left_removed(void)
{
	char path[PATH_MAX + NAME_MAX + 2];
	struct dirent *de;
	DIR *dir;
	int i;

	dir = cg_root[0] ? opendir(cg_root) : NULL;
	while (dir && (de = readdir(dir))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		for (i = 0; i < cg_nbefore; i++)
			if (!strcmp(cg_before[i], de->d_name))
				break;
		if (i < cg_nbefore)
			continue;
		snprintf(path, sizeof(path), "%s/%s", cg_root, de->d_name);
		nftw(path, rmdir_cgroup, 16, FTW_DEPTH | FTW_PHYS);
	}
	if (dir)
		closedir(dir);
}

/*
 * Kill test_zswap @pid's group, reap it, wait for its guards, and remove
 * the cgroups it left.
 */
static void kill_all(pid_t pid)
{
	pid_t g[8];
	int n = guards_of(pid, g, 8);

	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
	wait_gone(g, n);
	cgroups_left_removed();
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
	int out[2];
	pid_t pid;

	if (access("./test_zswap", X_OK))
		SKIP(return, "no test_zswap next to this test");
	zram_nbefore = zram_list(zram_before, KK_ZDEVS);
	cgroups_before();
	ASSERT_FALSE(changed()) TH_LOG("%s before test_zswap ran", what);
	/* Its KTAP, to see a case end: read only after the change shows */
	ASSERT_EQ(0, pipe(out));
	fcntl(out[0], F_SETPIPE_SZ, 1 << 20);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		setpgid(0, 0);
		close(out[0]);
		if (dup2(out[1], STDOUT_FILENO) < 0)
			_exit(1);
		execl("./test_zswap", "test_zswap", NULL);
		_exit(127);
	}
	close(out[1]);
	setpgid(pid, pid);
	reach = wait_for(changed, true, KK_REACH_MS, pid);
	if (reach < 0) {
		kill_all(pid);
		close(out[0]);
		SKIP(return, "test_zswap showed no %s within %d s (no such case, or a slow kernel)",
		     what, KK_REACH_MS / 1000);
	}
	if (guard) {
		/*
		 * test_zswap held at once: the mTHP case can end within
		 * milliseconds of the change, its guards gone before they are
		 * found and killed.
		 */
		bool stopped = held(pid), device = changed == zram_swapped_on;
		struct zdev devs[KK_ZDEVS];
		bool ended, back;
		pid_t g[4];
		int i, nd, killed, n = guards_of(pid, g, 4);

		if (!stopped || !n) {
			kill_all(pid);
			close(out[0]);
		}
		ASSERT_TRUE(stopped) TH_LOG("test_zswap not stopped within %d ms of SIGSTOP",
					    KK_UNDO_MS);
		ASSERT_GT(n, 0) TH_LOG("no guard of test_zswap found when %s showed after %ld ms",
				       what, reach);
		nd = zram_not_in(devs, zram_list(devs, KK_ZDEVS), zram_before,
				 zram_nbefore);
		if (device && !nd) {
			kill_all(pid);
			close(out[0]);
		}
		ASSERT_TRUE(!device || nd > 0)
			TH_LOG("no zram device of test_zswap's in /sys/block when one was swapped on");
		drain(out[0]);
		for (i = 0, killed = 0; i < n; i++)
			killed += !kill(g[i], SIGKILL);
		kill(pid, SIGCONT);
		if (killed < n) {
			kill_all(pid);
			close(out[0]);
		}
		ASSERT_EQ(n, killed) TH_LOG("a guard of test_zswap gone before its kill");
		/*
		 * The case puts the change back before its result line; the
		 * rest of test_zswap's run is not this test's (on a debug
		 * kernel it outlasts the harness timeout). The next case may
		 * add and swap on a zram device at once, under the same name:
		 * the case's own are checked, by inode. No case after the one
		 * that sets the mTHP setting sets it again.
		 */
		ended = case_ended(out[0], KK_REACH_MS);
		back = !zram_still(devs, nd) && (device || !changed());
		kill_all(pid);
		close(out[0]);
		ASSERT_TRUE(ended) TH_LOG("the case of %s did not end within %d s of its guard(s) killed",
					  what, KK_REACH_MS / 1000);
		TH_LOG("%s after %ld ms of test_zswap; its %d guard(s) killed, then the case ended",
		       what, reach, n);
		EXPECT_TRUE(back) TH_LOG("%s, or one of the case's %d zram device(s), still there when its case ended, its %d guard(s) killed",
					 what, nd, n);
		return;
	}
	{
		pid_t g[8];
		int n = guards_of(pid, g, 8);

		ASSERT_EQ(0, kill(-pid, SIGKILL));
		ASSERT_EQ(pid, waitpid(pid, NULL, 0));
		undo = wait_for(changed, false, KK_UNDO_MS, 0);
		wait_gone(g, n);
		cgroups_left_removed();
	}
	close(out[0]);
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
	/*
	 * A guard killed between adding its device and passing its number
	 * on leaves a device the case does not know: kill it once the case
	 * has swapped on its device, which it does only after that.
	 */
	if (guard)
		kill_when(_metadata, zram_swapped_on, "a zram device swapped on",
			  true);
	else
		kill_when(_metadata, zram_added, "a zram device added", false);
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
