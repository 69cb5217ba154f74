/* SPDX-License-Identifier: MIT */
/*
 * scenario.h - the bench engines' registry, shared by the memcgsim command, the
 * bench programs and the tests; and the races (<memcgsim/race.h>).
 *
 * A bench engine in bench/bench_*.c defines one struct msim_bench and registers it
 * with MSIM_BENCH(var); a race in scenarios/ defines one struct msim_race and
 * registers it with MSIM_RACE_REGISTER(var). Nothing else needs editing: the
 * build globs both folders.
 */
#ifndef MSIM_TOOL_SCENARIO_H
#define MSIM_TOOL_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <memcgsim/memcgsim.h>
#include <memcgsim/race.h>

/*
 * A bench engine: main() takes the arguments after "memcgsim bench NAME" (argv[0]
 * is the bench name) and returns an exit code (0, 1 on failure, 2 on usage).
 */
struct msim_bench {
	const char *name;      /* "shrinker-units" */
	const char *summary;
	int (*main)(int argc, char **argv);
};

void msim_bench_register(const struct msim_bench *b);
const struct msim_bench *msim_bench_find(const char *name);
size_t msim_bench_list(const struct msim_bench **out, size_t max);
/* For bench/<name>.c programs: run the engine registered as name. */
int msim_bench_main(const char *name, int argc, char **argv);
/* Run b, then print the simulator's wall time and peak RSS on stderr. */
int msim_bench_run(const struct msim_bench *b, int argc, char **argv);

#define MSIM_BENCH(var)                                                      \
	__attribute__((constructor)) static void msim_register_bench_##var(void) \
	{                                                                    \
		msim_bench_register(&(var));                                 \
	}

/*
 * The names the bench engines used before races moved to <memcgsim/race.h>
 * (bench/bench_sched_switch.c explores toy-percpu-reset's target through them).
 */
#define msim_scenario msim_race
static inline const struct msim_race *msim_scenario_find(const char *name)
{
	return msim_race_find(name);
}

#endif /* MSIM_TOOL_SCENARIO_H */
