/* SPDX-License-Identifier: MIT */
/*
 * rstat-enqueue-claim: what the lnode claim of css_rstat_updated is for
 * (kernel/cgroup/rstat.c; NMI-safe css_rstat_updated, 6.17). Since 6.17 the
 * update side of rstat is lockless: an updater tests whether its css's per-CPU
 * llist node is on the list and, if not, pushes it. Task, softirq, hardirq and
 * NMI contexts stacked on one CPU can all pass that test for the same css; the
 * cmpxchg of the node's next from "self" (off-list) to NULL lets exactly one of
 * them insert it.
 *
 * root -> p -> c. CPU 0 runs a task charging kmem to c; a NET_RX softirq on
 * CPU 0 charges socket memory (MEMCG_SOCK) to c. The explorers choose when the
 * softirq arrives.
 *
 * Violation: CPU 0's rstat updated list is not exactly c's one node (a node
 * inserted twice links to itself, and the list loops; a flush would spin on
 * it), or a flush after the run does not find both charges in c's stats. The
 * bug side (rstat-enqueue-claim=off) is no upstream kernel: it removes the claim
 * to show the double insert it prevents.
 */
#include <memcgsim/introspect.h>

#include "rstat_scn.h"

struct ec {
	struct msim *m;
	struct msim_memcg *root, *p, *c;
	struct msim_task *task, *softirq;
};

static void kmem_charge_fn(void *arg)
{
	struct ec *s = arg;

	msim_mod_memcg_state(s->c, MSIM_MEMCG_KMEM, 1);
}

/* kernel: the receive path's mem_cgroup_charge_skmem() -> mod_memcg_state(MEMCG_SOCK) */
static void net_rx_softirq_fn(void *arg)
{
	struct ec *s = arg;

	msim_mod_memcg_state(s->c, MSIM_MEMCG_SOCK, 1);
}

static int ec_setup(struct msim *m, void **state, void *arg)
{
	struct ec *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	*state = s;
	s->m = m;
	if ((ret = rstat_scn_tree(m, &s->root, &s->p, &s->c)))
		return ret;
	s->task = msim_task_create(m, "kmem-charge", 0, kmem_charge_fn, s);
	s->softirq = msim_irq_source_create(m, "net-rx-softirq", 0, MSIM_CTX_SOFTIRQ, 1,
					    net_rx_softirq_fn, s);
	return s->task && s->softirq ? 0 : -ENOMEM;
}

struct ec_result {
	int list_len;            /* nodes on CPU 0's list, -ELOOP when it loops */
	long kmem, sock;         /* c's stats after a flush (not flushed when it loops) */
	unsigned int fires;
};

static void ec_measure(struct ec *s, struct ec_result *r)
{
	r->list_len = msim_rstat_updated_list_len(s->m, 0);
	r->fires = msim_irq_fires(s->softirq);
	r->kmem = r->sock = -1;
	if (r->list_len < 0)
		return;
	msim_mem_cgroup_flush_stats_forced(s->root);
	r->kmem = msim_memcg_stat_raw(s->c, MSIM_STAT_STATE, MSIM_MEMCG_KMEM);
	r->sock = msim_memcg_stat_raw(s->c, MSIM_STAT_STATE, MSIM_MEMCG_SOCK);
}

static bool ec_judge(const struct ec_result *r, char *why, size_t len)
{
	if (r->list_len == -ELOOP) {
		snprintf(why, len, "double insert: CPU 0's rstat list loops (c's node links to "
			 "itself), a flush would never end");
		return true;
	}
	if (r->list_len != 1 || r->kmem != 1 || r->sock != (long)r->fires) {
		snprintf(why, len, "lost update: %d node(s) on CPU 0's list, c reads kmem %ld "
			 "sock %ld after %u softirq charge(s)", r->list_len, r->kmem, r->sock,
			 r->fires);
		return true;
	}
	return false;
}

static bool ec_check(struct msim *m, void *state, char *why, size_t len)
{
	struct ec_result r;

	ec_measure(state, &r);
	return ec_judge(&r, why, len);
}

/* The softirq arrives right after the task's on-list test passed. */
static int ec_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct ec *s = state;
	struct ec_result r;
	char why[256] = "";
	int ret = msim_run_until(m, s->task, "rstat.update.after_state", 1);

	if (!ret && msim_step(m, s->task, 1) != 1)   /* the test: off-list */
		ret = -EDEADLK;
	if (!ret)
		msim_race_note(rep, "the task passed the on-list test and stops at %s",
			       msim_task_parked_at(s->task));
	if (!ret)
		ret = msim_irq_raise(m, s->softirq);
	if (!ret)
		ret = msim_run_task(m, s->softirq);
	if (!ret)
		ret = msim_run_task(m, s->task);
	if (ret)
		return ret;
	ec_measure(s, &r);
	rep->violated = ec_judge(&r, why, sizeof(why));
	msim_race_note(rep, "%s", rep->violated ? why : "c is on CPU 0's list once; both "
		       "charges flushed");
	msim_race_fig_bool(rep, "list_loops", r.list_len == -ELOOP);
	msim_race_fig_int(rep, "list_len", r.list_len < 0 ? 0 : r.list_len);
	msim_race_fig_int(rep, "softirq_fires", r.fires);
	msim_race_fig_int(rep, "c_kmem", r.kmem);
	msim_race_fig_int(rep, "c_sock", r.sock);
	return 0;
}

static bool ec_expect(const struct msim_config *cfg, const void *arg)
{
	return msim_variant_value(&cfg->variants, "rstat-enqueue-claim") == MSIM_OFF;
}

static const struct msim_race rstat_enqueue_claim = {
	.name = "rstat-enqueue-claim",
	.summary = "a softirq on the same CPU enqueues the css between the task's on-list "
		   "test and its llist_add; the lnode cmpxchg claim lets only one insert it",
	.thread = "6.17 rstat (demo)",
	.diagram =
		"CPU 0: task (kmem charge to c)        CPU 0: NET_RX softirq (sock charge to c)\n"
		"------------------------------        ----------------------------------------\n"
		"mod_memcg_state(c, MEMCG_KMEM, 1)\n"
		"  this_cpu_add(c.state[KMEM])\n"
		"  css_rstat_updated(c, cpu 0):\n"
		"    llist_on_list(c.lnode)?  no\n"
		"                                      <arrives at the task's yield point>\n"
		"                                      mod_memcg_state(c, MEMCG_SOCK, 1)\n"
		"                                        css_rstat_updated(c, cpu 0):\n"
		"                                          llist_on_list?  no\n"
		"                                          fix: cmpxchg(lnode, self, NULL) wins\n"
		"                                          llist_add(c.lnode): head = c\n"
		"                                      <returns; the task resumes>\n"
		"    fix: cmpxchg(lnode, self, NULL) fails -> return (c is queued once)\n"
		"    bug: first = head (= c); c.next = c; head = c\n"
		"         <- c links to itself: CPU 0's list loops, a flush never ends\n",
	.budget = { .runs = 300, .pct_depth = 2, .preemptions = 1, .dfs_runs = 2000 },
	.expect = ec_expect,
	.target = { .name = "rstat-enqueue-claim", .setup = ec_setup, .check = ec_check,
		    .teardown = rstat_scn_teardown },
	.script = ec_script,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		{ .name = "bug", .settings = "rstat-enqueue-claim=off", .violation = true,
		  .demo = true, .clean_orders = true,
		  .summary = "no claim (a demonstration, not a kernel): the on-list test alone "
			     "decides, and the node is inserted twice",
		  .why = "double insert", .dfs_first_violation = 9,
		  .dfs_schedule = "0*4.!1.1*15.0*12",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("list_loops", 1), MSIM_RACE_EXPECT("list_len", 0),
			  MSIM_RACE_EXPECT("softirq_fires", 1), MSIM_RACE_EXPECT("c_kmem", -1),
			  MSIM_RACE_EXPECT("c_sock", -1), { NULL } } },
		{ .name = "fix", .settings = "", .demo = true, .dfs_exhausts = true,
		  .dfs_schedules = 14, .dpor_schedules = 14,
		  .summary = "mainline (6.17+): the cmpxchg claim, one insert, both charges "
			     "flushed",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("list_loops", 0), MSIM_RACE_EXPECT("list_len", 1),
			  MSIM_RACE_EXPECT("softirq_fires", 1), MSIM_RACE_EXPECT("c_kmem", 1),
			  MSIM_RACE_EXPECT("c_sock", 1), { NULL } } },
		{ NULL } },
};
MSIM_RACE_REGISTER(rstat_enqueue_claim)
