/* SPDX-License-Identifier: MIT */
/*
 * unit_util.h - shared by the unit tests: hosts made current on the driver, and
 * a mkdir that must succeed.
 */
#ifndef MSIM_TESTS_UNIT_UTIL_H
#define MSIM_TESTS_UNIT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <memcgsim/memcgsim.h>

/* A host from cfg, made the current host of the driver. */
static inline struct msim *unit_host_cfg(const struct msim_config *cfg)
{
	struct msim *m = NULL;
	char err[256];

	assert_int_equal(msim_create(cfg, &m, err, sizeof(err)), 0);
	msim_set_current_host(m);
	return m;
}

/* The configuration of a deterministic host of cpus CPUs on nodes nodes. */
static inline struct msim_config unit_config(unsigned int cpus, unsigned int nodes)
{
	struct msim_config cfg;

	msim_config_init(&cfg);
	cfg.nr_cpus = cpus;
	cfg.nr_nodes = nodes;
	cfg.mode = MSIM_DETERMINISTIC;
	return cfg;
}

/* A deterministic host of cpus CPUs on nodes nodes, made current. */
static inline struct msim *unit_host(unsigned int cpus, unsigned int nodes)
{
	struct msim_config cfg = unit_config(cpus, nodes);

	return unit_host_cfg(&cfg);
}

/* A deterministic 4-CPU host with shrinkers initialised, units in layout l. */
static inline struct msim *unit_shrinker_host(enum msim_shrinker_info_layout l,
					      unsigned int nodes)
{
	struct msim_config cfg = unit_config(4, nodes);
	struct msim *m;

	assert_int_equal(msim_variant_set_value(&cfg.variants, "shrinker-info", l), 0);
	m = unit_host_cfg(&cfg);
	assert_int_equal(msim_shrinker_init(m), 0);
	return m;
}

/* msim_memcg_create() that must succeed. */
static inline struct msim_memcg *unit_mkdir(struct msim_memcg *parent, const char *name)
{
	struct msim_memcg *memcg = NULL;

	assert_int_equal(msim_memcg_create(parent, name, &memcg), 0);
	assert_non_null(memcg);
	return memcg;
}

#endif
