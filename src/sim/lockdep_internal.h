/* SPDX-License-Identifier: MIT */
/*
 * lockdep_internal.h - the types of the lock-order checker (lockdep.h): the
 * graph that lockdep.c builds and checks and lockdep_print.c prints. Types only.
 */
#ifndef MSIM_SIM_LOCKDEP_INTERNAL_H
#define MSIM_SIM_LOCKDEP_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <memcgsim/lockdep.h>

/* The kernel's MAX_LOCK_DEPTH: a task holding more stops being checked. */
#define LD_MAX_DEPTH 48
/* Held locks an acquisition record keeps (the innermost ones). */
#define LD_FRAMES 8
/* Dependencies a report's chain shows at most. */
#define LD_MAX_CHAIN 16
/* Reports kept; later ones are only counted. */
#define LD_MAX_REPORTS 32

/* What a class was used as (the kernel's LOCK_USED_IN_* and LOCK_ENABLED_* bits). */
enum ld_usage {
	LD_USED_IN_HARDIRQ = 0,
	LD_USED_IN_SOFTIRQ,
	LD_ENABLED_HARDIRQ,   /* taken with hardirqs enabled */
	LD_ENABLED_SOFTIRQ,   /* taken with softirqs enabled */
	LD_USED_IN_NMI,
	LD_USED_OUTSIDE_NMI,
	LD_NR_USAGE,
};

/* One held lock of an acquisition record: its class and the point it was taken after. */
struct ld_frame {
	unsigned int cls;
	const char *after;
};

/* One acquisition, as a report names it. */
struct ld_acq {
	char task[32];
	int cpu;                  /* -1: the driver */
	int run;                  /* msim_lockdep_set_run(); -1 unset */
	unsigned int host;        /* the how-manieth host attached to the graph, from 1 */
	uint64_t step;            /* scheduler steps of the run so far */
	unsigned int cls;         /* the lock it took */
	const char *after;        /* the last yield point before it (static string) */
	unsigned int ctx;         /* LD_CTX_* bits: where it was taken */
	unsigned int nr_held;     /* locks held then (all of them) */
	struct ld_frame held[LD_FRAMES]; /* the innermost of them, outermost first */
};

/* Execution context of an acquisition (struct msim__lockdep_irq, as bits). */
#define LD_CTX_HARDIRQ 1u
#define LD_CTX_SOFTIRQ 2u
#define LD_CTX_NMI 4u
#define LD_CTX_HARDIRQS_OFF 8u
#define LD_CTX_SOFTIRQS_OFF 16u

struct ld_class {
	char *name;
	unsigned int subclass;    /* msim_lock_nested(): 0 for plain locks */
	unsigned int usage;       /* bit (1 << enum ld_usage) */
	struct ld_acq usage_acq[LD_NR_USAGE]; /* the first acquisition of each usage */
	int first_out;            /* its first outgoing dependency, -1 none */
};

/* A dependency from -> to: to was taken while from was held. */
struct ld_dep {
	unsigned int from, to;
	int next_out;             /* the next dependency out of from, -1 none */
	struct ld_acq acq;        /* the acquisition that first showed it */
};

struct ld_report {
	enum msim_lockdep_kind kind;
	unsigned int irq_kind;    /* IRQ reports: 0 hardirq, 1 softirq, 2 NMI */
	struct ld_acq trigger;    /* the acquisition at which it was found */
	unsigned int nr_chain;    /* dependencies: the cycle, or safe -> unsafe path */
	unsigned int chain[LD_MAX_CHAIN];
	unsigned int cls_a, cls_b; /* the classes it is about (a == b for one class) */
};

/* A (name pointer, subclass) -> class cache slot; names are usually static. */
struct ld_slot {
	const char *name;
	unsigned int subclass;
	unsigned int cls;
};

struct msim_lockdep {
	struct ld_class *classes;
	unsigned int nr_classes, classes_cap;
	struct ld_dep *deps;
	unsigned int nr_deps, deps_cap;
	struct ld_report *reports;
	unsigned int nr_reports, reports_cap;
	unsigned int reports_dropped;   /* found after LD_MAX_REPORTS */
	struct ld_slot *slots;          /* open addressing, slots_cap a power of two */
	unsigned int nr_slots, slots_cap;
	unsigned int hosts;
	int next_run;
	bool depth_overflow;            /* a task held more than LD_MAX_DEPTH */
};

#endif /* MSIM_SIM_LOCKDEP_INTERNAL_H */
