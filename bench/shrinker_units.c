/* SPDX-License-Identifier: MIT */
/* shrinker_units - the "shrinker-units" bench engine as a program (bench/bench_shrinker_units.c; `memcgsim bench shrinker-units`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("shrinker-units", argc, argv);
}
