/* SPDX-License-Identifier: MIT */
/*
 * lockdep.h - lock-order checking across every explored run, as the kernel's
 * lockdep does across a machine's uptime.
 *
 * A deadlock report (msim_deadlock_report(), explore.h) needs a run in which the
 * deadlock happens. Lockdep needs less: every lock belongs to a class (its name,
 * or the class given at init, lock.h), and each time a task takes a lock of class
 * B while it holds one of class A, the dependency A -> B is recorded with the
 * acquisition that first showed it. A cycle in that graph is a possible deadlock
 * even when no run interleaved the two paths, and even when each order appeared
 * in a different run: one struct msim_lockdep is shared by every host (run) that
 * names it in its configuration, so an exploration accumulates the orders of all
 * its runs.
 *
 *   struct msim_lockdep *ld = msim_lockdep_create();
 *   cfg.lockdep = ld;                 // every host made from cfg records into ld
 *   msim_explore(&target, &cfg, &opts, &res);
 *   if (msim_lockdep_nr_reports(ld))
 *           msim_lockdep_print_text(stderr, ld);
 *   msim_lockdep_destroy(ld);
 *
 * The graph is the caller's: a configuration (and a race result's cfg, which
 * msim_race_print_text() and _json() read it from) only points at it.
 *
 * What it reports, each once:
 *  - possible circular locking dependency: a new A -> B closes a cycle; the
 *    report shows every dependency of the cycle with its first acquisition;
 *  - possible recursive locking: a task takes a lock of a class it holds (two
 *    instances; the same instance aborts at once, lock.c) without the nesting
 *    annotation (msim_lock_nested());
 *  - inconsistent irq lock state and irq-safe -> irq-unsafe order: a class taken
 *    in hardirq (softirq) context that is also taken, or depended on by a class
 *    taken, with hardirqs (softirqs) enabled; and a class taken in NMI context
 *    and outside it. These need execution contexts (what context a lock is taken
 *    in): until the simulated CPUs take interrupts, every task is process context
 *    with interrupts enabled and they cannot fire (docs/lockdep.md).
 *
 * A trylock adds no dependency (it cannot wait), as in the kernel, but a lock
 * taken while a trylocked one is held does. Recording is no yield point: it
 * changes no schedule, trace hash or verdict. Deterministic hosts only (a
 * concurrent host ignores cfg.lockdep); the hosts sharing one struct msim_lockdep
 * must be driven by one thread at a time. The acquisitions a host's teardown
 * makes (msim_destroy) are not recorded.
 *
 * An acquisition is named the simulator's way, by yield points: the task, its
 * CPU, the run and step, the last yield point the task passed before it
 * ("after rstat.flush.memcg"; the lock shims' own "lock", "unlock" and "trylock"
 * are skipped), and the locks it held then, each with the point it was taken
 * after. Code outside tasks (setup, check) is the task "driver".
 */
#ifndef MEMCGSIM_LOCKDEP_H
#define MEMCGSIM_LOCKDEP_H

#include <memcgsim/api.h>

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct msim;
struct msim_lockdep;

/* A graph with no class; NULL (errno ENOMEM) when out of memory. */
MSIM_API struct msim_lockdep *msim_lockdep_create(void);
/* Free ld; no host may still record into it. NULL is a no-op. */
MSIM_API void msim_lockdep_destroy(struct msim_lockdep *ld);

/*
 * The run number that the next host attached to ld records with its
 * acquisitions (msim_explore() sets it for each run; a host it was not set for,
 * such as PCT's calibration run, records run -1).
 */
MSIM_API void msim_lockdep_set_run(struct msim_lockdep *ld, int run);

/* What ld holds: lock classes seen, dependencies, hosts attached, reports. */
MSIM_API unsigned int msim_lockdep_nr_classes(const struct msim_lockdep *ld);
MSIM_API unsigned int msim_lockdep_nr_dependencies(const struct msim_lockdep *ld);
MSIM_API unsigned int msim_lockdep_nr_hosts(const struct msim_lockdep *ld);
MSIM_API unsigned int msim_lockdep_nr_reports(const struct msim_lockdep *ld);

enum msim_lockdep_kind {
	MSIM_LOCKDEP_CIRCULAR = 0,     /* possible circular locking dependency */
	MSIM_LOCKDEP_RECURSIVE,        /* possible recursive locking */
	MSIM_LOCKDEP_IRQ_INCONSISTENT, /* inconsistent {IN-X} -> {X-ON} lock state */
	MSIM_LOCKDEP_IRQ_INVERSION,    /* X-safe -> X-unsafe lock order */
	MSIM_LOCKDEP_NMI_UNSAFE,       /* a lock taken in NMI context and outside it */
};

/* Report i's kind, or -EINVAL past the last one. */
MSIM_API int msim_lockdep_report_kind(const struct msim_lockdep *ld, unsigned int i);
/* Report i's one-line title (the kernel's wording), or NULL. */
MSIM_API const char *msim_lockdep_report_title(const struct msim_lockdep *ld, unsigned int i);
/* The lock classes report i names, in cycle (or chain) order, into out: how many. */
MSIM_API unsigned int msim_lockdep_report_classes(const struct msim_lockdep *ld, unsigned int i,
						  const char **out, unsigned int max);
/* 1 when the dependency from -> to (class names) was recorded, else 0. */
MSIM_API int msim_lockdep_depends(const struct msim_lockdep *ld, const char *from, const char *to);

/* Every report, the kernel's way, with its acquisition chains; nothing if none. */
MSIM_API void msim_lockdep_print_text(FILE *f, const struct msim_lockdep *ld);
/* One JSON object: classes, dependencies, hosts, reports (each with its chain). */
MSIM_API void msim_lockdep_print_json(FILE *f, const struct msim_lockdep *ld);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_LOCKDEP_H */
