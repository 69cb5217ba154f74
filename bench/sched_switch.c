/* SPDX-License-Identifier: MIT */
/* sched_switch - the "sched-switch" bench engine as a program (`memcgsim bench sched-switch`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("sched-switch", argc, argv);
}
