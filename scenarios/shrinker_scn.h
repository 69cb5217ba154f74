/* SPDX-License-Identifier: MIT */
/*
 * shrinker_scn.h - helpers shared by the shrinker race scenarios
 * (scenarios/shrinker_*.c).
 */
#ifndef MSIM_SHRINKER_SCN_H
#define MSIM_SHRINKER_SCN_H

#include "scn.h"

#include <memcgsim/introspect.h>

/* A host for a scripted run: created, made current, shrinkers initialised. */
static inline int shr_scn_host(const struct msim_config *cfg, struct msim **out)
{
	int ret = scn_host_new(cfg, out);

	return ret ? ret : msim_shrinker_init(*out);
}

/*
 * Scripted control that lets grace periods end: a task blocked in
 * synchronize_rcu (rmdir) makes msim_run_until/msim_run_task return -EDEADLK
 * until the driver steps the RCU engine.
 */
static inline int shr_scn_until(struct msim *m, struct msim_task *t, const char *point,
				unsigned int nth)
{
	int r = msim_run_until(m, t, point, nth);

	while (r == -EDEADLK && msim_rcu_step(m))
		r = msim_run_until(m, t, point, nth);
	return r;
}

static inline int shr_scn_finish(struct msim *m, struct msim_task *t)
{
	int r = msim_run_task(m, t);

	while (r == -EDEADLK && msim_rcu_step(m))
		r = msim_run_task(m, t);
	return r;
}

/*
 * Before the tasks of an explored run are created: run every pending callback
 * and end every grace period still in progress. rcu_barrier() alone can leave an
 * idle grace period running (one a callback queued during the previous period
 * asked for); each such period is one more free 'R' step the explorer places at
 * every position of the run, which multiplies the DFS space without modelling
 * anything the race depends on.
 */
static inline void shr_scn_rcu_quiesce(void)
{
	msim_rcu_barrier();
	/* Ends the idle period and the one it asks for, then starts no other (and,
	 * unlike msim_rcu_step, records nothing in the run's schedule). */
	msim_synchronize_rcu();
}

/*
 * S1's stage (shrinker-bit-recount, shrinker-bit-barrier): superblock sb_name
 * and memcg C whose dentry list was filled and emptied, so its shrinker bit
 * stays set with nothing on the list. The caller quiesces RCU its own way and
 * creates its tasks.
 */
static inline int shr_scn_s1_stage(struct msim *m, const char *sb_name,
				   struct msim_super_block **sb, struct msim_memcg **c)
{
	int r;

	if ((r = msim_shrinker_init(m)) || (r = msim_sb_mount(m, sb_name, sb)) ||
	    (r = msim_memcg_create(msim_root_mem_cgroup(m), "C", c)))
		return r;
	if ((r = msim_sb_alloc_objects(*sb, *c, 0, MSIM_SB_DENTRY, 1)))
		return r;
	msim_sb_free_objects(*sb, *c, 0, MSIM_SB_DENTRY, 1); /* empty, bit stays */
	return 0;
}

static inline void shr_scn_s1_unstage(struct msim_super_block *sb, struct msim_memcg *c)
{
	if (sb)
		msim_sb_umount(sb);
	if (c)
		msim_memcg_rmdir(c);
}

/* The S1 races' check: a list with objects whose shrinker bit is clear. */
static inline bool shr_scn_bits_check(struct msim *m, void *state, char *why, size_t len)
{
	(void)state;
	return msim_list_lru_check_bits(m, why, len) > 0;
}

/* configure: two CPUs at least (the race's two tasks run on CPUs 0 and 1). */
static inline int shr_scn_configure(struct msim_config *cfg, char *err, size_t len)
{
	if (cfg->nr_cpus < 2)
		cfg->nr_cpus = 2;
	return 0;
}

/* A memcg-aware shrinker with a fixed count whose scan always stops. */
struct shr_scn_fake {
	unsigned long count;
	unsigned long count_calls;
};

static inline unsigned long shr_scn_fake_count(struct msim_shrinker *s,
					       struct msim_shrink_control *sc)
{
	struct shr_scn_fake *f = s->private_data;

	f->count_calls++;
	return f->count;
}

static inline unsigned long shr_scn_fake_scan(struct msim_shrinker *s,
					      struct msim_shrink_control *sc)
{
	return MSIM_SHRINK_STOP;
}

static inline int shr_scn_fake_new(struct msim *m, struct shr_scn_fake *f,
				   struct msim_shrinker **out)
{
	int r = msim_shrinker_alloc(m, MSIM_SHRINKER_MEMCG_AWARE, "fake", out);

	if (r)
		return r;
	(*out)->count_objects = shr_scn_fake_count;
	(*out)->scan_objects = shr_scn_fake_scan;
	(*out)->private_data = f;
	return msim_shrinker_register(*out);
}

#endif
