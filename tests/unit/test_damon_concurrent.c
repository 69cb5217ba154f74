/* SPDX-License-Identifier: MIT */
/* ctest-labels: concurrent */
/*
 * The goal reader in concurrent mode (real threads, liburcu; the tsan preset runs
 * it under TSan). 4 CPUs, 16 memcgs of 100 LRU pages each. The tasks on CPUs 0-2
 * read the node_memcg_used_bp goal of every memcg, round after round; the task on
 * CPU 3 removes the memcgs one by one while they read. With the reference
 * (tryget=on) every read either finds nothing or reads its memcg's 100 pages
 * whole, and no freed memcg is ever used. Without it (off) the model's watch
 * and guard section must keep every read off freed memory, whatever the
 * interleaving: every read ends in one of the counted outcomes. How many reads
 * race a free depends on timing and is not asserted.
 */
#include <stdlib.h>

#include "unit_util.h"

#define NCPU 4
#define NREADERS 3
#define NMEMCG 16
#define ROUNDS 200
#define PAGES 100

struct dc {
	struct msim *m;
	struct msim_memcg *memcg[NMEMCG];
	unsigned short id[NMEMCG];
	unsigned long torn[NREADERS];     /* reads that saw neither 0 nor PAGES pages */
};

static void reader(void *arg)
{
	struct dc *d = arg;
	unsigned int me = msim_this_cpu();

	for (unsigned int r = 0; r < ROUNDS; r++)
		for (unsigned int i = 0; i < NMEMCG; i++) {
			struct msim_damos_quota_goal g = {
				.metric = MSIM_DAMOS_QUOTA_NODE_MEMCG_USED_BP, .target_value = 1,
				.nid = 0, .memcg_id = d->id[i] };
			struct msim_damos_read_info info;

			msim_damos_get_node_memcg_used_bp_info(d->m, &g, &info);
			if (info.used_pages != 0 && info.used_pages != PAGES)
				d->torn[me]++;
		}
}

static void remover(void *arg)
{
	struct dc *d = arg;

	for (unsigned int i = 0; i < NMEMCG; i++)
		msim_memcg_rmdir(d->memcg[i]);
}

static void run(const char *settings, struct msim_damon_counts *c, unsigned long *torn)
{
	struct msim_config cfg = unit_config(NCPU, 1);
	struct dc *d = calloc(1, sizeof(*d));
	char err[256];

	assert_non_null(d);
	cfg.mode = MSIM_CONCURRENT;
	assert_int_equal(msim_race_settings_apply(&cfg, settings, err, sizeof(err)), 0);
	d->m = unit_host_cfg(&cfg);
	assert_int_equal(msim_damon_attach(d->m, err, sizeof(err)), 0);
	for (unsigned int i = 0; i < NMEMCG; i++) {
		d->memcg[i] = unit_mkdir(msim_root_mem_cgroup(d->m), NULL);
		d->id[i] = msim_mem_cgroup_private_id(d->memcg[i]);
		assert_int_equal(msim_mod_lruvec_state(msim_mem_cgroup_lruvec(d->m, d->memcg[i], 0),
						       MSIM_NR_ACTIVE_FILE, PAGES), 0);
	}
	/* every memcg flushed: a read that gets through reads PAGES whole */
	msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(d->m));
	for (unsigned int cpu = 0; cpu < NREADERS; cpu++)
		assert_non_null(msim_task_create(d->m, "reader", cpu, reader, d));
	assert_non_null(msim_task_create(d->m, "rmdir", NREADERS, remover, d));
	assert_int_equal(msim_run(d->m), 0);
	msim_memcg_drain(d->m);
	msim_damon_counts(d->m, c);
	*torn = 0;
	for (unsigned int i = 0; i < NREADERS; i++)
		*torn += d->torn[i];
	msim_destroy(d->m);
	free(d);
}

static void with_tryget(void **st)
{
	struct msim_damon_counts c;
	unsigned long torn;

	run("", &c, &torn);
	assert_int_equal(c.reads, NREADERS * ROUNDS * NMEMCG);
	assert_int_equal(c.use_after_free + c.use_after_release, 0);
	/* each read: nothing found, a failed tryget, or a flush and a whole read */
	assert_int_equal(c.flushes_called + c.lookups_failed + c.trygets_failed, c.reads);
	assert_int_equal(torn, 0);
}

static void without_tryget(void **st)
{
	struct msim_damon_counts c;
	unsigned long torn;

	run("damon-memcg-tryget=off", &c, &torn);
	assert_int_equal(c.reads, NREADERS * ROUNDS * NMEMCG);
	assert_int_equal(c.trygets_failed, 0);
	assert_int_equal(torn, 0);
	/* each read: nothing found, caught (freed or released), or a flush and a read */
	assert_int_equal(c.flushes_called + c.lookups_failed + c.use_after_free +
			 c.use_after_release, c.reads);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(with_tryget),
		cmocka_unit_test(without_tryget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
