/* SPDX-License-Identifier: MIT */
/*
 * concurrent.c - MSIM_CONCURRENT: one OS thread per simulated CPU with tasks.
 *
 * Each CPU thread runs its tasks in creation order, each to completion, with the
 * thread-local context (host, task) set so that msim_this_cpu() and the shims
 * work. Yield points cost one predictable branch; the hardware interleaves.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "concurrent.h"
#include "current.h"
#include "rcu.h"
#include "task.h"

struct cpu_thread {
	struct msim *m;
	unsigned int cpu;
	pthread_t th;
};

static void *cpu_main(void *arg)
{
	struct cpu_thread *ct = arg;
	struct msim *m = ct->m;
	unsigned int i;

	msim__tls_host = m;
	msim__rcu_thread_online();
	for (i = 0; i < m->nr_tasks; i++) {
		struct msim_task *t = m->task_vec[i];
		if (t->cpu != ct->cpu || t->state == MSIM_TASK_DONE)
			continue;
		msim__tls_task = t;
		t->state = MSIM_TASK_READY;
		t->fn(t->arg);
		msim__task_exit_check(t);
		__atomic_store_n(&t->state, MSIM_TASK_DONE, __ATOMIC_RELEASE);
		msim__tls_task = NULL;
	}
	msim__rcu_thread_offline();
	return NULL;
}

int msim__run_concurrent(struct msim *m)
{
	unsigned int nr = m->cfg.nr_cpus, i;
	struct cpu_thread *ct = calloc(nr, sizeof(*ct));
	bool *has = calloc(nr, sizeof(*has));
	int ret = 0;

	if (!ct || !has) {
		free(ct);
		free(has);
		return -ENOMEM;
	}
	for (i = 0; i < m->nr_tasks; i++)
		if (m->task_vec[i]->state != MSIM_TASK_DONE)
			has[m->task_vec[i]->cpu] = true;
	for (i = 0; i < nr; i++) {
		if (!has[i])
			continue;
		ct[i].m = m;
		ct[i].cpu = i;
		if (pthread_create(&ct[i].th, NULL, cpu_main, &ct[i])) {
			ret = -EAGAIN;
			has[i] = false;
		}
	}
	for (i = 0; i < nr; i++)
		if (has[i])
			pthread_join(ct[i].th, NULL);
	free(ct);
	free(has);
	return ret;
}
