/* SPDX-License-Identifier: MIT */
/*
 * charge.c - try_charge_memcg(), memory.high bookkeeping, memory events and
 * the memory.current / memory.max / memory.high files (kernel:
 * mm/memcontrol.c; docs/charge.md). It calls stock.c and charge_state.c with
 * the host's charge data it holds; the attach and the memcg hooks are
 * charge_host.c's.
 *
 * Order of a charge, as the kernel's:
 *   1. batch = max(MEMCG_CHARGE_BATCH, nr_pages)
 *   2. consume_stock(memcg, nr_pages)               -> done
 *   3. !allow_spinning: batch = nr_pages
 *   4. page_counter_try_charge(&memory, batch)       -> done_restock
 *   5. failed and batch > nr_pages: batch = nr_pages, back to 2
 *   6. the reclaim ladder (simplified, see below), then force or -ENOMEM
 *   7. done_restock: refill_stock(batch - nr_pages), then the memory.high check
 *
 * Simplified reclaim ladder (docs/charge.md): the model has no LRU, so
 * try_to_free_mem_cgroup_pages is a callback (msim_charge_set_reclaim) that
 * frees nothing when unset; the memcg OOM killer never makes progress (it raises
 * MEMCG_OOM and the charge goes to nomem); no memsw (v1 memory+swap) counter;
 * task_in_memcg_oom and the dying-task bypass are not modelled. The memory.high
 * penalty is computed exactly but recorded instead of slept.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charge_internal.h"

#define MEMCG_DELAY_PRECISION_SHIFT 20
#define MEMCG_DELAY_SCALING_SHIFT 14
#define SWAP_CLUSTER_MAX 32UL

static struct msim_memcg_stock *this_stock(struct msim_charge_host *ch)
{
	return msim__stock(ch, msim_this_cpu());
}

/* ---- memory events ---- */

/*
 * kernel: memcg_memory_event(): local at memcg, hierarchical up to (not incl.)
 * root. The atomic_long_inc()s need no yield: the counts only make a report.
 */
static void memcg_memory_event(struct msim_memcg *memcg, enum msim_memory_event e)
{
	struct msim_memcg_charge *mc = msim__memcg_charge(memcg);

	if (!mc)
		return;
	msim_quiet_fetch_add(&mc->memory_events_local[e], 1, MSIM_RELAXED);
	do {
		mc = msim__memcg_charge(memcg);
		msim_quiet_fetch_add(&mc->memory_events[e], 1, MSIM_RELAXED);
		memcg = msim_parent_mem_cgroup(memcg);
	} while (memcg && !msim_mem_cgroup_is_root(memcg));
}

unsigned long msim_memory_events(struct msim_memcg *memcg, enum msim_memory_event e)
{
	struct msim_memcg_charge *mc = memcg ? msim__memcg_charge(memcg) : NULL;

	if (!mc || (unsigned int)e >= MSIM_MEMCG_NR_MEMORY_EVENTS)
		return 0;
	return msim_quiet_load(&mc->memory_events[e], MSIM_RELAXED);
}

/* ---- reclaim stand-ins ---- */

/* kernel: try_to_free_mem_cgroup_pages(): the registered callback, or nothing. */
static unsigned long try_to_free(struct msim_charge_host *ch, struct msim_memcg *memcg,
				 unsigned long nr_pages)
{
	msim__stat_inc(&this_stock(ch)->reclaim_calls, 1);
	return ch->reclaim ? ch->reclaim(memcg, nr_pages, ch->reclaim_arg) : 0;
}

/* kernel: mem_cgroup_margin() (no memsw). */
static unsigned long mem_cgroup_margin(struct msim_memcg_charge *mc)
{
	unsigned long count = msim_page_counter_read(&mc->memory);
	unsigned long limit = msim_read_once_ul(&mc->memory.max);

	return count < limit ? limit - count : 0;
}

/* kernel: mem_cgroup_oom(): raises MEMCG_OOM; the model has no task to kill. */
static bool mem_cgroup_oom(struct msim_memcg *memcg)
{
	memcg_memory_event(memcg, MSIM_MEMCG_OOM);
	return false;
}

/* ---- memory.high throttling ---- */

/* kernel: calculate_overage() */
static uint64_t calculate_overage(unsigned long usage, unsigned long high)
{
	if (usage <= high)
		return 0;
	if (high < 1)
		high = 1;
	return ((uint64_t)(usage - high) << MEMCG_DELAY_PRECISION_SHIFT) / high;
}

/* kernel: mem_find_max_overage() */
static uint64_t mem_find_max_overage(struct msim_memcg *memcg)
{
	uint64_t max_overage = 0;

	do {
		struct msim_memcg_charge *mc = msim__memcg_charge(memcg);
		uint64_t o = calculate_overage(msim_page_counter_read(&mc->memory),
					       msim_read_once_ul(&mc->memory.high));

		if (o > max_overage)
			max_overage = o;
		memcg = msim_parent_mem_cgroup(memcg);
	} while (memcg && !msim_mem_cgroup_is_root(memcg));
	return max_overage;
}

/* kernel: calculate_high_delay() */
static unsigned long calculate_high_delay(unsigned int hz, unsigned long nr_pages,
					  uint64_t max_overage)
{
	uint64_t penalty;

	if (!max_overage)
		return 0;
	penalty = max_overage * max_overage * hz;
	penalty >>= MEMCG_DELAY_PRECISION_SHIFT;
	penalty >>= MEMCG_DELAY_SCALING_SHIFT;
	return (unsigned long)(penalty * nr_pages / MSIM_MEMCG_CHARGE_BATCH);
}

/* kernel: reclaim_high(): each level over its high, up to (not incl.) the root. */
static unsigned long reclaim_high(struct msim_charge_host *ch, struct msim_memcg *memcg,
				  unsigned long nr_pages)
{
	unsigned long nr_reclaimed = 0;

	do {
		struct msim_memcg_charge *mc = msim__memcg_charge(memcg);

		if (msim_page_counter_read(&mc->memory) <= msim_read_once_ul(&mc->memory.high))
			continue;
		memcg_memory_event(memcg, MSIM_MEMCG_HIGH);
		nr_reclaimed += try_to_free(ch, memcg, nr_pages);
	} while ((memcg = msim_parent_mem_cgroup(memcg)) && !msim_mem_cgroup_is_root(memcg));
	return nr_reclaimed;
}

/*
 * kernel: __mem_cgroup_handle_over_high(). The kernel then sleeps
 * schedule_timeout_killable(penalty); the model records the penalty.
 */
static void handle_over_high(struct msim_charge_host *ch, struct msim_memcg *memcg)
{
	struct msim_memcg_stock *stock = this_stock(ch);
	unsigned int hz = msim_config(ch->m)->hz;
	unsigned long nr_pages = stock->nr_pages_over_high;
	unsigned int nr_retries = MSIM_MAX_RECLAIM_RETRIES;
	unsigned long penalty;
	bool in_retry = false;

	if (!nr_pages)
		return;
	stock->nr_pages_over_high = 0;
	msim__stat_inc(&stock->high_throttles, 1);
	for (;;) {
		unsigned long nr_reclaimed =
			reclaim_high(ch, memcg, in_retry ? SWAP_CLUSTER_MAX : nr_pages);

		penalty = calculate_high_delay(hz, nr_pages, mem_find_max_overage(memcg));
		if (penalty > 2UL * hz)
			penalty = 2UL * hz;  /* MEMCG_MAX_HIGH_DELAY_JIFFIES */
		if (penalty <= hz / 100)
			return;
		if (nr_reclaimed || nr_retries--) {
			in_retry = true;
			continue;
		}
		break;
	}
	msim__stat_inc(&stock->high_penalty_jiffies, penalty);
}

/*
 * kernel: mem_cgroup_handle_over_high() from resume_user_mode_work(): on the
 * way back to user space the task reclaims the pages its charges left over
 * memory.high (current->memcg_nr_pages_over_high, the batches try_charge_memcg
 * added), from memcg (the task's) up. The model keeps the count per CPU stock.
 */
void msim_mem_cgroup_handle_over_high(struct msim_memcg *memcg)
{
	struct msim_charge_host *ch = memcg ? msim__charge_host(msim_memcg_host(memcg)) : NULL;

	if (ch)
		handle_over_high(ch, memcg);
}

/* done_restock's memory.high test: the first level over its high arms the throttle. */
static void check_high(struct msim_charge_host *ch, struct msim_memcg *memcg,
		       unsigned int batch, unsigned int gfp)
{
	struct msim_memcg_stock *stock = this_stock(ch);
	struct msim_memcg *pos = memcg;

	do {
		struct msim_memcg_charge *mc = msim__memcg_charge(pos);

		if (msim_page_counter_read(&mc->memory) > msim_read_once_ul(&mc->memory.high)) {
			/* Task context: current->memcg_nr_pages_over_high += batch. */
			stock->nr_pages_over_high += batch;
			break;
		}
	} while ((pos = msim_parent_mem_cgroup(pos)));

	if (stock->nr_pages_over_high > MSIM_MEMCG_CHARGE_BATCH &&
	    !(gfp & (MSIM_GFP_MEMALLOC | MSIM_GFP_NOWAIT)))
		handle_over_high(ch, memcg);
}

/* ---- try_charge_memcg ---- */

/*
 * The failure ladder of try_charge_memcg after the counter refused the exact
 * size. Returns 1 to retry from the stock, 0 to force, -ENOMEM to fail.
 */
struct charge_ctx {
	unsigned int nr_retries;
	bool drained, raised_max_event;
};

static int charge_failed(struct msim_charge_host *ch, struct msim_memcg *over,
			 unsigned int gfp, unsigned int nr_pages, struct charge_ctx *cx)
{
	struct msim_memcg_charge *omc = msim__memcg_charge(over);
	unsigned long nr_reclaimed;

	if (gfp & MSIM_GFP_MEMALLOC)
		return 0;
	if (gfp & MSIM_GFP_NOWAIT)
		goto nomem;
	memcg_memory_event(over, MSIM_MEMCG_MAX);
	cx->raised_max_event = true;
	nr_reclaimed = try_to_free(ch, over, nr_pages);
	if (mem_cgroup_margin(omc) >= nr_pages)
		return 1;
	if (!cx->drained) {
		msim__drain_all_stock(ch, over);
		cx->drained = true;
		return 1;
	}
	if (gfp & MSIM_GFP_NORETRY)
		goto nomem;
	if (nr_reclaimed && nr_pages <= (1U << MSIM_PAGE_ALLOC_COSTLY_ORDER))
		return 1;
	if (cx->nr_retries) {
		cx->nr_retries--;
		return 1;
	}
	if (gfp & MSIM_GFP_RETRY_MAYFAIL)
		goto nomem;
	if (mem_cgroup_oom(over)) {
		cx->nr_retries = MSIM_MAX_RECLAIM_RETRIES;
		return 1;
	}
nomem:
	if (!(gfp & (MSIM_GFP_NOFAIL | MSIM_GFP_HIGH)))
		return -ENOMEM;
	return 0;
}

/* kernel: mm/memcontrol.c try_charge_memcg() */
int msim_try_charge_memcg(struct msim_memcg *memcg, unsigned int gfp, unsigned int nr_pages)
{
	struct msim_charge_host *ch = memcg ? msim__charge_host(msim_memcg_host(memcg)) : NULL;
	unsigned int batch = nr_pages > MSIM_MEMCG_CHARGE_BATCH ? nr_pages : MSIM_MEMCG_CHARGE_BATCH;
	struct charge_ctx cx = { .nr_retries = MSIM_MAX_RECLAIM_RETRIES };
	struct msim_memcg_charge *mc;
	struct msim_page_counter *fail;
	struct msim_memcg_stock *stock;
	int r;

	if (!ch || !nr_pages)
		return -EINVAL;
	mc = msim__memcg_charge(memcg);
	stock = this_stock(ch);
	for (;;) {
		if (msim__consume_stock(ch, memcg, nr_pages))
			return 0;
		if (gfp & MSIM_GFP_NOSPIN)
			batch = nr_pages;
		msim__stat_inc(&stock->counter_charges, 1);
		if (msim_page_counter_try_charge(&mc->memory, batch, &fail))
			break; /* done_restock */
		msim__stat_inc(&stock->counter_failures, 1);
		if (batch > nr_pages) {
			msim__stat_inc(&stock->batch_retries, 1);
			batch = nr_pages;
			continue;
		}
		r = charge_failed(ch, msim_container_of(fail, struct msim_memcg_charge, memory)->memcg,
				  gfp, nr_pages, &cx);
		if (r > 0)
			continue;
		if (r < 0) {
			msim__stat_inc(&stock->nomem, 1);
			return r;
		}
		/* force: over the limit, on purpose (kernel: the force label). */
		if (!cx.raised_max_event)
			memcg_memory_event(msim_container_of(fail, struct msim_memcg_charge,
							     memory)->memcg, MSIM_MEMCG_MAX);
		msim__stat_inc(&stock->forced, 1);
		msim_page_counter_charge(&mc->memory, nr_pages);
		return 0;
	}
	/* done_restock */
	if (batch > nr_pages)
		msim__refill_stock(ch, memcg, batch - nr_pages);
	check_high(ch, memcg, batch, gfp);
	return 0;
}

/* kernel: try_charge(): the root memcg is never charged. */
int msim_try_charge(struct msim_memcg *memcg, unsigned int gfp, unsigned int nr_pages)
{
	if (!memcg)
		return -EINVAL;
	if (msim_mem_cgroup_is_root(memcg))
		return 0;
	return msim_try_charge_memcg(memcg, gfp, nr_pages);
}

void msim_charge_stats(struct msim *m, struct msim_charge_stats *out)
{
	struct msim_charge_host *ch = msim__charge_host(m);

	memset(out, 0, sizeof(*out));
	if (!ch)
		return;
	for (unsigned int cpu = 0; cpu < msim_nr_cpus(m); cpu++) {
		struct msim_memcg_stock *s = msim__stock(ch, cpu);

#define ADD(f, g) out->f += msim_quiet_load(&s->g, MSIM_RELAXED)
		ADD(stock_hits, hits);
		ADD(stock_misses, misses);
		ADD(stock_refills, refills);
		ADD(stock_evictions, evictions);
		ADD(stock_drains, drains);
		ADD(counter_charges, counter_charges);
		ADD(counter_failures, counter_failures);
		ADD(batch_retries, batch_retries);
		ADD(reclaim_calls, reclaim_calls);
		ADD(forced, forced);
		ADD(nomem, nomem);
		ADD(high_throttles, high_throttles);
		ADD(high_penalty_jiffies, high_penalty_jiffies);
#undef ADD
	}
}

/* ---- interface files ---- */

uint64_t msim_memory_current_read(struct msim_memcg *memcg)
{
	struct msim_page_counter *c = msim_memcg_page_counter(memcg);

	return c ? (uint64_t)msim_page_counter_read(c) * MSIM_PAGE_SIZE : 0;
}

uint64_t msim_memory_peak_read(struct msim_memcg *memcg)
{
	struct msim_page_counter *c = msim_memcg_page_counter(memcg);

	/* memory.peak: a report, no race turns on this READ_ONCE. */
	return c ? (uint64_t)msim_quiet_load(&c->watermark, MSIM_RELAXED) * MSIM_PAGE_SIZE : 0;
}

/* kernel: seq_puts_memcg_tunable() */
static int show_tunable(unsigned long value, char *buf, size_t len)
{
	if (value == (unsigned long)MSIM_PAGE_COUNTER_MAX)
		return snprintf(buf, len, "max\n");
	return snprintf(buf, len, "%" PRIu64 "\n", (uint64_t)value * MSIM_PAGE_SIZE);
}

int msim_memory_max_show(struct msim_memcg *memcg, char *buf, size_t len)
{
	struct msim_page_counter *c = msim_memcg_page_counter(memcg);

	return c ? show_tunable(msim_read_once_ul(&c->max), buf, len) : -EINVAL;
}

int msim_memory_high_show(struct msim_memcg *memcg, char *buf, size_t len)
{
	struct msim_page_counter *c = msim_memcg_page_counter(memcg);

	return c ? show_tunable(msim_read_once_ul(&c->high), buf, len) : -EINVAL;
}

/* kernel: page_counter_memparse(): "max" or memparse() bytes, in pages. */
static int memparse_pages(const char *buf, unsigned long *pages)
{
	char tmp[64];
	size_t n;
	char *end;
	unsigned long long bytes;
	unsigned int shift = 0;

	while (isspace((unsigned char)*buf))
		buf++;
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	if (!n || n >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, n);
	tmp[n] = '\0';
	if (!strcmp(tmp, "max")) {
		*pages = (unsigned long)MSIM_PAGE_COUNTER_MAX;
		return 0;
	}
	if (!isdigit((unsigned char)tmp[0]))
		return -EINVAL;
	errno = 0;
	bytes = strtoull(tmp, &end, 0);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (*end)
		return -EINVAL;
	if (shift && bytes > (~0ULL >> shift))
		bytes = ~0ULL;
	else
		bytes <<= shift;
	bytes /= MSIM_PAGE_SIZE;
	*pages = bytes > (unsigned long long)MSIM_PAGE_COUNTER_MAX ?
		(unsigned long)MSIM_PAGE_COUNTER_MAX : (unsigned long)bytes;
	return 0;
}

/* kernel: memory_max_write() */
int msim_memory_max_write(struct msim_memcg *memcg, const char *buf)
{
	struct msim_charge_host *ch = memcg ? msim__charge_host(msim_memcg_host(memcg)) : NULL;
	struct msim_memcg_charge *mc = ch ? msim__memcg_charge(memcg) : NULL;
	unsigned int nr_reclaims = MSIM_MAX_RECLAIM_RETRIES;
	bool drained = false;
	unsigned long max;

	if (!mc || !buf || memparse_pages(buf, &max))
		return -EINVAL;
	msim_xchg_at(&mc->memory.max, max, MSIM_SEQ_CST, "memory_max_write.xchg");
	for (;;) {
		unsigned long nr_pages = msim_page_counter_read(&mc->memory);

		if (nr_pages <= max)
			break;
		if (!drained) {
			msim_drain_all_stock(memcg);
			drained = true;
			continue;
		}
		if (nr_reclaims) {
			if (!try_to_free(ch, memcg, nr_pages - max))
				nr_reclaims--;
			continue;
		}
		/* mem_cgroup_out_of_memory(): the model has no task to kill. */
		memcg_memory_event(memcg, MSIM_MEMCG_OOM);
		break;
	}
	return 0;
}

/* kernel: memory_high_write() */
int msim_memory_high_write(struct msim_memcg *memcg, const char *buf)
{
	struct msim_charge_host *ch = memcg ? msim__charge_host(msim_memcg_host(memcg)) : NULL;
	struct msim_memcg_charge *mc = ch ? msim__memcg_charge(memcg) : NULL;
	unsigned int nr_retries = MSIM_MAX_RECLAIM_RETRIES;
	bool drained = false;
	unsigned long high;

	if (!mc || !buf || memparse_pages(buf, &high))
		return -EINVAL;
	msim_page_counter_set_high(&mc->memory, high);
	for (;;) {
		unsigned long nr_pages = msim_page_counter_read(&mc->memory);

		if (nr_pages <= high)
			break;
		if (!drained) {
			msim_drain_all_stock(memcg);
			drained = true;
			continue;
		}
		if (!try_to_free(ch, memcg, nr_pages - high) && !nr_retries--)
			break;
	}
	return 0;
}
