/* SPDX-License-Identifier: MIT */
/*
 * irq.c - execution contexts on a simulated CPU (irq.h): interrupt sources, the
 * per-CPU context stack, the rules for when a source may arrive, and the running
 * context's interrupt and bottom-half state.
 *
 * A source is a task of the host whose kind is not TASK. It is idle (NEW, or
 * DONE after a firing) until the scheduler takes its arrival option (sched.c
 * lists one per source that may arrive, between the tasks and the RCU engine);
 * then it sits on top of its CPU's context stack until it returns, and while it
 * does nothing below it on that CPU runs: the stack is cpu_irq_top[cpu] and each
 * handler's irq_below. The interrupted context is the innermost one on the CPU:
 * the top handler, or the task that ran last there (cpu_last).
 *
 * The invariant the scheduler keeps: on every CPU at most one context may take
 * a step, the top handler if there is one, else what the preemption model says
 * (preempt.c). Kinds only grow up the stack (softirq < hardirq < NMI), so it is
 * at most four deep.
 *
 * Under preempt=none|full an active handler cannot be preempted, so it holds
 * off grace periods until it returns (preempt.c), as the kernel's interrupt
 * handlers do. Simplifications (docs/contexts.md): a blocked context (sleeping, or spinning on
 * a lock) is not interrupted; hardirqs do not raise softirqs on their exit (a
 * scenario declares the softirq as its own source).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <memcgsim/yield.h>

#include "current.h"
#include "irq.h"

static const char *const kind_names[] = { "task", "softirq", "hardirq", "nmi" };

const char *msim_context_kind_name(enum msim_context_kind k)
{
	return (unsigned int)k <= MSIM_CTX_NMI ? kind_names[k] : "?";
}

static int irq_arrays(struct msim *m)
{
	struct msim_sched *s = &m->sched;

	if (s->cpu_irq_top)
		return 0;
	s->cpu_irq_top = malloc(m->cfg.nr_cpus * sizeof(int));
	s->cpu_last = malloc(m->cfg.nr_cpus * sizeof(int));
	if (!s->cpu_irq_top || !s->cpu_last) {
		free(s->cpu_irq_top);
		free(s->cpu_last);
		s->cpu_irq_top = s->cpu_last = NULL;
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < m->cfg.nr_cpus; i++)
		s->cpu_irq_top[i] = s->cpu_last[i] = -1;
	return 0;
}

struct msim_task *msim_irq_source_create(struct msim *m, const char *name, unsigned int cpu,
					 enum msim_context_kind kind, unsigned int max_fires,
					 msim_task_fn fn, void *arg)
{
	struct msim_task *t;

	if (!m || kind <= MSIM_CTX_TASK || kind > MSIM_CTX_NMI || !max_fires || msim__tls_task) {
		errno = EINVAL;
		return NULL;
	}
	if (!msim__det(m)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (irq_arrays(m)) {
		errno = ENOMEM;
		return NULL;
	}
	t = msim_task_create(m, name, cpu, fn, arg);
	if (!t)
		return NULL;
	t->kind = kind;
	t->max_fires = max_fires;
	m->sched.nr_irq_sources++;
	return t;
}

unsigned int msim_irq_fires(const struct msim_task *src)
{
	return src ? src->fires : 0;
}

void msim__irq_fini(struct msim *m)
{
	free(m->sched.cpu_irq_top);
	free(m->sched.cpu_last);
	m->sched.cpu_irq_top = m->sched.cpu_last = NULL;
}

/* ---- the context stack ---- */

static bool idle(const struct msim_task *h)
{
	return h->state == MSIM_TASK_NEW || h->state == MSIM_TASK_DONE;
}

/* The innermost context of cpu: its top handler, or the task that ran there last. */
static struct msim_task *innermost(const struct msim *m, unsigned int cpu)
{
	int top = m->sched.cpu_irq_top[cpu];

	if (top < 0)
		top = m->sched.cpu_last[cpu];
	return top < 0 ? NULL : m->task_vec[top];
}

bool msim__irq_may_arrive(const struct msim *m, const struct msim_task *h)
{
	const struct msim_task *below;

	if (h->kind == MSIM_CTX_TASK || !idle(h) || h->fires >= h->max_fires)
		return false;
	below = innermost(m, h->cpu);
	/* it arrives at a yield point of a context that is parked there */
	if (!below || below->state != MSIM_TASK_READY || below->kind >= h->kind)
		return false;
	if (h->kind == MSIM_CTX_NMI)
		return true;
	if (below->irq_off)
		return false;
	return h->kind != MSIM_CTX_SOFTIRQ || !below->bh_off;
}

bool msim__irq_may_step(const struct msim *m, const struct msim_task *t)
{
	int top = m->sched.cpu_irq_top[t->cpu];

	if (t->kind != MSIM_CTX_TASK)
		return top == (int)t->idx; /* an idle source steps only by arriving */
	return top < 0;
}

void msim__irq_arrive(struct msim *m, struct msim_task *h)
{
	h->irq_below = m->sched.cpu_irq_top[h->cpu];
	m->sched.cpu_irq_top[h->cpu] = (int)h->idx;
	h->state = MSIM_TASK_NEW; /* a fresh handler invocation: a new stack */
	h->fires++;
}

void msim__irq_stepped(struct msim *m, struct msim_task *t)
{
	if (t->kind == MSIM_CTX_TASK) {
		m->sched.cpu_last[t->cpu] = (int)t->idx;
		return;
	}
	if (t->state == MSIM_TASK_DONE) {
		m->sched.cpu_irq_top[t->cpu] = t->irq_below;
		t->irq_below = -1;
		t->qs_seq++; /* its end is a quiescent state (preempt.c) */
	}
}

/* ---- the running context (irq.h) ---- */

enum msim_context_kind msim_context_kind(void)
{
	return msim__tls_task ? msim__tls_task->kind : MSIM_CTX_TASK;
}

bool msim_in_nmi(void)
{
	return msim_context_kind() == MSIM_CTX_NMI;
}

bool msim_in_hardirq(void)
{
	return msim_context_kind() == MSIM_CTX_HARDIRQ;
}

bool msim_in_serving_softirq(void)
{
	return msim_context_kind() == MSIM_CTX_SOFTIRQ;
}

bool msim_in_task(void)
{
	return msim_context_kind() == MSIM_CTX_TASK;
}

bool msim_irqs_disabled(void)
{
	const struct msim_task *t = msim__tls_task;

	return t && (t->irq_off || t->kind >= MSIM_CTX_HARDIRQ);
}

unsigned long msim_local_irq_save_slowpath(void)
{
	struct msim_task *t = msim__tls_task;

	if (!t)
		return 0;
	return t->irq_off++;
}

void msim_local_irq_restore_slowpath(unsigned long flags)
{
	struct msim_task *t = msim__tls_task;

	if (!t)
		return;
	if (flags >= t->irq_off) {
		fprintf(stderr, "memcgsim: task %s: local_irq_restore without local_irq_save\n",
			t->name);
		abort();
	}
	t->irq_off = (unsigned int)flags;
}

void msim_local_bh_slowpath(int delta)
{
	struct msim_task *t = msim__tls_task;

	if (!t)
		return;
	if (delta < 0 && !t->bh_off) {
		fprintf(stderr, "memcgsim: task %s: local_bh_enable without local_bh_disable\n",
			t->name);
		abort();
	}
	t->bh_off = delta < 0 ? t->bh_off - 1 : t->bh_off + 1;
}
