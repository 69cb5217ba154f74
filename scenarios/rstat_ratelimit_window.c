/* SPDX-License-Identifier: MIT */
/*
 * rstat-ratelimit-window: race R7 (docs/races.md). The root
 * flush writes flush_last_time before it flushes; a ratelimited reader that runs
 * meanwhile sees a fresh timestamp, skips its own flush and reads partially
 * flushed data.
 *
 * root -> a, 4 CPUs; a has 100 file pages on node 0 from each CPU (400 > 256).
 * The periodic flusher is late: jiffies 5000, flush_last_time 0, so a ratelimited
 * flush would run (5000 > 0 + 4000).
 *
 * Had the reader come before the timestamp write, it would have flushed and read
 * 400 (figure reader_first_value). Violation: the reader skipped its flush and
 * read a root lruvec value other than the pages charged. Expected under
 * root-lruvec-read=rstat; under node only when the node counters lag. Under
 * node-stat=exact (the model's old simplification) they never do, so the fix side
 * holds by construction. The fix-percpu side runs the kernel's per-CPU node
 * counters and ends each CPU's 100 pages with a 30-page mod below the threshold
 * (48 on 4 CPUs, 32 on 3: calculate_normal_threshold on the default zones): 30
 * pages of each CPU stay in its vmstat diff, and the node read misses 120 of 400
 * whether or not the reader flushed.
 *
 * The explorer's runs keep the pages on CPU 0 (set up from the driver): a reader
 * between the timestamp write and CPU 0's visit reads 0 of 400.
 */
#include "rstat_scn.h"

#define RW_PAGES 100

struct rw {
	struct msim *m;
	struct msim_memcg *root, *a;
	struct msim_task *flusher, *reader, *upd[MSIM_MAX_CPUS];
	long applied;
	long tail;          /* pages of each update in a second, last mod (the side's arg) */
	long read_value;
	bool reader_flushed;
	bool reader_done;
};

static void upd_fn(void *arg)
{
	struct rw *s = arg;

	struct msim_lruvec *lruvec = msim_mem_cgroup_lruvec(s->m, s->a, 0);

	s->applied += RW_PAGES;
	msim_mod_lruvec_state(lruvec, MSIM_NR_FILE_PAGES, RW_PAGES - s->tail);
	if (s->tail)
		msim_mod_lruvec_state(lruvec, MSIM_NR_FILE_PAGES, s->tail);
}

static void flusher_fn(void *arg)
{
	struct rw *s = arg;

	msim_flush_memcg_stats_dwork(s->m);
}

static void reader_fn(void *arg)
{
	struct rw *s = arg;

	s->reader_flushed = msim_mem_cgroup_flush_stats_ratelimited(s->root);
	s->read_value = (long)msim_lruvec_page_state(msim_mem_cgroup_lruvec(s->m, s->root, 0),
						     MSIM_NR_FILE_PAGES);
	s->reader_done = true;
}

static int rw_build(struct msim *m, struct rw *s, bool updaters)
{
	int ret;

	s->m = m;
	if ((ret = rstat_scn_init(m)))
		return ret;
	msim_clock_advance(m, 5ULL * msim_config(m)->hz);
	s->root = msim_root_mem_cgroup(m);
	if ((ret = msim_memcg_create(s->root, "a", &s->a)))
		return ret;
	for (unsigned int c = 0; updaters && c < msim_nr_cpus(m); c++)
		if (!(s->upd[c] = msim_task_create(m, "upd", c, upd_fn, s)))
			return -ENOMEM;
	s->flusher = msim_task_create(m, "flusher", 0, flusher_fn, s);
	s->reader = msim_task_create(m, "reader", 2 % msim_nr_cpus(m), reader_fn, s);
	return s->flusher && s->reader ? 0 : -ENOMEM;
}

static int rw_setup(struct msim *m, void **state, void *arg)
{
	struct rw *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	*state = s;
	s->tail = arg ? *(const long *)arg : 0;
	ret = rw_build(m, s, false);
	for (unsigned int c = 0; !ret && c < 4; c++)
		upd_fn(s);  /* driver context: CPU 0 */
	return ret;
}

static bool rw_check(struct msim *m, void *state, char *why, size_t len)
{
	struct rw *s = state;

	if (!s->reader_done || s->reader_flushed || s->read_value == s->applied)
		return false;
	snprintf(why, len, "ratelimited reader skipped its flush (flush_last_time %llu, jiffies "
		 "%llu) and read %ld of %ld pages", (unsigned long long)msim_rstat_flush_last_time(m),
		 (unsigned long long)msim_jiffies(m), s->read_value, s->applied);
	return true;
}

static int rw_host(const struct msim_config *cfg, const void *arg, struct msim **m,
		   struct rw *s)
{
	int ret = scn_host_new(cfg, m);

	if (ret)
		return ret;
	memset(s, 0, sizeof(*s));
	s->tail = arg ? *(const long *)arg : 0;
	ret = rw_build(*m, s, true);
	for (unsigned int c = 0; !ret && c < msim_nr_cpus(*m); c++)
		ret = msim_run_task(*m, s->upd[c]);
	return ret;
}

static int rw_script(const struct msim_config *cfg, void *arg, struct msim_race_report *rep)
{
	struct msim *m;
	struct rw *s = calloc(1, sizeof(*s));
	char why[256] = "";
	int ret;

	if (!s)
		return -ENOMEM;
	/* the counterfactual: the reader before the root flush */
	ret = rw_host(cfg, arg, &m, s);
	if (!ret && !(ret = msim_run_task(m, s->reader))) {
		msim_race_fig_bool(rep, "reader_first_flushed", s->reader_flushed);
		msim_race_fig_int(rep, "reader_first_value", s->read_value);
		ret = msim_run(m);
	}
	msim_destroy(m);
	if (ret)
		goto out;
	/* the race: the reader inside the root flush's window */
	ret = rw_host(cfg, arg, &m, s);
	if (!ret)
		ret = msim_run_until(m, s->flusher, "rstat.flush.cpu_start", 2);
	if (!ret)
		ret = msim_run_task(m, s->reader);
	if (!ret) {
		msim_race_fig_int(rep, "flush_last_time", (long long)msim_rstat_flush_last_time(m));
		msim_race_fig_int(rep, "jiffies", (long long)msim_jiffies(m));
		msim_race_fig_bool(rep, "reader_flushed", s->reader_flushed);
		msim_race_fig_int(rep, "reader_value", s->read_value);
		msim_race_fig_int(rep, "root_memcg_state_in_window",
				 (long long)msim_memcg_page_state(s->root, MSIM_NR_FILE_PAGES));
		msim_race_fig_int(rep, "true_pages", s->applied);
		rep->violated = rw_check(m, s, why, sizeof(why));
		msim_race_note(rep, "%s", rep->violated ? why :
			       "the ratelimited reader read the current value (node counters)");
		ret = msim_run(m);
	}
	if (!ret)
		msim_race_fig_int(rep, "root_after_flush",
				 (long long)msim_memcg_page_state(s->root, MSIM_NR_FILE_PAGES));
	snprintf(rep->schedule, sizeof(rep->schedule), "%s", msim_schedule_string(m));
	msim_destroy(m);
out:
	free(s);
	return ret;
}

static int rw_configure(struct msim_config *cfg, char *err, size_t len)
{
	return scn_need_cpus(cfg, 3, "rstat-ratelimit-window", err, len);
}

static bool rw_expect(const struct msim_config *cfg, const void *arg)
{
	return msim_variant_value(&cfg->variants, "root-lruvec-read") ==
		       MSIM_ROOT_LRUVEC_READ_RSTAT ||
	       rstat_scn_node_tail_unfolded(cfg, arg);
}

/* fix-percpu: each CPU's 100 pages as 70, then 30 (at most the threshold from 3 CPUs up) */
static long rw_percpu_tail = 30;

/* Every side: the reader after the timestamp write skips its flush. */
#define RW_FIGURES(reader_value, first_value)                                     \
	(const struct msim_race_expect[]){                                        \
		MSIM_RACE_EXPECT("reader_first_flushed", 1),                      \
		MSIM_RACE_EXPECT("reader_first_value", first_value),              \
		MSIM_RACE_EXPECT("flush_last_time", 5000), MSIM_RACE_EXPECT("jiffies", 5000), \
		MSIM_RACE_EXPECT("reader_flushed", 0),                            \
		MSIM_RACE_EXPECT("reader_value", reader_value),                   \
		MSIM_RACE_EXPECT("root_memcg_state_in_window", 100),              \
		MSIM_RACE_EXPECT("true_pages", 400),                              \
		MSIM_RACE_EXPECT("root_after_flush", 400), { NULL } }

static const struct msim_race rstat_ratelimit_window = {
	.name = "rstat-ratelimit-window",
	.summary = "a ratelimited reader skips its flush while the root flush is half done, "
		   "because flush_last_time is written first (R7)",
	.thread = "R7, 002 patch 2",
	.windows = "R7",
	.diagram =
		"CPU 0 (periodic root flush)        CPU 2 (ratelimited reader, e.g. vmscan)\n"
		"---------------------------        ----------------------------------------\n"
		"WRITE_ONCE(flush_last_time, 5000)\n"
		"visit CPU 0: fold 100\n"
		"                                   5000 > 5000 + 4000? no: skip the flush\n"
		"                                   lruvec_page_state(root, NR_FILE_PAGES)\n"
		"                                     rstat: 100 of 400     node: 400\n"
		"                                     (node-stat=percpu: 280, each CPU's\n"
		"                                     30-page diff not folded)\n"
		"visit CPUs 1..3\n",
	/*
	 * 20000 DFS and DPOR schedules: DFS exhausts fix in 72 and the bug sides
	 * stop at their first violation; DPOR with no bound needs 12602 for fix
	 * since a lock waiter's retry races with a taker's acquire
	 * (docs/explore.md, the lock waiter DPOR lost).
	 */
	.budget = { .runs = 500, .pct_depth = 2, .preemptions = 1, .dfs_runs = 20000 },
	.configure = rw_configure,
	.expect = rw_expect,
	.target = { .name = "rstat-ratelimit-window", .setup = rw_setup, .check = rw_check,
		    .teardown = rstat_scn_teardown },
	.script_hosts = rw_script,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "", .violation = true, .demo = true,
		  .summary = "mainline: root's lruvec read comes from the half-flushed rstat "
			     "aggregate, 100 of 400",
		  .why = "skipped its flush", .figures = RW_FIGURES(100, 400) },
		{ .name = "fix", .settings = "root-lruvec-read=node", .demo = true,
		  .dfs_exhausts = true, .dfs_schedules = 72, .dpor_schedules = 15,
		  .summary = "thread 002 patch 2 on exact node counters (node-stat=exact): the "
			     "node counters answer, 400, by construction",
		  .figures = RW_FIGURES(400, 400) },
		{ .name = "fix-percpu", .settings = "root-lruvec-read=node,node-stat=percpu",
		  .arg = &rw_percpu_tail, .violation = true,
		  .summary = "thread 002 patch 2 on the kernel's per-CPU node counters: each CPU "
			     "keeps its last 30 pages in its diff (threshold 48), the node "
			     "counters answer 280 of 400, flushed or not",
		  .why = "skipped its flush", .figures = RW_FIGURES(280, 280) },
		{ NULL } },
};
MSIM_RACE_REGISTER(rstat_ratelimit_window)
