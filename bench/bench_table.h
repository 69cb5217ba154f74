/* SPDX-License-Identifier: MIT */
/*
 * bench_table.h - a bench's result table as data, printed as text or JSON by one
 * printer, as bench_verdict.h does for the comparisons with a thread.
 *
 * A table is its columns (a text header and printf format, a JSON key) and its
 * rows of cells, filled by the bench after a run. The text form prints the header
 * rows, then one line per row; the JSON form is an array of one object per row.
 * A column without a format is JSON only (a timing the text prints elsewhere, an
 * extra count); one without a key is text only.
 *
 *	static const struct bench_col cols[] = {
 *		{ .head = { "design" }, .fmt = "%-10s", .key = "design" },
 *		{ .head = { "flushes" }, .fmt = " %10llu", .key = "flushes" },
 *		{ .key = "run_ms" },
 *	};
 *	cells[r * 3 + 0] = BENCH_STR(name); cells[r * 3 + 1] = BENCH_UINT(n); ...
 *
 * A cell's kind decides its JSON type and the argument its format receives:
 * BENCH_STR "%s", BENCH_INT "%lld", BENCH_UINT "%llu", BENCH_DBL "%f"/"%g",
 * BENCH_BOOL prints its text (pass/FAIL, yes/no) with "%s".
 */
#ifndef BENCH_TABLE_H
#define BENCH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench_util.h"

enum bench_cell_kind { BENCH_CELL_STR, BENCH_CELL_INT, BENCH_CELL_UINT, BENCH_CELL_DBL,
		       BENCH_CELL_BOOL };

struct bench_cell {
	enum bench_cell_kind kind;
	union {
		const char *s;
		long long i;
		unsigned long long u;
		double d;
		bool b;
	};
	const char *text;      /* BENCH_CELL_BOOL: what the text form prints */
};

#define BENCH_STR(v) ((struct bench_cell){ .kind = BENCH_CELL_STR, .s = (v) })
#define BENCH_INT(v) ((struct bench_cell){ .kind = BENCH_CELL_INT, .i = (long long)(v) })
#define BENCH_UINT(v) \
	((struct bench_cell){ .kind = BENCH_CELL_UINT, .u = (unsigned long long)(v) })
#define BENCH_DBL(v) ((struct bench_cell){ .kind = BENCH_CELL_DBL, .d = (double)(v) })
#define BENCH_BOOL(v, t, f) \
	((struct bench_cell){ .kind = BENCH_CELL_BOOL, .b = (v), .text = (v) ? (t) : (f) })

#define BENCH_TABLE_HEAD_ROWS 2

struct bench_col {
	/*
	 * Text header rows, printed with the format's separator and width ("%-10s"
	 * for " %-10llu"), or with head_fmt when it is set (a header wider than its
	 * column: head_fmt holds its own separator). NULL prints blanks.
	 */
	const char *head[BENCH_TABLE_HEAD_ROWS];
	const char *head_fmt;
	const char *fmt;       /* the cell's text, separator included; NULL: JSON only */
	const char *key;       /* JSON key; NULL: text only */
};

struct bench_table {
	const char *indent;              /* before each text line (may be NULL) */
	unsigned int head_rows;          /* text header rows: 0 to BENCH_TABLE_HEAD_ROWS */
	const struct bench_col *cols;
	size_t ncols;
	const struct bench_cell *cells;  /* [nrows][ncols] */
	size_t nrows;
	/* JSON: called in each row's object after its cells (a nested array); may be NULL. */
	void (*row_json)(struct bench_json *j, size_t row, const void *ctx);
	const void *ctx;
};

/* The header rows, then one line per row. */
void bench_table_print_text(FILE *f, const struct bench_table *t);

/* The rows as a JSON array under key, one object per row (text-only columns left out). */
void bench_table_print_json(struct bench_json *j, const char *key, const struct bench_table *t);

#endif /* BENCH_TABLE_H */
