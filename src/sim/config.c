/* SPDX-License-Identifier: MIT */
/*
 * config.c - a host's configuration: defaults, validation with a reason a person
 * reads, and the accessors every layer uses.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

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
	cfg->preempt = MSIM_PREEMPT_UNMODELLED;  /* today's schedules and figures */
}

static const char *const preempt_names[] = { "unmodelled", "none", "full" };

const char *msim_preempt_name(enum msim_preempt_model p)
{
	return (unsigned int)p < sizeof(preempt_names) / sizeof(preempt_names[0])
		? preempt_names[p] : NULL;
}

int msim_preempt_parse(const char *name, enum msim_preempt_model *out)
{
	for (unsigned int i = 0; name && i < sizeof(preempt_names) / sizeof(preempt_names[0]); i++) {
		if (!strcmp(name, preempt_names[i])) {
			*out = (enum msim_preempt_model)i;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *const memory_model_names[] = { "sc", "tso", "pso" };

const char *msim_memory_model_name(enum msim_memory_model mm)
{
	return (unsigned int)mm < sizeof(memory_model_names) / sizeof(memory_model_names[0])
		? memory_model_names[mm] : NULL;
}

int msim_memory_model_parse(const char *name, enum msim_memory_model *out)
{
	for (unsigned int i = 0;
	     name && i < sizeof(memory_model_names) / sizeof(memory_model_names[0]); i++) {
		if (!strcmp(name, memory_model_names[i])) {
			*out = (enum msim_memory_model)i;
			return 0;
		}
	}
	return -EINVAL;
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
	if (!msim_preempt_name(cfg->preempt))
		return config_error(err, errlen, "preempt %d is none of unmodelled (0), none (1), "
				    "full (2)", (int)cfg->preempt);
	if (!msim_memory_model_name(cfg->memory_model))
		return config_error(err, errlen, "memory_model %d is none of sc (0), tso (1), "
				    "pso (2)", (int)cfg->memory_model);
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

const struct msim_config *msim_config(const struct msim *m)
{
	return m ? &m->cfg : NULL;
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
