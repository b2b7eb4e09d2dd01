// SPDX-License-Identifier: GPL-2.0
/*
 * Report the KUnit suites that ran when the guest kernel booted, from
 * /sys/kernel/debug/kunit/<suite>/results, as one KTAP test program: one
 * result per test case, named <suite>.<case>, with the case's log lines
 * as diagnostics. Exits 1 when a case failed; skips (exit 4) when the
 * kernel has no KUnit debugfs or no suite.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KUNIT_DIR "/sys/kernel/debug/kunit"
#define MAX_SUITES 64
#define MAX_LINES 4096

static char *lines[MAX_LINES];
static int nlines;

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* One suite's results: keep its case results and their logs. */
static int read_suite(const char *suite)
{
	char path[512], buf[1024];
	FILE *f;
	int cases = 0;

	snprintf(path, sizeof(path), KUNIT_DIR "/%s/results", suite);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f) && nlines < MAX_LINES - 1) {
		char *s = buf, *out;
		int n;

		/* Case results are indented once (4 spaces) under the suite. */
		if (!strncmp(s, "    ok ", 7) || !strncmp(s, "    not ok ", 11)) {
			s += 4;
			/* "ok N case..." -> "ok <index> suite.case..." */
			char *ok_end = !strncmp(s, "ok ", 3) ? s + 3 : s + 7;
			char *name = strchr(ok_end, ' ');

			if (!name)
				continue;
			n = asprintf(&out, "%.*s%d %s.%s", (int)(ok_end - s), s,
				     0, suite, name + 1);
			if (n < 0)
				return cases;
			lines[nlines++] = out;
			cases++;
		} else if (strstr(s, "# ") && strncmp(s, "    # Subtest", 13) &&
			   strncmp(s, "    KTAP", 8)) {
			while (*s == ' ')
				s++;
			if (*s != '#')
				continue;
			if (asprintf(&out, "%s", s) < 0)
				return cases;
			lines[nlines++] = out;
		} else if (!strncmp(s, "ok 1 ", 5) && strstr(s, "# SKIP") &&
			   !cases) {
			/* A suite skipped as a whole reports no cases. */
			if (asprintf(&out, "ok 0 %s", s + 5) < 0)
				return cases;
			lines[nlines++] = out;
			cases++;
		}
	}
	fclose(f);
	return cases;
}

int main(void)
{
	struct dirent **suites;
	int n, i, total = 0, number = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	n = scandir(KUNIT_DIR, &suites, NULL, by_name);
	if (n < 0) {
		printf("1..0 # SKIP no %s: this kernel has no KUnit debugfs\n",
		       KUNIT_DIR);
		return 4;
	}
	for (i = 0; i < n && i < MAX_SUITES; i++)
		if (suites[i]->d_name[0] != '.')
			total += read_suite(suites[i]->d_name);
	if (!total) {
		printf("1..0 # SKIP no KUnit suite ran in this kernel\n");
		return 4;
	}
	printf("1..%d\n", total);
	/* Number the results in order; the 0 placeholders take it. */
	for (i = 0; i < nlines; i++) {
		char *s = lines[i];

		if (!strncmp(s, "ok 0 ", 5))
			printf("ok %d %s", ++number, s + 5);
		else if (!strncmp(s, "not ok 0 ", 9) && ++failed)
			printf("not ok %d %s", ++number, s + 9);
		else
			printf("%s", s);
		if (s[strlen(s) - 1] != '\n')
			putchar('\n');
	}
	return failed ? 1 : 0;
}
