/* SPDX-License-Identifier: MIT */
/* zswap_root_count - the "zswap-root-count" bench engine as a program (bench/bench_zswap_root_count.c; `memcgsim bench zswap-root-count`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("zswap-root-count", argc, argv);
}
