/* SPDX-License-Identifier: MIT */
/*
 * bench_table.c - one printer for every bench's result tables (see bench_table.h).
 */
#include <string.h>

#include "bench_table.h"

/*
 * The header format of a column: its format's separator and width with "%s"
 * (" %-10llu" gives " %-10s"); text after the conversion counts as width.
 */
static void head_format(const char *fmt, char *out, size_t len)
{
	const char *pct = strchr(fmt, '%');
	const char *p, *conv;
	size_t width = 0, suffix;
	bool left = false;

	if (!pct) {
		snprintf(out, len, "%s", fmt);
		return;
	}
	for (p = pct + 1; strchr("-+ #0", *p) && *p; p++)
		left |= *p == '-';
	for (; *p >= '0' && *p <= '9'; p++)
		width = width * 10 + (size_t)(*p - '0');
	conv = p + strcspn(p, "sdiufgeExXc");
	suffix = *conv ? strlen(conv + 1) : 0;
	snprintf(out, len, "%.*s%%%s%zus", (int)(pct - fmt), fmt, left ? "-" : "", width + suffix);
}

static void print_cell(FILE *f, const char *fmt, const struct bench_cell *c)
{
	switch (c->kind) {
	case BENCH_CELL_STR:
		fprintf(f, fmt, c->s ? c->s : "");
		break;
	case BENCH_CELL_INT:
		fprintf(f, fmt, c->i);
		break;
	case BENCH_CELL_UINT:
		fprintf(f, fmt, c->u);
		break;
	case BENCH_CELL_DBL:
		fprintf(f, fmt, c->d);
		break;
	case BENCH_CELL_BOOL:
		fprintf(f, fmt, c->text ? c->text : "");
		break;
	}
}

static void print_head_row(FILE *f, const struct bench_table *t, unsigned int row)
{
	char fmt[64];

	fputs(t->indent ? t->indent : "", f);
	for (size_t c = 0; c < t->ncols; c++) {
		const struct bench_col *col = &t->cols[c];

		if (!col->fmt)
			continue;
		if (col->head_fmt)
			snprintf(fmt, sizeof(fmt), "%s", col->head_fmt);
		else
			head_format(col->fmt, fmt, sizeof(fmt));
		fprintf(f, fmt, col->head[row] ? col->head[row] : "");
	}
	fputc('\n', f);
}

void bench_table_print_text(FILE *f, const struct bench_table *t)
{
	for (unsigned int h = 0; h < t->head_rows && h < BENCH_TABLE_HEAD_ROWS; h++)
		print_head_row(f, t, h);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs(t->indent ? t->indent : "", f);
		for (size_t c = 0; c < t->ncols; c++)
			if (t->cols[c].fmt)
				print_cell(f, t->cols[c].fmt, &t->cells[r * t->ncols + c]);
		fputc('\n', f);
	}
}

static void json_cell(struct bench_json *j, const char *key, const struct bench_cell *c)
{
	switch (c->kind) {
	case BENCH_CELL_STR:
		bench_json_kstr(j, key, c->s);
		break;
	case BENCH_CELL_INT:
		bench_json_kint(j, key, c->i);
		break;
	case BENCH_CELL_UINT:
		bench_json_kuint(j, key, c->u);
		break;
	case BENCH_CELL_DBL:
		bench_json_kdbl(j, key, c->d);
		break;
	case BENCH_CELL_BOOL:
		bench_json_kbool(j, key, c->b);
		break;
	}
}

void bench_table_print_json(struct bench_json *j, const char *key, const struct bench_table *t)
{
	bench_json_arr_begin(j, key);
	for (size_t r = 0; r < t->nrows; r++) {
		bench_json_obj_begin(j, NULL);
		for (size_t c = 0; c < t->ncols; c++)
			if (t->cols[c].key)
				json_cell(j, t->cols[c].key, &t->cells[r * t->ncols + c]);
		if (t->row_json)
			t->row_json(j, r, t->ctx);
		bench_json_obj_end(j);
	}
	bench_json_arr_end(j);
}
