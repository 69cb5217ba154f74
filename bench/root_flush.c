/* SPDX-License-Identifier: MIT */
/* root_flush - the "root-flush" bench engine as a program (bench/bench_root_flush.c; `memcgsim bench root-flush`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("root-flush", argc, argv);
}
