/* SPDX-License-Identifier: MIT */
/*
 * variants.c - the one table of design variants and the thread presets.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <memcgsim/variants.h>

static const char *const v_propagate[] = { "break", "continue", "skip-atomic", NULL };
static const char *const v_root_read[] = { "rstat", "node", NULL };
static const char *const v_dying[] = { "v1", "all", "all-rcu-on-dying", NULL };
static const char *const v_info[] = { "array", "array-unit-cache", "array-on-demand", "xarray",
				      NULL };
static const char *const v_onoff[] = { "on", "off", NULL };
static const char *const v_lru_reparent[] = { "objcg", "off", NULL };
static const char *const v_node_stat[] = { "exact", "percpu", NULL };
static const char *const v_nmi_stats[] = { "percpu", "atomic", NULL };
static const char *const v_shadow_budget[] = { "lru-size", "page-state-local", NULL };
static const char *const v_ws_root_flush[] = { "flush", "skip", NULL };
static const char *const v_zswap_root_count[] = { "memcg-stats", "pool", NULL };
static const char *const v_zswap_shrink_iter[] = { "fixed", "old", NULL };
static const char *const v_damon_root_read[] = { "flush", "node", NULL };
static const char *const v_bit_barrier[] = { "mb", "none", NULL };
static const char *const v_zswap_count_flush[] = { "gated", "ratelimited", NULL };
static const char *const v_mglru_protection[] = { "6.14", "6.12", NULL };
static const char *const v_kmem_stat[] = { "uncounted", "counted", NULL };
static const char *const v_charge_stock[] = { "multi", "single", NULL };
static const char *const v_memcg_layout[] = { "newest", "linux-6.12", NULL };

#define OFF(field) offsetof(struct msim_variants, field)

static const struct msim_variant_desc table[] = {
	{ "rstat-propagate", v_propagate,
	  "memcg_rstat_updated at a flushable level: stop the walk (break), skip the "
	  "level and keep walking to the ancestors (continue), or, as Linux 6.12, add to "
	  "every level's per-CPU count and at the batch skip only the atomic add of a "
	  "flushable level (skip-atomic)",
	  "004", OFF(rstat_propagate) },
	{ "root-lruvec-read", v_root_read,
	  "root memcg lruvec reads: the flushed rstat aggregate, or the node counters "
	  "(minus the stats the thread excludes)",
	  "002 patch 2", OFF(root_lruvec_read) },
	{ "dying-redirect", v_dying,
	  "stat updates to a dying memcg go to its nearest live ancestor: on cgroup v1 only "
	  "(v1), on every hierarchy with RCU always taken (all), or with RCU taken only on "
	  "the dying path (all-rcu-on-dying)",
	  "000 patches 2, 3", OFF(dying_redirect) },
	{ "shrinker-info", v_info,
	  "per-memcg shrinker units: upfront in a pointer array from kmalloc-1k (array), the "
	  "same from a 520-byte cache (array-unit-cache), on demand in the pointer array "
	  "(array-on-demand), on demand in an xarray (xarray)",
	  "001", OFF(shrinker_info) },
	{ "shrinker-recount", v_onoff,
	  "shrink_slab_memcg clears a bit on SHRINK_EMPTY, then barrier, recount and re-set "
	  "(on); off removes the recount to show the lost bit it prevents",
	  "demo (S1)", OFF(shrinker_recount) },
	{ "on-demand-lock", v_onoff,
	  "array-on-demand: the lock that keeps a unit install from being lost in a "
	  "concurrent expansion copy (on); off shows the loss",
	  "demo (001)", OFF(on_demand_lock) },
	{ "lru-reparent", v_lru_reparent,
	  "LRU folios of a memcg at its offline: they name a per-node objcg that offline "
	  "repoints to the parent while their lists are spliced into the parent's (objcg), "
	  "or they name the memcg, pin it and stay on its lists (off, the 7.0 world)",
	  "000 (objcg series)", OFF(lru_reparent) },
	{ "lruvec-recheck", v_onoff,
	  "a folio's lruvec is checked under its lock: folio_lruvec_lock rechecks "
	  "folio_memcg() and retries, move_folios_to_lru relocks when the folio moved (on); "
	  "off trusts the lruvec looked up before an offline moved the folio",
	  "demo (objcg LRU)", OFF(lruvec_recheck) },
	{ "node-stat", v_node_stat,
	  "rstat's node counters (mod_node_page_state, node_page_state): percpu is the "
	  "kernel, vmstat's per-CPU diffs folded past a threshold and every second, so a "
	  "node read lags by up to threshold x CPUs; exact is the model's old "
	  "simplification, one always-up-to-date atomic, the default only so that "
	  "figures measured before it stay comparable",
	  "002 (node side), model", OFF(node_stat) },
	{ "nmi-stats", v_nmi_stats,
	  "memcg stats updated in NMI: through the per-CPU counters like any context, where "
	  "this_cpu ops are NMI-safe (percpu: x86, arm64), or staged in per-memcg and "
	  "per-node atomics that the flush drains (atomic: "
	  "CONFIG_MEMCG_NMI_SAFETY_REQUIRES_ATOMIC)",
	  "R10 (2025)", OFF(nmi_stats) },
	{ "nmi-drain-local", v_onoff,
	  "nmi-stats=atomic: the drain adds the NMI deltas to state_local too (on, the 2026 "
	  "fix); off is the drain before it, whose local (v1, workingset) reads miss them",
	  "R10 (2026 fix)", OFF(nmi_drain_local) },
	{ "nmi-drain-vmstats", v_onoff,
	  "nmi-stats=atomic: the drain adds the NMI slab deltas to the memcg-level vmstats as "
	  "well as the lruvec's (on, the 2026 fix); off is the drain before it, whose "
	  "memory.stat slab lines miss them",
	  "R10 (2026 fix)", OFF(nmi_drain_vmstats) },
	{ "rstat-enqueue-claim", v_onoff,
	  "css_rstat_updated claims the css's lnode with a cmpxchg before llist_add, so of "
	  "the contexts stacked on a CPU only one inserts it (on); off trusts the racy "
	  "on-list test alone and shows the double insert the claim prevents",
	  "demo (6.17 rstat)", OFF(rstat_enqueue_claim) },
	{ "shadow-budget", v_shadow_budget,
	  "count_shadow_nodes() budgets a memcg's shadow nodes by its LRU pages read from "
	  "lruvec_lru_size(), i.e. lru_zone_size, which MGLRU never maintains (lru-size), or "
	  "from the lruvec_page_state_local() statistics both LRUs keep (page-state-local)",
	  "000 patch 1", OFF(shadow_budget) },
	{ "workingset-root-flush", v_ws_root_flush,
	  "workingset_test_recent() flushes the eviction memcg's stats before reading its "
	  "workingset size (flush), or skips the flush when that memcg is the root (skip)",
	  "002 patch 3", OFF(workingset_root_flush) },
	{ "shadow-isolate-trylock", v_onoff,
	  "shadow_lru_isolate trylocks the mapping's xa lock under the list_lru lock, retries "
	  "when it is busy, and frees the node only if it still holds shadows alone (on); off "
	  "drops the list lock first, waits for the xa lock and erases the node's entries "
	  "without the recheck, to show the refault it would lose",
	  "demo (workingset)", OFF(shadow_isolate_trylock) },
	{ "zswap-root-count", v_zswap_root_count,
	  "zswap_shrinker_count() for the root memcg: the compression ratio from the root's "
	  "MEMCG_ZSWAP_B / MEMCG_ZSWAPPED, which never count root-owned entries "
	  "(memcg-stats), or from the pool-wide counters (pool)",
	  "002 patch 1", OFF(zswap_root_count) },
	{ "zswap-shrink-iter", v_zswap_shrink_iter,
	  "zswap's global shrink_worker cursor: the worker and zswap_memcg_offline_cleanup "
	  "both skip offline memcgs (fixed), or the cleanup advances the cursor one step, "
	  "possibly onto an offline memcg, and the worker counts an offline memcg as a "
	  "failure (old, before the 2024 fix)",
	  "demo (zswap 2024 fix)", OFF(zswap_shrink_iter) },
	{ "damon-root-read", v_damon_root_read,
	  "DAMON's node_memcg_used_bp / _free_bp quota goal on the root memcg: flush the "
	  "root (every memcg) before reading its LRU sizes (flush), or skip the flush and "
	  "read the node counters (node)",
	  "002 patch 4", OFF(damon_root_read) },
	{ "damon-memcg-tryget", v_onoff,
	  "DAMON's goal reader takes a reference (mem_cgroup_tryget) on the memcg it looked "
	  "up by id before leaving RCU (on); off is the first version, which used the memcg "
	  "after rcu_read_unlock without one (a use-after-free against its free)",
	  "demo (DAMON, Dec 2025 fix)", OFF(damon_memcg_tryget) },
	{ "shrinker-bit-barrier", v_bit_barrier,
	  "S1's barrier pair: smp_mb__before_atomic before set_shrinker_bit's set_bit and "
	  "smp_mb__after_atomic after shrink_slab_memcg's clear_bit (mb); none removes both, "
	  "to see under which memory model (--memory-model) they are needed",
	  "demo (S1, memory models)", OFF(shrinker_bit_barrier) },
	{ "zswap-count-flush", v_zswap_count_flush,
	  "the flush zswap_shrinker_count() does before reading a memcg's MEMCG_ZSWAP_B and "
	  "MEMCG_ZSWAPPED: the threshold-gated mem_cgroup_flush_stats (gated, linux 6.12), or "
	  "mem_cgroup_flush_stats_ratelimited, which flushes only when the periodic flusher is "
	  "a full cycle late (ratelimited, the base of thread 002)",
	  "002 (its base)", OFF(zswap_count_flush) },
	{ "mglru-protection", v_mglru_protection,
	  "MGLRU's thrashing protection: folio refs and tiers, the PID controller's gains, "
	  "where new and refaulted folios go, the refault test and which refaults count as "
	  "activations and restores, after the 6.14 rework (6.14, the newest) or before it "
	  "(6.12: recent only while min_seq has not moved, every recent refault an "
	  "activation)",
	  "000 (MGLRU), linux 6.12", OFF(mglru_protection) },
	{ "kmem-stat", v_kmem_stat,
	  "MEMCG_KMEM in obj_cgroup_charge_pages / obj_cgroup_uncharge_pages: counted, one "
	  "rstat update per charge of whole pages for slab objects, as the kernel does "
	  "(counted); uncounted is the model's old simplification, the default so that race "
	  "schedules through the obj stock stay comparable",
	  "kernel rig (6.12), model", OFF(kmem_stat) },
	{ "charge-stock", v_charge_stock,
	  "the per-CPU charge stock: up to NR_MEMCG_STOCK (7) memcgs per CPU (multi), or "
	  "one, as Linux 6.12 has it, so that a charge for another memcg drains it (single)",
	  "kernel rig (6.12)", OFF(charge_stock) },
	{ "memcg-layout", v_memcg_layout,
	  "the memory controller's structures in the kernel-memory model: struct mem_cgroup "
	  "and mem_cgroup_per_node from their dedicated caches and 47 per-node statistics "
	  "(newest), or both from kmalloc-2k and a 744-byte lruvec_stats (linux-6.12)",
	  "kernel rig (6.12)", OFF(memcg_layout) },
	{ NULL, NULL, NULL, NULL, 0 },
};

static const struct msim_preset_desc presets[] = {
	{ "mainline", "every variant at its mainline value", "" },
	{ "thread-000", "thread 000: shadow budget from page state (patch 1), dying-memcg redirect for "
	  "all hierarchies, RCU only when dying (patches 2, 3)",
	  "dying-redirect=all-rcu-on-dying,shadow-budget=page-state-local" },
	{ "thread-001", "thread 001: shrinker units on demand in an xarray",
	  "shrinker-info=xarray" },
	{ "thread-002", "thread 002: zswap's root count from the pool (patch 1), root memcg "
	  "lruvec stats read from node counters (patch 2), no root flush in "
	  "workingset_test_recent (patch 3), DAMON's goal from node counters (patch 4)",
	  "zswap-root-count=pool,root-lruvec-read=node,workingset-root-flush=skip,"
	  "damon-root-read=node" },
	{ "thread-004", "thread 004: keep propagating stats updates to ancestors",
	  "rstat-propagate=continue" },
	{ "linux-6.12", "the model as Debian's Linux 6.12 runs (memcgsim oracle): no early break "
	  "in memcg_rstat_updated, folios name their memcg (no LRU reparenting, no dying "
	  "redirect on v2), the shadow budget from lruvec_page_state_local, vmstat's per-CPU "
	  "node counters, MEMCG_KMEM counted, one charge stock slot per CPU, 6.12's memcg "
	  "struct sizes, MGLRU's protection before the 6.14 rework; run it with "
	  "MGLRU (lru_gen enabled 0x0007)",
	  "rstat-propagate=skip-atomic,lru-reparent=off,shadow-budget=page-state-local,"
	  "node-stat=percpu,kmem-stat=counted,charge-stock=single,memcg-layout=linux-6.12,"
	  "mglru-protection=6.12" },
	{ NULL, NULL, NULL },
};

const struct msim_variant_desc *msim_variant_table(void)
{
	return table;
}

const struct msim_preset_desc *msim_preset_table(void)
{
	return presets;
}

void msim_variants_init(struct msim_variants *v)
{
	memset(v, 0, sizeof(*v));
}

static int *field(struct msim_variants *v, const struct msim_variant_desc *d)
{
	return (int *)((char *)v + d->offset);
}

static const struct msim_variant_desc *find(const char *name, size_t len)
{
	const struct msim_variant_desc *d;

	for (d = table; d->name; d++)
		if (strlen(d->name) == len && !strncmp(d->name, name, len))
			return d;
	return NULL;
}

static void list_names(char *err, size_t errlen, const char *what, size_t len)
{
	const struct msim_variant_desc *d;
	size_t n = (size_t)snprintf(err, errlen, "unknown variant '%.*s'; valid variants:",
				    (int)len, what);

	for (d = table; d->name && n < errlen; d++)
		n += (size_t)snprintf(err + n, errlen - n, " %s", d->name);
}

static void list_values(char *err, size_t errlen, const struct msim_variant_desc *d,
			const char *value)
{
	size_t n = (size_t)snprintf(err, errlen, "unknown value '%s' for %s; valid values:",
				    value, d->name);

	for (const char *const *p = d->values; *p && n < errlen; p++)
		n += (size_t)snprintf(err + n, errlen - n, " %s", *p);
}

int msim_variant_set(struct msim_variants *v, const char *assignment, char *err, size_t errlen)
{
	const char *eq = assignment ? strchr(assignment, '=') : NULL;
	const struct msim_variant_desc *d;
	int i;

	if (!eq) {
		if (err && errlen)
			snprintf(err, errlen, "variant '%s' is not of the form NAME=VALUE",
				 assignment ? assignment : "(null)");
		return -EINVAL;
	}
	d = find(assignment, (size_t)(eq - assignment));
	if (!d) {
		if (err && errlen)
			list_names(err, errlen, assignment, (size_t)(eq - assignment));
		return -EINVAL;
	}
	for (i = 0; d->values[i]; i++) {
		if (!strcmp(d->values[i], eq + 1)) {
			*field(v, d) = i;
			return 0;
		}
	}
	if (err && errlen)
		list_values(err, errlen, d, eq + 1);
	return -EINVAL;
}

int msim_preset_apply(struct msim_variants *v, const char *preset, char *err, size_t errlen)
{
	const struct msim_preset_desc *p;
	char buf[256], *tok, *save = NULL;

	for (p = presets; p->name; p++) {
		if (strcmp(p->name, preset ? preset : ""))
			continue;
		msim_variants_init(v);
		snprintf(buf, sizeof(buf), "%s", p->settings);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			int ret = msim_variant_set(v, tok, err, errlen);
			if (ret)
				return ret;
		}
		return 0;
	}
	if (err && errlen) {
		size_t n = (size_t)snprintf(err, errlen, "unknown preset '%s'; valid presets:",
					    preset ? preset : "(null)");
		for (p = presets; p->name && n < errlen; p++)
			n += (size_t)snprintf(err + n, errlen - n, " %s", p->name);
	}
	return -EINVAL;
}

const char *msim_variant_get(const struct msim_variants *v, const char *name)
{
	const struct msim_variant_desc *d = name ? find(name, strlen(name)) : NULL;
	int val;

	if (!d)
		return NULL;
	val = *field((struct msim_variants *)v, d);
	for (int i = 0; d->values[i]; i++)
		if (i == val)
			return d->values[i];
	return "?";
}

size_t msim_variants_format(const struct msim_variants *v, char *buf, size_t len)
{
	const struct msim_variant_desc *d;
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (d = table; d->name; d++) {
		int w = snprintf(len > n ? buf + n : NULL, len > n ? len - n : 0, "%s%s=%s",
				 n ? "," : "", d->name, msim_variant_get(v, d->name));
		n += (size_t)w;
	}
	return n;
}
