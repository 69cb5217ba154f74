/* SPDX-License-Identifier: MIT */
/*
 * cli.h - the parts of the memcgsim command (the .c files of tools/memcgsim).
 */
#ifndef MSIM_TOOL_CLI_H
#define MSIM_TOOL_CLI_H

#include <stdio.h>

#include <memcgsim/race.h>

#include "bench_registry.h"

/* memcgsim race NAME [OPTIONS] (race.c); argv[0] is "race". */
int msim_cli_race(int argc, char **argv);
/*
 * o's exploration of r under cfg in jobs worker processes, one shard each,
 * merged into res (jobs.c). Returns what msim_race_run would, err filled.
 */
int msim_cli_race_jobs(const struct msim_race *r, const struct msim_config *cfg,
		       const struct msim_race_opts *o, unsigned int jobs,
		       struct msim_race_result *res, char *err, size_t errlen);
/* memcgsim merge [--json] [FILE...] (merge.c). */
int msim_cli_merge(int argc, char **argv);
/* memcgsim demo (demo.c). */
int msim_cli_demo(int argc, char **argv);
/* memcgsim oracle [OPTIONS]: the model against Linux 6.12 under QEMU (oracle.c). */
int msim_cli_oracle(int argc, char **argv);
/* memcgsim list --markdown: docs/races.md, from the registry (markdown.c). */
int msim_cli_markdown(FILE *f);
/* memcgsim list --layers: docs/design.md's layer diagram, from the subsystems (layers.c). */
int msim_cli_layers(FILE *f);

/*
 * A kernel race window, R1-R10 (memcg statistics) or S1-S6 (shrinkers): what it is,
 * where the model has it, and what else shows it besides the races that name it
 * in their windows field (windows.c).
 */
struct msim_cli_window {
	const char *label;        /* "R4" */
	const char *title;
	const char *window;       /* the kernel's window, one paragraph */
	const char *model;        /* where it is in the model */
	const char *also;         /* other tests that reach it, or NULL */
};
/* The windows in label order, ended by { NULL }. */
extern const struct msim_cli_window msim_cli_windows[];

#endif
