/* SPDX-License-Identifier: MIT */
/* explore - the "explore" bench engine as a program (`memcgsim bench explore`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("explore", argc, argv);
}
