/* SPDX-License-Identifier: MIT */
/*
 * program.c - main() of every bench program. bench/CMakeLists.txt builds it once
 * per engine, named after the engine ('-' becoming '_'), with BENCH_ENGINE the
 * engine's registered name: `w3_reparent ARGS` runs as `memcgsim bench
 * w3-reparent ARGS`.
 */
#include "bench_registry.h"

#ifndef BENCH_ENGINE
#error "BENCH_ENGINE (the engine's registered name) comes from bench/CMakeLists.txt"
#endif

int main(int argc, char **argv)
{
	return bench_main(BENCH_ENGINE, argc, argv);
}
