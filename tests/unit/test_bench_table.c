/* SPDX-License-Identifier: MIT */
/*
 * test_bench_table.c - the benches' one table printer (bench/bench_table.h): the
 * text form (header rows with widths taken from each column's format, a header
 * wider than its column, text-only and JSON-only columns, bool cells printed by
 * their text) and the JSON form (one object per row, each cell's JSON type, keys
 * in column order, a row's nested array last), checked byte for byte.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_table.h"

static const struct bench_col cols[] = {
	{ .head = { "design", "" }, .fmt = "%-8s", .key = "design" },
	{ .head = { "pool", "pages" }, .fmt = " %6.0f", .key = "pool_pages" },
	{ .key = "run_ms" },
	{ .head = { "ok" }, .fmt = " %-4s", .key = "ok" },
	{ .head = { "  delta(a/b)" }, .head_fmt = "%s", .fmt = "  %4lld", .key = "a" },
	{ .head_fmt = "", .fmt = "/%-4llu", .key = "b" },
	{ .head = { " note" }, .head_fmt = "%s", .fmt = " %s" },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

static void fill(struct bench_cell cells[2 * NCOLS], struct bench_table *t)
{
	const struct bench_cell rows[2 * NCOLS] = {
		BENCH_STR("base"), BENCH_DBL(1024), BENCH_DBL(1.5),
		BENCH_BOOL(true, "pass", "FAIL"), BENCH_INT(-3), BENCH_UINT(7), BENCH_STR("x"),
		BENCH_STR("patched"), BENCH_DBL(0.25), BENCH_DBL(0),
		BENCH_BOOL(false, "pass", "FAIL"), BENCH_INT(12), BENCH_UINT(0), BENCH_STR(""),
	};

	memcpy(cells, rows, sizeof(rows));
	*t = (struct bench_table){ .indent = "  ", .head_rows = 2, .cols = cols, .ncols = NCOLS,
				   .cells = cells, .nrows = 2 };
}

static void text_form(void **state)
{
	struct bench_cell cells[2 * NCOLS];
	struct bench_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	fill(cells, &t);
	bench_table_print_text(f, &t);
	fclose(f);
	assert_string_equal(buf,
			    "  design     pool ok    delta(a/b) note\n"
			    "            pages     \n"
			    "  base       1024 pass    -3/7    x\n"
			    "  patched       0 FAIL    12/0    \n");
	free(buf);
}

static void no_header_rows(void **state)
{
	struct bench_cell cells[2 * NCOLS];
	struct bench_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	fill(cells, &t);
	t.head_rows = 0;
	t.indent = NULL;
	t.nrows = 1;
	bench_table_print_text(f, &t);
	fclose(f);
	assert_string_equal(buf, "base       1024 pass    -3/7    x\n");
	free(buf);
}

/* A nested array in each row: the row's index, ctx's value times it. */
static void nested(struct bench_json *j, size_t row, const void *ctx)
{
	bench_json_arr_begin(j, "series");
	bench_json_kuint(j, NULL, row);
	bench_json_kint(j, NULL, (long long)row * *(const int *)ctx);
	bench_json_arr_end(j);
}

static void json_form(void **state)
{
	struct bench_cell cells[2 * NCOLS];
	struct bench_table t;
	struct bench_json j;
	const int ten = 10;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	fill(cells, &t);
	t.row_json = nested;
	t.ctx = &ten;
	bench_json_init(&j, f);
	bench_json_obj_begin(&j, NULL);
	bench_table_print_json(&j, "designs", &t);
	bench_json_obj_end(&j);
	bench_json_finish(&j);
	fclose(f);
	assert_string_equal(buf,
			    "{\"designs\":["
			    "{\"design\":\"base\",\"pool_pages\":1024,\"run_ms\":1.5,\"ok\":true,"
			    "\"a\":-3,\"b\":7,\"series\":[0,0]},"
			    "{\"design\":\"patched\",\"pool_pages\":0.25,\"run_ms\":0,\"ok\":false,"
			    "\"a\":12,\"b\":0,\"series\":[1,10]}]}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text_form),
		cmocka_unit_test(no_header_rows),
		cmocka_unit_test(json_form),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
