/* SPDX-License-Identifier: MIT */
/* rstat_staleness - the "rstat-staleness" bench engine as a program (`memcgsim bench rstat-staleness`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("rstat-staleness", argc, argv);
}
