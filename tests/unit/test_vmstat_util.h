/* SPDX-License-Identifier: MIT */
/*
 * test_vmstat_util.h - shared by the vmstat tests: hosts with vmstat attached and
 * updates run in a task on a chosen CPU (the driver itself is CPU 0).
 */
#ifndef MSIM_TESTS_VMSTAT_UTIL_H
#define MSIM_TESTS_VMSTAT_UTIL_H

#include "unit_util.h"

/* Pages of a zone of the given size. */
#define GIB_PAGES(g) ((unsigned long)(g) * 262144UL)
#define MIB_PAGES(mb) ((unsigned long)(mb) * 256UL)

/* A deterministic host with vmstat, made current. */
static inline struct msim *vm_host_cfg(struct msim_config *cfg)
{
	cfg->vmstat = true;
	return unit_host_cfg(cfg);
}

static inline struct msim *vm_host(unsigned int cpus, unsigned int nodes)
{
	struct msim_config cfg = unit_config(cpus, nodes);

	return vm_host_cfg(&cfg);
}

enum vm_op_kind {
	VM_MOD, VM_INC, VM_DEC,                      /* mod_node_page_state() forms */
	VM_MOD_IRQOFF, VM_INC_IRQOFF, VM_DEC_IRQOFF, /* __mod_node_page_state() forms */
};

/* One node-counter update, repeated times times. */
struct vm_op {
	struct msim *m;
	unsigned int nid;
	int item;
	long delta;                /* VM_MOD and VM_MOD_IRQOFF */
	enum vm_op_kind kind;
	int times;
	int ret;                   /* first nonzero return, or 0 */
};

static inline int vm_apply(struct msim *m, unsigned int nid, int item, enum vm_op_kind kind,
			   long delta)
{
	switch (kind) {
	case VM_MOD: return msim_vmstat_mod_node_page_state(m, nid, item, delta);
	case VM_INC: return msim_vmstat_inc_node_state(m, nid, item);
	case VM_DEC: return msim_vmstat_dec_node_state(m, nid, item);
	case VM_MOD_IRQOFF: return msim_vmstat_mod_node_page_state_irqoff(m, nid, item, delta);
	case VM_INC_IRQOFF: return msim_vmstat_inc_node_state_irqoff(m, nid, item);
	case VM_DEC_IRQOFF: return msim_vmstat_dec_node_state_irqoff(m, nid, item);
	}
	return -1;
}

static inline void vm_op_fn(void *arg)
{
	struct vm_op *o = arg;

	for (int i = 0; i < o->times; i++) {
		int r = vm_apply(o->m, o->nid, o->item, o->kind, o->delta);

		if (r && !o->ret)
			o->ret = r;
	}
}

/* A task on CPU cpu that will run op (not started). */
static inline struct msim_task *vm_task(struct msim *m, unsigned int cpu, struct vm_op *op)
{
	struct msim_task *t = msim_task_create(m, "vm", cpu, vm_op_fn, op);

	assert_non_null(t);
	return t;
}

/* Run op to completion on CPU cpu; returns its result. */
static inline int vm_on_cpu(struct msim *m, unsigned int cpu, struct vm_op op)
{
	struct msim_task *t;

	op.m = m;
	if (!op.times)
		op.times = 1;
	t = vm_task(m, cpu, &op);
	assert_int_equal(msim_run_task(m, t), 0);
	return op.ret;
}

#endif /* MSIM_TESTS_VMSTAT_UTIL_H */
