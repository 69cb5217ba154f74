/* SPDX-License-Identifier: MIT */
/*
 * toy-rcu-reader: a reader parked inside a read-side section while a writer
 * unpublishes the object and frees it after a grace period.
 *
 * The invariant: the reader never sees a freed object. A second writer path
 * frees with call_rcu, whose callback the explorer may run as early as the rules
 * allow. The object is "freed" by poisoning it and moving it to a quarantine
 * that teardown releases, so a violation is a checkable state rather than
 * undefined behaviour (ASan builds also see real frees at teardown). The bug
 * side (target arg &toy_rcu_no_grace_period) is the writer that frees without
 * synchronize_rcu: the check must be able to fail.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "scn.h"

#define LIVE 0x11feL
#define POISON 0xdeadL

struct obj {
	long value;
	struct msim_rcu_head rcu;
	struct obj *quarantine;
};

struct toy_rcu {
	void *gp;                   /* struct obj *, RCU-published */
	struct obj *quarantine;
	long seen[2];               /* what the readers read */
	struct msim_lock update_lock; /* writers serialise, as kernel updaters do */
	struct msim_task *tasks[4];
	bool no_grace_period;       /* the bug side: writer-sync skips synchronize_rcu */
	/* Each writer's new object until published and old object until freed or
	 * queued (read only by teardown): a run the explorer stopped leaves writers
	 * parked holding them. */
	struct obj *fresh[2], *held[2];
};

/* Target arg of the bug side. */
static const int toy_rcu_no_grace_period = 1;

static struct toy_rcu *cb_state; /* one scenario at a time per process */

/*
 * Poison and push onto the quarantine. In concurrent mode the writer's task and
 * liburcu's callback thread push at the same time, hence the lock-free push.
 */
static void obj_free(struct toy_rcu *s, struct obj *o)
{
	/* The poison is the free a reader must never see: it conflicts with their loads. */
	msim_access_note(&o->value, sizeof(o->value), MSIM_ACCESS_STORE);
	msim_quiet_store(&o->value, POISON, MSIM_RELAXED);
	o->quarantine = msim_quiet_load(&s->quarantine, MSIM_RELAXED);
	while (!msim_quiet_try_cmpxchg(&s->quarantine, &o->quarantine, o, MSIM_RELEASE,
				      MSIM_RELAXED))
		;
}

static void reader_fn(void *arg)
{
	struct toy_rcu *s = arg;
	int me = msim_current_task() == s->tasks[0] ? 0 : 1;

	msim_rcu_read_lock();
	struct obj *p = msim_rcu_dereference(&s->gp);
	/* Its next step reads the object (seen[] is the reader's own, read after the run). */
	msim_yield_access("toy.reader.inside", p ? &p->value : NULL,
			  p ? MSIM_ACCESS_LOAD : MSIM_ACCESS_NONE);
	msim_quiet_store(&s->seen[me], p ? msim_quiet_load(&p->value, MSIM_RELAXED) : LIVE,
			 MSIM_RELAXED);
	msim_rcu_read_unlock();
}

static struct obj *obj_new(long v)
{
	struct obj *o = calloc(1, sizeof(*o));

	if (o)
		o->value = v;
	return o;
}

/* Under the update lock: publish a new object, return the old one (writer w holds it). */
static struct obj *replace(struct toy_rcu *s, int w)
{
	struct obj *old = msim_rcu_dereference(&s->gp);

	s->fresh[w] = obj_new(LIVE);
	msim_rcu_assign_pointer(&s->gp, s->fresh[w]);
	s->fresh[w] = NULL;
	s->held[w] = old;
	return old;
}

static void writer_sync_fn(void *arg)
{
	struct toy_rcu *s = arg;
	msim_lock(&s->update_lock);
	struct obj *old = replace(s, 0);
	msim_unlock(&s->update_lock);
	if (!s->no_grace_period)
		msim_synchronize_rcu();
	obj_free(s, old);
	s->held[0] = NULL;
}

static void free_cb(struct msim_rcu_head *h)
{
	struct obj *o = msim_container_of(h, struct obj, rcu);

	/* obj_free notes the poison; the quarantine is read only after the run */
	msim_rcu_callback_noted();
	/*
	 * A run the explorer stopped early (DPOR prunes runs) leaves this callback
	 * queued; the host runs it when it is destroyed, after teardown freed the
	 * state. Nothing is checked any more: free the object outright.
	 */
	if (!cb_state) {
		free(o);
		return;
	}
	obj_free(cb_state, o);
}

static void writer_callrcu_fn(void *arg)
{
	struct toy_rcu *s = arg;
	msim_lock(&s->update_lock);
	struct obj *old = replace(s, 1);
	msim_unlock(&s->update_lock);
	msim_call_rcu(&old->rcu, free_cb);
	s->held[1] = NULL;          /* the callback frees it now */
}

static int rcu_setup(struct msim *m, void **state, void *arg)
{
	struct toy_rcu *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	cb_state = s;
	s->no_grace_period = arg == &toy_rcu_no_grace_period;
	msim_lock_init(&s->update_lock, "toy_update_lock");
	s->gp = obj_new(LIVE);
	s->tasks[0] = msim_task_create(m, "reader0", 0, reader_fn, s);
	s->tasks[1] = msim_task_create(m, "writer-sync", 1, writer_sync_fn, s);
	s->tasks[2] = msim_task_create(m, "reader1", 2 % msim_nr_cpus(m), reader_fn, s);
	s->tasks[3] = msim_task_create(m, "writer-call-rcu", 3 % msim_nr_cpus(m),
				       writer_callrcu_fn, s);
	*state = s;
	return s->gp && s->tasks[3] ? 0 : -ENOMEM;
}

static bool rcu_check(struct msim *m, void *state, char *why, size_t len)
{
	struct toy_rcu *s = state;

	for (int i = 0; i < 2; i++) {
		if (s->seen[i] != LIVE) {
			snprintf(why, len, "reader%d read a freed object (value %#lx)", i, s->seen[i]);
			return true;
		}
	}
	return false;
}

static void rcu_teardown(struct msim *m, void *state)
{
	struct toy_rcu *s = state;

	if (!s)
		return;
	while (s->quarantine) {
		struct obj *o = s->quarantine;
		s->quarantine = o->quarantine;
		free(o);
	}
	free(s->gp);
	for (int w = 0; w < 2; w++) {
		free(s->fresh[w]);
		free(s->held[w]);
	}
	msim_lock_destroy(&s->update_lock);
	free(s);
	cb_state = NULL;
}

static int rcu_script(struct msim *m, void *state, struct msim_race_report *rep)
{
	struct toy_rcu *s = state;
	char err[256];
	/* Park reader0 inside its section, then let the writer try to free. */
	int ret = msim_run_until(m, s->tasks[0], "toy.reader.inside", 1);

	if (!ret) {
		msim_step(m, s->tasks[1], 100);        /* runs until it blocks in synchronize_rcu */
		bool blocked = !msim_task_done(s->tasks[1]);
		bool gp_ended = msim_rcu_step(m);      /* must not end: reader0 is inside */
		msim_race_fig_bool(rep, "writer_blocked_while_reader_inside", blocked);
		msim_race_fig_bool(rep, "grace_period_ended_early", gp_ended);
		ret = msim_run(m);
		rep->violated = !blocked || gp_ended || rcu_check(m, s, err, sizeof(err));
		msim_race_note(rep, "%s", rep->violated ? "a reader saw freed memory" :
				"the free waited for the reader");
	}
	return ret;
}

/*
 * The same scenario in concurrent mode: the same four tasks on real threads and
 * liburcu, run many times (each a fresh host). rcu_barrier() before the check so
 * every call_rcu free has happened.
 */
static int rcu_concurrent(const struct msim_config *base, struct msim_race_report *rep)
{
	struct msim_config cfg = *base;
	long runs = 0, bad = 0;
	int ret = 0;

	cfg.mode = MSIM_CONCURRENT;
	for (; runs < 100 && !ret; runs++) {
		struct msim *m;
		void *state = NULL;
		char why[128];

		if ((ret = msim_create(&cfg, &m, why, sizeof(why))))
			break;
		msim_set_current_host(m);
		ret = rcu_setup(m, &state, NULL);
		if (!ret)
			ret = msim_run(m);
		msim_rcu_barrier();
		if (!ret && rcu_check(m, state, why, sizeof(why))) {
			bad++;
			msim_race_note(rep, "%s", why);
		}
		rcu_teardown(m, state);
		msim_destroy(m);
	}
	msim_race_fig_int(rep, "concurrent_runs", runs);
	msim_race_fig_int(rep, "freed_object_reads", bad);
	rep->violated = bad > 0;
	return ret;
}

/* RCU keeps the object alive in every schedule, unless the writer skips it. */
static bool rcu_expect(const struct msim_config *cfg, const void *arg)
{
	return arg == &toy_rcu_no_grace_period;
}

static const struct msim_race toy_rcu_reader = {
	.name = "toy-rcu-reader",
	.min_cpus = 2,
	.summary = "a reader parked in a read-side section while a writer unpublishes and frees",
	.thread = "toy",
	.diagram =
		"CPU 0 (reader)                  CPU 1 (writer)\n"
		"--------------                  --------------\n"
		"rcu_read_lock()\n"
		"p = rcu_dereference(gp)\n"
		"                                old = gp; rcu_assign_pointer(gp, new)\n"
		"                                synchronize_rcu()    ... waits\n"
		"use p->value (still valid)\n"
		"rcu_read_unlock()\n"
		"                                (grace period ends)  free(old)\n",
	/* DFS at bound 2 does not exhaust rcu in 200000 schedules; DPOR needs 61534 */
	.budget = { .runs = 500, .pct_depth = 3, .preemptions = 2, .dfs_runs = 60000,
		    .dpor_runs = 65000 },
	.target = { .name = "toy-rcu-reader", .setup = rcu_setup, .check = rcu_check,
		    .teardown = rcu_teardown },
	.expect = rcu_expect,
	.script = rcu_script,
	.concurrent = rcu_concurrent,
	.script_replays = true,
	.sides = (const struct msim_race_side[]){
		{ .name = "rcu", .settings = "", .demo = true,
		  .summary = "the free waits for the parked reader in every schedule",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("writer_blocked_while_reader_inside", 1),
			  MSIM_RACE_EXPECT("grace_period_ended_early", 0), { NULL } } },
		{ .name = "no-grace-period", .settings = "", .violation = true,
		  .arg = (void *)&toy_rcu_no_grace_period,
		  .summary = "writer-sync frees without synchronize_rcu: a reader reads the poison",
		  .why = "read a freed object (value 0xdead)",
		  .figures = (const struct msim_race_expect[]){
			  MSIM_RACE_EXPECT("writer_blocked_while_reader_inside", 0), { NULL } } },
		{ NULL } },
};
MSIM_RACE_REGISTER(toy_rcu_reader)
