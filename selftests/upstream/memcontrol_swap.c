// SPDX-License-Identifier: GPL-2.0
/*
 * The swap cases of the kernel tree's cgroup/test_memcontrol.c, run with
 * the same cgroup setup as its main() and reported as KTAP. Including the
 * source keeps the cases exactly as the tree under test has them.
 */
/*
 * Only test_memcg_sock resolves names, and it is not run here. Keep glibc's
 * getaddrinfo out of the static link, which it warns about: the sock case
 * would fail to resolve rather than need NSS modules at run time.
 */
#define getaddrinfo memcontrol_getaddrinfo
#define freeaddrinfo memcontrol_freeaddrinfo

#define main memcontrol_main
#include "test_memcontrol.c"
#undef main

int memcontrol_getaddrinfo(const char *node, const char *service,
			   const struct addrinfo *hints, struct addrinfo **res)
{
	(void)node;
	(void)service;
	(void)hints;
	*res = NULL;
	return EAI_FAIL;
}

void memcontrol_freeaddrinfo(struct addrinfo *res)
{
	(void)res;
}

/*
 * v6.1 has cg_find_unified_root(root, len); later trees added an
 * nsdelegate result. _Generic picks the caller that matches what this tree
 * declares; the callers take the function as an opaque pointer so that the
 * one not picked compiles too.
 */
typedef void (*opaque_fn)(void);

static int root_with_nsdelegate(opaque_fn fn, char *root, size_t len)
{
	return ((int (*)(char *, size_t, bool *))fn)(root, len, NULL);
}

static int root_without_nsdelegate(opaque_fn fn, char *root, size_t len)
{
	return ((int (*)(char *, size_t))fn)(root, len);
}

static int find_unified_root(char *root, size_t len)
{
	return _Generic(&cg_find_unified_root,
			int (*)(char *, size_t, bool *) : root_with_nsdelegate,
			int (*)(char *, size_t) : root_without_nsdelegate)
		((opaque_fn)cg_find_unified_root, root, len);
}

static bool is_swap_case(const char *name)
{
	return strstr(name, "swap");
}

int main(void)
{
	unsigned int i, plan = 0;
	char root[PATH_MAX];
	int proc_status;

	/* The same checks and set-up as upstream's main() */
#ifdef MEMCONTROL_PAGE_SIZE
	/*
	 * Newer trees step through their buffers by a page_size that their
	 * main() sets; left at 0, alloc_anon() never leaves its first page.
	 */
	page_size = sysconf(_SC_PAGE_SIZE);
	if (page_size <= 0)
		page_size = BUF_SIZE;
#endif
	ksft_print_header();

	if (find_unified_root(root, sizeof(root)))
		ksft_exit_skip("cgroup v2 isn't mounted\n");

	if (cg_read_strstr(root, "cgroup.controllers", "memory"))
		ksft_exit_skip("memory controller isn't available\n");

	if (cg_read_strstr(root, "cgroup.subtree_control", "memory"))
		if (cg_write(root, "cgroup.subtree_control", "+memory"))
			ksft_exit_skip("Failed to set memory controller\n");

	proc_status = proc_mount_contains("memory_recursiveprot");
	if (proc_status < 0)
		ksft_exit_skip("Failed to query cgroup mount option\n");
	has_recursiveprot = proc_status;

	proc_status = proc_mount_contains("memory_localevents");
	if (proc_status < 0)
		ksft_exit_skip("Failed to query cgroup mount option\n");
	has_localevents = proc_status;

	for (i = 0; i < ARRAY_SIZE(tests); i++)
		plan += is_swap_case(tests[i].name);
	ksft_set_plan(plan);

	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (!is_swap_case(tests[i].name))
			continue;
		switch (tests[i].fn(root)) {
		case KSFT_PASS:
			ksft_test_result_pass("%s\n", tests[i].name);
			break;
		case KSFT_SKIP:
			ksft_test_result_skip("%s\n", tests[i].name);
			break;
		default:
			ksft_test_result_fail("%s\n", tests[i].name);
			break;
		}
	}

	ksft_finished();
}
