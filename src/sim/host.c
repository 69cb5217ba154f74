/* SPDX-License-Identifier: MIT */
/*
 * host.c - the simulated host: configuration, creation, tasks, per-host slots.
 * Subsystems attach in msim_create() and detach in msim_destroy() (subsys.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

__thread struct msim *msim__tls_host;
__thread struct msim_task *msim__tls_task;

#define MSIM_DEFAULT_STACK (256 * 1024)

void msim_config_init(struct msim_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_cpus = 4;
	cfg->nr_nodes = 1;
	cfg->cgroup_version = MSIM_CGROUP_V2;
	cfg->lru = MSIM_LRU_CLASSIC;
	cfg->mode = MSIM_DETERMINISTIC;
	cfg->hz = 1000;
	cfg->task_stack_size = MSIM_DEFAULT_STACK;
	msim_variants_init(&cfg->variants);
	cfg->zone_managed_pages[MSIM_ZONE_DMA] = 3840;       /* 15 MiB */
	cfg->zone_managed_pages[MSIM_ZONE_DMA32] = 761856;   /* 2976 MiB */
	cfg->zone_managed_pages[MSIM_ZONE_NORMAL] = 3407872; /* 13 GiB */
}

static int config_error(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int config_error(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int msim_config_validate(const struct msim_config *cfg, char *err, size_t errlen)
{
	if (!cfg)
		return config_error(err, errlen, "config is NULL");
	if (cfg->nr_cpus < 1 || cfg->nr_cpus > MSIM_MAX_CPUS)
		return config_error(err, errlen, "nr_cpus %u out of range 1..%u", cfg->nr_cpus,
				    MSIM_MAX_CPUS);
	if (cfg->nr_nodes < 1 || cfg->nr_nodes > MSIM_MAX_NODES)
		return config_error(err, errlen, "nr_nodes %u out of range 1..%u", cfg->nr_nodes,
				    MSIM_MAX_NODES);
	if (cfg->nr_nodes > cfg->nr_cpus)
		return config_error(err, errlen, "nr_nodes %u exceeds nr_cpus %u (every node needs a CPU)",
				    cfg->nr_nodes, cfg->nr_cpus);
	if (cfg->cgroup_version != MSIM_CGROUP_V1 && cfg->cgroup_version != MSIM_CGROUP_V2)
		return config_error(err, errlen, "cgroup_version %d is neither 1 nor 2",
				    (int)cfg->cgroup_version);
	if (cfg->lru != MSIM_LRU_CLASSIC && cfg->lru != MSIM_LRU_MGLRU)
		return config_error(err, errlen, "lru %d is neither classic (0) nor mglru (1)",
				    (int)cfg->lru);
	if (cfg->mode != MSIM_DETERMINISTIC && cfg->mode != MSIM_CONCURRENT)
		return config_error(err, errlen, "mode %d is neither deterministic (0) nor concurrent (1)",
				    (int)cfg->mode);
	if (cfg->hz < 1 || cfg->hz > 100000)
		return config_error(err, errlen, "hz %u out of range 1..100000", cfg->hz);
	if (cfg->task_stack_size && cfg->task_stack_size < 16384)
		return config_error(err, errlen, "task_stack_size %zu below 16384",
				    cfg->task_stack_size);
	for (unsigned int z = 0; z < MSIM_MAX_NR_ZONES; z++)
		if (cfg->zone_managed_pages[z] > MSIM_MAX_ZONE_MANAGED_PAGES)
			return config_error(err, errlen, "zone_managed_pages[%u] %lu above %lu",
					    z, cfg->zone_managed_pages[z],
					    MSIM_MAX_ZONE_MANAGED_PAGES);
	return 0;
}

int msim_create(const struct msim_config *cfg, struct msim **out, char *err, size_t errlen)
{
	struct msim *m;
	int ret;

	if (!out)
		return config_error(err, errlen, "out is NULL");
	*out = NULL;
	ret = msim_config_validate(cfg, err, errlen);
	if (ret)
		return ret;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
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
		ret = msim__subsys_attach_all(m, err, errlen);
	if (ret) {
		msim_destroy(m);
		return ret;
	}
	*out = m;
	return 0;
}

void msim_destroy(struct msim *m)
{
	struct msim_task *t, *next;

	if (!m)
		return;
	struct msim *prev_host = msim__tls_host;
	msim__tls_host = m;
	m->destroying = true;
	/*
	 * Tasks left parked (a deadlocked or cut run) will never leave their read-side
	 * sections: release them first, so that the destructors below may wait for
	 * grace periods (locks such tasks hold are taken over by the driver: sync.c).
	 */
	for (t = m->tasks; t; t = t->next)
		if (t->state != MSIM_TASK_DONE)
			t->rcu_nesting = 0;
	m->rcu.driver.rcu_nesting = 0;
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
		msim__ctx_free(&t->ctx);
		free(t);
	}
	free(m->task_vec);
	msim__sched_fini(m);
	pthread_mutex_destroy(&m->works_lock);
	msim__tls_host = prev_host == m ? NULL : prev_host;
	free(m);
}

const struct msim_config *msim_config(const struct msim *m)
{
	return &m->cfg;
}

unsigned int msim_nr_cpus(const struct msim *m)
{
	return m->cfg.nr_cpus;
}

unsigned int msim_nr_nodes(const struct msim *m)
{
	return m->cfg.nr_nodes;
}

unsigned int msim_num_online_cpus(const struct msim *m)
{
	return m->cfg.nr_cpus;
}

void **msim_host_slot(struct msim *m, enum msim_host_slot slot)
{
	if ((unsigned int)slot >= MSIM_NR_HOST_SLOTS)
		return NULL;
	return &m->slots[slot];
}

void msim__host_unwind(struct msim *m, unsigned int mark)
{
	while (m->nr_dtors > mark) {
		m->nr_dtors--;
		m->dtors[m->nr_dtors].fn(m, m->dtors[m->nr_dtors].arg);
	}
}

int msim_host_on_destroy(struct msim *m, void (*fn)(struct msim *m, void *arg), void *arg)
{
	if (!fn)
		return -EINVAL;
	if (m->nr_dtors >= MSIM_MAX_DTORS)
		return -ENOSPC;
	m->dtors[m->nr_dtors].fn = fn;
	m->dtors[m->nr_dtors].arg = arg;
	m->nr_dtors++;
	return 0;
}

struct msim_kmem **msim__kmem_slot(struct msim *m)
{
	return &m->kmem;
}

struct msim_task *msim_task_create(struct msim *m, const char *name, unsigned int cpu,
				   msim_task_fn fn, void *arg)
{
	struct msim_task *t;

	if (!m || !fn || cpu >= m->cfg.nr_cpus) {
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
	snprintf(t->name, sizeof(t->name), "%s", name ? name : "task");
	t->cpu = cpu;
	t->fn = fn;
	t->arg = arg;
	t->state = MSIM_TASK_NEW;
	m->task_vec[m->nr_tasks++] = t;
	*m->tasks_tail = t;
	m->tasks_tail = &t->next;
	return t;
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

int msim_run(struct msim *m)
{
	struct msim *prev = msim__tls_host;
	int ret;

	if (!m || msim__tls_task)
		return -EINVAL; /* the driver runs hosts; a task cannot run one */
	msim__tls_host = m;
	ret = msim__det(m) ? msim__run_det(m) : msim__run_concurrent(m);
	msim__tls_host = prev ? prev : m;
	return ret;
}

struct msim *msim_current_host(void)
{
	return msim__tls_host;
}

struct msim_task *msim_current_task(void)
{
	return msim__tls_task;
}

unsigned int msim_this_cpu(void)
{
	return msim__tls_task ? msim__tls_task->cpu : 0;
}

void msim_set_current_host(struct msim *m)
{
	msim__tls_host = m;
}

void msim_drive_host(struct msim *m)
{
	if (!msim__tls_task && m)
		msim__tls_host = m;
}

/* A task that returns inside a read-side section or holding a lock is a model bug. */
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
}

uint64_t msim__rand(uint64_t *state)
{
	/* splitmix64: small, seedable, and the same on every platform. */
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
