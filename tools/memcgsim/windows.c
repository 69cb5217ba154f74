/* SPDX-License-Identifier: MIT */
/*
 * windows.c - the kernel's race windows the model reproduces or documents:
 * R1-R10 of the memcg statistics and S1-S6 of the shrinkers and list_lru, as
 * the text of docs/races.md. The races that show a
 * window name it in their windows field; `memcgsim list --markdown` joins both.
 */
#include <memcgsim/introspect.h>

#include "cli.h"

const struct msim_cli_window msim_cli_windows[] = {
	{ "R1", "remote per-CPU reset against a local read-modify-write",
	  "A flusher resets another CPU's per-CPU `stats_updates` with a plain store while "
	  "that CPU's updater is inside `this_cpu_add_return` or `this_cpu_xchg` on the same "
	  "word. Those are single unlocked instructions, atomic against the CPU's own "
	  "interrupts but not against a remote store, so either the increment or the reset "
	  "is lost. Only the flush heuristic is affected; stat values are not.",
	  "`msim_this_cpu_add_return` and `msim_this_cpu_xchg` (sync shims) are a load, a yield "
	  "point and a store (`this_cpu_rmw.load`, `this_cpu_rmw.store`); the flusher's reset is "
	  "the store at `rstat.flush.reset_percpu` (src/rstat).",
	  "tests/race/test_rstat_windows.c (r1_remote_reset_lost) scripts it on the rstat "
	  "model: CPU 1's count says 11 pending pages while none is unflushed" },
	{ "R2", "the atomic reset is read-then-set",
	  "Between the flusher's `atomic_read` of a memcg's `stats_updates` (non-zero) and its "
	  "`atomic_set` to 0, an updater's batch `atomic_add` lands and is wiped.",
	  "The per-CPU flush of a memcg reads at `rstat.flush.atomic_read` and sets at "
	  "`rstat.flush.atomic_set` (src/rstat); the updater pushes a batch at "
	  "`rstat.update.atomic_add`.", NULL },
	{ "R3", "resets continue after the CPUs already walked",
	  "A flush walks the CPUs in order and resets the memcg's atomic at every CPU where "
	  "the memcg is queued. A batch pushed by an updater on a CPU the flush has already "
	  "passed describes deltas this flush did not fold, yet a later CPU's visit erases "
	  "it: the memcg under-reports pending work until a forced or periodic flush.",
	  "The flush's CPU loop (yield point `rstat.flush.cpu_start` per CPU) resets at every "
	  "CPU whose updated tree holds the memcg (src/rstat).", NULL },
	{ "R4", "ancestor under-count from child-before-parent resets and the early break",
	  "Within one CPU's flush list the child is reset before its parent. An updater that "
	  "runs between the two resets adds at the child (now below the threshold) and "
	  "breaks at the parent (still above it); the parent's reset then drops it far below "
	  "its subtree's pending work. Once the child crosses the threshold again every walk "
	  "breaks at the child, so the parent's count never grows and its gated flush keeps "
	  "skipping until a forced flush or the 2 s periodic flush.",
	  "`memcg_rstat_updated`'s walk stops at a flushable level (yield point "
	  "`rstat.update.level`; variant `rstat-propagate=break`, mainline) or skips it "
	  "(`rstat-propagate=continue`, thread 004); the flush order is the updated tree's, "
	  "children before parents (src/rstat).",
	  "bench rstat-staleness measures how far root falls behind after it" },
	{ "R5", "an enqueue skipped while the flusher pops",
	  "An updater writes its per-CPU state, finds the memcg's node still on the updated "
	  "list and returns; the flusher pops the node and reads that CPU's state without a "
	  "barrier on either side, so it can read the old value. The delta is not lost but "
	  "stays unflushed until another update on that CPU enqueues the memcg again.",
	  "`css_rstat_updated`'s on-list test (`rstat.update.after_state`) and the flusher's pop "
	  "(`rstat.flush.pop`). Under `--memory-model tso` or `pso` the state store waits in "
	  "the CPU's store buffer like every shim store until the claim's locked cmpxchg or an "
	  "explorer's drain (`~C`); the rstat parameter `smp_mb_pair` adds the barrier pair the "
	  "source describes, as real drains (docs/memory-model.md).",
	  "tests/race/test_rstat_windows.c (r5_tso_no_barrier_strands, "
	  "r5_tso_barrier_pair_holds, r5_sc_nothing_stranded, r5_dfs_both_sides): 3 of 6 pages "
	  "stranded under tso without the pair, none with it or under sc; DFS exhausts 30 "
	  "(sc), 261 with 92 stranding (tso) and 131 (tso with the pair) schedules" },
	{ "R6", "torn reads",
	  "Readers use `READ_ONCE` on the aggregates without the flush lock. During a flush "
	  "they see some CPUs folded and others not, and values can go negative for a "
	  "moment; reads clamp them to 0.",
	  "`msim_memcg_page_state` and the other readers read without a lock and clamp at 0 "
	  "(src/rstat); a flush yields at `rstat.flush.cpu_start` between CPUs.",
	  "tests/race/test_rstat_windows.c (r6_torn_read_clamped): raw -5 read as 0, exact "
	  "after the flush" },
	{ "R7", "`flush_last_time` is published before the flush finishes",
	  "The root flush writes the ratelimit timestamp first. A ratelimited reader that "
	  "runs during the flush sees a fresh timestamp, skips its own flush and reads "
	  "partially flushed data.",
	  "The flush writes `flush_last_time` at `rstat.flush.last_time` and the ratelimited "
	  "entry reads it at `rstat.flush.ratelimit` (src/rstat); root lruvec reads come from "
	  "rstat or, under `root-lruvec-read=node` (thread 002 patch 2), the node counters.",
	  NULL },
	{ "R8", "a subtree flush does not refresh ancestors",
	  "Flushing a memcg folds its subtree into it and leaves its own delta pending in its "
	  "parent: the parent's and every ancestor's aggregate stays stale until a flush "
	  "visits it.",
	  "A flush of c folds into c and stores p's share as p's pending delta "
	  "(`MSIM_STAT_PENDING`), read by `msim_memcg_stat_raw` (src/rstat).", NULL },
	{ "R9", "the periodic flusher is deferrable",
	  "The 2 s periodic flush runs from a deferrable timer, which on an idle system can "
	  "slip past 2 s; the ratelimited path falls back to its own flush only after 4 s.",
	  "Recorded only: the periodic work is marked deferrable but fires on time in virtual "
	  "time (src/sim delayed work, src/rstat dwork).", NULL },
	{ "R10", "unflushed NMI staging",
	  "Stats accounted in NMI context are staged in atomics and drained only when a later "
	  "normal update enqueues the css; if the css was never enqueued from the NMI, they "
	  "wait for that update.",
	  "Modelled under variant nmi-stats=atomic (src/rstat/nmi*.c): an NMI enqueues, then "
	  "stages; a flush that pops the memcg in between leaves the delta staged until a later "
	  "update (unit/test_rstat_nmi). Its 2026 drain fixes are races of their own.", NULL },
	{ "S1", "`set_bit` against `clear_bit`",
	  "`shrink_slab_memcg` counts a memcg's list empty and clears the shrinker's bit while "
	  "a first `list_lru_add` makes the list non-empty and sets the bit. The kernel clears, "
	  "issues `smp_mb` and counts again, setting the bit back if objects appeared; there "
	  "is no lost wake-up, only extra count calls from stale set bits.",
	  "`shrink_slab_memcg` (yield point `shrink_slab_memcg.clear_bit`) and `list_lru_add` "
	  "(`list_lru_add.before_set_bit`) in src/shrinker; variant `shrinker-recount=off` "
	  "removes the recount.", NULL },
	{ "S2", "expansion against a holder of the old info",
	  "`expand_shrinker_info` copies each memcg's info into a larger one and frees the old "
	  "one after a grace period. Units are shared by the old and new info, so a bit set "
	  "through the old one is visible through the new; readers re-read the info after "
	  "each unit.",
	  "The expansion yields at `shrinker.expand.copied` (src/shrinker/info_array.c). In the "
	  "array-on-demand layout the unit pointer itself is installed later "
	  "(`shrinker.install.loaded_info`, `shrinker.install.store`), so an install into the "
	  "old copy is lost without the install lock (variant `on-demand-lock`).", NULL },
	{ "S3", "`shrinker_free` against memcg shrinking, and id reuse",
	  "After `shrinker_free` drops the initial reference, lookups fail and the bit is "
	  "cleared. After `idr_remove` the id can go to a new shrinker, which inherits the "
	  "stale bits and `nr_deferred` counts, because nothing clears them on free.",
	  "`shrinker_free` yields at `shrinker_free.wait_done` and `shrinker_free.idr_remove` "
	  "(src/shrinker/registry.c); the id allocator hands out the lowest free id.", NULL },
	{ "S4", "offline against an in-flight shrink",
	  "`mem_cgroup_online` is checked only when `shrink_slab_memcg` starts. A shrink already "
	  "running can add its deferred remainder to the child after "
	  "`reparent_shrinker_deferred` read it at offline: the work is lost. It can also walk "
	  "the child's lists while they are spliced.",
	  "`do_shrink_slab` yields at `do_shrink_slab.add_deferred` before adding the remainder "
	  "back (src/shrinker/shrink_slab.c).", NULL },
	{ "S5", "list_lru add and del against reparenting",
	  "Reparenting marks a dying memcg's lists dead (`LONG_MIN`) before erasing them; an "
	  "add that finds the marker goes to the ancestor's list. A memcg captured before "
	  "the redirect differs from the list used, and the bit follows the list used.",
	  "`memcg_reparent_list_lrus` yields at `list_lru.reparent.before_erase` "
	  "(src/shrinker/list_lru.c).",
	  "tests/unit/test_shrinker_slab.c (dead_marker, dying_redirect): an add between the "
	  "marker and the erase lands on the parent, with the parent's bit set" },
	{ "S6", "`__memcg_list_lru_alloc` against offline",
	  "The allocation of a memcg's lists checks for a dying memcg under the xarray lock; "
	  "`CSS_DYING` is published a grace period before offline, so a list is never "
	  "installed for a memcg whose reparenting has passed.",
	  "`memcg_list_lru_alloc` yields at `list_lru.alloc.before_store` before its dying check "
	  "(src/shrinker/list_lru.c); no scenario scripts it.", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};
