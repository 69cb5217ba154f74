/* SPDX-License-Identifier: MIT */
/* damon_goal_read - the "damon-goal-read" bench engine as a program (bench/bench_damon_goal_read.c; `memcgsim bench damon-goal-read`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("damon-goal-read", argc, argv);
}
