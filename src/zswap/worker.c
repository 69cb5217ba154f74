/* SPDX-License-Identifier: MIT */
/*
 * worker.c - zswap's global shrink_worker and its memcg cursor (kernel:
 * mm/zswap.c shrink_worker(), zswap_memcg_offline_cleanup(); docs/zswap.md; the
 * 2024 upstream fix "mm: zswap: fix global shrinker memcg iteration").
 *
 * Once the pool is full, stores are rejected until the worker has written the
 * pool back down to the accept threshold. It picks memcgs round-robin over the
 * whole tree with the global cursor zswap_next_shrink, which holds a css
 * reference (mem_cgroup_iter drops the previous one and takes the next). A memcg
 * that goes offline must not stay the cursor: the cursor's reference would keep
 * the dead memcg (and its memory) until the worker runs again, which may be
 * never. zswap_memcg_offline_cleanup() runs once per memcg, at its offline, and
 * moves the cursor off it.
 *
 * Variant zswap-shrink-iter:
 *   fixed  both the cleanup and the worker advance until an online memcg (or the
 *          end of the tree), under zswap_shrink_lock; an offline memcg is skipped
 *          without counting a failure.
 *   old    (before the fix) the cleanup advances one step: if the next memcg is
 *          offline already (its own cleanup ran before), the cursor stays on it;
 *          the worker counts an offline memcg as a failure and restarts from the
 *          root, giving up after MAX_RECLAIM_RETRIES.
 */
#include <errno.h>

#include "zswap/zswap_internal.h"

#define MAX_RECLAIM_RETRIES 16

/* mem_cgroup_iter(NULL, prev, NULL): the next memcg of the whole tree, prev's reference dropped. */
static struct msim_memcg *iter_next(struct msim__zswap *z, struct msim_memcg *prev)
{
	return msim_mem_cgroup_iter(msim_root_mem_cgroup(z->m), prev);
}

/*
 * Fixed: advance the cursor until a memcg whose online reference can be taken;
 * that one is returned with the extra reference (kept while it is shrunk, in
 * case the cleanup drops the cursor's). NULL: the end of the tree.
 */
static struct msim_memcg *pick_fixed(struct msim__zswap *z)
{
	struct msim_memcg *memcg;

	msim_spin_lock(&z->shrink_lock);
	do {
		memcg = iter_next(z, z->next_shrink);
		z->next_shrink = memcg;
		msim_yield_access("zswap.shrink.cursor", NULL, MSIM_ACCESS_NONE); /* css_tryget */
	} while (memcg && !msim_css_tryget_online(memcg));
	msim_spin_unlock(&z->shrink_lock);
	return memcg;
}

/*
 * Old: one step; an offline memcg drops the cursor (back to the root next time)
 * and is returned as ERR (-EAGAIN here) for the caller to count as a failure.
 */
static struct msim_memcg *pick_old(struct msim__zswap *z, int *err)
{
	struct msim_memcg *memcg;

	*err = 0;
	msim_spin_lock(&z->shrink_lock);
	z->next_shrink = iter_next(z, z->next_shrink);
	memcg = z->next_shrink;
	msim_yield_access("zswap.shrink.cursor", NULL, MSIM_ACCESS_NONE); /* css_tryget */
	if (memcg && !msim_css_tryget_online(memcg)) {
		msim_mem_cgroup_iter_break(msim_root_mem_cgroup(z->m), memcg);
		z->next_shrink = NULL;
		memcg = NULL;
		*err = -EAGAIN;
	}
	msim_spin_unlock(&z->shrink_lock);
	return memcg;
}

/* The pages written back so far (the worker returns its own share): any writer's. */
static unsigned long written_back(struct msim__zswap *z)
{
	msim__zswap_note(&z->written_back, MSIM_ACCESS_LOAD);
	return msim_quiet_load(&z->written_back, MSIM_RELAXED);
}

static bool over_threshold(struct msim__zswap *z)
{
	return msim__zswap_total_pages(z) > msim__zswap_accept_thr_pages(z);
}

/* kernel: shrink_worker() after the fix. */
static unsigned long shrink_worker_fixed(struct msim__zswap *z)
{
	unsigned long before = written_back(z);
	int failures = 0, attempts = 0, ret;
	struct msim_memcg *memcg;

	do {
		memcg = pick_fixed(z);
		if (!memcg) {
			/* A walk that found candidates is not a failure. */
			if (!attempts && ++failures == MAX_RECLAIM_RETRIES)
				break;
			attempts = 0;
			continue;
		}
		msim_yield_access("zswap.shrink.memcg", NULL, MSIM_ACCESS_NONE); /* READ_ONCE */
		ret = msim__zswap_shrink_memcg(z, memcg);
		msim_css_put(memcg);            /* the extra reference */
		if (ret == -ENOENT)             /* nothing of it in zswap: skip, no count */
			continue;
		++attempts;
		if (ret && ++failures == MAX_RECLAIM_RETRIES)
			break;
	} while (over_threshold(z));
	msim__zswap_count(&z->worker_failures, (unsigned long)failures);
	return written_back(z) - before;
}

/* kernel: shrink_worker() before the fix (v6.10). */
static unsigned long shrink_worker_old(struct msim__zswap *z)
{
	unsigned long before = written_back(z);
	struct msim_memcg *memcg;
	int failures = 0, ret;

	do {
		memcg = pick_old(z, &ret);
		if (!memcg) {
			if (++failures == MAX_RECLAIM_RETRIES)
				break;
			continue;
		}
		msim_yield_access("zswap.shrink.memcg", NULL, MSIM_ACCESS_NONE); /* READ_ONCE */
		ret = msim__zswap_shrink_memcg(z, memcg);
		msim_css_put(memcg);
		if (ret && ++failures == MAX_RECLAIM_RETRIES)
			break;
	} while (over_threshold(z));
	msim__zswap_count(&z->worker_failures, (unsigned long)failures);
	return written_back(z) - before;
}

unsigned long msim__zswap_shrink_worker(struct msim__zswap *z)
{
	msim__zswap_count(&z->worker_runs, 1);
	if (z->shrink_iter_old)
		return shrink_worker_old(z);
	return shrink_worker_fixed(z);
}

/*
 * kernel: zswap_memcg_offline_cleanup(memcg): under zswap_shrink_lock, move the
 * cursor off the memcg going offline. Fixed: on to the next online memcg (or
 * NULL). Old: one step, whatever it lands on.
 */
void msim__zswap_offline_cleanup(struct msim__zswap *z, struct msim_memcg *memcg)
{
	bool old = z->shrink_iter_old;

	msim_spin_lock(&z->shrink_lock);
	/* The cursor is read under zswap_shrink_lock, held across: nothing to note. */
	msim_yield_access("zswap.offline.cursor", NULL, MSIM_ACCESS_NONE);
	if (z->next_shrink == memcg) {
		do {
			z->next_shrink = iter_next(z, z->next_shrink);
		} while (!old && z->next_shrink && !msim_mem_cgroup_online(z->next_shrink));
	}
	msim_spin_unlock(&z->shrink_lock);
}

void msim__zswap_cursor_release(struct msim__zswap *z)
{
	if (z->next_shrink)
		msim_mem_cgroup_iter_break(msim_root_mem_cgroup(z->m), z->next_shrink);
	z->next_shrink = NULL;
}
