/* SPDX-License-Identifier: MIT */
/*
 * task.c - tasks: creation on a CPU of a host, their names and states, and the
 * checks a task must pass when it returns. Running them is the scheduler's
 * (sched.c) or the concurrent runner's (concurrent.c) business.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/script.h>

#include "ctx.h"
#include "current.h"
#include "sched_points.h"
#include "task.h"

struct msim_task *msim_task_create(struct msim *m, const char *name, unsigned int cpu,
				   msim_task_fn fn, void *arg)
{
	struct msim_task *t;

	/* Only the driver creates tasks (script.h: tasks created while a run is under way). */
	if (!m || !fn || cpu >= m->cfg.nr_cpus || msim__tls_task) {
		errno = EINVAL;
		return NULL;
	}
	if (m->nr_tasks == m->task_vec_cap) {
		unsigned int cap = m->task_vec_cap ? m->task_vec_cap * 2 : 8;
		struct msim_task **v = realloc(m->task_vec, cap * sizeof(*v));
		if (!v) {
			errno = ENOMEM;
			return NULL;
		}
		m->task_vec = v;
		m->task_vec_cap = cap;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->host = m;
	t->idx = m->nr_tasks;
	/* truncated as snprintf would, without its formatter (an explorer makes a
	 * few tasks per run, thousands of runs a second) */
	memcpy(t->name, name ? name : "task",
	       strnlen(name ? name : "task", sizeof(t->name) - 1));
	t->cpu = cpu;
	t->fn = fn;
	t->arg = arg;
	t->state = MSIM_TASK_NEW;
	t->irq_below = -1;
	m->task_vec[m->nr_tasks++] = t;
	*m->tasks_tail = t;
	m->tasks_tail = &t->next;
	return t;
}

void msim__task_free(struct msim_task *t)
{
	msim__ctx_free(&t->ctx);
	msim__points_free(t);
	free(t);
}

const char *msim_task_name(const struct msim_task *t)
{
	return t->name;
}

unsigned int msim_task_cpu(const struct msim_task *t)
{
	return t->cpu;
}

bool msim_task_done(const struct msim_task *t)
{
	return t->state == MSIM_TASK_DONE;
}

const char *msim_task_parked_at(const struct msim_task *t)
{
	return t->state == MSIM_TASK_READY || t->state == MSIM_TASK_BLOCKED ? t->parked_at : NULL;
}

/* A task that returns inside a read-side section, holding a lock or with
 * preemption disabled is a model bug. */
void msim__task_exit_check(const struct msim_task *t)
{
	if (t->rcu_nesting) {
		fprintf(stderr, "memcgsim: task %s exited inside an RCU read-side section\n", t->name);
		abort();
	}
	if (t->locks_held) {
		fprintf(stderr, "memcgsim: task %s exited holding %u lock(s)\n", t->name,
			t->locks_held);
		abort();
	}
	if (t->preempt_off) {
		fprintf(stderr, "memcgsim: task %s exited with preemption disabled\n", t->name);
		abort();
	}
	if (t->irq_off || t->bh_off) {
		fprintf(stderr, "memcgsim: task %s exited with %s disabled\n", t->name,
			t->irq_off ? "interrupts" : "bottom halves");
		abort();
	}
}
