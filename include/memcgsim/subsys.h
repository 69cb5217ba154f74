/* SPDX-License-Identifier: MIT */
/*
 * subsys.h - the subsystem registry: how a layer above sim attaches to a host.
 *
 * Each layer above sim (memcg, rstat, charge, shrinker, list_lru, ...) describes
 * itself once, in a struct msim_subsys: its name, the subsystems it needs attached
 * first, whether a configuration enables it, its per-host state, and its host
 * init and fini. msim_create() attaches every registered subsystem that the
 * configuration enables, each after its dependencies; msim_destroy() detaches
 * them in reverse. sim knows no subsystem by name: the per-host slot of a
 * subsystem is handed out when it registers (as the memcg layer hands out hook
 * slots), and its state is found with msim_subsys_state(), a plain load that
 * never initialises anything, so a stat write cannot allocate or attach.
 * Models: liburcu's flavour ops struct, libuv's uv_loop_init.
 *
 * How a layer registers (rstat as the example):
 *
 *   static int rstat_host_init(struct msim *m, void *state);  // state: zeroed
 *   static void rstat_host_fini(struct msim *m, void *state); // state_size bytes
 *   static const struct msim_memcg_hooks *const rstat_hooks[] = {
 *           &stats_hooks, &offline_hooks, NULL };
 *   static const char *const rstat_deps[] = { "memcg", NULL };
 *
 *   static unsigned int rstat_id;        // written by msim_subsys_register()
 *   static const struct msim_subsys rstat_subsys = {
 *           .name = "rstat",
 *           .depends = rstat_deps,
 *           .state_size = sizeof(struct msim__rstat),
 *           .host_init = rstat_host_init,
 *           .host_fini = rstat_host_fini,
 *           .memcg_hooks = rstat_hooks,
 *           .id = &rstat_id,
 *   };
 *
 *   __attribute__((constructor)) static void rstat_register(void)
 *   {
 *           msim_subsys_register(&rstat_subsys);
 *   }
 *
 *   // a hot path: a plain load, NULL when the host does not have rstat
 *   struct msim__rstat *rs = msim_subsys_state(m, &rstat_subsys);
 *
 * The description is static const: complete at compile time, never filled in
 * by a constructor, and private to the file that defines the layer. Code
 * elsewhere (a test, the command) finds it by name: msim_subsys_find("rstat").
 *
 * The constructor must sit in an object file the program links anyway (one that
 * also defines functions the layer's users call): a static library drops object
 * files nobody references, and their constructors with them.
 *
 * Memcg lifecycle hooks. memcg_hooks lists the layer's struct msim_memcg_hooks
 * (memcg.h). sim never reads them (struct msim_memcg and the hooks are opaque
 * here); the memcg layer does, when the subsystem's host_init asks it to
 * register them with the subsystem's state as their priv. Keeping them in the
 * description puts everything a layer plugs in at one place.
 *
 * Per-host state. With state_size > 0, sim allocates that many zeroed bytes
 * before host_init, publishes them in the subsystem's slot, and frees them when
 * the host is destroyed (after the last RCU callback ran). With state_size == 0
 * the layer allocates its own state in host_init, publishes it with
 * *msim_subsys_slot(m, ss) = state, and frees it in host_fini.
 *
 * Variants. A layer declares the variants it reads as rows of its description
 * (name, values, meaning, thread: variants.h), its enum values in its public
 * header; registration checks them (names unique across subsystems, values
 * non-empty) and gives each row a slot in struct msim_variants: row r of the
 * subsystem with id i. The layer reads its values with msim_subsys_variant(),
 * once, at host init, into its host state; a variant two layers read belongs
 * to the lower one, which exports a reader for the other. For example:
 *
 *   enum { RSTAT_V_PROPAGATE, ... };                   // the row indexes
 *   static const char *const propagate_values[] = { "break", "continue", NULL };
 *   static const struct msim_variant_desc rstat_variants[] = {
 *           [RSTAT_V_PROPAGATE] = { "rstat-propagate", propagate_values,
 *                                   "meaning ...", "004" },
 *           { NULL, NULL, NULL, NULL },
 *   };
 *   ...  .variants = rstat_variants,  ...
 *   rs->propagate = msim_subsys_variant(&msim_config(m)->variants, &rstat_subsys,
 *                                       RSTAT_V_PROPAGATE);
 *
 * Errors: negative errno; where a person reads the reason (dependency missing,
 * disabled or circular) it is written to the caller's message buffer.
 */
#ifndef MEMCGSIM_SUBSYS_H
#define MEMCGSIM_SUBSYS_H

#include <memcgsim/api.h>

#include <stdbool.h>
#include <stddef.h>

#include <memcgsim/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registered subsystems per process: MSIM_MAX_SUBSYS (variants.h, which sizes the values by it). */

struct msim_memcg_hooks; /* memcg.h: read by the memcg layer only */

struct msim_subsys {
	const char *name;                 /* unique; "memcg", "rstat", ... */
	/* Names of the subsystems that must be attached first; NULL-terminated, or NULL. */
	const char *const *depends;
	/* Whether a host with this configuration gets the subsystem; NULL: every host. */
	bool (*enabled)(const struct msim_config *cfg);
	size_t state_size;                /* see "Per-host state" above */
	/* Attach: 0, or a negative errno that fails msim_create (or msim_subsys_attach). */
	int (*host_init)(struct msim *m, void *state);
	/* Detach; runs at msim_destroy() while RCU and the kernel-memory model still work. */
	void (*host_fini)(struct msim *m, void *state);
	/* NULL-terminated, or NULL: the layer's memcg lifecycle hooks (memcg.h). */
	const struct msim_memcg_hooks *const *memcg_hooks;
	/*
	 * NULL, or the layer's rows of the variant table (variants.h), terminated by
	 * a row whose name is NULL; at most MSIM_SUBSYS_MAX_VARIANTS. See "Variants".
	 */
	const struct msim_variant_desc *variants;
	/*
	 * Where msim_subsys_register() writes the id (1..MSIM_MAX_SUBSYS; 0 while
	 * unregistered): a static of the defining file, so the description stays const.
	 */
	unsigned int *id;
};

/*
 * Register a subsystem for the hosts created from now on (hosts that exist keep
 * what they have). Dependencies are resolved when a host attaches, so
 * subsystems may register in any order. Returns 0 (also when ss is registered
 * already); -EINVAL for a missing name or a malformed variant row (no values,
 * past MSIM_SUBSYS_MAX_VARIANTS rows or 255 values), -EEXIST when another
 * subsystem has the name or one of its variant names, -ENOSPC past MSIM_MAX_SUBSYS.
 */
MSIM_API int msim_subsys_register(const struct msim_subsys *ss);

/*
 * Forget a subsystem (tests and experiments that register their own). Returns 0;
 * -EBUSY while a live host has it attached; -ENOENT if it is not registered.
 */
MSIM_API int msim_subsys_unregister(const struct msim_subsys *ss);

/*
 * Attach ss, and before it any dependency the host lacks, to a host that exists
 * (a layer attached by hand, or one the configuration does not enable). Returns 0
 * (also when attached already); -EINVAL with the reason in err for a dependency
 * that is not registered or a cycle; host_init's error, after detaching, newest
 * first, everything this call attached. Call from the driver, not from a task.
 */
MSIM_API int msim_subsys_attach(struct msim *m, const struct msim_subsys *ss, char *err,
			       size_t errlen);

/* The registered subsystem of that name, or NULL. */
MSIM_API const struct msim_subsys *msim_subsys_find(const char *name);

/*
 * The registered subsystems, up to max of them in out, sorted by name; returns
 * how many are registered (docs/design.md's layer diagram is drawn from them).
 */
MSIM_API unsigned int msim_subsys_list(const struct msim_subsys **out, unsigned int max);

MSIM_API bool msim_subsys_attached(const struct msim *m, const struct msim_subsys *ss);

/* The subsystem's per-host state on m, or NULL (unregistered, not attached). */
MSIM_API void *msim_subsys_state(const struct msim *m, const struct msim_subsys *ss);

/*
 * The value of row `row` (an index into ss->variants) of ss in v: the layer's
 * enum value. 0 (mainline) while ss is unregistered or past its rows.
 */
MSIM_API int msim_subsys_variant(const struct msim_variants *v, const struct msim_subsys *ss,
				 unsigned int row);

/* Where that state is published (state_size == 0 layers store theirs); NULL if unregistered. */
MSIM_API void **msim_subsys_slot(struct msim *m, const struct msim_subsys *ss);

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_SUBSYS_H */
