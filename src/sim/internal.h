/* SPDX-License-Identifier: MIT */
/*
 * internal.h - struct msim and struct msim_task, private to src/sim.
 */
#ifndef MSIM_SIM_INTERNAL_H
#define MSIM_SIM_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "host.h"

/* ---- context switching (ctx.c) ---- */

struct msim_ctx {
	void *sp;                 /* saved stack pointer */
	void *stack;              /* base of the allocated stack (NULL for the driver) */
	size_t stack_size;
	void *fiber;              /* TSan fiber handle */
	const void *asan_bottom;  /* ASan: the stack being switched to */
	size_t asan_size;
};

/* Prepare ctx to run entry(arg) on a fresh stack of stack_size bytes. */
int msim__ctx_make(struct msim_ctx *ctx, size_t stack_size, void (*entry)(void *), void *arg);
void msim__ctx_free(struct msim_ctx *ctx);
/* Save the running context into from and resume to. */
void msim__ctx_switch(struct msim_ctx *from, struct msim_ctx *to);
/*
 * Leave a finished task's context for good. Not declared noreturn on purpose:
 * ASan would insert __asan_handle_no_return before the call, which unpoisons the
 * "current" stack and trips over the fiber stack it is not told about.
 */
void msim__ctx_exit_to(struct msim_ctx *from, struct msim_ctx *to);
/* Re-read the driver thread's identity (TSan fiber) before resuming a task. */
void msim__ctx_refresh_driver(struct msim_ctx *ctx);
/* Initialise the descriptor of the thread that drives a deterministic run. */
void msim__ctx_init_driver(struct msim_ctx *ctx);

/* ---- tasks ---- */

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
	struct msim_ctx ctx;
	/* RCU reader state (deterministic model). */
	int rcu_nesting;
	uint64_t rcu_section;     /* increments at each outermost rcu_read_lock */
	uint64_t gp_snapshot;     /* section seen when the current grace period began */
	bool gp_waited;           /* the current grace period waits for this reader */
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

bool msim__rcu_det_ready(struct msim *m);
/* One 'R' step: end the grace period if its readers left, run ready callbacks. */
bool msim__rcu_det_step(struct msim *m);
/* Run grace periods and callbacks until nothing is pending (no reader may be parked). */
void msim__rcu_det_drain(struct msim *m);
uint64_t msim__rcu_det_request_gp(struct msim *m);

/* ---- scheduler (sched.c) ---- */

#define MSIM_PICK_R (-1)

struct msim_replay_run {
	int pick;                 /* task index or MSIM_PICK_R */
	uint64_t count;
};

struct msim_dfs_point {
	uint16_t nr_options;
	uint16_t chosen;          /* index into the canonical option list */
	uint16_t preemptions;     /* preemptions before this decision */
	bool current_enabled;     /* option 0 is the current task */
	bool has_r;               /* the last option is the RCU engine */
};

struct msim_sched {
	struct msim_sched_opts opts;
	uint64_t rng;
	uint64_t steps, switches;
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
	uint64_t *change_points;
	unsigned int nr_change_points;
	/* DFS: prefix to follow, then the canonical choice; every decision recorded. */
	struct msim_dfs_point *dfs;
	uint64_t dfs_len, dfs_cap, dfs_prefix_len;
	unsigned int preemptions;
	/* First unfinished task of each CPU (index), refreshed when a task ends. */
	int *cpu_head;
	unsigned int heads_tasks; /* nr_tasks when cpu_head was computed */
	/* Deadlock. */
	char deadlock[2048];
	bool cut;                 /* max_steps reached */
};

/* ---- subsystems attached to a host (subsys.c) ---- */

#define MSIM_MAX_DTORS 64

struct msim_subsys_host {
	/* By subsystem id; index 0 stays NULL, so an unregistered subsystem finds NULL. */
	void *state[MSIM_MAX_SUBSYS + 1];
	void *owned[MSIM_MAX_SUBSYS + 1];     /* state sim allocated (state_size > 0) */
	bool attached[MSIM_MAX_SUBSYS + 1];
};

/* Attach every registered subsystem cfg enables, in dependency order. */
int msim__subsys_attach_all(struct msim *m, char *err, size_t errlen);
/* Free the states sim allocated (msim_destroy, after the last RCU callback). */
void msim__subsys_free_states(struct msim *m);
/* Run destructors newest first until mark are left (msim_destroy: mark 0). */
void msim__host_unwind(struct msim *m, unsigned int mark);

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
	void *slots[MSIM_NR_HOST_SLOTS];  /* deprecated enum slots (sim.h) */
	struct msim_subsys_host subsys;
	/* Destructors and subsystem detaches, one stack: msim_destroy pops newest first. */
	struct {
		void (*fn)(struct msim *m, void *arg);
		void *arg;
	} dtors[MSIM_MAX_DTORS];
	unsigned int nr_dtors;
	struct msim_kmem *kmem;
	bool destroying;
};

/* Thread-local context: the host being driven and the running task. */
extern __thread struct msim *msim__tls_host;
extern __thread struct msim_task *msim__tls_task;

static inline bool msim__det(const struct msim *m)
{
	return m && m->cfg.mode == MSIM_DETERMINISTIC;
}

/* Deterministic: give control back to the scheduler (task context only). */
void msim__task_park(struct msim_task *t, const char *why);
/* Deterministic: block the running task on w until the scheduler resumes it. */
void msim__task_block(struct msim_task *t, enum msim_wait_kind w);
/* Is the task able to run now (not done, first on its CPU, not blocked)? */
bool msim__task_enabled(struct msim *m, struct msim_task *t);

int msim__run_det(struct msim *m);
int msim__run_concurrent(struct msim *m);
void msim__sched_init(struct msim *m);
void msim__sched_fini(struct msim *m);
/* Record a pick in the schedule string. */
void msim__sched_record(struct msim *m, int pick);
/* Resume task t for one step (until its next yield, block or exit). */
void msim__resume(struct msim *m, struct msim_task *t);

/* Concurrent-mode RCU thread registration (liburcu). */
void msim__rcu_thread_online(void);
void msim__rcu_thread_offline(void);

uint64_t msim__rand(uint64_t *state);
void msim__task_exit_check(const struct msim_task *t);

#endif /* MSIM_SIM_INTERNAL_H */
