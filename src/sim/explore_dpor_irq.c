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

void msim__dpor_irq_options(struct msim__dpor *d, const int *pick, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		int t = MSIM_PICK_IS_IRQ(pick[i]) ? MSIM_PICK_IRQ_TASK(pick[i]) : -1;

		if (t >= 0 && t < MSIM__DPOR_R)
			d->irq_threads |= 1ULL << t;
	}
}

void msim__dpor_irq_step_end(struct msim__dpor *d, const struct msim *m, unsigned int tid)
{
	const struct msim_task *t = m->task_vec[tid];

	/* returned: its next step starts the handler afresh, touching nothing yet */
	if (t->kind != MSIM_CTX_TASK && t->state == MSIM_TASK_DONE)
		msim__access_set_one(&d->next[tid], NULL, MSIM_ACCESS_NONE);
}

void msim__dpor_irq_races(struct msim__dpor *d, uint64_t final_enabled)
{
	for (uint64_t i = 0; d->irq_threads && i < d->depth; i++) {
		uint64_t before = d->nodes[i].enabled;
		uint64_t after = i + 1 < d->depth ? d->nodes[i + 1].enabled : final_enabled;
		uint64_t lost = before & ~after & d->irq_threads & ~(1ULL << d->ev[i].tid);

		for (; lost; lost &= lost - 1)
			msim__dpor_reverse_pending(d, i, (unsigned int)__builtin_ctzll(lost));
	}
}
