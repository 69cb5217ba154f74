/* SPDX-License-Identifier: MIT */
/*
 * ctx.c - user-space context switches for deterministic tasks.
 *
 * swapcontext() saves and restores the signal mask with a system call on every
 * switch (about 4 million switches a second on the reference VM). A deterministic
 * run switches twice per yield point, so on x86_64 we switch stacks with a few
 * instructions instead: push the callee-saved registers, swap stack pointers, pop.
 * Other architectures use ucontext. The signal mask and FPU control words are
 * never changed by model code, so they need no saving.
 *
 * Sanitizers must be told about each switch (ASan: the fake-stack handshake;
 * TSan: fibers), or they report false stack overflows and races.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ctx.h"

#if defined(MSIM_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(MSIM_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

#if defined(MSIM_ASAN)
/* Bounds of the driver's stack, learnt when a task is first switched to. */
static __thread const void *asan_driver_bottom;
static __thread size_t asan_driver_size;
#endif

#if defined(__x86_64__)
void msim__ctx_swap(void **save_sp, void *new_sp);
void msim__ctx_trampoline(void);
__asm__(".text\n"
	".globl msim__ctx_swap\n"
	".hidden msim__ctx_swap\n"
	".type msim__ctx_swap,@function\n"
	"msim__ctx_swap:\n"
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, (%rdi)\n"
	"	movq %rsi, %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	ret\n"
	".size msim__ctx_swap, .-msim__ctx_swap\n"
	".globl msim__ctx_trampoline\n"
	".hidden msim__ctx_trampoline\n"
	".type msim__ctx_trampoline,@function\n"
	"msim__ctx_trampoline:\n"
	"	movq %r12, %rdi\n"
	"	movq %r13, %rsi\n"
	"	call msim__ctx_entry\n"
	"	ud2\n"
	".size msim__ctx_trampoline, .-msim__ctx_trampoline\n");
#else
#include <ucontext.h>
#endif

void msim__ctx_entry(void (*entry)(void *), void *arg);

/* used: only the trampoline's assembly calls it, which link-time optimisation cannot see */
__attribute__((used)) void msim__ctx_entry(void (*entry)(void *), void *arg)
{
#if defined(MSIM_ASAN)
	__sanitizer_finish_switch_fiber(NULL, &asan_driver_bottom, &asan_driver_size);
#endif
	entry(arg);
	abort(); /* entry never returns: a finished task switches away for good */
}

void msim__ctx_init_driver(struct msim_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	msim__ctx_refresh_driver(ctx);
}

/* The driver may run a host from another thread than the one that created it. */
void msim__ctx_refresh_driver(struct msim_ctx *ctx)
{
#if defined(MSIM_TSAN)
	ctx->fiber = __tsan_get_current_fiber();
#else
	(void)ctx;
#endif
}

/*
 * Stacks of finished tasks are kept for the next task of the same size: an
 * explorer creates and finishes a few tasks per run, thousands of runs a second,
 * and mmap, mprotect of the guard page, munmap and the first-touch page faults
 * cost more than the run itself. The pool is process-wide (hosts may be driven
 * from several threads) and small; what it keeps is only the pages the tasks
 * touched. A reused stack is the same mapping with its guard page: only its
 * contents are stale, and a task never reads a stack slot it did not write.
 */
#define STACK_POOL_MAX 16

__thread bool msim__ctx_fresh_stacks;

static struct {
	pthread_mutex_t lock;
	unsigned int n;
	void *stack[STACK_POOL_MAX];
	size_t size[STACK_POOL_MAX];
} stack_pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void *stack_pool_take(size_t stack_size)
{
	void *stack = NULL;

	if (msim__ctx_fresh_stacks)
		return NULL;
	pthread_mutex_lock(&stack_pool.lock);
	for (unsigned int i = stack_pool.n; i-- > 0;) {
		if (stack_pool.size[i] != stack_size)
			continue;
		stack = stack_pool.stack[i];
		stack_pool.n--;
		stack_pool.stack[i] = stack_pool.stack[stack_pool.n];
		stack_pool.size[i] = stack_pool.size[stack_pool.n];
		break;
	}
	pthread_mutex_unlock(&stack_pool.lock);
	return stack;
}

/* False when the pool is full: the caller unmaps the stack. */
static bool stack_pool_give(void *stack, size_t stack_size)
{
	bool kept = false;

	if (msim__ctx_fresh_stacks)
		return false;
	pthread_mutex_lock(&stack_pool.lock);
	if (stack_pool.n < STACK_POOL_MAX) {
		stack_pool.stack[stack_pool.n] = stack;
		stack_pool.size[stack_pool.n++] = stack_size;
		kept = true;
	}
	pthread_mutex_unlock(&stack_pool.lock);
	return kept;
}

static void *stack_map(size_t stack_size)
{
	/* mmap keeps large stacks lazy: untouched pages cost no memory. */
	void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (stack == MAP_FAILED)
		return NULL;
	/* A guard page: a task that overflows its stack faults instead of corrupting. */
	if (mprotect(stack, 4096, PROT_NONE)) {
		munmap(stack, stack_size);
		return NULL;
	}
	return stack;
}

int msim__ctx_make(struct msim_ctx *ctx, size_t stack_size, void (*entry)(void *), void *arg)
{
	memset(ctx, 0, sizeof(*ctx));
	void *stack = stack_pool_take(stack_size);
	if (!stack)
		stack = stack_map(stack_size);
	if (!stack)
		return -ENOMEM;
#if defined(MSIM_ASAN)
	/* A pooled stack, or a mapping at the addresses of a finished task's stack: its frames
	 * never returned: clear the poison they left in the shadow. */
	__asan_unpoison_memory_region(stack, stack_size);
#endif
	ctx->stack = stack;
	ctx->stack_size = stack_size;
	ctx->asan_bottom = stack;
	ctx->asan_size = stack_size;
#if defined(__x86_64__)
	uintptr_t top = ((uintptr_t)stack + stack_size) & ~(uintptr_t)15;
	uint64_t *sp = (uint64_t *)(top - 72); /* so that rsp is 16-aligned at the call */
	sp[0] = 0;                             /* r15 */
	sp[1] = 0;                             /* r14 */
	sp[2] = (uint64_t)(uintptr_t)arg;      /* r13 -> rsi */
	sp[3] = (uint64_t)(uintptr_t)entry;    /* r12 -> rdi */
	sp[4] = 0;                             /* rbx */
	sp[5] = 0;                             /* rbp */
	sp[6] = (uint64_t)(uintptr_t)msim__ctx_trampoline;
	ctx->sp = sp;
#else
	ucontext_t *uc = calloc(1, sizeof(*uc));
	if (!uc) {
		if (!stack_pool_give(stack, stack_size))
			munmap(stack, stack_size);
		return -ENOMEM;
	}
	getcontext(uc);
	uc->uc_stack.ss_sp = stack;
	uc->uc_stack.ss_size = stack_size;
	uc->uc_link = NULL;
	makecontext(uc, (void (*)(void))msim__ctx_entry, 2, entry, arg);
	ctx->sp = uc;
#endif
#if defined(MSIM_TSAN)
	ctx->fiber = __tsan_create_fiber(0);
#endif
	return 0;
}

void msim__ctx_free(struct msim_ctx *ctx)
{
	if (!ctx->stack)
		return;
#if defined(MSIM_TSAN)
	if (ctx->fiber)
		__tsan_destroy_fiber(ctx->fiber);
#endif
#if !defined(__x86_64__)
	free(ctx->sp);
#endif
	if (!stack_pool_give(ctx->stack, ctx->stack_size))
		munmap(ctx->stack, ctx->stack_size);
	ctx->stack = NULL;
}

static void msim__ctx_switch_mode(struct msim_ctx *from, struct msim_ctx *to, bool exiting);

void msim__ctx_switch(struct msim_ctx *from, struct msim_ctx *to)
{
	msim__ctx_switch_mode(from, to, false);
}

void msim__ctx_exit_to(struct msim_ctx *from, struct msim_ctx *to)
{
	msim__ctx_switch_mode(from, to, true);
	abort(); /* nobody resumes a finished task */
}

static void msim__ctx_switch_mode(struct msim_ctx *from, struct msim_ctx *to, bool exiting)
{
#if defined(MSIM_ASAN)
	void *fake = NULL;
	const void *bottom = to->stack ? to->asan_bottom : asan_driver_bottom;
	size_t size = to->stack ? to->asan_size : asan_driver_size;
	/* NULL for a context that never comes back: ASan frees its fake stack. */
	__sanitizer_start_switch_fiber(exiting ? NULL : &fake, bottom, size);
#else
	(void)exiting;
#endif
#if defined(MSIM_TSAN)
	__tsan_switch_to_fiber(to->fiber, 0);
#endif
#if defined(__x86_64__)
	msim__ctx_swap(&from->sp, to->sp);
#else
	if (!from->sp) {
		from->sp = calloc(1, sizeof(ucontext_t));
		if (!from->sp)
			abort();
	}
	swapcontext((ucontext_t *)from->sp, (ucontext_t *)to->sp);
#endif
#if defined(MSIM_ASAN)
	if (from->stack)
		__sanitizer_finish_switch_fiber(fake, &asan_driver_bottom, &asan_driver_size);
	else
		__sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
}
