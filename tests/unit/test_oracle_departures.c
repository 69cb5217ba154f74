/* SPDX-License-Identifier: MIT */
/*
 * test_oracle_departures: a known departure of `memcgsim oracle` (docs/oracle.md) names
 * the rows it was seen on and no others, so a row beside it that does not hold still
 * fails the oracle. The rows are named and ruled as the threshold experiment names
 * them (tools/memcgsim/oracle_exp_threshold.c); each is made to fail, and the test
 * checks which ones a departure covers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>

#include "../tools/memcgsim/oracle_rows.c"

#define BELOW_RULE "equal: 0 (stale) one page below the leaf's count"
#define AT_RULE "equal: 1 (exact) at the leaf's count, like the leaf"

/* The two "after a periodic flush" parent rows of kind at cpus, both failing. */
static void add_parent_rows(struct oracle_rows *rows, const char *kind, unsigned int cpus,
			    long leaf_min)
{
	char name[96];

	snprintf(name, sizeof(name), "%s parent after a periodic flush, %u CPUs: shows %ld pages",
		 kind, cpus, leaf_min - 1);
	oracle_row_equal(rows, "threshold", name, 1, 0, "0/1", BELOW_RULE);
	snprintf(name, sizeof(name), "%s parent after a periodic flush, %u CPUs: shows %ld pages",
		 kind, cpus, leaf_min);
	oracle_row_equal(rows, "threshold", name, 0, 1, "0/1", AT_RULE);
}

static const struct oracle_row *row_named(const struct oracle_rows *rows, const char *kind,
					  unsigned int cpus, const char *rule)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "%s parent after a periodic flush, %u CPUs", kind, cpus);
	for (size_t i = 0; i < rows->n; i++)
		if (!strncmp(rows->v[i].name, prefix, strlen(prefix)) &&
		    !strcmp(rows->v[i].rule, rule))
			return &rows->v[i];
	fail_msg("no row %s (%s)", prefix, rule);
	return NULL;
}

/* Which of the failing parent rows of kind a departure covers, by CPU count and rule. */
struct expect {
	unsigned int cpus;
	long leaf_min;
	bool below_departs, at_departs;
};

static void check_departures(const char *kind, const struct expect *x, size_t n)
{
	struct oracle_rows rows = { 0 };

	for (size_t i = 0; i < n; i++)
		add_parent_rows(&rows, kind, x[i].cpus, x[i].leaf_min);
	oracle_mark_departures(&rows);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(row_named(&rows, kind, x[i].cpus, BELOW_RULE)->departure != NULL,
				 x[i].below_departs);
		assert_int_equal(row_named(&rows, kind, x[i].cpus, AT_RULE)->departure != NULL,
				 x[i].at_departs);
	}
	oracle_rows_free(&rows);
}

/* The anon departure was one boot's 4-CPU row below the leaf's count: that row only. */
static void anon_departure_names_its_row_only(void **state)
{
	static const struct expect x[] = { { 2, 65, false, false }, { 4, 114, true, false } };

	(void)state;
	check_departures("anon", x, sizeof(x) / sizeof(x[0]));
}

/* tmpfs's row below the leaf's count departs at every CPU count; its row at the count does not. */
static void tmpfs_departure_spares_the_row_at_the_count(void **state)
{
	static const struct expect x[] = { { 2, 65, true, false }, { 4, 113, true, false } };

	(void)state;
	check_departures("tmpfs", x, sizeof(x) / sizeof(x[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(anon_departure_names_its_row_only),
		cmocka_unit_test(tmpfs_departure_spares_the_row_at_the_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
