/* SPDX-License-Identifier: MIT */
/*
 * test_variants_format.c - the variants string a run records is never cut.
 *
 * A race result keeps msim_variants_format()'s string in a buffer of
 * MSIM_VARIANTS_STRLEN, and a shard file carries it to `memcgsim merge`, which
 * applies it back. A cut string ("kmem-stat=unc") fails the merge, so every
 * variant at its longest value must fit, and the string must read back as the
 * variants it was made from.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <memcgsim/variants.h>

/* Every variant at the value with the longest name. */
static void set_longest(struct msim_variants *v)
{
	const struct msim_variant_desc *rows[MSIM_MAX_VARIANTS];
	unsigned int nrows = msim_variant_list(rows, MSIM_MAX_VARIANTS);
	char assign[256], err[256];

	assert_true(nrows > 0);
	msim_variants_init(v);
	for (unsigned int r = 0; r < nrows; r++) {
		const struct msim_variant_desc *d = rows[r];
		const char *longest = d->values[0];

		for (int i = 1; d->values[i]; i++)
			if (strlen(d->values[i]) > strlen(longest))
				longest = d->values[i];
		snprintf(assign, sizeof(assign), "%s=%s", d->name, longest);
		assert_int_equal(msim_variant_set(v, assign, err, sizeof(err)), 0);
	}
}

static void longest_values_fit(void **state)
{
	struct msim_variants v;
	char buf[MSIM_VARIANTS_STRLEN];

	(void)state;
	set_longest(&v);
	assert_true(msim_variants_format(&v, buf, sizeof(buf)) < sizeof(buf));
}

/* The string applies back, item by item, to the same variants. */
static void format_reads_back(void **state)
{
	struct msim_variants v, back;
	char buf[MSIM_VARIANTS_STRLEN], err[256], *item, *save = NULL;

	(void)state;
	set_longest(&v);
	msim_variants_format(&v, buf, sizeof(buf));
	msim_variants_init(&back);
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save))
		assert_int_equal(msim_variant_set(&back, item, err, sizeof(err)), 0);
	assert_memory_equal(&v, &back, sizeof(v));
}

/* A buffer too small is reported by the return, as snprintf does. */
static void short_buffer_reports_length(void **state)
{
	struct msim_variants v;
	char small[16], full[MSIM_VARIANTS_STRLEN];
	size_t need;

	(void)state;
	msim_variants_init(&v);
	need = msim_variants_format(&v, full, sizeof(full));
	assert_int_equal(msim_variants_format(&v, small, sizeof(small)), need);
	assert_int_equal(strlen(small), sizeof(small) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(longest_values_fit),
		cmocka_unit_test(format_reads_back),
		cmocka_unit_test(short_buffer_reports_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
