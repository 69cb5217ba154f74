/* SPDX-License-Identifier: MIT */
/*
 * bench_registry.h - the bench engines by name, used by the bench programs, the
 * memcgsim command and the tests. bench/ depends on the library only; the command
 * (tools/memcgsim) depends on bench/, never the reverse.
 *
 * A bench engine in bench/bench_*.c defines one struct msim_bench and registers it
 * with MSIM_BENCH(var); a race in scenarios/ defines one struct msim_race and
 * registers it with MSIM_RACE_REGISTER(var) (<memcgsim/race.h>). Nothing else
 * needs editing: the build globs both folders, and bench/CMakeLists.txt makes one
 * program per engine name.
 */
#ifndef MSIM_BENCH_REGISTRY_H
#define MSIM_BENCH_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <memcgsim/memcgsim.h>

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

#endif /* MSIM_BENCH_REGISTRY_H */
