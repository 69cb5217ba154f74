/* SPDX-License-Identifier: MIT */
/*
 * host.c - the damon layer as a subsystem: attach, the memcg hook set that feeds
 * the freed-memcg watches, and the host's counts.
 *
 * kernel: mm/damon/core.c keeps no per-host state for the goal reader; the state
 * here is the model's (the watches and the counts). The layer needs rstat (the
 * flush and the lruvec readers) and attaches only by hand (msim_damon_attach):
 * no configuration flag, so no existing host gains its hook set or its memory.
 */
#include <errno.h>
#include <stdio.h>

#include <memcgsim/rstat.h>

#include "damon_internal.h"

/* kernel: none; runs before the memcg layer frees (or quarantines) the struct. */
static void damon_css_free(struct msim_memcg *memcg, void *priv)
{
	struct msim__damon *d = priv;

	if (!msim_quiet_load(&d->detached, MSIM_ACQUIRE))
		msim__damon_watch_mark_freed(d, memcg);
}

/* Order only matters for online/offline; this set has neither. */
static const struct msim_memcg_hooks damon_watch_hooks = {
	.name = "damon",
	.css_free = damon_css_free,
	.teardown_noted = true,    /* the watch table notes itself (watch.c) */
};

static const struct msim_memcg_hooks *const damon_hooks[] = { &damon_watch_hooks, NULL };

/* DAMON's rows of the variant table (subsys.h), by index. */
enum { DAMON_V_ROOT_READ, DAMON_V_TRYGET };

static const struct msim_subsys damon_subsys; /* below, with its callbacks */

static int damon_variant(const struct msim_config *cfg, unsigned int row)
{
	return msim_subsys_variant(&cfg->variants, &damon_subsys, row);
}

static int damon_host_init(struct msim *m, void *state)
{
	struct msim__damon *d = state;
	struct msim_memcg_hooks hooks = damon_watch_hooks;
	int ret;

	d->m = m;
	d->root_read_node = damon_variant(msim_config(m), DAMON_V_ROOT_READ) ==
			    MSIM_DAMON_ROOT_READ_NODE;
	d->root_lruvec_node = msim_rstat_variant_root_lruvec_read(msim_config(m)) ==
			      MSIM_ROOT_LRUVEC_READ_NODE;
	d->tryget = damon_variant(msim_config(m), DAMON_V_TRYGET) == MSIM_ON;
	hooks.priv = d;
	ret = msim_memcg_register_hooks(m, &hooks);
	return ret < 0 ? ret : 0;
}

/* Memcgs freed at the memcg layer's teardown (after this) find d detached. */
static void damon_host_fini(struct msim *m, void *state)
{
	struct msim__damon *d = state;

	(void)m;
	msim_quiet_store(&d->detached, true, MSIM_RELEASE);
}

static bool damon_enabled(const struct msim_config *cfg)
{
	(void)cfg;
	return false;   /* by hand only: msim_damon_attach() */
}

static const char *const damon_deps[] = { "rstat", NULL };

/* Indexed by the DAMON_V_ rows above. */
static const char *const root_read_values[] = { "flush", "node", NULL };

static const struct msim_variant_desc damon_variants[] = {
	[DAMON_V_ROOT_READ] = { "damon-root-read", root_read_values,
		"DAMON's node_memcg_used_bp / _free_bp quota goal on the root memcg: flush the "
		"root (every memcg) before reading its LRU sizes (flush), or skip the flush and "
		"read the node counters (node)",
		"002 patch 4" },
	[DAMON_V_TRYGET] = { "damon-memcg-tryget", MSIM_VARIANT_VALUES_ON_OFF,
		"DAMON's goal reader takes a reference (mem_cgroup_tryget) on the memcg it looked "
		"up by id before leaving RCU (on); off is the first version, which used the memcg "
		"after rcu_read_unlock without one (a use-after-free against its free)",
		"demo (DAMON, Dec 2025 fix)" },
	{ NULL, NULL, NULL, NULL },
};

static unsigned int damon_subsys_id; /* written by msim_subsys_register() */
static const struct msim_subsys damon_subsys = {
	.name = "damon",
	.depends = damon_deps,
	.enabled = damon_enabled,
	.state_size = sizeof(struct msim__damon),
	.host_init = damon_host_init,
	.host_fini = damon_host_fini,
	.memcg_hooks = damon_hooks,
	.variants = damon_variants,
	.id = &damon_subsys_id,
};

/*
 * Every damon entry point reaches damon_subsys (msim__damon_of), so a
 * program that calls any of them links this file and this registration with it.
 */
__attribute__((constructor)) static void damon_register(void)
{
	msim_subsys_register(&damon_subsys);
}

struct msim__damon *msim__damon_of(struct msim *m)
{
	return m ? msim_subsys_state(m, &damon_subsys) : NULL;
}

int msim_damon_attach(struct msim *m, char *err, size_t errlen)
{
	if (!m) {
		if (err && errlen)
			snprintf(err, errlen, "msim_damon_attach: no host");
		return -EINVAL;
	}
	return msim_subsys_attach(m, &damon_subsys, err, errlen);
}

void msim_damon_counts(struct msim *m, struct msim_damon_counts *out)
{
	struct msim__damon *d = msim__damon_of(m);
	const unsigned long *src = d ? (const unsigned long *)&d->counts : NULL;
	unsigned long *dst = (unsigned long *)out;

	for (size_t i = 0; i < sizeof(*out) / sizeof(unsigned long); i++)
		dst[i] = src ? msim_quiet_load(&src[i], MSIM_RELAXED) : 0;
}
