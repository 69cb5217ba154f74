/* SPDX-License-Identifier: MIT */
/*
 * explore_dpor_irq.c - interrupt arrivals in source-DPOR (explore_dpor.c).
 *
 * An interrupt source is a thread of the search, the thread of its task index:
 * its steps are its arrivals (the pick "!N", which runs the handler from its
 * start to its first yield point) and its handler's later steps ("N"). At any
 * decision at most one of the two is an option (an idle source can only arrive,
 * an active one only step), so the thread's next step is a function of the
 * state, as DPOR needs. Its CPU is the source's CPU: every step of it is
 * dependent with every step of another context of that CPU (explore_dpor.c's
 * same-CPU rule), which is what the kernel's rules need: whether a source may
 * arrive, and whether the interrupted context may step, are decided by that
 * CPU's contexts alone (irq.c).
 *
 * Enabledness follows irq.c through the option list: the arrival is an option
 * only at a yield point of the CPU's innermost context where the rules allow it;
 * the contexts below an active handler are no options until it returns. The
 * step that makes an arrival possible (the interrupted context reaching its
 * point, restoring interrupts) and the handler's last step, which lets the
 * interrupted context go on, enable the other thread: explore_dpor.c's race
 * reversal skips such pairs, as it does a lock release and the acquirer it wakes.
 *
 * What differs from a task: an arrival is optional. A run may end without it
 * (the interrupted context finished), so the races among the run's steps never
 * name it, and the traces in which it arrives would not be explored. A step that
 * disables a source's arrival (the source could arrive before the step and not
 * after it) is a race with the arrival left pending: the decision before the
 * step tries the arrival there (Flanagan and Godefroid's races with the next
 * step of every thread, applied to the threads a step disables). From that run
 * on, the arrival is a step like any other, and the races of its run move it to
 * each earlier point where it could arrive.
 *
 * The other way needs nothing: an arrival also disables the context it
 * interrupts (until the handler returns), but a decision is first explored with
 * the canonical choice, where tasks come before arrivals, and an arrival is
 * added to a decision only by a race with a step of its CPU that a run took
 * before it there (or by a bounded run's conservative branch, which adds every
 * enabled thread): the order with the interrupted context first was explored.
 * (Treating them as races too left every schedule count of
 * tests/race/test_explore_dpor_irq.c unchanged.)
 */
#include "explore_dpor_irq.h"

int msim__dpor_irq_thread(int pick)
{
	return MSIM_PICK_IS_IRQ(pick) ? MSIM_PICK_IRQ_TASK(pick) : -1;
}

uint64_t msim__dpor_irq_sources(const int *pick, unsigned int n)
{
	uint64_t mask = 0;

	for (unsigned int i = 0; i < n; i++) {
		int t = msim__dpor_irq_thread(pick[i]);

		if (t >= 0 && t < 63) /* a thread mask: 63 is the RCU engine */
			mask |= 1ULL << t;
	}
	return mask;
}

bool msim__dpor_irq_returned(const struct msim *m, unsigned int tid)
{
	const struct msim_task *t = m->task_vec[tid];

	return t->kind != MSIM_CTX_TASK && t->state == MSIM_TASK_DONE;
}

uint64_t msim__dpor_irq_disabled(uint64_t pending, uint64_t before, uint64_t after,
				 unsigned int tid)
{
	return before & ~after & pending & ~(1ULL << tid);
}
