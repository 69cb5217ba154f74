/* SPDX-License-Identifier: MIT */
/*
 * sim.h - the simulated host: configuration, CPUs, tasks, the virtual clock.
 *
 * One struct msim is one simulated machine. Several may live in one process (a
 * bench runs two designs side by side), but tasks of one host never touch another.
 *
 * Every piece of simulated kernel work runs in a task pinned to a simulated CPU; a
 * task never migrates, and msim_this_cpu() is its CPU. Whether another task of
 * the same CPU may run while it is parked at a yield point, and whether an RCU
 * grace period may end meanwhile, is the host's preemption model (enum
 * msim_preempt_model below). By default (unmodelled) a CPU runs its tasks one
 * after the other, in creation order, each to completion.
 *
 * Two run modes, same model code:
 *  - MSIM_DETERMINISTIC: tasks are coroutines on the thread that calls msim_run();
 *    exactly one runs at a time and control returns to the scheduler at every
 *    yield point (yield.h, explore.h). Sequentially consistent by construction.
 *  - MSIM_CONCURRENT: one OS thread per simulated CPU that has tasks; yield points
 *    cost one predictable branch. Used by stress tests (TSan) and benches.
 */
#ifndef MEMCGSIM_SIM_H
#define MEMCGSIM_SIM_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <memcgsim/mmzone.h>

#include <memcgsim/variants.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSIM_MAX_CPUS 1024
#define MSIM_MAX_NODES 64

enum msim_run_mode {
	MSIM_DETERMINISTIC = 0,
	MSIM_CONCURRENT = 1,
};

enum msim_cgroup_version {
	MSIM_CGROUP_V2 = 2, /* default hierarchy */
	MSIM_CGROUP_V1 = 1, /* legacy hierarchy (CONFIG_MEMCG_V1) */
};

enum msim_lru_kind {
	MSIM_LRU_CLASSIC = 0,
	MSIM_LRU_MGLRU = 1,
};

/* Memory zones of a node: enum msim_zone_type, in mmzone.h. */
/*
 * The preemption model: where a task parked at a yield point may be preempted
 * (another task of its CPU runs) and when it holds off an RCU grace period. Since
 * consolidated RCU, a stretch of kernel code that cannot be preempted is an
 * implicit read-side section: synchronize_rcu() waits for every CPU to pass a
 * quiescent state (a context switch), so a grace period cannot end while a task
 * sits between two scheduling points of a non-preemptible kernel, or inside a
 * preempt-disabled region of a preemptible one.
 *
 * Deterministic mode only: in concurrent mode the OS schedules the CPU threads
 * and liburcu's grace periods wait for read-side sections alone, whatever this says.
 */
enum msim_preempt_model {
	/*
	 * Default, the model as it was before preemption was modelled, kept so every
	 * existing schedule and figure stays: a CPU runs its tasks one after the
	 * other, each to completion (no task of its CPU runs while it blocks), and a
	 * grace period waits only for explicit read-side sections (a parked task
	 * counts as preempted, as under full, even inside a spinlock). It matches no
	 * kernel: it finds windows that need a preemption (thread 000 patch 3) as if
	 * preemption were everywhere, and misses those that need another task of the
	 * same CPU to run in between.
	 */
	MSIM_PREEMPT_UNMODELLED = 0,
	/*
	 * CONFIG_PREEMPT_NONE (and, for every window modelled so far, VOLUNTARY, whose
	 * extra might_sleep() points are not modelled): a task gives its CPU up only at
	 * a voluntary scheduling point, that is where it sleeps (a contended mutex,
	 * synchronize_rcu(), rcu_barrier()), at msim_cond_resched() (yield.h), or at
	 * its end, and only outside spinlocks, msim_preempt_disable() and read-side
	 * sections. Parked anywhere else it holds its CPU (no other task of that CPU
	 * runs) and holds off every grace period that began meanwhile, exactly as an
	 * RCU reader does, until it reaches such a point.
	 */
	MSIM_PREEMPT_NONE = 1,
	/*
	 * CONFIG_PREEMPT (full, with preemptible RCU): a task may be preempted at any
	 * yield point except while it holds or spins on a spinlock or is inside
	 * msim_preempt_disable(): there it holds its CPU and holds off grace periods;
	 * elsewhere another task of its CPU may run, and only explicit read-side
	 * sections hold off a grace period.
	 */
	MSIM_PREEMPT_FULL = 2,
};

/* "unmodelled", "none", "full"; NULL for a value out of range. */
MSIM_API const char *msim_preempt_name(enum msim_preempt_model p);
/* The model called name into *out: 0, or -EINVAL for an unknown name. */
MSIM_API int msim_preempt_parse(const char *name, enum msim_preempt_model *out);

/*
 * The memory model of a deterministic host: which orders of stores other CPUs
 * may see (docs/memory-model.md says what each allows and forbids, and what is
 * simplified). Deterministic mode only: in concurrent mode the real machine's
 * model applies, whatever this says.
 */
enum msim_memory_model {
	/*
	 * Default, the model as it always was: every shim access reaches memory in
	 * its step (sequential consistency), so every existing schedule, trace hash
	 * and figure stays. A race found here needs no reordering.
	 */
	MSIM_MEMORY_SC = 0,
	/*
	 * x86-TSO: every shim store goes into its CPU's FIFO store buffer (the
	 * contexts of one CPU share it); the CPU's own loads read it first, other
	 * CPUs read memory. Full fences, every read-modify-write (x86's are locked:
	 * xchg, cmpxchg, atomic_add, set_bit...) and lock acquires drain it first,
	 * unlocks drain it before the release. Draining its oldest store is an
	 * option of every scheduling decision while a buffer is not empty ("~C" in
	 * schedule strings); the explorers choose when, and buffers drain before a
	 * run ends.
	 */
	MSIM_MEMORY_TSO = 1,
	/*
	 * Partial store order, the minimum the Linux kernel memory model grants
	 * set_bit/clear_bit/atomic_add (arm64 behaves so): as tso, but stores to
	 * different addresses may reach memory in any order ("~C+K": the K-th
	 * oldest entry), relaxed read-modify-writes that return nothing order only
	 * their own address, and a release (spin_unlock, rcu_assign_pointer) is a
	 * buffer entry that waits for every older entry while younger ones pass it.
	 */
	MSIM_MEMORY_PSO = 2,
};

/* "sc", "tso", "pso"; NULL for a value out of range. */
MSIM_API const char *msim_memory_model_name(enum msim_memory_model mm);
/* The model called name into *out: 0, or -EINVAL for an unknown name. */
MSIM_API int msim_memory_model_parse(const char *name, enum msim_memory_model *out);

/* Upper bound of a zone's managed pages in the configuration (4 PiB). */
#define MSIM_MAX_ZONE_MANAGED_PAGES (1UL << 40)

struct msim_lockdep; /* lockdep.h */

struct msim_config {
	unsigned int nr_cpus;   /* possible == online CPUs, 1..MSIM_MAX_CPUS */
	unsigned int nr_nodes;  /* possible NUMA nodes, 1..MSIM_MAX_NODES */
	enum msim_cgroup_version cgroup_version;
	enum msim_lru_kind lru;
	enum msim_run_mode mode;
	unsigned int hz;        /* jiffies per second of the virtual clock */
	struct msim_variants variants;
	/* Deterministic mode: stack size of each task coroutine, bytes. */
	size_t task_stack_size;
	/*
	 * Managed pages of each zone (kernel: zone_managed_pages()), the size from
	 * which vmstat derives its per-CPU thresholds. DMA and DMA32 exist on node 0
	 * only (they are the low 4 GiB of physical memory); NORMAL and MOVABLE get
	 * this size on every node; 0 leaves a zone unpopulated.
	 */
	unsigned long zone_managed_pages[MSIM_MAX_NR_ZONES];
	/* Attach the vmstat subsystem: node and zone counters with per-CPU diffs (vmstat.h). */
	bool vmstat;
	/*
	 * The layers above sim that msim_create() attaches (subsys.h), each after the
	 * ones it needs. The memory controller is there unless disabled; the layers on
	 * it are not until a host asks for them, here or by hand (msim_rstat_init(),
	 * msim_charge_init(), msim_shrinker_init()), so that a host carries exactly the
	 * hook sets, kernel memory and periodic work of the layers it uses. A layer
	 * whose dependency is disabled fails msim_create() with the reason in err.
	 */
	bool memcg_disabled;    /* kernel: cgroup_disable=memory (memcg.h) */
	bool rstat;             /* memcg statistics (rstat.h); needs memcg */
	bool charge;            /* page_counter charging, per-CPU stocks (charge.h); needs memcg */
	bool shrinker;          /* shrinkers and list_lru (shrinker.h, list_lru.h); need memcg */
	/* Where tasks may be preempted, and what holds off a grace period (above). */
	enum msim_preempt_model preempt;
	/*
	 * Lock-order checking (lockdep.h): every deterministic host made from this
	 * configuration records its lock dependencies into this graph, which the
	 * caller owns; so an exploration accumulates those of all its runs. NULL
	 * (the default): no checking. Changes no schedule.
	 */
	struct msim_lockdep *lockdep;
	/* Which store orders other CPUs may see (above); sc by default. */
	enum msim_memory_model memory_model;
};

/*
 * Defaults: 4 CPUs, 1 node, v2, classic LRU, deterministic, HZ=1000, mainline;
 * zones of a 16 GiB x86_64 node (DMA 15 MiB, DMA32 2976 MiB, NORMAL 13 GiB, no
 * MOVABLE); memcg attached; vmstat, rstat, charge and shrinker not; preemption
 * unmodelled; memory model sc.
 */
MSIM_API void msim_config_init(struct msim_config *cfg);

/*
 * Check a configuration. Returns 0, or -EINVAL with a one-line reason written to
 * err (if err is non-NULL) naming the bad field and its valid range.
 */
MSIM_API int msim_config_validate(const struct msim_config *cfg, char *err, size_t errlen);

struct msim;
struct msim_task;

/*
 * Create a host and attach the registered subsystems its configuration enables,
 * each after its dependencies (subsys.h). Returns 0 and *out, or a negative errno
 * (-EINVAL for a bad configuration or a subsystem dependency that is missing,
 * disabled or circular, with the reason in err; -ENOMEM; a subsystem's init
 * error, after detaching what attached). Never aborts on bad input.
 */
MSIM_API int msim_create(const struct msim_config *cfg, struct msim **out, char *err, size_t errlen);

/*
 * Destroy a host. Tasks left unfinished (a deadlocked or cut deterministic run)
 * are released: their read-side sections end and the locks they hold pass to the
 * destroying driver, then the layers' destructors run and everything is freed.
 * NULL does nothing; a host destroyed already (or never created) is a misuse:
 * a message naming the call, then abort(). So is msim_run(), msim_run_task(),
 * msim_run_until*() or msim_step() on a destroyed host: its task handles went
 * with it (docs/reliability.md).
 */
MSIM_API void msim_destroy(struct msim *m);

/*
 * True while m is torn down after a run that stopped with tasks parked (an
 * explorer's pruned, deadlocked or cut run, or msim_destroy): those tasks never
 * run again. A teardown that would wait for one of them (a reference it holds,
 * a section it is inside) must not wait.
 */
MSIM_API bool msim_tasks_abandoned(const struct msim *m);

/*
 * Whether m is a host msim_create() made and msim_destroy() has not destroyed.
 * Compares pointers only, so asking about a destroyed handle reads no freed
 * memory. Limit: a later msim_create() may get the same address back, and then a
 * stale handle reads as live (the misuse checks built on this catch a second
 * destroy or a use after destroy only until the address is reused).
 */
MSIM_API bool msim_host_live(const struct msim *m);

/*
 * API misuse that no error code can answer (a void call, a handle whose memory
 * is gone; docs/reliability.md): "memcgsim: misuse: CALL: WHAT" on stderr, then
 * abort(), as the kernel's BUG_ON stops at a broken invariant. For the layers.
 */
MSIM_API void msim_misuse(const char *call, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/* The host's configuration; NULL for a NULL host. */
MSIM_API const struct msim_config *msim_config(const struct msim *m);
MSIM_API unsigned int msim_nr_cpus(const struct msim *m);
MSIM_API unsigned int msim_nr_nodes(const struct msim *m);
MSIM_API unsigned int msim_num_online_cpus(const struct msim *m);

typedef void (*msim_task_fn)(void *arg);

/*
 * Create a task that will run fn(arg) on CPU cpu when msim_run() (or a scripted
 * step) starts it. Returns NULL with errno set on a bad CPU (EINVAL) or ENOMEM.
 * The name appears in schedules, traces and deadlock reports. The driver may
 * create tasks at any time, also between scripted steps (where such a task
 * enters the schedule: script.h); a call from inside a task gets EINVAL.
 */
MSIM_API struct msim_task *msim_task_create(struct msim *m, const char *name, unsigned int cpu,
					    msim_task_fn fn, void *arg);

MSIM_API const char *msim_task_name(const struct msim_task *t);
MSIM_API unsigned int msim_task_cpu(const struct msim_task *t);
MSIM_API bool msim_task_done(const struct msim_task *t);

/*
 * Run every task to completion. Deterministic mode: under the host's strategy
 * (explore.h); returns 0, -EDEADLK when every unfinished task is blocked (the
 * report is in msim_deadlock_report()), or -E2BIG when the run passed the step
 * cap (msim_sched_opts.max_steps). Concurrent mode: one thread per CPU with
 * tasks; returns 0, or -EAGAIN / -ENOMEM when threads cannot be started.
 * -EINVAL when called from inside a task.
 */
MSIM_API int msim_run(struct msim *m);

/* The host and task the caller runs in; NULL outside a task. */
MSIM_API struct msim *msim_current_host(void);
MSIM_API struct msim_task *msim_current_task(void);

/*
 * The simulated CPU of the running task. Outside any task (setup code, the
 * scenario driver, RCU callbacks in deterministic mode) it is CPU 0 of the host
 * that is being driven.
 */
MSIM_API unsigned int msim_this_cpu(void);

/*
 * Kernel-style context for code that runs outside a task (test drivers, benches):
 * the host to which msim_this_cpu() and the shims (RCU, locks) refer. It follows
 * the driver: msim_create() makes the new host current on the calling thread, and
 * the memcg entry points (msim_root_mem_cgroup, msim_memcg_create, msim_memcg_rmdir)
 * make their memcg's host current, so a driver that alternates between hosts only
 * needs this call before other shims of a host it has not touched since.
 */
MSIM_API void msim_set_current_host(struct msim *m);

/*
 * What a layer's entry point calls for its host: msim_set_current_host() when the
 * caller is the driver, nothing inside a task (there the task's own host is
 * current and stays so). The memcg entry points call it, so a driver that
 * alternates between hosts needs no call of its own.
 */
MSIM_API void msim_drive_host(struct msim *m);

/*
 * Per-host state of a layer: register a struct msim_subsys (subsys.h); sim hands
 * out its slot, so sim names no layer above it.
 *
 * Run fn(m, arg) at msim_destroy(), before the kernel-memory model goes away
 * (on one stack with the subsystems' fini, newest first).
 * Returns 0, -EINVAL for a NULL fn, -ENOSPC past 64 destructors and subsystems.
 */
MSIM_API int msim_host_on_destroy(struct msim *m, void (*fn)(struct msim *m, void *arg), void *arg);

/* ---- virtual clock and delayed work ---- */

MSIM_API uint64_t msim_jiffies(const struct msim *m);

struct msim_delayed_work;
typedef void (*msim_work_fn)(struct msim_delayed_work *dw);

struct msim_delayed_work {
	msim_work_fn fn;
	void *data;
	uint64_t deadline;      /* jiffies */
	bool pending;
	bool deferrable;        /* may slip on an idle system (R9); recorded only */
	struct msim_delayed_work *next;
};

MSIM_API void msim_init_delayed_work(struct msim_delayed_work *dw, msim_work_fn fn, void *data);

/* Queue dw to fire when jiffies passes now + delay. Returns false if already pending. */
MSIM_API bool msim_queue_delayed_work(struct msim *m, struct msim_delayed_work *dw, uint64_t delay);

/* Cancel a pending work item. Returns true if it was pending. */
MSIM_API bool msim_cancel_delayed_work(struct msim *m, struct msim_delayed_work *dw);

/*
 * Advance the clock by ticks jiffies. Works whose deadline is reached run in the
 * caller's context, in deadline order, each at the jiffies value of its deadline.
 * Simplification: the kernel runs them on a worker thread of some CPU; here the
 * caller is that worker, which keeps replay exact.
 */
MSIM_API void msim_clock_advance(struct msim *m, uint64_t ticks);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_SIM_H */
