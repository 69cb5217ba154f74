/* SPDX-License-Identifier: MIT */
/*
 * sched_string.c - what the scheduler records of each step (sched.c): the step
 * and switch counts, and the schedule string, run-length encoded as it is built
 * (".3*12": pick 3 twelve times), which is all that replay needs.
 */
#include <stdlib.h>
#include <string.h>

#include <memcgsim/explore.h>

#include "sched_string.h"

static void str_append(struct msim_sched *s, const char *text)
{
	size_t n = strlen(text);

	if (s->str_len + n + 1 > s->str_cap) {
		size_t cap = s->str_cap ? s->str_cap * 2 : 256;
		while (cap < s->str_len + n + 1)
			cap *= 2;
		char *p = realloc(s->str, cap);
		if (!p)
			abort();
		s->str = p;
		s->str_cap = cap;
	}
	memcpy(s->str + s->str_len, text, n + 1);
	s->str_len += n;
}

/* The decimal digits of v at p; returns the end. */
static char *put_decimal(char *p, uint64_t v)
{
	char d[20];
	int n = 0;

	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*p++ = d[--n];
	return p;
}

/*
 * One run of the schedule string: ".3*12" (no dot for the first). By hand, not
 * snprintf: formatting was a fifth of an explored run of rstat-early-exit. len
 * (48) holds a dot, a sign, 10 digits, a star and 20 digits.
 */
static void format_token(char *tok, size_t len, int pick, uint64_t count, bool dot)
{
	char *p = tok;

	(void)len;
	if (dot)
		*p++ = '.';
	if (pick == MSIM_PICK_R) {
		*p++ = 'R';
	} else if (MSIM_PICK_IS_DRAIN(pick)) {
		*p++ = '~';        /* a store-buffer drain (storebuf.h) */
		p = put_decimal(p, (uint64_t)MSIM_PICK_DRAIN_CPU(pick));
		if (MSIM_PICK_DRAIN_POS(pick)) {
			*p++ = '+';
			p = put_decimal(p, (uint64_t)MSIM_PICK_DRAIN_POS(pick));
		}
	} else if (MSIM_PICK_IS_IRQ(pick)) {
		*p++ = '!';        /* the arrival of an interrupt source (irq.h) */
		p = put_decimal(p, (uint64_t)MSIM_PICK_IRQ_TASK(pick));
	} else {
		if (pick < 0)
			*p++ = '-';
		p = put_decimal(p, pick < 0 ? -(uint64_t)(int64_t)pick : (uint64_t)pick);
	}
	if (count > 1) {
		*p++ = '*';
		p = put_decimal(p, count);
	}
	*p = '\0';
}

static void rle_flush(struct msim_sched *s)
{
	char tok[48];

	if (!s->rle_count)
		return;
	format_token(tok, sizeof(tok), s->rle_pick, s->rle_count, s->str_len != 0);
	str_append(s, tok);
	s->rle_count = 0;
}

void msim__sched_record(struct msim *m, int pick)
{
	struct msim_sched *s = &m->sched;

	s->steps++;
	if (pick != MSIM_PICK_R && !MSIM_PICK_IS_DRAIN(pick)) {
		int who = MSIM_PICK_IS_IRQ(pick) ? MSIM_PICK_IRQ_TASK(pick) : pick;

		if (s->current >= 0 && s->current != who)
			s->switches++;
		s->current = who;
	}
	if (s->rle_count && s->rle_pick == pick) {
		s->rle_count++;
	} else {
		rle_flush(s);
		s->rle_pick = pick;
		s->rle_count = 1;
	}
}

const char *msim_schedule_string(struct msim *m)
{
	struct msim_sched *s = &m->sched;
	char tok[48] = "";

	if (s->rle_count)
		format_token(tok, sizeof(tok), s->rle_pick, s->rle_count, s->str_len != 0);
	size_t len = s->str_len + strlen(tok) + 1;
	char *copy = realloc(s->str_copy, len);
	if (!copy)
		abort();
	memcpy(copy, s->str ? s->str : "", s->str_len);
	memcpy(copy + s->str_len, tok, strlen(tok) + 1);
	s->str_copy = copy;
	return copy;
}
