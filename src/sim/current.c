/* SPDX-License-Identifier: MIT */
/*
 * current.c - the thread's context: which host the shims act on, which task
 * runs, and which simulated CPU that is. Every other file of src/sim reads it;
 * the scheduler, the concurrent runner and the entry points set it.
 */
#include <memcgsim/yield.h>

#include "current.h"

__thread struct msim *msim__tls_host;
__thread struct msim_task *msim__tls_task;
__thread int msim_yield_det_active;
__thread const struct msim_yield_ctx *msim_yield_ctx_current;

struct msim *msim_current_host(void)
{
	return msim__tls_host;
}

struct msim_task *msim_current_task(void)
{
	return msim__tls_task;
}

unsigned int msim_this_cpu(void)
{
	return msim__tls_task ? msim__tls_task->cpu : 0;
}

void msim_set_current_host(struct msim *m)
{
	msim__tls_host = m;
}

void msim_drive_host(struct msim *m)
{
	if (!msim__tls_task && m)
		msim__tls_host = m;
}
