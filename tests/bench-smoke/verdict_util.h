/* SPDX-License-Identifier: MIT */
/*
 * verdict_util.h - what bench-smoke tests read back from a verdict table.
 */
#ifndef MSIM_TEST_VERDICT_UTIL_H
#define MSIM_TEST_VERDICT_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_verdict.h"

/*
 * The outcome ("holds", "does not hold", "not comparable") the text printer gives
 * the row whose claim starts with prefix. The string lives until the next call.
 */
static inline const char *verdict_of(const struct bench_verdict_table *t, const char *prefix)
{
	static char word[64];
	char *buf = NULL, *at;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	bench_verdict_print_text(f, t);
	fclose(f);
	at = strstr(buf, prefix);
	assert_non_null(at);
	while (at > buf && at[-1] != '[')
		at--;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(at, "]"), at);
	free(buf);
	return word;
}

#endif
