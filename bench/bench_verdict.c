/* SPDX-License-Identifier: MIT */
/*
 * bench_verdict.c - judging and printing a bench's comparisons with its thread
 * (bench_verdict.h): one rule engine, one text printer, one JSON printer.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "bench_verdict.h"

static const char *const outcome_name[BENCH_VERDICT_NOUTCOMES] = {
	[BENCH_VERDICT_DOES_NOT_HOLD] = "does not hold",
	[BENCH_VERDICT_HOLDS] = "holds",
	[BENCH_VERDICT_NOT_COMPARABLE] = "not comparable",
	[BENCH_VERDICT_BY_CONSTRUCTION] = "by construction",
};

static const char *const op_text[] = {
	[BENCH_VOP_LT] = "<", [BENCH_VOP_LE] = "<=", [BENCH_VOP_GT] = ">",
	[BENCH_VOP_GE] = ">=", [BENCH_VOP_EQ] = "==",
};

const char *bench_verdict_outcome_name(enum bench_verdict_outcome o)
{
	return o < BENCH_VERDICT_NOUTCOMES ? outcome_name[o] : "?";
}

static double fig(const struct bench_verdict_table *t, unsigned int i)
{
	return i && i < t->nfig ? t->fig[i] : NAN;
}

static bool wanted(const struct bench_verdict_table *t, const struct bench_verdict_row *r)
{
	return !(r->group & ~t->groups);
}

/* ---- judging ---- */

/* Every figure a check list names was measured (not NaN). */
static bool checks_measured(const struct bench_verdict_table *t,
			    const struct bench_verdict_check *c)
{
	for (int i = 0; i < BENCH_VERDICT_MAX_CHECKS && c[i].a; i++)
		if (isnan(fig(t, c[i].a)) || (c[i].b && isnan(fig(t, c[i].b))))
			return false;
	return true;
}

static bool check_passes(const struct bench_verdict_table *t, const struct bench_verdict_check *c)
{
	double a = fig(t, c->a), rhs = c->b ? c->k * fig(t, c->b) : c->k;

	switch (c->op) {
	case BENCH_VOP_LT: return a < rhs;
	case BENCH_VOP_LE: return a <= rhs;
	case BENCH_VOP_GT: return a > rhs;
	case BENCH_VOP_GE: return a >= rhs;
	case BENCH_VOP_EQ: return a == rhs;
	}
	return false;
}

/* Check i is joined to the next one by "or" (a dangling or_next joins nothing). */
static bool joins_next(const struct bench_verdict_check *c, int i)
{
	return c[i].or_next && i + 1 < BENCH_VERDICT_MAX_CHECKS && c[i + 1].a;
}

/* All clauses pass; a clause is a run of checks joined by or_next. */
static bool checks_pass(const struct bench_verdict_table *t, const struct bench_verdict_check *c)
{
	bool clause = false;

	for (int i = 0; i < BENCH_VERDICT_MAX_CHECKS && c[i].a; i++) {
		clause = clause || check_passes(t, &c[i]);
		if (joins_next(c, i))
			continue;
		if (!clause)
			return false;
		clause = false;
	}
	return true;
}

static enum bench_verdict_outcome judge_direction(const struct bench_verdict_table *t,
						  const struct bench_verdict_direction *d,
						 const char **detail)
{
	double ours = fig(t, d->ours), noise = fig(t, d->noise);
	double thread = d->thread ? fig(t, d->thread) : d->thread_value;

	if (isnan(ours) || isnan(thread) || isnan(noise)) {
		*detail = "a figure was not measured";
		return BENCH_VERDICT_NOT_COMPARABLE;
	}
	if (fabs(ours) <= noise) {
		*detail = fabs(thread) <= d->flat ? "both within noise"
						  : "not reproduced: ours is within noise";
		return fabs(thread) <= d->flat ? BENCH_VERDICT_HOLDS : BENCH_VERDICT_DOES_NOT_HOLD;
	}
	/* A flat thread figure has no sign to match: ours moving beyond noise differs. */
	if (fabs(thread) <= d->flat) {
		*detail = "the thread's change is flat; ours moves beyond noise";
		return BENCH_VERDICT_DOES_NOT_HOLD;
	}
	if ((ours < 0) != (thread < 0)) {
		*detail = "opposite direction";
		return BENCH_VERDICT_DOES_NOT_HOLD;
	}
	if (fabs(ours - thread) <= fmax(noise, d->flat)) {
		*detail = "direction and size";
		return BENCH_VERDICT_HOLDS;
	}
	*detail = "in direction; the size differs";
	return BENCH_VERDICT_HOLDS;
}

enum bench_verdict_outcome bench_verdict_judge(const struct bench_verdict_table *t,
					       const struct bench_verdict_row *r,
					     const char **detail)
{
	const char *dummy;

	if (!detail)
		detail = &dummy;
	*detail = NULL;
	if (r->rule == BENCH_RULE_NONE)
		return BENCH_VERDICT_NOT_COMPARABLE;
	if (r->rule == BENCH_RULE_BY_CONSTRUCTION)
		return BENCH_VERDICT_BY_CONSTRUCTION;
	if (!checks_measured(t, r->comparable_when) || !checks_measured(t, r->holds_when)) {
		*detail = "a figure was not measured";
		return BENCH_VERDICT_NOT_COMPARABLE;
	}
	if (!checks_pass(t, r->comparable_when))
		return BENCH_VERDICT_NOT_COMPARABLE;
	if (r->rule == BENCH_RULE_DIRECTION)
		return judge_direction(t, &r->dir, detail);
	return checks_pass(t, r->holds_when) ? BENCH_VERDICT_HOLDS : BENCH_VERDICT_DOES_NOT_HOLD;
}

/* ---- rules in words ---- */

static const char *fig_name(const struct bench_verdict_table *t, unsigned int i)
{
	return t->fig_names && i < t->nfig && t->fig_names[i] ? t->fig_names[i] : "?";
}

static size_t append(char *buf, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t append(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at >= len)
		return at;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
	return n < 0 ? at : at + (size_t)n;
}

/* "(a > 1 or b > 1) and c == 0": alternatives in brackets, clauses joined by "and". */
static size_t checks_text(const struct bench_verdict_table *t, const struct bench_verdict_check *c,
			  char *buf, size_t len, size_t at)
{
	for (int i = 0; i < BENCH_VERDICT_MAX_CHECKS && c[i].a; i++) {
		bool after_or = i && joins_next(c, i - 1);

		if (i)
			at = append(buf, len, at, after_or ? " or " : " and ");
		at = append(buf, len, at, "%s%s %s ", joins_next(c, i) && !after_or ? "(" : "",
			    fig_name(t, c[i].a), op_text[c[i].op]);
		if (!c[i].b)
			at = append(buf, len, at, "%g", c[i].k);
		else if (c[i].k == 1 || c[i].k == -1)
			at = append(buf, len, at, "%s%s", c[i].k < 0 ? "-" : "", fig_name(t, c[i].b));
		else
			at = append(buf, len, at, "%g x %s", c[i].k, fig_name(t, c[i].b));
		if (after_or && !joins_next(c, i))
			at = append(buf, len, at, ")");
	}
	return at;
}

void bench_verdict_rule_text(const struct bench_verdict_table *t, const struct bench_verdict_row *r,
			     char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	if (r->comparable_when[0].a) {
		at = append(buf, len, at, "comparable when ");
		at = checks_text(t, r->comparable_when, buf, len, at);
		at = append(buf, len, at, "; ");
	}
	if (r->rule == BENCH_RULE_NONE)
		append(buf, len, at, "none (not comparable)");
	else if (r->rule == BENCH_RULE_BY_CONSTRUCTION)
		append(buf, len, at, "none (the setup decides it: by construction)");
	else if (r->rule == BENCH_RULE_DIRECTION && r->dir.thread)
		append(buf, len, at, "%s has the sign of %s beyond %s (a change of at most %g "
		       "points is none)", fig_name(t, r->dir.ours), fig_name(t, r->dir.thread),
		       fig_name(t, r->dir.noise), r->dir.flat);
	else if (r->rule == BENCH_RULE_DIRECTION)
		append(buf, len, at, "%s has the sign of %g beyond %s (a change of at most %g "
		       "points is none)", fig_name(t, r->dir.ours), r->dir.thread_value,
		       fig_name(t, r->dir.noise), r->dir.flat);
	else
		checks_text(t, r->holds_when, buf, len, at);
}

/* ---- printing ---- */

/* Figures print at the precision that shows them: whole numbers from 100 up. */
static void format_value(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 100 && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

static void print_figs(FILE *f, const struct bench_verdict_table *t,
		       const struct bench_verdict_fig *fg)
{
	if (!fg[0].label)
		fputc('-', f);
	for (int i = 0; i < BENCH_VERDICT_MAX_FIGS && fg[i].label; i++) {
		const char *u = fg[i].unit ? fg[i].unit : "";
		bool attach = !strcmp(u, "x") || !strcmp(u, "%");
		char v[48];

		if (!fg[i].fig && isnan(fg[i].value)) {
			fprintf(f, "%s%s", i ? ", " : "", fg[i].label);
			continue;
		}
		format_value(v, sizeof(v), fg[i].fig ? fig(t, fg[i].fig) : fg[i].value);
		fprintf(f, "%s%s%s%s%s%s", i ? ", " : "", fg[i].label, *fg[i].label ? " " : "", v,
			*u && !attach ? " " : "", u);
	}
	fputc('\n', f);
}

/* "detail; why[o]; note", leaving out what is NULL. */
static const char *why_text(const struct bench_verdict_row *r, enum bench_verdict_outcome o,
			    const char *detail, char *buf, size_t len)
{
	const char *part[3] = { detail, r->why[o], r->note };
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; i < 3; i++)
		if (part[i])
			at = append(buf, len, at, "%s%s", at ? "; " : "", part[i]);
	return buf;
}

/* One judged row: claim, the reference's figures, ours, the rule and why. */
static void print_row(FILE *f, const struct bench_verdict_table *t,
		      const struct bench_verdict_row *r, const char *ref, int w)
{
	char rule[512], why[1024];
	const char *detail;
	enum bench_verdict_outcome o = bench_verdict_judge(t, r, &detail);

	fprintf(f, "  [%s] %s\n", outcome_name[o], r->claim);
	fprintf(f, "      %-*s ", w, ref);
	print_figs(f, t, r->thread);
	fprintf(f, "      %-*s ", w, "ours:");
	print_figs(f, t, r->ours);
	bench_verdict_rule_text(t, r, rule, sizeof(rule));
	fprintf(f, "      %-*s %s\n", w, "rule:", rule);
	if (*why_text(r, o, detail, why, sizeof(why)))
		fprintf(f, "      %-*s %s\n", w, "why:", why);
}

void bench_verdict_print_text(FILE *f, const struct bench_verdict_table *t)
{
	char ref[64];
	int w;

	snprintf(ref, sizeof(ref), "%s:", t->reference);
	w = strlen(ref) > 5 ? (int)strlen(ref) : 5;
	fprintf(f, "Verdicts against %s (holds / does not hold / not comparable / by construction):\n", t->reference);
	for (size_t i = 0; i < t->nrows; i++)
		if (wanted(t, &t->rows[i]))
			print_row(f, t, &t->rows[i], ref, w);
}

static void json_figs(struct bench_json *j, const char *key, const struct bench_verdict_table *t,
		      const struct bench_verdict_fig *fg)
{
	bench_json_arr_begin(j, key);
	for (int i = 0; i < BENCH_VERDICT_MAX_FIGS && fg[i].label; i++) {
		bench_json_obj_begin(j, NULL);
		bench_json_kstr(j, "label", fg[i].label);
		bench_json_kdbl(j, "value", fg[i].fig ? fig(t, fg[i].fig) : fg[i].value);
		bench_json_kstr(j, "unit", fg[i].unit ? fg[i].unit : "");
		bench_json_obj_end(j);
	}
	bench_json_arr_end(j);
}

void bench_verdict_print_json(struct bench_json *j, const char *key,
			      const struct bench_verdict_table *t)
{
	char rule[512], why[1024];
	const char *detail;

	bench_json_arr_begin(j, key);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct bench_verdict_row *r = &t->rows[i];
		enum bench_verdict_outcome o;

		if (!wanted(t, r))
			continue;
		o = bench_verdict_judge(t, r, &detail);
		bench_verdict_rule_text(t, r, rule, sizeof(rule));
		bench_json_obj_begin(j, NULL);
		bench_json_kstr(j, "claim", r->claim);
		bench_json_kstr(j, "verdict", outcome_name[o]);
		bench_json_kstr(j, "reference", t->reference);
		json_figs(j, "thread", t, r->thread);
		json_figs(j, "ours", t, r->ours);
		bench_json_kstr(j, "rule", rule);
		bench_json_kstr(j, "why", why_text(r, o, detail, why, sizeof(why)));
		bench_json_obj_end(j);
	}
	bench_json_arr_end(j);
}
