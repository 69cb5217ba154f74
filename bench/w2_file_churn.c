/* SPDX-License-Identifier: MIT */
/* w2_file_churn - the "w2-file-churn" bench engine as a program (bench/bench_w2_file_churn.c; `memcgsim bench w2-file-churn`). */
#include "bench_registry.h"

int main(int argc, char **argv)
{
	return msim_bench_main("w2-file-churn", argc, argv);
}
