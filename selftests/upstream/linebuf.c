// SPDX-License-Identifier: GPL-2.0
/*
 * Linked into the upstream tests: their stdout is a pipe in the guest, and
 * they fork (cg_run()), so a fully buffered stdout would be printed once by
 * the child and again by the parent. Line buffering keeps KTAP in order.
 */
#include <stdio.h>

__attribute__((constructor)) static void linebuf(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}
