/* SPDX-License-Identifier: MIT */
/*
 * css.c - css reference counting and the read-only accessors.
 *
 * kernel: include/linux/cgroup.h (css_get, css_tryget, css_tryget_online,
 * css_put, css_is_dying).
 *
 * The css refcount is a percpu_ref (pcpu_ref.c), as in the kernel: per-CPU
 * counting until the kill (msim__css_kill, at rmdir: see there for where), one
 * atomic count after it, and nothing at all on the root, whose css is CSS_NO_REF.
 * css_tryget succeeds while the count is above zero (an offline memcg can still
 * be pinned, as with a killed percpu_ref), css_tryget_online only while the
 * memcg is ONLINE.
 *
 * The last css_put calls the memcg's css_release, as the kernel's percpu_ref
 * calls the release function given to percpu_ref_init(): the release and the
 * free behind it are the lifecycle's (lifecycle.c), which sits above this file.
 *
 * Misuse checks. In atomic mode the model asserts against a get on a released
 * memcg and a put below zero (the kernel has no such check: a put past 0 or a
 * get after the release touches freed memory, which KASAN reports). In percpu
 * mode nothing can be checked per operation (a CPU's counter goes negative
 * whenever a reference moves between CPUs); the kernel warns only when the
 * count it folds at the kill is not above 0, and pcpu_ref.c asserts the same.
 */
#include <errno.h>

#include "memcg/memcg_internal.h"

/* kernel: css_get() -> percpu_ref_get(). The caller must hold a reference already. */
void msim_css_get(struct msim_memcg *memcg)
{
	long old;

	MSIM__MEMCG_ASSERT(memcg);
	old = msim__pcpu_ref_get(&memcg->css_ref, "css_get", MSIM_RELAXED);
	assert(old > 0 && "css_get on a released memcg");
	(void)old;
}

/*
 * kernel: css_tryget() -> percpu_ref_tryget(): fails only once released.
 *
 * In atomic mode the step is a read-modify-write of the count, and says so
 * (yield.h's contract), though two trygets commute in what they return. Announced
 * as a load only, DPOR took two trygets for independent: it ran one order only,
 * and what each tryget read (its fingerprint, the count the other's increment
 * left) came out one way where DFS sees both (tests/race/test_dpor_limits.c).
 * A failed tryget (count 0: released, final) writes nothing; announcing it as a
 * read-modify-write only adds dependencies.
 */
bool msim_css_tryget(struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return msim__pcpu_ref_tryget(&memcg->css_ref, "css_tryget");
}

/* kernel: css_tryget_online() -> percpu_ref_tryget_live(): fails once dying. */
bool msim_css_tryget_online(struct msim_memcg *memcg)
{
	if (!msim_css_tryget(memcg))
		return false;
	if (msim__memcg_state_load(memcg) == MSIM_MEMCG_ONLINE)
		return true;
	msim_css_put(memcg);
	return false;
}

/* kernel: css_put() -> percpu_ref_put(); the last one calls css_release() (->css_release). */
void msim_css_put(struct msim_memcg *memcg)
{
	long n;

	MSIM__MEMCG_ASSERT(memcg);
	n = msim__pcpu_ref_put(&memcg->css_ref, "css_put", MSIM_ACQ_REL);
	assert(n >= 0 && "css_put underflow");
	if (n == 0)
		memcg->css_release(memcg);
}

/*
 * kernel: kill_css() at rmdir (CSS_DYING; percpu_ref_kill_and_confirm(): atomic
 * mode, the initial reference put) and, after offline, css_killed_work_fn()'s
 * css_put of the reference kill_css took. The model kills at that put, with
 * it, in one step after the css_put point: from kill_css to that put the
 * reference keeps the count above 0, so whether a get, tryget or put in between
 * counts per CPU or in the atomic count changes no outcome, and the model leaves
 * DPOR no such order to tell apart. Also the put of the base reference of a
 * failed mkdir (the kernel frees that css without its percpu_ref): the switch
 * turns a failed root's CSS_NO_REF into a count the put brings to 0.
 */
void msim__css_kill(struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	if (msim__pcpu_ref_kill(&memcg->css_ref, "css_put", MSIM_ACQ_REL) == 0)
		memcg->css_release(memcg);
}

/* ---- accessors ---- */

struct msim *msim_memcg_host(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->h->m;
}

struct msim_memcg *msim_parent_mem_cgroup(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->parent;
}

bool msim_mem_cgroup_is_root(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->parent == NULL;
}

/* Also answers for a quarantined (freed) handle in debug builds: FREED. */
enum msim_memcg_state msim_memcg_state(const struct msim_memcg *memcg)
{
	assert(memcg);
	if (msim_quiet_load(&memcg->magic, MSIM_ACQUIRE) == MSIM__MEMCG_POISON)
		return MSIM_MEMCG_FREED;
	MSIM__MEMCG_ASSERT(memcg);
	return (enum msim_memcg_state)msim__memcg_state_load(memcg);
}

/* kernel: css_is_dying(): CSS_DYING is set at rmdir and never cleared. */
bool msim_css_is_dying(const struct msim_memcg *memcg)
{
	bool created;
	int s;

	MSIM__MEMCG_ASSERT(memcg);
	s = msim__memcg_state_load(memcg);
	created = msim_quiet_load(&memcg->counted, MSIM_RELAXED);
	/* A memcg whose mkdir failed is released without ever dying. */
	return s >= MSIM_MEMCG_DYING && (created || s < MSIM_MEMCG_RELEASED);
}

/*
 * kernel: mem_cgroup_online() -> CSS_ONLINE. rmdir sets CSS_DYING only;
 * offline_css() clears CSS_ONLINE after the subsystems' css_offline returned, so
 * a dying memcg is still online through its grace period and its offline hooks
 * (shrink_slab_memcg still shrinks it then: the S4 window).
 */
bool msim_mem_cgroup_online(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	enum msim_memcg_state s = msim__memcg_state_load(memcg);

	return s == MSIM_MEMCG_ONLINE || s == MSIM_MEMCG_DYING;
}

const char *msim_memcg_name(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->name;
}

unsigned int msim_memcg_level(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->level;
}

uint64_t msim_memcg_serial(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	return memcg->serial;
}

int msim_memcg_kmemcg_id(const struct msim_memcg *memcg)
{
	MSIM__MEMCG_ASSERT(memcg);
	/* No yield: kmemcg_id is set before online and never changes after (lifecycle.c). */
	return msim_quiet_load(&memcg->kmemcg_id, MSIM_RELAXED);
}
