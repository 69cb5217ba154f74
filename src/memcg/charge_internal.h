/* SPDX-License-Identifier: MIT */
/*
 * charge_internal.h - the charge concept of src/memcg: the files behind this
 * header are charge_state.c (where a memcg's state lives, uncharge), stock.c
 * (the per-CPU cache), charge_host.c (the subsystem "charge": attach, memcg
 * hooks, teardown, tunables) and charge.c (try_charge, memory.high, the
 * interface files). They may call each other; a function that already holds
 * the host's state passes it on instead of looking it up again. Nothing outside
 * the charge files includes this header.
 */
#ifndef MSIM_MEMCG_CHARGE_INTERNAL_H
#define MSIM_MEMCG_CHARGE_INTERNAL_H

#include <memcgsim/charge.h>

/*
 * kernel: struct memcg_stock_pcp. One per simulated CPU. The kernel protects it
 * with local_trylock (only this CPU and its interrupts touch it; remote drains
 * are queued as work on the owning CPU). The model drains remote stocks directly,
 * so lock is a real lock taken with trylock on the charge path (a failed trylock
 * falls back exactly like the kernel's) and with lock by the drainers.
 */
struct msim_memcg_stock {
	struct msim_lock lock;
	struct msim_memcg *cached[MSIM_NR_MEMCG_STOCK];
	uint8_t nr_pages[MSIM_NR_MEMCG_STOCK];
	unsigned long flags;            /* bit 0: FLUSHING_CACHED_CHARGE */
	uint64_t rng;                   /* slot-eviction PRNG state (seeded per host) */
	/* current->memcg_nr_pages_over_high: tasks are pinned, so per CPU. */
	unsigned long nr_pages_over_high;
	/* Counters, written by the owning CPU (or a drainer holding lock). */
	uint64_t hits, misses, refills, evictions, drains;
	uint64_t counter_charges, counter_failures, batch_retries, reclaim_calls;
	uint64_t forced, nomem, high_throttles, high_penalty_jiffies;
};

/* Per-memcg charge state (the kernel's memcg->memory and memory_events[]). */
struct msim_memcg_charge {
	struct msim_page_counter memory;
	struct msim_memcg *memcg;
	unsigned long memory_events[MSIM_MEMCG_NR_MEMORY_EVENTS];
	unsigned long memory_events_local[MSIM_MEMCG_NR_MEMORY_EVENTS];
};

/*
 * Per-host state: the state of charge_subsys, which sim frees after the
 * memcg layer's teardown (whose css_free hooks still use it: see charge_host.c).
 */
struct msim_charge_host {
	struct msim *m;
	bool single_stock;              /* variant charge-stock=single (charge_host.c) */
	int slot;                       /* memcg hook slot */
	void *stocks;                   /* per-CPU struct msim_memcg_stock */
	struct msim_lock percpu_charge_mutex;
	uint64_t seed;
	msim_reclaim_fn reclaim;
	void *reclaim_arg;
};

/* charge_state.c: a memcg's charge state on the host's (NULL if it has none). */
struct msim_memcg_charge *msim__memcg_charge_of(struct msim_charge_host *ch,
						struct msim_memcg *memcg);
void msim__memcg_uncharge(struct msim_charge_host *ch, struct msim_memcg *memcg,
			  unsigned int nr_pages);

/* charge_host.c: the host's charge state, or NULL: a plain load, never an attach. */
struct msim_charge_host *msim__charge_host(struct msim *m);

/* A memcg's charge state, found through its host (the files above charge_host.c). */
static inline struct msim_memcg_charge *msim__memcg_charge(struct msim_memcg *memcg)
{
	return msim__memcg_charge_of(msim__charge_host(msim_memcg_host(memcg)), memcg);
}

static inline struct msim_memcg_stock *msim__stock(struct msim_charge_host *ch, unsigned int cpu)
{
	return msim_per_cpu_ptr(ch->stocks, cpu);
}

/* Counter bump on per-CPU data: one writer at a time, readers after quiescence. */
static inline void msim__stat_inc(uint64_t *p, uint64_t v)
{
	msim_quiet_store(p, msim_quiet_load(p, MSIM_RELAXED) + v, MSIM_RELAXED);
}

/* stock.c: the per-CPU stocks of the host's charge state. */
int msim__stock_init(struct msim_charge_host *ch);
void msim__stock_seed(struct msim_charge_host *ch);
void msim__stock_drain_everything(struct msim_charge_host *ch);
void msim__stock_fini(struct msim_charge_host *ch);
bool msim__consume_stock(struct msim_charge_host *ch, struct msim_memcg *memcg,
			 unsigned int nr_pages);
void msim__refill_stock(struct msim_charge_host *ch, struct msim_memcg *memcg,
			unsigned int nr_pages);
void msim__drain_all_stock(struct msim_charge_host *ch, struct msim_memcg *root);
unsigned int msim__stock_pages(struct msim_charge_host *ch, unsigned int cpu,
			       const struct msim_memcg *memcg);
struct msim_memcg *msim__stock_slot(struct msim_charge_host *ch, unsigned int cpu,
				    unsigned int slot, unsigned int *nr_pages);

#endif /* MSIM_MEMCG_CHARGE_INTERNAL_H */
