/* SPDX-License-Identifier: MIT */
/* explore_rate - the "explore-rate" bench engine as a program (`memcgsim bench explore-rate`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("explore-rate", argc, argv);
}
