/* SPDX-License-Identifier: MIT */
/*
 * bench_registry.h - the bench engines by name, used by the bench programs, the
 * memcgsim command and the tests. bench/ depends on the library only; the command
 * (tools/memcgsim) depends on bench/, never the reverse.
 *
 * A bench engine in bench/bench_*.c defines one struct bench_engine and registers it
 * with BENCH_REGISTER(var); a race in scenarios/ defines one struct msim_race and
 * registers it with MSIM_RACE_REGISTER(var) (<memcgsim/race.h>). Nothing else
 * needs editing: the build globs both folders, and bench/CMakeLists.txt makes one
 * program per engine name.
 */
#ifndef BENCH_REGISTRY_H
#define BENCH_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <memcgsim/memcgsim.h>

/*
 * A bench engine: main() takes the arguments after "memcgsim bench NAME" (argv[0]
 * is the bench name) and returns an exit code (0, 1 on failure, 2 on usage).
 */
struct bench_engine {
	const char *name;      /* "shrinker-units" */
	const char *summary;
	int (*main)(int argc, char **argv);
};

void bench_register(const struct bench_engine *b);
const struct bench_engine *bench_find(const char *name);
size_t bench_list(const struct bench_engine **out, size_t max);
/* For the bench programs (bench/program.c): run the engine registered as name. */
int bench_main(const char *name, int argc, char **argv);
/* Run b, then print the simulator's wall time and peak RSS on stderr. */
int bench_run(const struct bench_engine *b, int argc, char **argv);

#define BENCH_REGISTER(var)                                                 \
	__attribute__((constructor)) static void bench_register_##var(void) \
	{                                                                   \
		bench_register(&(var));                                     \
	}

#endif /* BENCH_REGISTRY_H */
