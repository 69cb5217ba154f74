/* SPDX-License-Identifier: MIT */
/*
 * watch.c - the freed-memcg check of the tryget=off reader (damon.h).
 *
 * The reader registers the memcg it found while it is still inside the RCU
 * section of the lookup, so the memcg is not freed yet; host.c's css_free hook
 * marks every watch on the memcg being freed, before the memcg layer frees (or,
 * in debug builds, poisons and quarantines) the struct. The reader then asks the
 * watch, never the struct, whether the memcg is gone: the answer needs no access
 * to freed memory, in any build. No kernel counterpart: this is the model's
 * KASAN for one pointer.
 */
#include <errno.h>

#include "damon_internal.h"

/* DPOR (yield.h): the table is read and written under a quiet lock: note it. */
static void note_table(struct msim__damon *d, int kind)
{
	msim_access_note(d->watch, sizeof(d->watch), kind);
}

int msim__damon_watch_add(struct msim__damon *d, struct msim_memcg *memcg)
{
	int slot = -ENOSPC;

	note_table(d, MSIM_ACCESS_RMW);
	msim_quiet_spin_lock(&d->lock);
	for (int i = 0; i < MSIM__DAMON_WATCHES; i++) {
		if (!d->watch[i].memcg) {
			d->watch[i].memcg = memcg;
			d->watch[i].freed = false;
			slot = i;
			break;
		}
	}
	msim_quiet_spin_unlock(&d->lock);
	return slot;
}

bool msim__damon_watch_freed(struct msim__damon *d, int slot)
{
	bool freed;

	note_table(d, MSIM_ACCESS_LOAD);
	msim_quiet_spin_lock(&d->lock);
	freed = d->watch[slot].freed;
	msim_quiet_spin_unlock(&d->lock);
	return freed;
}

void msim__damon_watch_del(struct msim__damon *d, int slot)
{
	note_table(d, MSIM_ACCESS_STORE);
	msim_quiet_spin_lock(&d->lock);
	d->watch[slot].memcg = NULL;
	d->watch[slot].freed = false;
	msim_quiet_spin_unlock(&d->lock);
}

void msim__damon_watch_mark_freed(struct msim__damon *d, struct msim_memcg *memcg)
{
	note_table(d, MSIM_ACCESS_RMW);
	msim_quiet_spin_lock(&d->lock);
	for (int i = 0; i < MSIM__DAMON_WATCHES; i++)
		if (d->watch[i].memcg == memcg)
			d->watch[i].freed = true;
	msim_quiet_spin_unlock(&d->lock);
}
