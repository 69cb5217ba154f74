/* SPDX-License-Identifier: MIT */
/*
 * explore_dpor_wmm.c - store-buffer drains in source-DPOR (explore_dpor.c).
 *
 * Under a weak memory model (storebuf.c) a decision may also make one buffered
 * store reach memory. Each such drain is a step of a thread of its own:
 *  - tso: one thread per CPU, whose next step drains that CPU's oldest entry;
 *  - pso: one thread per CPU and address, whose next step drains the oldest
 *    entry to that address (entries to one address stay in order; a release
 *    waits until it is the oldest).
 * So a thread's next step is a function of the state, as DPOR needs, and it
 * touches one thing: a store of the entry's bytes, or for a buffered lock
 * release (pso) an RMW of the lock, as the unlock itself would have been. Under
 * tso it also stores the CPU's buffer head: a task's step that drains the
 * oldest entry itself (a partial-overlap load, a store at the buffer's cap)
 * leaves the thread enabled with another next drain, and only that shared
 * store makes the two steps dependent (found by a review's random toys).
 *
 * Threads are named in the order a run first offers them. Two runs through one
 * prefix offer the same drains in the same order, so a thread id means the same
 * (CPU, address) on every decision of a shared prefix: backtrack and sleep sets
 * stay meaningful. Ids count down from 62 (MSIM__DPOR_DRAIN_TOP), under the RCU engine's 63, and must
 * stay above every task index of the host.
 *
 * What a drain commutes with, and why a drain thread has no CPU of its own in
 * explore_dpor.c's same-CPU rule: its own CPU's loads of the address forward the
 * same value whether the entry drained or not, and a later store to the address
 * only appends; only a step that writes or reads the bytes in memory (another
 * CPU), or drains them itself (its CPU's fence, RMW or lock acquire, which note
 * the stores they drain), orders against it. A step that drains the entry
 * disables the thread's pending step: explore_dpor.c treats that as a race with
 * the pending step, as it does for interrupt arrivals.
 */
#include <errno.h>
#include <string.h>

#include "explore_dpor_wmm.h"
#include "storebuf.h"

void msim__dpor_drains_reset(struct msim__dpor_drains *dr)
{
	memset(dr, 0, sizeof(*dr));
}

static int tid_of_slot(unsigned int slot)
{
	return MSIM__DPOR_DRAIN_TOP - (int)slot;
}

int msim__dpor_drain_thread(struct msim__dpor_drains *dr, const struct msim *m, int pick,
			    struct msim__step_access *next)
{
	unsigned int cpu = (unsigned int)MSIM_PICK_DRAIN_CPU(pick);
	unsigned int pos = (unsigned int)MSIM_PICK_DRAIN_POS(pick);
	struct msim__wmm_target tg;
	uintptr_t key;
	unsigned int s;

	msim__wmm_target(m, cpu, pos, &tg);
	if (tg.unlock)
		msim__access_set_one(next, (const void *)tg.addr, MSIM_ACCESS_RMW);
	else
		msim__access_set_range(next, (const void *)tg.addr, tg.size, MSIM_ACCESS_STORE);
	if (tg.head)
		msim__access_add(next, tg.head, sizeof(unsigned int), MSIM_ACCESS_STORE);
	key = m->cfg.memory_model == MSIM_MEMORY_PSO ? tg.addr : 0;
	for (s = 0; s < dr->n; s++)
		if (dr->slot[s].cpu == cpu && dr->slot[s].addr == key)
			return tid_of_slot(s);
	if (dr->n == MSIM__DPOR_DRAIN_MAX || tid_of_slot(dr->n) < (int)m->nr_tasks)
		return -E2BIG;
	dr->slot[dr->n].cpu = cpu;
	dr->slot[dr->n].addr = key;
	return tid_of_slot(dr->n++);
}

bool msim__dpor_is_drain(const struct msim__dpor_drains *dr, unsigned int tid)
{
	return tid <= MSIM__DPOR_DRAIN_TOP && (int)tid > tid_of_slot(dr->n);
}

uint64_t msim__dpor_drain_mask(const struct msim__dpor_drains *dr)
{
	uint64_t mask = 0;

	for (unsigned int s = 0; s < dr->n; s++)
		mask |= 1ULL << tid_of_slot(s);
	return mask;
}
