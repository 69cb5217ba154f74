/* SPDX-License-Identifier: MIT */
/*
 * xa_test_util.h - what the xarray suites share: a host per test whose
 * teardown fails if any node is still charged, and the kernel test suite's
 * index entries (lib/test_xarray.c xa_mk_index() and friends).
 * Include after cmocka.h.
 */
#ifndef MSIM_TEST_XA_TEST_UTIL_H
#define MSIM_TEST_XA_TEST_UTIL_H

#include <limits.h>

#include <memcgsim/kmem.h>
#include <memcgsim/sim.h>
#include <memcgsim/yield.h>
#include <memcgsim/explore.h>
#include <memcgsim/script.h>
#include <memcgsim/container_of.h>
#include <memcgsim/atomic.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/percpu.h>
#include <memcgsim/xarray.h>

static inline int setup(void **state)
{
	struct msim_config cfg;
	struct msim *m = NULL;

	msim_config_init(&cfg);
	cfg.nr_cpus = 4;
	if (msim_create(&cfg, &m, NULL, 0))
		return -1;
	*state = m;
	return 0;
}

/* Every test leaves its arrays empty and finished: no node may remain charged. */
static inline int teardown(void **state)
{
	struct msim *m = *state;
	struct msim_kmem_totals t;

	msim_rcu_barrier();
	msim_kmem_totals(m, &t);
	msim_destroy(m);
	return t.allocations == 0 ? 0 : -1;
}

/* kernel test: xa_mk_index() */
static inline void *mk_index(unsigned long index)
{
	return msim_xa_mk_value(index & LONG_MAX);
}

static inline void store_index(struct msim_xarray *xa, unsigned long index)
{
	int err = 1;

	assert_null(msim_xa_store(xa, index, mk_index(index), &err));
	assert_int_equal(err, 0);
}

static inline void erase_index(struct msim_xarray *xa, unsigned long index)
{
	assert_ptr_equal(msim_xa_erase(xa, index), mk_index(index));
	assert_null(msim_xa_load(xa, index));
}

static inline void alloc_index(struct msim_xarray *xa, unsigned long index)
{
	uint32_t id = 0;

	assert_int_equal(msim_xa_alloc(xa, &id, mk_index(index), MSIM_XA_LIMIT_32B), 0);
	assert_int_equal(id, index);
}

#endif /* MSIM_TEST_XA_TEST_UTIL_H */
