/* SPDX-License-Identifier: MIT */
/*
 * nmi-drain-local and nmi-drain-vmstats: the two 2026 fixes to flush_nmi_stats
 * (race window R10, docs/races.md; the NMI path of account_slab_nmi_safe() and
 * account_kmem_nmi_safe() in mm/memcontrol.c).
 *
 * Where this_cpu ops are not NMI-safe (variant nmi-stats=atomic), an NMI that
 * allocates slab or charges kmem stages its deltas in atomics (per node for
 * slab, per memcg for MEMCG_KMEM) after enqueueing the memcg on its CPU's rstat
 * list; the next flush visit drains them (src/rstat/nmi.c). The drain before the
 * fixes added them to the hierarchical state only: not to state_local (read by
 * cgroup v1's memory.stat and the workingset shrinker), and, for slab, only at
 * the lruvec level, not to the memcg-level vmstats that memory.stat's slab
 * lines read (the ordinary path writes both levels).
 *
 * root -> p -> c, 2 CPUs. CPU 0: a task allocates 4096 bytes of unreclaimable
 * slab for c; an NMI on CPU 0 (a perf/BPF program) allocates 512 more and
 * charges 1 kmem page. CPU 1: a reader flushes c and reads its stats. The
 * explorers choose whether and when the NMI fires; the bad state follows once it
 * has fired and a flush has drained it (by construction of the drain: the
 * schedule decides only whether it shows). What an NMI staged that no flush
 * drained yet (R10's stranded delta: a flush popped c between the NMI's enqueue
 * and its atomic_add) is counted as staged, not as lost.
 *
 * Each race checks, after a final forced root flush, one fix's invariant:
 * nmi-drain-local: c's local slab (lruvec level) and local kmem equal what was
 * charged (minus what is still staged); nmi-drain-vmstats: c's and p's
 * memcg-level slab state equal it.
 */
#include <memcgsim/introspect.h>

#include "rstat_scn.h"

#define TASK_SLAB 4096L
#define NMI_SLAB 512L

struct nd {
	struct msim *m;
	struct msim_memcg *root, *p, *c;
	struct msim_task *alloc, *nmi, *reader;
	long read_lruvec_local;      /* the reader's reads after its flush of c */
	long read_memcg_slab;
};

static struct msim_lruvec *c_lruvec(struct nd *s)
{
	return msim_mem_cgroup_lruvec(s->m, s->c, 0);
}

static void slab_alloc_fn(void *arg)
{
	struct nd *s = arg;

	msim_account_slab_nmi_safe(s->c, 0, MSIM_NR_SLAB_UNRECLAIMABLE_B, TASK_SLAB);
}

/* A BPF program in NMI allocating an object and its kmem page. */
static void nmi_fn(void *arg)
{
	struct nd *s = arg;

	msim_account_slab_nmi_safe(s->c, 0, MSIM_NR_SLAB_UNRECLAIMABLE_B, NMI_SLAB);
	msim_account_kmem_nmi_safe(s->c, 1);
}

static void reader_fn(void *arg)
{
	struct nd *s = arg;

	msim_mem_cgroup_flush_stats_forced(s->c);
	s->read_lruvec_local = (long)msim_lruvec_page_state_local(c_lruvec(s),
								   MSIM_NR_SLAB_UNRECLAIMABLE_B);
	s->read_memcg_slab = (long)msim_memcg_page_state(s->c, MSIM_NR_SLAB_UNRECLAIMABLE_B);
}

static int nd_setup(struct msim *m, void **state, void *arg)
{
	struct nd *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	if ((ret = rstat_scn_tree(m, &s->root, &s->p, &s->c)))
		return ret;
	s->alloc = msim_task_create(m, "slab-alloc", 0, slab_alloc_fn, s);
	s->nmi = msim_irq_source_create(m, "bpf-nmi", 0, MSIM_CTX_NMI, 1, nmi_fn, s);
	s->reader = msim_task_create(m, "reader", 1, reader_fn, s);
	return s->alloc && s->nmi && s->reader ? 0 : -ENOMEM;
}

/* What the stats must hold after a flush that covers everything drainable. */
struct nd_state {
	long slab_want, kmem_want;        /* charged, minus what is still staged */
	long lruvec_local, memcg_local_slab, kmem_local;
	long lruvec_slab, memcg_slab, p_memcg_slab;
	long staged_slab, staged_kmem;
};

static void nd_measure(struct nd *s, struct nd_state *r)
{
	unsigned int fires = msim_irq_fires(s->nmi);

	msim_mem_cgroup_flush_stats_forced(s->root);
	r->staged_slab = msim_memcg_nmi_staged(s->c, 0, MSIM_NR_SLAB_UNRECLAIMABLE_B);
	r->staged_kmem = msim_memcg_nmi_staged(s->c, 0, MSIM_MEMCG_KMEM);
	r->slab_want = TASK_SLAB + NMI_SLAB * fires - r->staged_slab;
	r->kmem_want = (long)fires - r->staged_kmem;
	r->lruvec_local = msim_lruvec_stat_raw(c_lruvec(s), MSIM_STAT_LOCAL,
					       MSIM_NR_SLAB_UNRECLAIMABLE_B);
	r->lruvec_slab = msim_lruvec_stat_raw(c_lruvec(s), MSIM_STAT_STATE,
					      MSIM_NR_SLAB_UNRECLAIMABLE_B);
	r->memcg_local_slab = msim_memcg_stat_raw(s->c, MSIM_STAT_LOCAL,
						  MSIM_NR_SLAB_UNRECLAIMABLE_B);
	r->kmem_local = msim_memcg_stat_raw(s->c, MSIM_STAT_LOCAL, MSIM_MEMCG_KMEM);
	r->memcg_slab = msim_memcg_stat_raw(s->c, MSIM_STAT_STATE, MSIM_NR_SLAB_UNRECLAIMABLE_B);
	r->p_memcg_slab = msim_memcg_stat_raw(s->p, MSIM_STAT_STATE,
					      MSIM_NR_SLAB_UNRECLAIMABLE_B);
}

static bool local_judge(const struct nd_state *r, char *why, size_t len)
{
	if (r->lruvec_local == r->slab_want && r->kmem_local == r->kmem_want)
		return false;
	snprintf(why, len, "state_local misses NMI deltas: c's local slab %ld of %ld bytes, "
		 "local kmem %ld of %ld pages", r->lruvec_local, r->slab_want, r->kmem_local,
		 r->kmem_want);
	return true;
}

static bool vmstats_judge(const struct nd_state *r, char *why, size_t len)
{
	if (r->memcg_slab == r->slab_want && r->p_memcg_slab == r->slab_want)
		return false;
	snprintf(why, len, "memcg-level vmstats miss NMI slab: c reads %ld, p %ld of %ld bytes "
		 "(c's lruvec holds %ld)", r->memcg_slab, r->p_memcg_slab, r->slab_want,
		 r->lruvec_slab);
	return true;
}

static bool local_check(struct msim *m, void *state, char *why, size_t len)
{
	struct nd_state r;

	nd_measure(state, &r);
	return local_judge(&r, why, len);
}

static bool vmstats_check(struct msim *m, void *state, char *why, size_t len)
{
	struct nd_state r;

	nd_measure(state, &r);
	return vmstats_judge(&r, why, len);
}

/*
 * The NMI arrives while the task is between its per-CPU write and its on-list
 * test: it enqueues c and stages its deltas; the task finds c queued; the reader
 * on CPU 1 flushes c, which drains them.
 */
static int nd_run(struct msim *m, struct nd *s)
{
	int ret = msim_run_until(m, s->alloc, "rstat.update.after_state", 1);

	if (!ret)
		ret = msim_irq_raise(m, s->nmi);
	if (!ret)
		ret = msim_run_task(m, s->nmi);
	if (!ret)
		ret = msim_run_task(m, s->alloc);
	if (!ret)
		ret = msim_run_task(m, s->reader);
	return ret;
}

static void nd_figures(struct msim_race_report *rep, struct nd *s, const struct nd_state *r)
{
	msim_race_fig_int(rep, "nmi_fires", msim_irq_fires(s->nmi));
	msim_race_fig_int(rep, "reader_lruvec_local", s->read_lruvec_local);
	msim_race_fig_int(rep, "reader_memcg_slab", s->read_memcg_slab);
	msim_race_fig_int(rep, "lruvec_local", r->lruvec_local);
	msim_race_fig_int(rep, "lruvec_slab", r->lruvec_slab);
	msim_race_fig_int(rep, "memcg_local_slab", r->memcg_local_slab);
	msim_race_fig_int(rep, "memcg_slab", r->memcg_slab);
	msim_race_fig_int(rep, "p_memcg_slab", r->p_memcg_slab);
	msim_race_fig_int(rep, "kmem_local", r->kmem_local);
	msim_race_fig_int(rep, "staged", r->staged_slab + r->staged_kmem);
}

static int nd_script(struct msim *m, struct nd *s, struct msim_race_report *rep,
		     bool (*judge)(const struct nd_state *, char *, size_t), const char *ok)
{
	struct nd_state r;
	char why[256] = "";
	int ret = nd_run(m, s);

	if (ret)
		return ret;
	nd_measure(s, &r);
	rep->violated = judge(&r, why, sizeof(why));
	msim_race_note(rep, "%s", rep->violated ? why : ok);
	nd_figures(rep, s, &r);
	return 0;
}

static int local_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	return nd_script(m, state, rep, local_judge, "c's local stats hold the NMI's deltas");
}

static int vmstats_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	return nd_script(m, state, rep, vmstats_judge,
			 "c's and p's memory.stat slab include the NMI's bytes");
}

static int nd_configure(struct msim_config *cfg, char *err, size_t len)
{
	return scn_need_cpus(cfg, 2, "nmi-drain-*", err, len);
}

static bool local_expect(const struct msim_config *cfg, const void *arg)
{
	return msim_variant_value(&cfg->variants, "nmi-stats") == MSIM_NMI_STATS_ATOMIC &&
	       msim_variant_value(&cfg->variants, "nmi-drain-local") == MSIM_OFF;
}

static bool vmstats_expect(const struct msim_config *cfg, const void *arg)
{
	return msim_variant_value(&cfg->variants, "nmi-stats") == MSIM_NMI_STATS_ATOMIC &&
	       msim_variant_value(&cfg->variants, "nmi-drain-vmstats") == MSIM_OFF;
}

#define ND_DIAGRAM(last)                                                                   \
	"CPU 0: task (slab for c)      CPU 0: NMI (BPF prog)         CPU 1: reader\n"      \
	"------------------------      ---------------------         -------------\n"      \
	"this_cpu_add(state, 4096)\n"                                                      \
	"  (memcg and lruvec level)\n"                                                     \
	"                              <arrives>\n"                                        \
	"                              css_rstat_updated(c, 0)\n"                          \
	"                              atomic_add(pn.slab_unrecl, 512)\n"                  \
	"                              atomic_add(c.kmem_stat, 1)\n"                       \
	"                              <returns>\n"                                        \
	"css_rstat_updated: queued\n"                                                      \
	"                                                            flush c, cpu 0:\n"    \
	"                                                            flush_nmi_stats(c):\n" \
	"                                                              xchg(slab, 0) = 512\n" \
	"                                                              lruvec.state += 512\n" \
	last

/* Both sides reach the same state before the drain; these figures are the drain's. */
#define ND_FIGURES(lruvec_local, memcg_local_slab, memcg_slab, p_slab, kmem_local)         \
	(const struct msim_race_expect[]){                                                 \
		MSIM_RACE_EXPECT("nmi_fires", 1),                                          \
		MSIM_RACE_EXPECT("reader_lruvec_local", lruvec_local),                     \
		MSIM_RACE_EXPECT("reader_memcg_slab", memcg_slab),                         \
		MSIM_RACE_EXPECT("lruvec_local", lruvec_local),                            \
		MSIM_RACE_EXPECT("lruvec_slab", TASK_SLAB + NMI_SLAB),                     \
		MSIM_RACE_EXPECT("memcg_local_slab", memcg_local_slab),                    \
		MSIM_RACE_EXPECT("memcg_slab", memcg_slab),                                \
		MSIM_RACE_EXPECT("p_memcg_slab", p_slab),                                  \
		MSIM_RACE_EXPECT("kmem_local", kmem_local), MSIM_RACE_EXPECT("staged", 0), \
		{ NULL } }

#define ALL (TASK_SLAB + NMI_SLAB)

static const struct msim_race nmi_drain_local = {
	.name = "nmi-drain-local",
	.summary = "flush_nmi_stats drains an NMI's slab and kmem deltas into the aggregate "
		   "but not state_local: v1 and workingset local reads miss them (2026 fix)",
	.thread = "R10 (2026 fix)",
	.windows = "R10",
	.diagram = ND_DIAGRAM(
		"                                                              bug: state_local "
		"unchanged\n"
		"                                                              fix: state_local "
		"+= 512\n"
		"                                                            lruvec_page_state_local"
		"(c):\n"
		"                                                              bug 4096, fix 4608\n"),
	.budget = { .runs = 300, .pct_depth = 2, .preemptions = 1, .dfs_runs = 3000 },
	.configure = nd_configure,
	.expect = local_expect,
	.target = { .name = "nmi-drain-local", .setup = nd_setup, .check = local_check,
		    .teardown = rstat_scn_teardown },
	.script = local_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "nmi-stats=atomic,nmi-drain-local=off",
		  .violation = true, .demo = true, .clean_orders = true,
		  .summary = "the drain before the fix: local slab 4096 of 4608 bytes, local "
			     "kmem 0 of 1 page",
		  .why = "state_local misses", .dfs_first_violation = 2,
		  .dfs_schedule = "0*17.2*34.!1.1*7.0",
		  .figures = ND_FIGURES(TASK_SLAB, TASK_SLAB, ALL, ALL, 0) },
		{ .name = "fix", .settings = "nmi-stats=atomic", .demo = true,
		  .dfs_exhausts = true, .dfs_schedules = 111, .dpor_schedules = 66,
		  .summary = "the 2026 fix: the drain adds to state_local too",
		  .figures = ND_FIGURES(ALL, ALL, ALL, ALL, 1) },
		{ NULL } },
};
MSIM_RACE_REGISTER(nmi_drain_local)

static const struct msim_race nmi_drain_vmstats = {
	.name = "nmi-drain-vmstats",
	.summary = "flush_nmi_stats drains an NMI's slab bytes into the lruvec stats but not "
		   "the memcg-level vmstats: memory.stat's slab misses them (2026 fix)",
	.thread = "R10 (2026 fix)",
	.windows = "R10",
	.diagram = ND_DIAGRAM(
		"                                                              bug: c.vmstats "
		"unchanged\n"
		"                                                              fix: c.vmstats "
		"+= 512,\n"
		"                                                                p.pending += 512\n"
		"                                                            memcg_page_state(c,"
		" slab):\n"
		"                                                              bug 4096, fix 4608\n"),
	.budget = { .runs = 300, .pct_depth = 2, .preemptions = 1, .dfs_runs = 3000 },
	.configure = nd_configure,
	.expect = vmstats_expect,
	.target = { .name = "nmi-drain-vmstats", .setup = nd_setup, .check = vmstats_check,
		    .teardown = rstat_scn_teardown },
	.script = vmstats_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "nmi-stats=atomic,nmi-drain-vmstats=off",
		  .violation = true, .demo = true, .clean_orders = true,
		  .summary = "the drain before the fix: c's and p's memory.stat slab 4096 of "
			     "4608 bytes, c's lruvec 4608",
		  .why = "memcg-level vmstats miss", .dfs_first_violation = 2,
		  .dfs_schedule = "0*17.2*34.!1.1*7.0",
		  .figures = ND_FIGURES(ALL, TASK_SLAB, TASK_SLAB, TASK_SLAB, 1) },
		{ .name = "fix", .settings = "nmi-stats=atomic", .demo = true,
		  .dfs_exhausts = true, .dfs_schedules = 111, .dpor_schedules = 66,
		  .summary = "the 2026 fix: the drain adds slab to the memcg-level vmstats too",
		  .figures = ND_FIGURES(ALL, ALL, ALL, ALL, 1) },
		{ NULL } },
};
MSIM_RACE_REGISTER(nmi_drain_vmstats)
