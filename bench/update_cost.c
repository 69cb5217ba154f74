/* SPDX-License-Identifier: MIT */
/* update_cost - the "update-cost" bench engine as a program (`memcgsim bench update-cost`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("update-cost", argc, argv);
}
