// SPDX-License-Identifier: GPL-2.0
/*
 * Walk every fault-injection point of swapon(2) with fail-nth: for n = 1, 2,
 * ..., make the n-th injectable call of this thread fail and call swapon.
 * After each try the device must be either fully on (then swap it off) or
 * fully off (not in /proc/swaps). Reports the points whose stack (printed
 * by the fault-injection framework, with CONFIG_KALLSYMS) went through
 * zswap_frontswap_init(): there swapon must fail with ENOMEM.
 *
 * The number of injectable calls before a point can vary by one between
 * tries (here: page cache state of the swap header), so a point can be hit
 * twice or, rarely, skipped: the walk is repeated, up to three times, until
 * it has hit zswap's allocation at least once.
 *
 * Needs CONFIG_FAULT_INJECTION, CONFIG_FAILSLAB (so CONFIG_SLUB on v6.1,
 * whose tinyconfig picks SLOB), CONFIG_FAULT_INJECTION_DEBUG_FS to clear
 * failslab/ignore-gfp-wait, and CONFIG_KALLSYMS to name the point.
 *
 *   swapon_fail DEV [MAX]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/swap.h>


static int dev_in_swaps(const char *dev)
{
	char line[512];
	FILE *f = fopen("/proc/swaps", "r");
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, dev, strlen(dev)))
			found = 1;
	fclose(f);
	return found;
}

/* Drain /dev/kmsg; return 1 if a line contains @word. */
static int kmsg_has(int fd, const char *word)
{
	char buf[8192];
	int hit = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		buf[n] = 0;
		if (strstr(buf, word))
			hit = 1;
	}
	return hit;
}

static int fails, zswap_hits, bad;

static int walk(int kfd, const char *dev, int max)
{
	int n, fnfd, ret, err;
	char s[32], rd[32];

	for (n = 1; n <= max; n++) {
		snprintf(s, sizeof(s), "%d", n);
		fnfd = open("/proc/thread-self/fail-nth", O_RDWR);
		if (fnfd < 0) { perror("fail-nth"); return 2; }
		if (write(fnfd, s, strlen(s)) < 0) { perror("write fail-nth"); return 2; }
		ret = swapon(dev, 0);
		err = errno;
		/* reading it back says whether the n-th call happened (0) */
		memset(rd, 0, sizeof(rd));
		pread(fnfd, rd, sizeof(rd) - 1, 0);
		write(fnfd, "0", 1);
		close(fnfd);
		if (kmsg_has(kfd, "zswap_frontswap_init")) {
			zswap_hits++;
			printf("# n=%d: fault in zswap_frontswap_init: swapon %s%s\n",
			       n, ret ? "failed with " : "succeeded",
			       ret ? strerror(err) : "");
			if (!ret || err != ENOMEM)
				bad++;
		}
		if (!ret) {
			if (dev_in_swaps(dev) != 1) {
				printf("# n=%d: swapon ok but %s not in /proc/swaps\n", n, dev);
				bad++;
			}
			if (swapoff(dev)) {
				printf("# n=%d: swapoff: %s\n", n, strerror(errno));
				bad++;
			}
			kmsg_has(kfd, "");
			if (atoi(rd) != 0) {
				printf("# n=%d: no fault left to inject: walked all %d points\n", n, n - 1);
				break;
			}
			continue;
		}
		fails++;
		if (dev_in_swaps(dev) != 0) {
			printf("# n=%d: swapon failed (%s) but %s is in /proc/swaps\n", n, strerror(err), dev);
			bad++;
			swapoff(dev);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/ram0";
	int max = argc > 2 ? atoi(argv[2]) : 2000;
	int kfd, tries;

	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kfd < 0) { perror("kmsg"); return 2; }
	lseek(kfd, 0, SEEK_END);
	if (dev_in_swaps(dev) == 1 && swapoff(dev)) { perror("swapoff"); return 2; }

	for (tries = 0; tries < 3 && !zswap_hits; tries++)
		walk(kfd, dev, max);
	printf("# %d swapon failures, %d in zswap's init, %d bad\n", fails, zswap_hits, bad);
	/* and the device still works afterwards */
	if (swapon(dev, 0)) {
		printf("# final swapon: %s\n", strerror(errno));
		bad++;
	}
	printf("%s swapon_fail\n", bad || !zswap_hits ? "not ok 1" : "ok 1");
	return bad || !zswap_hits;
}
