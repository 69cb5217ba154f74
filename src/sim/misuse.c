/* SPDX-License-Identifier: MIT */
/*
 * misuse.c - the live-host set and the misuse stop (misuse.h).
 *
 * The set is a short array under a mutex: hosts are created and destroyed once
 * per explored run, and a process holds a few at a time (a bench's designs side
 * by side), so a linear search costs less than the host's own creation. Only
 * pointers are compared: a destroyed host's memory is never read.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "misuse.h"

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct msim **live;
static size_t nr_live, cap_live;

void msim_misuse(const char *call, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "memcgsim: misuse: %s: ", call);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void msim__host_live_add(const struct msim *m)
{
	pthread_mutex_lock(&live_lock);
	if (nr_live == cap_live) {
		size_t cap = cap_live ? 2 * cap_live : 16;
		const struct msim **v = realloc(live, cap * sizeof(*v));

		if (!v) {
			pthread_mutex_unlock(&live_lock);
			msim_misuse("msim_create", "out of memory for the live-host set");
		}
		live = v;
		cap_live = cap;
	}
	live[nr_live++] = m;
	pthread_mutex_unlock(&live_lock);
}

/* Index of m in the set, or nr_live; the lock held. */
static size_t find(const struct msim *m)
{
	size_t i = nr_live;

	while (i-- > 0)   /* newest first: the host just created is the usual one */
		if (live[i] == m)
			return i;
	return nr_live;
}

void msim__host_live_del(const struct msim *m)
{
	size_t i;

	pthread_mutex_lock(&live_lock);
	i = find(m);
	if (i < nr_live)
		live[i] = live[--nr_live];
	pthread_mutex_unlock(&live_lock);
}

bool msim_host_live(const struct msim *m)
{
	bool yes;

	if (!m)
		return false;
	pthread_mutex_lock(&live_lock);
	yes = find(m) < nr_live;
	pthread_mutex_unlock(&live_lock);
	return yes;
}

void msim__host_check(const struct msim *m, const char *call)
{
	if (!m)
		msim_misuse(call, "the host is NULL");
	if (!msim_host_live(m))
		msim_misuse(call, "host %p is not live (destroyed already, or never created by "
			     "msim_create)", (const void *)m);
}
