/* SPDX-License-Identifier: MIT */
/* w3_reparent - the "w3-reparent" bench engine as a program (bench/bench_w3_reparent.c; `memcgsim bench w3-reparent`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("w3-reparent", argc, argv);
}
