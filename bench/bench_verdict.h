/* SPDX-License-Identifier: MIT */
/*
 * bench_verdict.h - a bench's comparisons with its thread, as data.
 *
 * Each comparison is a row: the thread's claim, the thread's figures, ours, and
 * the rule that decides whether the claim holds, does not hold, or is not
 * comparable, with the reason for each outcome. A bench writes its rows once, as a
 * static table whose figures are indexes into a vector of measured values; after a
 * run it fills the vector, and one printer (text or JSON) judges and prints every
 * row. The rules only compare measured figures with each other or with constants,
 * so a planted vector forces any row to any of its outcomes (the bench-smoke tests
 * do exactly that).
 *
 * Rules:
 *  - BENCH_RULE_CHECKS: holds when every check passes, else does not hold. A check
 *    is "a OP k x b" (or "a OP k" when b is 0) over figures; a check marked
 *    or_next passes when it or the next one does.
 *  - BENCH_RULE_DIRECTION: a change in percent, ours against the thread's: holds
 *    when ours goes the thread's way beyond the noise (or both stay flat), does
 *    not hold when ours goes the other way, stays within the noise while the
 *    thread's moved, or moves beyond the noise while the thread's stayed flat
 *    (a flat figure has no sign to match). The detail says whether the size
 *    agrees too.
 *  - BENCH_RULE_NONE: never comparable (why[] says what the model does not do).
 *  - BENCH_RULE_BY_CONSTRUCTION: the bench's setup decides the outcome (why[]
 *    says how); printed as "by construction", never judged.
 * Any rule first applies comparable_when (checks in the same form): if one fails,
 * the row is not comparable. A figure that is NaN (not measured) makes a row not
 * comparable too.
 */
#ifndef BENCH_VERDICT_H
#define BENCH_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bench_util.h"

enum bench_verdict_outcome {
	BENCH_VERDICT_DOES_NOT_HOLD = 0,
	BENCH_VERDICT_HOLDS,
	BENCH_VERDICT_NOT_COMPARABLE,
	BENCH_VERDICT_BY_CONSTRUCTION, /* the setup decides the outcome: shown, never judged */
	BENCH_VERDICT_NOUTCOMES,
};

enum bench_verdict_op { BENCH_VOP_LT, BENCH_VOP_LE, BENCH_VOP_GT, BENCH_VOP_GE, BENCH_VOP_EQ };

/* "fig[a] op k * fig[b]", or "fig[a] op k" when b is 0. a == 0 ends a list. */
struct bench_verdict_check {
	unsigned int a;
	enum bench_verdict_op op;
	double k;
	unsigned int b;
	bool or_next;          /* this check or the next one */
};

/*
 * A figure shown beside a claim: measured (fig != 0) or a constant value; a
 * constant NaN shows the label alone (a claim the thread makes in words).
 */
struct bench_verdict_fig {
	const char *label;     /* NULL ends a list */
	unsigned int fig;
	double value;
	const char *unit;      /* "us", "KiB", "%", "x" (a ratio), "" */
};

enum bench_verdict_rule {
	BENCH_RULE_CHECKS = 0, BENCH_RULE_DIRECTION, BENCH_RULE_NONE, BENCH_RULE_BY_CONSTRUCTION,
};

struct bench_verdict_direction {
	unsigned int ours, noise;          /* figures, in percent */
	unsigned int thread;               /* figure, or 0: thread_value */
	double thread_value;               /* percent */
	double flat;                       /* a change of at most this many points is none */
};

#define BENCH_VERDICT_MAX_FIGS 10
#define BENCH_VERDICT_MAX_CHECKS 6

struct bench_verdict_row {
	const char *claim;
	unsigned int group;    /* the bench's: rows of groups it did not measure are left out */
	struct bench_verdict_fig thread[BENCH_VERDICT_MAX_FIGS];
	struct bench_verdict_fig ours[BENCH_VERDICT_MAX_FIGS];
	enum bench_verdict_rule rule;
	struct bench_verdict_check comparable_when[BENCH_VERDICT_MAX_CHECKS];
	struct bench_verdict_check holds_when[BENCH_VERDICT_MAX_CHECKS];
	struct bench_verdict_direction dir;
	const char *why[BENCH_VERDICT_NOUTCOMES];  /* per outcome; NULL: nothing to add */
	const char *note;      /* printed after why[] whatever the outcome (may be NULL) */
};

struct bench_verdict_table {
	const char *reference;             /* whose figures: "thread 002", "goal" */
	const struct bench_verdict_row *rows;
	size_t nrows;
	const char *const *fig_names;      /* [nfig]; [0] unused: names in the printed rules */
	const double *fig;                 /* [nfig]: the measured figures */
	size_t nfig;
	unsigned int groups;               /* mask of the groups to judge and print */
};

const char *bench_verdict_outcome_name(enum bench_verdict_outcome o);

/* The outcome of row r over t's figures; *detail (may be NULL) gets the rule's own reason. */
enum bench_verdict_outcome bench_verdict_judge(const struct bench_verdict_table *t,
					       const struct bench_verdict_row *r,
					     const char **detail);

/* The rule of row r in words ("idle_flush_ns > 10 x node_read_ns"). */
void bench_verdict_rule_text(const struct bench_verdict_table *t, const struct bench_verdict_row *r,
			     char *buf, size_t len);

/* Every row of t's groups, judged: a header line, then claim, figures, rule and why. */
void bench_verdict_print_text(FILE *f, const struct bench_verdict_table *t);

/* The same as a JSON array under key ("verdicts"). */
void bench_verdict_print_json(struct bench_json *j, const char *key,
			      const struct bench_verdict_table *t);

#endif /* BENCH_VERDICT_H */
