/* SPDX-License-Identifier: MIT */
/* anon_churn - the "anon-churn" bench engine as a program (bench/bench_anon_churn.c; `memcgsim bench anon-churn`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("anon-churn", argc, argv);
}
