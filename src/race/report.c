/* SPDX-License-Identifier: MIT */
/*
 * report.c - what a race run reports: named figures (ints, bools, strings,
 * doubles) and a narrative whose first line is the verdict.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <memcgsim/race.h>

/* The slot of key (a new one if absent); NULL when the report is full. */
static struct msim_race_fig *fig_slot(struct msim_race_report *r, const char *key)
{
	for (unsigned int i = 0; i < r->nr_figs; i++)
		if (!strcmp(r->figs[i].key, key))
			return &r->figs[i];
	if (r->nr_figs >= MSIM_RACE_MAX_FIGS)
		return NULL;
	struct msim_race_fig *f = &r->figs[r->nr_figs++];
	memset(f, 0, sizeof(*f));
	f->key = key;
	return f;
}

void msim_race_fig_int(struct msim_race_report *r, const char *key, long long v)
{
	struct msim_race_fig *f = fig_slot(r, key);

	if (f) {
		f->type = MSIM_RACE_FIG_INT;
		f->i = v;
	}
}

void msim_race_fig_bool(struct msim_race_report *r, const char *key, bool v)
{
	struct msim_race_fig *f = fig_slot(r, key);

	if (f) {
		f->type = MSIM_RACE_FIG_BOOL;
		f->i = v;
	}
}

void msim_race_fig_str(struct msim_race_report *r, const char *key, const char *v)
{
	struct msim_race_fig *f = fig_slot(r, key);

	if (f) {
		f->type = MSIM_RACE_FIG_STR;
		snprintf(f->s, sizeof(f->s), "%s", v);
	}
}

void msim_race_fig_double(struct msim_race_report *r, const char *key, double v)
{
	struct msim_race_fig *f = fig_slot(r, key);

	if (f) {
		f->type = MSIM_RACE_FIG_DOUBLE;
		f->d = v;
	}
}

const struct msim_race_fig *msim_race_fig_find(const struct msim_race_report *r,
					       const char *key)
{
	for (unsigned int i = 0; key && i < r->nr_figs; i++)
		if (!strcmp(r->figs[i].key, key))
			return &r->figs[i];
	return NULL;
}

void msim_race_note(struct msim_race_report *r, const char *fmt, ...)
{
	size_t len = strlen(r->notes);
	va_list ap;

	if (len + 2 >= sizeof(r->notes))
		return;
	va_start(ap, fmt);
	vsnprintf(r->notes + len, sizeof(r->notes) - len - 1, fmt, ap);
	va_end(ap);
	len = strlen(r->notes);
	r->notes[len] = '\n';
	r->notes[len + 1] = '\0';
}
