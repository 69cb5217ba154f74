/* SPDX-License-Identifier: MIT */
/*
 * race_list.h - the race test list, one row per test (libuv's test/test-list.h,
 * as a table). test_races.c defines the row macros and includes this file.
 *
 * RACE(race, side, strategy, runs, seed)
 *     Run one side of a race (scenarios/) under a strategy, then check the result
 *     against what the side states (msim_race_verify): the verdict agrees with the
 *     side and with the race's expect(); a script reaches its exact figures and
 *     notes, prints each of them in --json, and replays when the race says so; an
 *     explorer on a bug side finds the violation within the runs, with the side's
 *     reason, and its schedule replays to the identical trace hash, schedule and
 *     reason; on a fix side it finds none. runs 0 is the race's own budget, under
 *     which DFS must also reach the side's DFS figures (exhausted space, schedule
 *     counts, the first violation's run and schedule).
 * RACE_SERIAL(race)
 *     DFS with no preemption runs each task to its end: exactly the race's
 *     serial_orders schedules, none of them bad.
 * RACE_REFUSED(race, settings, message)
 *     A configuration the race cannot run: -EINVAL, with message in the reason.
 * RACE_CHECK(fn)
 *     A test of the list or of the engine itself (test_races.c).
 *
 * Every side of every registered race has a script row (when the race has a
 * script), every side `memcgsim demo` shows has a PCT and a DFS row, and every
 * race with serial orders a RACE_SERIAL row: RACE_CHECK(every_side_is_listed).
 */

/*     race                          side                 strategy  runs  seed */
RACE_CHECK(every_side_is_listed)
RACE_CHECK(every_race_has_a_diagram_and_both_sides)
RACE_CHECK(verify_finds_a_wrong_side)
RACE_CHECK(registry_and_settings)

RACE("toy-percpu-reset",             "bug",               SCRIPT,      0,    0)
RACE("toy-percpu-reset",             "bug",               RANDOM,    200,    1)
RACE("toy-percpu-reset",             "bug",               PCT,       200,    1)
RACE("toy-percpu-reset",             "bug",               DFS,         0,    1)
RACE_SERIAL("toy-percpu-reset")

RACE("toy-abba-deadlock",            "bug",               SCRIPT,      0,    0)
RACE("toy-abba-deadlock",            "bug",               RANDOM,    200,    1)
RACE("toy-abba-deadlock",            "bug",               PCT,       200,    1)
RACE("toy-abba-deadlock",            "bug",               DFS,       200,    1)
RACE_SERIAL("toy-abba-deadlock")

RACE("toy-rcu-reader",               "rcu",               SCRIPT,      0,    0)
RACE("toy-rcu-reader",               "rcu",               RANDOM,    500,    7)
RACE("toy-rcu-reader",               "rcu",               PCT,       500,    7)
RACE("toy-rcu-reader",               "rcu",               DFS,      3000,    7)
RACE("toy-rcu-reader",               "no-grace-period",   SCRIPT,      0,    0)
RACE("toy-rcu-reader",               "no-grace-period",   PCT,       500,    7)
RACE("toy-rcu-reader",               "no-grace-period",   DFS,       300,    0)

RACE("rstat-lost-batch",             "bug",               SCRIPT,      0,    0)
RACE("rstat-lost-batch",             "bug",               PCT,         0,    1)
RACE("rstat-lost-batch",             "bug",               DFS,         0,    1)
RACE("rstat-lost-batch",             "values",            SCRIPT,      0,    0)
RACE("rstat-lost-batch",             "values",            PCT,         0,    1)
RACE("rstat-lost-batch",             "values",            DFS,         0,    1)

RACE("rstat-early-exit",             "bug",               SCRIPT,      0,    0)
RACE("rstat-early-exit",             "fix",               SCRIPT,      0,    0)
RACE("rstat-early-exit",             "8-cpus",            SCRIPT,      0,    0)
RACE("rstat-early-exit",             "bug",               PCT,         0,    1)
RACE("rstat-early-exit",             "fix",               PCT,         0,    1)
RACE("rstat-early-exit",             "bug",               DFS,         0,    1)
RACE("rstat-early-exit",             "fix",               DFS,         0,    1)
RACE_REFUSED("rstat-early-exit",     "cpus=2",            "needs at least 3 CPUs")

RACE("rstat-ratelimit-window",       "bug",               SCRIPT,      0,    0)
RACE("rstat-ratelimit-window",       "fix",               SCRIPT,      0,    0)
RACE("rstat-ratelimit-window",       "bug",               PCT,         0,    1)
RACE("rstat-ratelimit-window",       "fix",               PCT,         0,    1)
RACE("rstat-ratelimit-window",       "bug",               DFS,         0,    1)
RACE("rstat-ratelimit-window",       "fix",               DFS,         0,    1)

RACE("rstat-stale-parent",           "bug",               SCRIPT,      0,    0)
RACE("rstat-stale-parent",           "fix",               SCRIPT,      0,    0)
RACE("rstat-stale-parent",           "bug",               PCT,         0,    1)
RACE("rstat-stale-parent",           "fix",               PCT,         0,    1)
RACE("rstat-stale-parent",           "bug",               DFS,         0,    1)
RACE("rstat-stale-parent",           "fix",               DFS,         0,    1)

RACE("dying-redirect-reparent",      "v1-on-v2",          SCRIPT,      0,    0)
RACE("dying-redirect-reparent",      "all",               SCRIPT,      0,    0)
RACE("dying-redirect-reparent",      "all-rcu-on-dying",  SCRIPT,      0,    0)
RACE("dying-redirect-reparent",      "all-rcu-on-dying-none", SCRIPT,  0,    0)
RACE("dying-redirect-reparent",      "v1-host",           SCRIPT,      0,    0)
RACE("dying-redirect-reparent",      "v1-on-v2",          PCT,         0,    1)
RACE("dying-redirect-reparent",      "all",               PCT,         0,    1)
RACE("dying-redirect-reparent",      "all-rcu-on-dying",  PCT,         0,    1)
RACE("dying-redirect-reparent",      "all-rcu-on-dying-none", PCT,     0,    1)
RACE("dying-redirect-reparent",      "all-rcu-on-dying",  RANDOM,    500,    1)
RACE("dying-redirect-reparent",      "all-rcu-on-dying-none", RANDOM, 500,    1)
RACE("dying-redirect-reparent",      "v1-host",           PCT,         0,    1)
RACE("dying-redirect-reparent",      "v1-on-v2",          DFS,         0,    1)
RACE("dying-redirect-reparent",      "all",               DFS,         0,    1)
RACE("dying-redirect-reparent",      "all-rcu-on-dying",  DFS,         0,    1)
RACE("dying-redirect-reparent",      "all-rcu-on-dying-none", DFS,     0,    1)

RACE("shrinker-bit-recount",         "bug",               SCRIPT,      0,    0)
RACE("shrinker-bit-recount",         "fix",               SCRIPT,      0,    0)
RACE("shrinker-bit-recount",         "bug-array-unit-cache", SCRIPT,   0,    0)
RACE("shrinker-bit-recount",         "fix-array-unit-cache", SCRIPT,   0,    0)
RACE("shrinker-bit-recount",         "bug-array-on-demand", SCRIPT,    0,    0)
RACE("shrinker-bit-recount",         "fix-array-on-demand", SCRIPT,    0,    0)
RACE("shrinker-bit-recount",         "bug-xarray",        SCRIPT,      0,    0)
RACE("shrinker-bit-recount",         "fix-xarray",        SCRIPT,      0,    0)
RACE("shrinker-bit-recount",         "bug",               RANDOM,      0,    1)
RACE("shrinker-bit-recount",         "fix",               RANDOM,      0,    1)
RACE("shrinker-bit-recount",         "bug",               PCT,         0,    1)
RACE("shrinker-bit-recount",         "fix",               PCT,         0,    1)
RACE("shrinker-bit-recount",         "bug",               DFS,         0,    1)
RACE("shrinker-bit-recount",         "fix",               DFS,         0,    1)

RACE("shrinker-id-reuse",            "kernel",            SCRIPT,      0,    0)
RACE("shrinker-id-reuse",            "array",             SCRIPT,      0,    0)
RACE("shrinker-id-reuse",            "array-unit-cache",  SCRIPT,      0,    0)
RACE("shrinker-id-reuse",            "array-on-demand",   SCRIPT,      0,    0)
RACE("shrinker-id-reuse",            "xarray",            SCRIPT,      0,    0)
RACE("shrinker-id-reuse",            "kernel",            RANDOM,      0,    1)
RACE("shrinker-id-reuse",            "kernel",            PCT,         0,    1)
RACE("shrinker-id-reuse",            "kernel",            DFS,         0,    1)

RACE("shrinker-install-vs-expand",   "bug",               SCRIPT,      0,    0)
RACE("shrinker-install-vs-expand",   "lock",              SCRIPT,      0,    0)
RACE("shrinker-install-vs-expand",   "xarray",            SCRIPT,      0,    0)
RACE("shrinker-install-vs-expand",   "bug",               RANDOM,      0,    1)
RACE("shrinker-install-vs-expand",   "lock",              RANDOM,      0,    1)
RACE("shrinker-install-vs-expand",   "xarray",            RANDOM,      0,    1)
RACE("shrinker-install-vs-expand",   "bug",               PCT,         0,    1)
RACE("shrinker-install-vs-expand",   "lock",              PCT,         0,    1)
RACE("shrinker-install-vs-expand",   "xarray",            PCT,         0,    1)
RACE("shrinker-install-vs-expand",   "bug",               DFS,         0,    0)
RACE("shrinker-install-vs-expand",   "lock",              DFS,         0,    1)
RACE("shrinker-install-vs-expand",   "xarray",            DFS,         0,    1)

RACE("shrinker-offline-deferred",    "kernel",            SCRIPT,      0,    0)
RACE("shrinker-offline-deferred",    "kernel",            RANDOM,      0,    1)
RACE("shrinker-offline-deferred",    "kernel",            PCT,         0,    1)
RACE("shrinker-offline-deferred",    "kernel",            DFS,         0,    1)

RACE("uncharge-after-offline",       "off",               SCRIPT,      0,    0)
RACE("uncharge-after-offline",       "objcg",             SCRIPT,      0,    0)
RACE("uncharge-after-offline",       "objcg-all",         SCRIPT,      0,    0)
RACE("uncharge-after-offline",       "mglru",             SCRIPT,      0,    0)
RACE("uncharge-after-offline",       "mglru-all",         SCRIPT,      0,    0)
RACE("uncharge-after-offline",       "off",               PCT,         0,    1)
RACE("uncharge-after-offline",       "objcg",             PCT,         0,    1)
RACE("uncharge-after-offline",       "objcg-all",         PCT,         0,    1)
RACE("uncharge-after-offline",       "mglru",             PCT,         0,    1)
RACE("uncharge-after-offline",       "mglru-all",         PCT,         0,    1)
RACE("uncharge-after-offline",       "objcg",             RANDOM,      0,    1)
RACE("uncharge-after-offline",       "objcg-all",         RANDOM,      0,    1)
RACE("uncharge-after-offline",       "off",               DFS,         0,    1)
RACE("uncharge-after-offline",       "objcg",             DFS,         0,    1)
RACE("uncharge-after-offline",       "objcg-all",         DFS,         0,    1)
RACE("uncharge-after-offline",       "mglru",             DFS,         0,    1)
RACE("uncharge-after-offline",       "mglru-all",         DFS,         0,    1)

RACE("lru-reparent-vs-isolate",      "bug",               SCRIPT,      0,    0)
RACE("lru-reparent-vs-isolate",      "fix",               SCRIPT,      0,    0)
RACE("lru-reparent-vs-isolate",      "mglru-bug",         SCRIPT,      0,    0)
RACE("lru-reparent-vs-isolate",      "mglru-fix",         SCRIPT,      0,    0)
RACE("lru-reparent-vs-isolate",      "off",               SCRIPT,      0,    0)
RACE("lru-reparent-vs-isolate",      "bug",               PCT,         0,    1)
RACE("lru-reparent-vs-isolate",      "fix",               PCT,         0,    1)
RACE("lru-reparent-vs-isolate",      "mglru-bug",         PCT,         0,    1)
RACE("lru-reparent-vs-isolate",      "mglru-fix",         PCT,         0,    1)
RACE("lru-reparent-vs-isolate",      "off",               PCT,         0,    1)
RACE("lru-reparent-vs-isolate",      "bug",               RANDOM,      0,    1)
RACE("lru-reparent-vs-isolate",      "fix",               RANDOM,      0,    1)
RACE("lru-reparent-vs-isolate",      "bug",               DFS,         0,    1)
RACE("lru-reparent-vs-isolate",      "fix",               DFS,         0,    1)
RACE("lru-reparent-vs-isolate",      "mglru-bug",         DFS,         0,    1)
RACE("lru-reparent-vs-isolate",      "mglru-fix",         DFS,         0,    1)
RACE_REFUSED("lru-reparent-vs-isolate", "cpus=2",         "needs at least 3 CPUs")

/* DPOR under each race's own budget and preemption bound (docs/explore.md): it
 * finds every bug side below; on the fixed sides it exhausts the bounded space in
 * exactly the schedules the side states (dpor_schedules). */
RACE("rstat-early-exit",             "bug",               DPOR,        0,    1)
RACE("rstat-early-exit",             "fix",               DPOR,        0,    1)
RACE("rstat-lost-batch",             "bug",               DPOR,        0,    1)
RACE("rstat-lost-batch",             "values",            DPOR,        0,    1)
RACE("rstat-ratelimit-window",       "bug",               DPOR,        0,    1)
RACE("rstat-ratelimit-window",       "fix",               DPOR,        0,    1)
RACE("rstat-stale-parent",           "bug",               DPOR,        0,    1)
RACE("rstat-stale-parent",           "fix",               DPOR,        0,    1)
RACE("shrinker-bit-recount",         "bug",               DPOR,        0,    1)
RACE("shrinker-bit-recount",         "fix",               DPOR,        0,    1)
RACE("shrinker-install-vs-expand",   "bug",               DPOR,        0,    1)
RACE("shrinker-install-vs-expand",   "lock",              DPOR,        0,    1)
RACE("shrinker-install-vs-expand",   "xarray",            DPOR,        0,    1)
RACE("uncharge-after-offline",       "off",               DPOR,        0,    1)
RACE("uncharge-after-offline",       "objcg",             DPOR,        0,    1)
RACE("uncharge-after-offline",       "objcg-all",         DPOR,        0,    1)
RACE("toy-percpu-reset",             "bug",               DPOR,        0,    1)
RACE("toy-abba-deadlock",            "bug",               DPOR,        0,    1)
