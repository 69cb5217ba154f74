/* SPDX-License-Identifier: MIT */
/*
 * section.c - keeping a fold of CPU c's diffs out of an _irqoff update on CPU c.
 *
 * Why. In the kernel the periodic fold of CPU c (vmstat_update) runs on CPU c,
 * and __mod_node_page_state() runs on CPU c with interrupts off, so the fold's
 * this_cpu_xchg of a diff never lands between the update's read of that diff and
 * its write. The model runs the fold in whatever context advances the clock, on
 * another CPU or in the driver, so it has to enforce that exclusion itself. The
 * mod form needs none of this: its this_cpu_try_cmpxchg notices an exchange.
 *
 * The word (struct msim__vmstat_cpu.section, quiet seq_cst atomics):
 *   bits 0..15  SECTION count: _irqoff updates of CPU c in progress
 *   FOLDING     a fold is exchanging one of CPU c's diffs right now
 *   PENDING     a fold met a section and handed CPU c's fold to its end
 *
 * Invariant: FOLDING and a nonzero SECTION count are never set together, so an
 * exchange never falls inside a section. Both are set only by a compare-exchange
 * that sees the other clear. A fold holds FOLDING across one quiet exchange
 * (no yield point), so in deterministic mode no other context ever sees it and
 * nothing spins; in concurrent mode a section entry may spin for that one
 * exchange. A fold that finds a section sets PENDING instead of waiting (the
 * driver cannot wait for a parked task); the section's last exit clears PENDING
 * and folds its own CPU, where the kernel's vmstat_update would have run.
 *
 * The word decides what a fold and an update do, so each function here notes an
 * RMW of it for partial-order reduction (yield.h's contract): an update of CPU c
 * and a fold of CPU c are ordered by it, CPUs' words do not conflict.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "vmstat_internal.h"

#define SECTION_ONE 1u
#define SECTION_MASK 0xffffu
#define FOLDING (1u << 16)
#define PENDING (1u << 17)

static void note_word(struct msim__vmstat_cpu *c)
{
	msim_access_note(&c->section, sizeof(c->section), MSIM_ACCESS_RMW);
}

/* Wait for a fold's single exchange on another thread (concurrent mode only). */
static void wait_for_fold(const struct msim__vmstat_cpu *c)
{
	if (msim_config(c->vs->m)->mode == MSIM_DETERMINISTIC) {
		/* A fold never parks holding FOLDING: this would spin forever. */
		fprintf(stderr, "memcgsim: vmstat: CPU %u's fold word held across a yield\n",
			c->cpu);
		abort();
	}
	sched_yield();
}

void msim__vmstat_section_enter(struct msim__vmstat_cpu *c)
{
	unsigned int old;

	note_word(c);
	old = msim_quiet_load(&c->section, MSIM_SEQ_CST);

	for (;;) {
		if (old & FOLDING) {
			wait_for_fold(c);
			old = msim_quiet_load(&c->section, MSIM_SEQ_CST);
			continue;
		}
		if (msim_quiet_try_cmpxchg(&c->section, &old, old + SECTION_ONE,
					   MSIM_SEQ_CST, MSIM_SEQ_CST))
			return;
	}
}

/* Returns true when the caller must fold its CPU now (a fold was handed over). */
bool msim__vmstat_section_exit(struct msim__vmstat_cpu *c)
{
	unsigned int old, new_;

	note_word(c);
	old = msim_quiet_load(&c->section, MSIM_SEQ_CST);

	do {
		new_ = old - SECTION_ONE;
		if (!(new_ & SECTION_MASK))
			new_ &= ~PENDING;
	} while (!msim_quiet_try_cmpxchg(&c->section, &old, new_, MSIM_SEQ_CST, MSIM_SEQ_CST));
	return (old & PENDING) && !(new_ & PENDING);
}

/*
 * Before exchanging one of CPU c's diffs. Returns true with FOLDING set (call
 * msim__vmstat_fold_release() right after the exchange), or false when CPU c is
 * inside a section: the fold of CPU c is then the section's to do.
 */
bool msim__vmstat_fold_claim(struct msim__vmstat_cpu *c)
{
	unsigned int old;

	note_word(c);
	old = msim_quiet_load(&c->section, MSIM_SEQ_CST);

	for (;;) {
		if (old & SECTION_MASK) {
			if (msim_quiet_try_cmpxchg(&c->section, &old, old | PENDING,
						   MSIM_SEQ_CST, MSIM_SEQ_CST))
				return false;
			continue;
		}
		if (old & FOLDING) {    /* another fold of the same CPU (refresh and work) */
			wait_for_fold(c);
			old = msim_quiet_load(&c->section, MSIM_SEQ_CST);
			continue;
		}
		if (msim_quiet_try_cmpxchg(&c->section, &old, old | FOLDING,
					   MSIM_SEQ_CST, MSIM_SEQ_CST))
			return true;
	}
}

void msim__vmstat_fold_release(struct msim__vmstat_cpu *c)
{
	note_word(c);
	msim_quiet_fetch_and(&c->section, ~FOLDING, MSIM_SEQ_CST);
}
