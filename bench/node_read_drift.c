/* SPDX-License-Identifier: MIT */
/* node_read_drift - the "node-read-drift" bench engine as a program (bench/bench_node_read_drift.c; `memcgsim bench node-read-drift`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("node-read-drift", argc, argv);
}
