/* SPDX-License-Identifier: MIT */
/*
 * verdict_util.h - what bench-smoke tests read back from a verdict table.
 */
#ifndef MSIM_TEST_VERDICT_UTIL_H
#define MSIM_TEST_VERDICT_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_verdict.h"

/* Rows verdict_of() saw come out "does not hold" in this test program. */
static const struct bench_verdict_row *verdict_failed_rows[256];
static size_t verdict_nfailed;

static inline void verdict_record_failed(const struct bench_verdict_table *t, const char *prefix)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (strstr(t->rows[i].claim, prefix)) {
			assert_true(verdict_nfailed < sizeof(verdict_failed_rows) /
							sizeof(verdict_failed_rows[0]));
			verdict_failed_rows[verdict_nfailed++] = &t->rows[i];
			return;
		}
}

/*
 * Every row of t that a rule judges (not "none", not "by construction") came out
 * "does not hold" in some verdict_of() call of this program: a planted figure
 * can flip each. Call it after the tests that plant them.
 */
static inline void verdict_assert_every_row_failed(const struct bench_verdict_table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		const struct bench_verdict_row *r = &t->rows[i];
		bool seen = false;

		if (r->rule == BENCH_RULE_NONE || r->rule == BENCH_RULE_BY_CONSTRUCTION)
			continue;
		for (size_t k = 0; k < verdict_nfailed && !seen; k++)
			seen = verdict_failed_rows[k] == r;
		if (!seen)
			fail_msg("no planted figure made \"%s\" fail", r->claim);
	}
}

/*
 * The outcome ("holds", "does not hold", "not comparable", "by construction") the
 * text printer gives the row whose claim contains prefix. The string lives until
 * the next call.
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
	if (!strcmp(word, "does not hold"))
		verdict_record_failed(t, prefix);
	return word;
}

#endif
