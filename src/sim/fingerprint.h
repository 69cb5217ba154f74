/* SPDX-License-Identifier: MIT */
/*
 * fingerprint.h - a run's fingerprint (fingerprint.c): what each thread saw,
 * independent of raw addresses, for checking one explorer against another.
 *
 * Two schedules that differ only in the order of independent steps (one
 * Mazurkiewicz trace) give every thread the same steps and every load the same
 * value. So a thread's sequence of (yield point it resumed from, value the
 * shim's load returned) is a function of the trace alone, and the fingerprint
 * (those sequences, combined in no particular order, plus the check's verdict)
 * too. Partial-order reduction that is sound sees every fingerprint an
 * exhaustive search sees (tests/race/test_dpor_oracle.c); a wrong "touches
 * nothing" annotation makes two really different orders look equivalent, and
 * the order it skips shows up as a fingerprint only the exhaustive search saw.
 *
 * Pointer loads (rcu_dereference, list heads) are folded in as NULL or not:
 * every run allocates afresh, so their values mean nothing across runs. Only
 * the generic shims of atomic.h pass a load's size and kind of value (the
 * MSIM_ACCESS_VAL bits of their access kind); other points contribute their
 * name only.
 */
#ifndef MSIM_SIM_FINGERPRINT_H
#define MSIM_SIM_FINGERPRINT_H

#include <stdint.h>

#include "internal.h"

/* 1 while an exploration fingerprints its runs (set around each run). */
extern __thread int msim__fp_on;

/* Task t parks at a point announcing (addr, kind) (kind may carry value bits). */
static inline void msim__fp_announce(struct msim_task *t, const volatile void *addr, int kind)
{
	if (msim__fp_on) {
		t->fp_addr = addr;
		t->fp_kind = kind;
	}
}

/* Before step pick of host m resumes task t (NULL: the RCU engine): fold it in. */
void msim__fp_step(struct msim *m, int pick, struct msim_task *t);
/* The fingerprint of m's run so far (its tasks' sequences and the RCU engine's). */
uint64_t msim__fp_run(const struct msim *m);

#endif /* MSIM_SIM_FINGERPRINT_H */
