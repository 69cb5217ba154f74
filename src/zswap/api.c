/* SPDX-License-Identifier: MIT */
/*
 * api.c - zswap's entry points that look the host state up (zswap.h): attach
 * and tunables, the pool and shrinking calls, the memcg interface files,
 * counters. The files below take the state as an argument.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zswap/zswap_internal.h"

static struct msim__zswap *zswap_of(const struct msim *m)
{
	return msim__zswap_of(m);
}

static struct msim__zswap *zswap_of_memcg(const struct msim_memcg *memcg)
{
	return memcg ? zswap_of(msim_memcg_host(memcg)) : NULL;
}

static int check_params(const struct msim_zswap_params *p, char *err, size_t errlen)
{
	const char *bad = NULL;

	if (!p->max_pool_percent || p->max_pool_percent > 100)
		bad = "max_pool_percent must be 1..100";
	else if (!p->accept_thr_percent || p->accept_thr_percent > 100)
		bad = "accept_thr_percent must be 1..100";
	else if (!p->swap_slots || p->swap_slots > (1UL << 26))
		bad = "swap_slots must be 1..67108864";
	else if (!p->min_bytes || p->min_bytes > p->max_bytes || p->max_bytes > MSIM_PAGE_SIZE)
		bad = "compressed sizes need 1 <= min_bytes <= max_bytes <= 4096";
	else if (p->incompressible_pct > 100)
		bad = "incompressible_pct must be 0..100";
	if (bad && err && errlen)
		snprintf(err, errlen, "zswap: %s", bad);
	return bad ? -EINVAL : 0;
}

/* The device is sized at attach; a different size is set up again here. */
static int apply_params(struct msim__zswap *z, const struct msim_zswap_params *p)
{
	unsigned long ram = z->p.total_ram_pages;
	int ret = 0;

	if (p->swap_slots != z->dev.nr_slots) {
		msim__swapdev_fini(&z->dev);
		ret = msim__swapdev_init(&z->dev, p->swap_slots);
	}
	z->p = *p;
	if (!z->p.total_ram_pages)
		z->p.total_ram_pages = ram;
	return ret;
}

int msim_zswap_attach(struct msim *m, const struct msim_zswap_params *params, char *err,
		      size_t errlen)
{
	struct msim_zswap_params defaults;
	struct msim_memcg_counts counts;
	struct msim__zswap *z;
	int ret;

	if (!m)
		return -EINVAL;
	msim_zswap_params_init(&defaults);
	if (!params)
		params = &defaults;
	if ((ret = check_params(params, err, errlen)))
		return ret;
	if (zswap_of(m))
		return -EBUSY;
	msim_memcg_counts(m, &counts);
	if (counts.created_total > 1) {
		if (err && errlen)
			snprintf(err, errlen, "zswap: attach before the first child memcg");
		return -EBUSY;
	}
	/* The subsystem's dependencies (lru, list_lru, obj_stock) attach before it. */
	if ((ret = msim__zswap_attach(m, err, errlen)))
		return ret;
	z = zswap_of(m);
	return apply_params(z, params);
}

bool msim_zswap_attached(const struct msim *m)
{
	return zswap_of(m) != NULL;
}

/* ---- the pool ---- */

bool msim_zswap_store(struct msim_folio *folio, unsigned long slot)
{
	struct msim__zswap *z = folio ? zswap_of(msim_folio_host(folio)) : NULL;

	return z && slot < z->dev.nr_slots && msim__zswap_store(z, folio, slot);
}

bool msim_zswap_load(struct msim_folio *folio, unsigned long slot)
{
	struct msim__zswap *z = folio ? zswap_of(msim_folio_host(folio)) : NULL;

	return z && slot < z->dev.nr_slots && msim__zswap_load(z, folio, slot);
}

void msim_zswap_invalidate(struct msim *m, unsigned long slot)
{
	struct msim__zswap *z = zswap_of(m);

	if (z && slot < z->dev.nr_slots)
		msim__zswap_invalidate(z, slot);
}

unsigned long msim_zswap_total_pages(struct msim *m)
{
	struct msim__zswap *z = zswap_of(m);

	return z ? msim__zswap_total_pages(z) : 0;
}

unsigned long msim_zswap_stored_pages(struct msim *m)
{
	struct msim__zswap *z = zswap_of(m);

	return z ? (unsigned long)msim_atomic_long_read(&z->stored_pages) : 0;
}

unsigned long msim_zswap_max_pages(struct msim *m)
{
	struct msim__zswap *z = zswap_of(m);

	return z ? msim__zswap_max_pages(z) : 0;
}

unsigned long msim_zswap_accept_thr_pages(struct msim *m)
{
	struct msim__zswap *z = zswap_of(m);

	return z ? msim__zswap_accept_thr_pages(z) : 0;
}

/* ---- memcg interface ---- */

uint64_t msim_memory_zswap_current_read(struct msim_memcg *memcg)
{
	if (!memcg)
		return 0;
	msim_do_mem_cgroup_flush_stats(memcg, true);
	return msim_memcg_page_state(memcg, MSIM_MEMCG_ZSWAP_B);
}

int msim_memory_zswap_max_write(struct msim_memcg *memcg, const char *buf)
{
	struct msim__zswap_memcg *zm = msim__zswap_memcg(zswap_of_memcg(memcg), memcg);
	unsigned long long bytes;
	char *end;

	if (!zm || !buf || msim_mem_cgroup_is_root(memcg))
		return -EINVAL;
	if (!strcmp(buf, "max")) {
		msim_write_once_ul(&zm->zswap_max, (unsigned long)MSIM_PAGE_COUNTER_MAX);
		return 0;
	}
	errno = 0;
	bytes = strtoull(buf, &end, 10);
	if (errno || end == buf || *end || buf[0] == '-')
		return -EINVAL;
	bytes /= MSIM_PAGE_SIZE;
	if (bytes > (unsigned long long)MSIM_PAGE_COUNTER_MAX)
		bytes = (unsigned long long)MSIM_PAGE_COUNTER_MAX;
	msim_write_once_ul(&zm->zswap_max, (unsigned long)bytes);
	return 0;
}

unsigned long msim_memory_zswap_max_pages(struct msim_memcg *memcg)
{
	struct msim__zswap_memcg *zm = msim__zswap_memcg(zswap_of_memcg(memcg), memcg);

	return zm ? msim_read_once_ul(&zm->zswap_max) : (unsigned long)MSIM_PAGE_COUNTER_MAX;
}

int msim_memory_zswap_writeback_write(struct msim_memcg *memcg, int enabled)
{
	struct msim__zswap_memcg *zm = msim__zswap_memcg(zswap_of_memcg(memcg), memcg);

	if (!zm || (enabled != 0 && enabled != 1) || msim_mem_cgroup_is_root(memcg))
		return -EINVAL;
	msim_write_once_ul(&zm->writeback, (unsigned long)enabled);
	return 0;
}

bool msim_mem_cgroup_zswap_writeback_enabled(struct msim_memcg *memcg)
{
	struct msim__zswap *z = zswap_of_memcg(memcg);

	return !z || msim__zswap_writeback_enabled(z, memcg);
}

bool msim_obj_cgroup_may_zswap(struct msim_obj_cgroup *objcg)
{
	struct msim_memcg *memcg;
	struct msim__zswap *z;

	if (!objcg)
		return true;
	msim_rcu_read_lock();
	memcg = msim_obj_cgroup_memcg(objcg);
	z = zswap_of_memcg(memcg);
	msim_rcu_read_unlock();
	return !z || msim__zswap_may_zswap(z, objcg);
}

/* ---- shrinking ---- */

struct msim_shrinker *msim_zswap_shrinker(struct msim *m)
{
	struct msim__zswap *z = zswap_of(m);

	return z ? z->shrinker : NULL;
}

unsigned long msim_zswap_shrinker_count(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	if (!s || !sc || s->count_objects != msim__zswap_shrinker_count)
		return 0;
	return msim__zswap_shrinker_count(s, sc);
}

unsigned long msim_zswap_shrinker_scan(struct msim_shrinker *s, struct msim_shrink_control *sc)
{
	if (!s || !sc || s->scan_objects != msim__zswap_shrinker_scan)
		return MSIM_SHRINK_STOP;
	return msim__zswap_shrinker_scan(s, sc);
}

int msim_zswap_shrink_memcg(struct msim *m, struct msim_memcg *memcg)
{
	struct msim__zswap *z = zswap_of(m);

	return z ? msim__zswap_shrink_memcg(z, memcg) : -EINVAL;
}

unsigned long msim_zswap_shrink_worker(struct msim *m)
{
	struct msim__zswap *z = zswap_of(m);

	return z ? msim__zswap_shrink_worker(z) : 0;
}

unsigned long msim_zswap_run_queued_work(struct msim *m)
{
	struct msim__zswap *z = zswap_of(m);

	if (!z)
		return 0;
	msim__zswap_note(&z->work_queued, MSIM_ACCESS_RMW);
	if (!msim_quiet_xchg(&z->work_queued, false, MSIM_RELAXED))
		return 0;
	return msim__zswap_shrink_worker(z);
}

struct msim_memcg *msim_zswap_shrink_cursor(struct msim *m)
{
	struct msim__zswap *z = zswap_of(m);
	struct msim_memcg *memcg;

	if (!z)
		return NULL;
	msim_spin_lock(&z->shrink_lock);
	memcg = z->next_shrink;
	msim_spin_unlock(&z->shrink_lock);
	return memcg;
}

void msim_zswap_memcg_offline_cleanup(struct msim_memcg *memcg)
{
	struct msim__zswap *z = zswap_of_memcg(memcg);

	if (z)
		msim__zswap_offline_cleanup(z, memcg);
}

/* ---- counters ---- */

static unsigned long q(const unsigned long *p)
{
	return msim_quiet_load(p, MSIM_RELAXED);
}

void msim_zswap_stats(struct msim *m, struct msim_zswap_stats *out)
{
	struct msim__zswap *z = zswap_of(m);

	memset(out, 0, sizeof(*out));
	if (!z)
		return;
	out->zswpout = q(&z->zswpout);
	out->zswpin = q(&z->zswpin);
	out->zswpwb = q(&z->zswpwb);
	out->pswpout = q(&z->pswpout);
	out->pswpin = q(&z->pswpin);
	out->stored_pages = (unsigned long)msim_atomic_long_read(&z->stored_pages);
	out->stored_incompressible_pages = (unsigned long)msim_atomic_long_read(&z->stored_incomp);
	out->pool_bytes = (unsigned long)msim_atomic_long_read(&z->pool_bytes);
	out->pool_pages = msim__zswap_total_pages(z);
	out->written_back_pages = q(&z->written_back);
	out->reject_reclaim_fail = q(&z->reject_reclaim_fail);
	out->reject_compress_fail = q(&z->reject_compress_fail);
	out->reject_limit = q(&z->reject_limit);
	out->reject_memcg_max = q(&z->reject_memcg_max);
	out->pool_limit_hit = q(&z->pool_limit_hit);
	out->kept_no_writeback = q(&z->kept_no_writeback);
	out->swap_slots_used = z->dev.used;
	out->swap_slots_nomem = z->dev.nomem;
	out->shrink_worker_runs = q(&z->worker_runs);
	out->shrink_worker_failures = q(&z->worker_failures);
	out->disk_swapins_consumed = q(&z->disk_swapins_consumed);
}

unsigned long msim_zswap_lru_count(struct msim_memcg *memcg, unsigned int nid)
{
	struct msim__zswap *z = zswap_of_memcg(memcg);

	return z && nid < z->nr_nodes ? msim_list_lru_count_one(&z->lru, nid, memcg) : 0;
}

long msim_zswap_nr_disk_swapins(struct msim_memcg *memcg, unsigned int nid)
{
	struct msim__zswap *z = zswap_of_memcg(memcg);
	struct msim__zswap_memcg *zm = msim__zswap_memcg(z, memcg);

	return zm && nid < z->nr_nodes ? msim_atomic_long_read(&zm->nr_disk_swapins[nid]) : 0;
}
