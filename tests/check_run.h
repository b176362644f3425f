/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_run.h - the common end of every unit test: run a suite, exit 0
 * when nothing failed.
 */
#ifndef BLKSTACK_CHECK_RUN_H
#define BLKSTACK_CHECK_RUN_H

#include <check.h>

static inline int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

#endif /* BLKSTACK_CHECK_RUN_H */
