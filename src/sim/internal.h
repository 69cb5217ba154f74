/* SPDX-License-Identifier: MIT */
/*
 * internal.h - the types of src/sim: struct msim, struct msim_task and the state
 * of the scheduler and the deterministic RCU engine inside them. Types only: each
 * .c file declares the functions it offers the others in its own header (ctx.h
 * for ctx.c, sched.h for sched.c, ...), and includes the headers of the files it
 * calls, so the include lines show the call graph, which has no circle.
 * Quoted includes are these private headers; <memcgsim/...> the public ones.
 */
#ifndef MSIM_SIM_INTERNAL_H
#define MSIM_SIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/sim.h>
#include <memcgsim/subsys.h>
#include <memcgsim/explore.h>
#include <memcgsim/lock.h>
#include <memcgsim/rcu.h>
#include <memcgsim/irq.h>

#include "ctx.h"

/* Stack of a deterministic task when the configuration says 0. */
#define MSIM_DEFAULT_STACK (256 * 1024)

/* ---- tasks ---- */

struct msim__point_hits; /* sched_points.c */

enum msim_task_state {
	MSIM_TASK_NEW = 0,
	MSIM_TASK_READY,          /* started, parked at a yield point */
	MSIM_TASK_BLOCKED,        /* waiting for a lock, a grace period or a barrier */
	MSIM_TASK_DONE,
};

enum msim_wait_kind {
	MSIM_WAIT_NONE = 0,
	MSIM_WAIT_LOCK,
	MSIM_WAIT_GP,             /* synchronize_rcu: until gp_completed >= wait_seq */
	MSIM_WAIT_BARRIER,        /* rcu_barrier: until cbs_done >= wait_seq */
};

struct msim_task {
	struct msim *host;
	unsigned int idx;         /* creation order: the name in schedule strings */
	char name[32];
	unsigned int cpu;
	msim_task_fn fn;
	void *arg;
	enum msim_task_state state;
	enum msim_wait_kind wait;
	struct msim_lock *wait_lock;
	unsigned int locks_held;  /* a task must not exit holding a lock */
	uint64_t wait_seq;
	const char *parked_at;
	const struct msim__name_fold *parked_fold; /* parked_at's in the trace hash (trace_hash.h) */
	/* Fingerprinting (fingerprint.c): what the parked point announced, and
	 * the hash of the task's steps so far (0: none yet). */
	const volatile void *fp_addr;
	int fp_kind;
	uint64_t fp_hash;
	/* The yield context (yield.h) where the task last gave control back: a
	 * pointer into its own stack, valid while it stays parked. */
	const struct msim_yield_ctx *yield_ctx;
	/* How often the task parked at each point name (sched_points.c). */
	struct msim__point_hits *points;
	unsigned int nr_points, points_cap;
	struct msim__point_hits *last_point; /* the slot of the last park (NULL: none) */
	struct msim_ctx ctx;
	/* RCU reader state (deterministic model). */
	int rcu_nesting;
	uint64_t rcu_section;     /* increments at each outermost rcu_read_lock */
	uint64_t gp_snapshot;     /* section seen when the current grace period began */
	bool gp_waited;           /* the current grace period waits for this reader */
	/*
	 * Preemption model (preempt.c). Where the model says the task cannot be
	 * preempted, it holds its CPU and is an implicit RCU reader: a grace period
	 * that began then waits until it passes a quiescent state (qs_seq changes).
	 */
	unsigned int preempt_off; /* spinlocks held or spun on, preempt_disable depth */
	bool at_sched_point;      /* parked at a voluntary scheduling point (sleeps) */
	uint64_t qs_seq;          /* parks at which the task could be preempted, and exit */
	uint64_t gp_qs_snapshot;  /* qs_seq when the current grace period began */
	bool gp_implicit;         /* the current grace period waits for that */
	/*
	 * Execution context (irq.c). An interrupt source is a task of kind other
	 * than TASK: idle (NEW, or DONE after a firing) until it arrives, then
	 * on top of its CPU's context stack (irq_below: the index of the
	 * context it interrupted, or -1 for the task that ran there) until done.
	 */
	enum msim_context_kind kind;
	unsigned int irq_off;     /* local_irq_save depth (flags restore it) */
	unsigned int bh_off;      /* local_bh_disable depth */
	unsigned int fires, max_fires;
	int irq_below;
	struct msim_task *next;   /* creation list */
};

/* The driver (code outside tasks) as an RCU reader in deterministic mode. */
struct msim_driver_reader {
	int rcu_nesting;
	uint64_t rcu_section;
	uint64_t gp_snapshot;
	bool gp_waited;
};

/* ---- RCU engine (deterministic mode, rcu_det.c) ---- */

struct msim_rcu_det {
	uint64_t gp_completed;    /* grace periods ended */
	uint64_t gp_target;       /* highest sequence some waiter needs */
	bool gp_in_progress;
	struct msim_rcu_head *cb_head, **cb_tail;
	uint64_t cbs_queued, cbs_done;
	struct msim_driver_reader driver;
};


/* ---- scheduler (sched.c) ---- */

#define MSIM_PICK_R (-1)
/* The arrival of interrupt source task idx ("!idx" in schedule strings). */
#define MSIM_PICK_IRQ(idx) (-2 - (int)(idx))
#define MSIM_PICK_IS_IRQ(pick) ((pick) <= -2 && (pick) > MSIM_PICK_DRAIN_BASE)
/*
 * Weak memory models (storebuf.c): make entry k (from the oldest) of CPU cpu's
 * store buffer visible ("~cpu" for k 0, "~cpu+k" in schedule strings).
 */
#define MSIM_PICK_DRAIN_BASE (-(1 << 30))
#define MSIM_PICK_DRAIN_K 64
#define MSIM_PICK_DRAIN(cpu, k) (MSIM_PICK_DRAIN_BASE - (int)(cpu) * MSIM_PICK_DRAIN_K - (int)(k))
#define MSIM_PICK_IS_DRAIN(pick) ((pick) <= MSIM_PICK_DRAIN_BASE)
#define MSIM_PICK_DRAIN_CPU(pick) ((MSIM_PICK_DRAIN_BASE - (pick)) / MSIM_PICK_DRAIN_K)
#define MSIM_PICK_DRAIN_POS(pick) ((MSIM_PICK_DRAIN_BASE - (pick)) % MSIM_PICK_DRAIN_K)
#define MSIM_PICK_IRQ_TASK(pick) (-2 - (pick))

struct msim_replay_run {
	int pick;                 /* task index or MSIM_PICK_R */
	uint64_t count;
};

struct msim__sched_event;
/* A step observer (sched.h): the trace export's hook into every step. */
typedef void (*msim__sched_observer_fn)(struct msim *m, const struct msim__sched_event *e,
					void *arg);

struct msim_dfs_point {
	uint16_t nr_options;
	uint16_t chosen;          /* index into the canonical option list */
	uint16_t preemptions;     /* preemptions before this decision */
	bool current_enabled;     /* option 0 is the current task */
	bool has_r;               /* the last option is the RCU engine */
};

struct msim__dpor;

struct msim_sched {
	struct msim_sched_opts opts;
	uint64_t rng;
	uint64_t steps, switches;
	uint64_t run_first_step;  /* steps when the driver loop began: the step cap is per run */
	uint64_t resumes;         /* stack switches from the driver into a task */
	uint64_t trace_hash;      /* of every step's pick and stopping point */
	int current;              /* the task that ran last (for preemption), -1 none */
	/* Schedule string, run-length encoded as it is built. */
	char *str;
	size_t str_len, str_cap;
	char *str_copy;           /* what msim_schedule_string() returned */
	int rle_pick;
	uint64_t rle_count;
	/* Replay. */
	struct msim_replay_run *replay; /* the string as (pick, count) runs */
	uint64_t replay_len, replay_pos; /* runs; the run being followed */
	uint64_t replay_used;     /* picks taken from replay[replay_pos] */
	bool diverged;
	/* PCT. */
	int *prio;                /* per task (grown as tasks are created) */
	unsigned int nr_prio;
	int prio_r;               /* the RCU engine's priority */
	int *drain_prio;          /* per CPU, its store-buffer drains' (weak models) */
	uint64_t *change_points;
	unsigned int nr_change_points;
	/* DFS: prefix to follow, then the canonical choice; every decision recorded. */
	struct msim_dfs_point *dfs;
	uint64_t dfs_len, dfs_cap, dfs_prefix_len;
	unsigned int preemptions;
	/* Preemptions of the run (any strategy): a switch away from a task that
	 * could have gone on; the first MSIM_PREEMPT_LOG of them, where. */
	unsigned int nr_preempt;
	struct msim_preemption preempt_log[MSIM_PREEMPT_LOG];
	/* DPOR (explore_dpor.c): the exploration's tree, owned by msim_explore. */
	struct msim__dpor *dpor;
	/* preempt=unmodelled: first unfinished task of each CPU (index), refreshed
	 * when a task ends. */
	int *cpu_head;
	unsigned int heads_tasks; /* nr_tasks when cpu_head was computed */
	/* The indexes of the tasks that may still step, ascending: every task
	 * that has not finished, and every interrupt source (idle or not). The
	 * per-step scans read this, not task_vec, so a run that creates a task
	 * per step does not slow down as finished tasks pile up. */
	unsigned int *live;
	unsigned int nr_live, live_cap;
	unsigned int live_seen;   /* tasks created before this index are in it or done */
	/* preempt=none|full: the task that cannot be preempted on each CPU, or -1
	 * (preempt.c; only it may run there). */
	int *cpu_holder;
	/* Interrupt sources (irq.c): how many were declared (0: none of the
	 * arrays below exists and nothing about the schedule changes); per CPU,
	 * the innermost active handler (or -1) and the task that ran last. */
	unsigned int nr_irq_sources;
	int *cpu_irq_top;
	int *cpu_last;
	/* Deadlock. */
	char deadlock[2048];
	bool cut;                 /* max_steps reached */
	bool options_cut;         /* a decision had more options than it holds (sched.c) */
	/* Told of every step when set (sched.h msim__sched_observe_hosts). */
	msim__sched_observer_fn observer;
	void *observer_arg;
	/*
	 * The in-task decision (sched.c, docs/explore.md "The decision in the
	 * task"): which driver loop runs the host (a task at a yield point makes
	 * the driver's next decision itself, and goes on with no stack switch when
	 * that picks it again), the pick that resumed the running step, and what a
	 * task that handed control back had already done: the step's end (tail_done)
	 * and the next decision (pending, its result and pick).
	 */
	int drive;                /* MSIM__DRIVE_* (sched.c) */
	struct msim_task *drive_task; /* msim_run_task's task */
	int step_pick;
	bool tail_done, pending;
	int pending_rc, pending_pick;
	void *options;            /* the decision's option list (sched.c), reused */
	/*
	 * The fast step (sched.c, docs/explore.md "The fast step"): which of the
	 * driver's decisions a park can foretell without listing the options
	 * (MSIM__FAST_*, set when a driver loop starts), and how many steps took
	 * that path.
	 */
	int fast;
	uint64_t fast_steps;
	/*
	 * msim_run_task's task while no interrupt source exists: its every park is
	 * its own next step (sched.c park_at takes it to the fast step without
	 * foretelling). NULL otherwise.
	 */
	struct msim_task *fast_task;
};

/* ---- subsystems attached to a host (subsys.c) ---- */

#define MSIM_MAX_DTORS 64

struct msim_subsys_host {
	/* By subsystem id; index 0 stays NULL, so an unregistered subsystem finds NULL. */
	void *state[MSIM_MAX_SUBSYS + 1];
	void *owned[MSIM_MAX_SUBSYS + 1];     /* state sim allocated (state_size > 0) */
	bool attached[MSIM_MAX_SUBSYS + 1];
};

struct msim_kmem; /* kmem_internal.h */
struct msim__storebuf; /* storebuf.c */
struct msim__lockdep_host; /* lockdep.c */

struct msim {
	struct msim_config cfg;
	unsigned int nr_tasks;
	struct msim_task *tasks, **tasks_tail;
	struct msim_task **task_vec;   /* by idx */
	unsigned int task_vec_cap;
	struct msim_ctx driver_ctx;
	struct msim_sched sched;
	struct msim_rcu_det rcu;
	uint64_t jiffies;
	struct msim_delayed_work *works;
	pthread_mutex_t works_lock;
	struct msim_subsys_host subsys;
	/* Destructors and subsystem detaches, one stack: msim_destroy pops newest first. */
	struct {
		void (*fn)(struct msim *m, void *arg);
		void *arg;
	} dtors[MSIM_MAX_DTORS];
	unsigned int nr_dtors;
	struct msim_kmem *kmem;
	bool destroying;
	/* Per-CPU store buffers; NULL under memory model sc (storebuf.c). */
	struct msim__storebuf *wmm;
	/* Lock-order checking: set when cfg.lockdep names a graph (lockdep.c). */
	struct msim__lockdep_host *lockdep;
};


#endif /* MSIM_SIM_INTERNAL_H */
