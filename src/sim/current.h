/* SPDX-License-Identifier: MIT */
/*
 * current.h - the thread's context (current.c): the host being driven, the task
 * running, and whether a deterministic task runs at all.
 */
#ifndef MSIM_SIM_CURRENT_H
#define MSIM_SIM_CURRENT_H

#include <stdbool.h>

#include "internal.h"

/* Thread-local context: the host being driven and the running task. */
extern __thread struct msim *msim__tls_host;
extern __thread struct msim_task *msim__tls_task;
/*
 * msim_yield_det_active (nonzero while a deterministic task runs; MSIM__DET_FAST in a
 * fast mode, sched.h) and msim_yield_ctx_current (its
 * innermost yield context) are declared in static/yield.h.
 */

static inline bool msim__det(const struct msim *m)
{
	return m && m->cfg.mode == MSIM_DETERMINISTIC;
}

#endif /* MSIM_SIM_CURRENT_H */
