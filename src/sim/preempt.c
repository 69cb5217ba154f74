/* SPDX-License-Identifier: MIT */
/*
 * preempt.c - the preemption model of a deterministic host (sim.h: enum
 * msim_preempt_model): where a parked task may be preempted, and the two things
 * that follow where it may not. It holds its CPU: no other task of that CPU runs
 * until it reaches a place where it may be preempted. And it is an implicit RCU
 * read-side section: since consolidated RCU a grace period waits for every CPU
 * to pass a quiescent state, which a CPU running non-preemptible kernel code has
 * not done (under preempt=none, any stretch between two scheduling points).
 *
 * Quiescent states are counted per task (qs_seq): each time it gives control
 * back at a place where it may be preempted, and its end. A grace period that
 * begins while a task may not be preempted records the count (rcu_det.c) and
 * waits until it moves. Per task is per CPU here: at most one task of a CPU can
 * be non-preemptible at a time (the CPU's holder: any other task of the CPU
 * waits for it), so "this task passed a quiescent state" is the kernel's "this
 * CPU passed one".
 *
 * Under preempt=unmodelled nothing here holds anything: the scheduler's older
 * rule applies (the first unfinished task of each CPU runs, sched.c) and grace
 * periods wait for explicit read-side sections only.
 */
#include <stdio.h>
#include <stdlib.h>

#include <memcgsim/yield.h>

#include "current.h"
#include "preempt.h"

bool msim__preempt_holds_cpu(const struct msim *m, const struct msim_task *t)
{
	if (t->state == MSIM_TASK_NEW || t->state == MSIM_TASK_DONE)
		return false;
	/* an interrupt handler runs to its end on its CPU (irq.c) */
	if (t->kind != MSIM_CTX_TASK)
		return m->cfg.preempt != MSIM_PREEMPT_UNMODELLED;
	switch (m->cfg.preempt) {
	case MSIM_PREEMPT_NONE:
		/* cond_resched() or sleeping in atomic context does not schedule
		 * (rcu_read_lock() disables preemption in a non-preemptible kernel) */
		return !t->at_sched_point || t->preempt_off || t->irq_off || t->rcu_nesting;
	case MSIM_PREEMPT_FULL:
		/* preemptible RCU: a preempted reader is tracked by its section alone */
		return t->preempt_off > 0 || t->irq_off > 0;
	default:
		return false;
	}
}

static int *holders(struct msim *m)
{
	struct msim_sched *s = &m->sched;

	if (!s->cpu_holder) {
		s->cpu_holder = malloc(m->cfg.nr_cpus * sizeof(*s->cpu_holder));
		if (!s->cpu_holder)
			abort();
		for (unsigned int i = 0; i < m->cfg.nr_cpus; i++)
			s->cpu_holder[i] = -1;
	}
	return s->cpu_holder;
}

bool msim__preempt_cpu_free_for(struct msim *m, const struct msim_task *t)
{
	int holder = holders(m)[t->cpu];

	return holder < 0 || holder == (int)t->idx;
}

void msim__preempt_parked(struct msim *m, struct msim_task *t)
{
	int *holder;

	if (m->cfg.preempt == MSIM_PREEMPT_UNMODELLED)
		return;
	holder = holders(m);
	if (msim__preempt_holds_cpu(m, t)) {
		holder[t->cpu] = (int)t->idx;
		return;
	}
	t->qs_seq++;
	if (holder[t->cpu] == (int)t->idx)
		holder[t->cpu] = -1;
}

void msim__preempt_release(struct msim *m)
{
	for (struct msim_task *t = m->tasks; t; t = t->next) {
		if (t->state == MSIM_TASK_DONE)
			continue;
		t->preempt_off = 0;
		t->at_sched_point = true;
		t->qs_seq++;
	}
	if (m->sched.cpu_holder)
		for (unsigned int i = 0; i < m->cfg.nr_cpus; i++)
			m->sched.cpu_holder[i] = -1;
}

void msim__preempt_fini(struct msim *m)
{
	free(m->sched.cpu_holder);
	m->sched.cpu_holder = NULL;
}

/* ---- preempt_disable()/preempt_enable() of the running task (yield.h) ---- */

void msim_preempt_disable_slowpath(void)
{
	if (msim__tls_task)
		msim__tls_task->preempt_off++;
}

void msim_preempt_enable_slowpath(void)
{
	struct msim_task *t = msim__tls_task;

	if (!t)
		return;
	if (!t->preempt_off) {
		fprintf(stderr, "memcgsim: task %s: preempt_enable without preempt_disable\n",
			t->name);
		abort();
	}
	t->preempt_off--;
}
