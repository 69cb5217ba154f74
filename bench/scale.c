/* SPDX-License-Identifier: MIT */
/* scale - the "scale" bench engine as a program (`memcgsim bench scale`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("scale", argc, argv);
}
