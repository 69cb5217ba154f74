/* SPDX-License-Identifier: MIT */
/* thrashing_protection - the "thrashing-protection" bench engine as a program (bench/bench_thrashing_protection.c; `memcgsim bench thrashing-protection`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("thrashing-protection", argc, argv);
}
