/* SPDX-License-Identifier: MIT */
/*
 * ctx.h - user-space context switches for deterministic tasks (ctx.c).
 */
#ifndef MSIM_SIM_CTX_H
#define MSIM_SIM_CTX_H

#include <stdbool.h>
#include <stddef.h>

struct msim_ctx {
	void *sp;                 /* saved stack pointer */
	void *stack;              /* base of the allocated stack (NULL for the driver) */
	size_t stack_size;
	void *fiber;              /* TSan fiber handle */
	const void *asan_bottom;  /* ASan: the stack being switched to */
	size_t asan_size;
};

/*
 * Set on a driver thread to map a new stack for every task and unmap it at the
 * end, as before finished tasks' stacks were pooled (the explorer's fresh_stacks
 * option: the two paths must give the same schedules).
 */
extern __thread bool msim__ctx_fresh_stacks;

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

#endif /* MSIM_SIM_CTX_H */
