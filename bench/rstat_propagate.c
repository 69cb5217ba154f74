/* SPDX-License-Identifier: MIT */
/* rstat_propagate - the "rstat-propagate" bench engine as a program (bench/bench_rstat_propagate.c; `memcgsim bench rstat-propagate`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("rstat-propagate", argc, argv);
}
