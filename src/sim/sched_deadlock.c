/* SPDX-License-Identifier: MIT */
/*
 * sched_deadlock.c - the deadlock report of a deterministic run (sched.c): per
 * unfinished task, what it waits for (a lock and its holder, a grace period, an
 * rcu_barrier, or its CPU and the task that holds it).
 */
#include <stdio.h>

#include "sched_deadlock.h"

/* Why t cannot take its CPU: the task there that may not be preempted. */
static void cpu_wait_reason(struct msim *m, const struct msim_task *t, char *what, size_t len)
{
	int holder = m->sched.cpu_holder ? m->sched.cpu_holder[t->cpu] : -1;

	if (m->cfg.preempt == MSIM_PREEMPT_UNMODELLED || holder < 0)
		snprintf(what, len, "waits for CPU %u (an earlier task there is blocked)", t->cpu);
	else
		snprintf(what, len, "waits for CPU %u (task %s holds it and cannot be preempted "
			 "there under preempt=%s)", t->cpu, m->task_vec[holder]->name,
			 msim_preempt_name(m->cfg.preempt));
}

void msim__sched_deadlock_report(struct msim *m)
{
	struct msim_sched *s = &m->sched;
	size_t len = 0;
	unsigned int i;

	s->deadlock[0] = '\0';
	for (i = 0; i < m->nr_tasks; i++) {
		struct msim_task *t = m->task_vec[i];
		char what[160];

		if (t->state == MSIM_TASK_DONE || (t->kind != MSIM_CTX_TASK && t->state == MSIM_TASK_NEW))
			continue;
		if (t->state != MSIM_TASK_BLOCKED)
			cpu_wait_reason(m, t, what, sizeof(what));
		else if (t->wait == MSIM_WAIT_LOCK)
			snprintf(what, sizeof(what), "waits for lock %s held by %s",
				 t->wait_lock->name ? t->wait_lock->name : "?",
				 t->wait_lock->owner ? t->wait_lock->owner->name : "nobody");
		else if (t->wait == MSIM_WAIT_GP && m->cfg.preempt == MSIM_PREEMPT_UNMODELLED)
			snprintf(what, sizeof(what),
				 "waits for an RCU grace period (a reader never leaves its section)");
		else if (t->wait == MSIM_WAIT_GP)
			snprintf(what, sizeof(what),
				 "waits for an RCU grace period (a reader never leaves its section, "
				 "or a task that cannot be preempted never passes a quiescent "
				 "state)");
		else
			snprintf(what, sizeof(what), "waits for rcu_barrier");
		len += snprintf(s->deadlock + len, sizeof(s->deadlock) - len,
				"deadlock: task %s (cpu %u) %s\n", t->name, t->cpu, what);
		if (len >= sizeof(s->deadlock))
			break;
	}
}
