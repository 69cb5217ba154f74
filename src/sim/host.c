/* SPDX-License-Identifier: MIT */
/*
 * host.c - a simulated host's life: creation (the kernel-memory model, then the
 * subsystems the configuration enables, subsys.c), running its tasks in either
 * mode, and destruction in reverse. The top of src/sim: it calls every part of
 * the machine, and no part calls it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "concurrent.h"
#include "ctx.h"
#include "current.h"
#include "kmem.h"
#include "lockdep.h"
#include "misuse.h"
#include "preempt.h"
#include "storebuf.h"
#include "rcu.h"
#include "rcu_det.h"
#include "sched.h"
#include "subsys.h"
#include "task.h"

int msim_create(const struct msim_config *cfg, struct msim **out, char *err, size_t errlen)
{
	struct msim *m;
	int ret;

	if (!out) {
		if (err && errlen)
			snprintf(err, errlen, "out is NULL");
		return -EINVAL;
	}
	*out = NULL;
	ret = msim_config_validate(cfg, err, errlen);
	if (ret)
		return ret;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	msim__host_live_add(m);   /* before any msim_destroy() of a failed creation */
	m->cfg = *cfg;
	if (!m->cfg.task_stack_size)
		m->cfg.task_stack_size = MSIM_DEFAULT_STACK;
	m->tasks_tail = &m->tasks;
	m->rcu.cb_tail = &m->rcu.cb_head;
	pthread_mutex_init(&m->works_lock, NULL);
	msim__ctx_init_driver(&m->driver_ctx);
	msim__sched_init(m);
	/* The newest host is the one the driver is about to set up. */
	if (!msim__tls_task)
		msim__tls_host = m;
	ret = msim__kmem_init(m);
	if (!ret)
		ret = msim__wmm_init(m);
	if (!ret)
		ret = msim__lockdep_host_attach(m);
	if (!ret)
		ret = msim__subsys_attach_all(m, err, errlen);
	if (ret) {
		msim_destroy(m);
		return ret;
	}
	*out = m;
	return 0;
}

bool msim_tasks_abandoned(const struct msim *m)
{
	return m && m->destroying;
}

void msim_destroy(struct msim *m)
{
	struct msim_task *t, *next;

	if (!m)
		return;
	/* A second destroy would free freed memory: stop, naming the call. */
	msim__host_check(m, "msim_destroy");
	struct msim *prev_host = msim__tls_host;
	msim__tls_host = m;
	m->destroying = true;
	/*
	 * Tasks left parked (a deadlocked or cut run) will never leave their read-side
	 * sections: release them first, so that the destructors below may wait for
	 * grace periods (locks such tasks hold are taken over by the driver: lock.c).
	 */
	for (t = m->tasks; t; t = t->next)
		if (t->state != MSIM_TASK_DONE)
			t->rcu_nesting = 0;
	m->rcu.driver.rcu_nesting = 0;
	msim__preempt_release(m);   /* nor pass a quiescent state of their own */
	/* A cut run's buffered stores and releases reach memory before anything is freed. */
	for (unsigned int cpu = 0; m->wmm && cpu < m->cfg.nr_cpus; cpu++)
		msim__wmm_drain_all(m, cpu);
	/* Layers above sim free their data first, newest first, while RCU works. */
	msim__host_unwind(m, 0);
	if (msim__det(m))
		msim__rcu_det_drain(m);
	else
		msim_rcu_barrier();
	msim__subsys_free_states(m);
	msim__kmem_fini(m);
	for (t = m->tasks; t; t = next) {
		next = t->next;
		msim__task_free(t);
	}
	free(m->task_vec);
	msim__sched_fini(m);
	msim__wmm_fini(m);
	msim__lockdep_host_detach(m);
	pthread_mutex_destroy(&m->works_lock);
	msim__tls_host = prev_host == m ? NULL : prev_host;
	msim__host_live_del(m);   /* last: the destructors above may still check it */
	free(m);
}

int msim_run(struct msim *m)
{
	struct msim *prev = msim__tls_host;
	int ret;

	if (!m || msim__tls_task)
		return -EINVAL; /* the driver runs hosts; a task cannot run one */
	msim__host_check(m, "msim_run");
	msim__tls_host = m;
	ret = msim__det(m) ? msim__run_det(m) : msim__run_concurrent(m);
	msim__tls_host = prev ? prev : m;
	return ret;
}
