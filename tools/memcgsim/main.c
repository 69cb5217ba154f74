/* SPDX-License-Identifier: MIT */
/*
 * memcgsim - run the race scenarios and benches of libmemcgsim.
 *
 * Exit status: 0 when the scenario behaved as expected, 1 when it did not, 2 on
 * a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench_args.h"
#include "cli.h"
#include "report.h"

static void usage(FILE *f)
{
	fputs("usage: memcgsim [--help] [--version] COMMAND [ARGS]\n"
	      "\n"
	      "commands:\n"
	      "  list [--variants] [--json]   the race scenarios and benches (or the variant table)\n"
	      "  list --markdown              every race window and race with its diagram\n"
	      "                               (docs/races.md)\n"
	      "  list --layers                the layer diagram of docs/design.md\n"
	      "  race NAME [OPTIONS]          run a race scenario (see 'memcgsim race --help')\n"
	      "  bench NAME [ARGS]            run a bench (see 'memcgsim bench NAME --help')\n"
	      "  merge [--json] [FILE...]     combine the shards of one exploration\n"
	      "                               (race NAME --shard I/N --json)\n"
	      "  demo                         run every race under its default exploration\n"
	      "  report [--out DIR] [--quick] every bench and race of the threads: HTML,\n"
	      "                               Markdown, JSON and plots (memcgsim report --help)\n"
	      "  oracle [OPTIONS]             the model against Linux 6.12 booted under QEMU\n"
	      "                               (memcgsim oracle --help)\n"
	      "\n"
	      "Deterministic runs print their schedule; '--schedule STR' (or MSIM_SCHEDULE=STR)\n"
	      "replays it exactly.\n",
	      f);
}

/* A JSON document on stdout, in the race printer's layout (", " and ": "). */
static void print_json_doc(json_t *doc)
{
	if (doc)
		json_dumpf(doc, stdout, JSON_PRESERVE_ORDER);
	json_decref(doc);
	putchar('\n');
}

static void print_variants_json(void)
{
	json_t *vars = json_array(), *presets = json_array();
	const struct msim_variant_desc *rows[MSIM_MAX_VARIANTS];
	unsigned int nrows = msim_variant_list(rows, MSIM_MAX_VARIANTS);

	for (unsigned int i = 0; i < nrows; i++) {
		const struct msim_variant_desc *d = rows[i];
		json_t *values = json_array();

		for (const char *const *v = d->values; *v; v++)
			json_array_append_new(values, json_string(*v));
		json_array_append_new(vars, json_pack("{s:s, s:o, s:s, s:s}", "name", d->name,
						      "values", values, "meaning", d->meaning,
						      "thread", d->thread));
	}
	for (const struct msim_preset_desc *p = msim_preset_table(); p->name; p++)
		json_array_append_new(presets, json_pack("{s:s, s:s}", "name", p->name,
							 "settings", p->settings));
	print_json_doc(json_pack("{s:o, s:o}", "variants", vars, "presets", presets));
}

static void print_variants(void)
{
	const struct msim_variant_desc *rows[MSIM_MAX_VARIANTS];
	unsigned int nrows = msim_variant_list(rows, MSIM_MAX_VARIANTS);

	for (unsigned int i = 0; i < nrows; i++) {
		const struct msim_variant_desc *d = rows[i];

		printf("%-18s ", d->name);
		for (const char *const *v = d->values; *v; v++)
			printf("%s%s", v == d->values ? "" : "|", *v);
		printf("  (thread %s)\n    %s\n", d->thread, d->meaning);
	}
	puts("\npresets:");
	for (const struct msim_preset_desc *p = msim_preset_table(); p->name; p++)
		printf("  %-12s %s%s%s\n", p->name, p->meaning, *p->settings ? ": " : "",
		       p->settings);
}

static void print_races(bool json)
{
	const struct msim_race *s[64];
	const struct bench_engine *b[32];
	size_t ns = msim_race_list(s, 64), nb = bench_list(b, 32);

	if (json) {
		json_t *races = json_array(), *benches = json_array();

		for (size_t i = 0; i < ns; i++)
			json_array_append_new(races, json_string(s[i]->name));
		for (size_t i = 0; i < nb; i++)
			json_array_append_new(benches, json_string(b[i]->name));
		print_json_doc(json_pack("{s:o, s:o}", "races", races, "benches", benches));
		return;
	}
	puts("races:");
	for (size_t i = 0; i < ns; i++)
		printf("  %-28s [%s] %s\n", s[i]->name, s[i]->thread, s[i]->summary);
	puts("benches:");
	for (size_t i = 0; i < nb; i++)
		printf("  %-28s %s\n", b[i]->name, b[i]->summary);
}

static int cmd_list(int argc, char **argv)
{
	bool variants = false, json = false, markdown = false, layers = false;
	const struct bench_arg opts[] = {
		BENCH_OPT_HELP(),
		BENCH_OPT_FLAG("--variants", &variants, "the variant table and presets, not the races"),
		BENCH_OPT_FLAG("--json", &json, "one JSON object"),
		BENCH_OPT_FLAG("--markdown", &markdown,
			      "docs/races.md: every race window and race, with its diagram"),
		BENCH_OPT_FLAG("--layers", &layers,
			      "docs/design.md's layer diagram, from the subsystem registry"),
		BENCH_OPT_END,
	};
	const struct bench_args spec = {
		.prog = "memcgsim list",
		.summary = "The race scenarios and benches, or the variants and presets.",
		.tables = { opts },
	};
	int ret = bench_args_parse_main(&spec, argc, argv);

	if (ret)
		return bench_args_exit_status(ret);
	if (markdown)
		return msim_cli_markdown(stdout) ? 1 : 0;
	if (layers)
		return msim_cli_layers(stdout) ? 1 : 0;
	if (variants && json)
		print_variants_json();
	else if (variants)
		print_variants();
	else
		print_races(json);
	return 0;
}

static int cmd_bench(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		const struct bench_engine *b[32];
		size_t n = bench_list(b, 32);
		fputs("usage: memcgsim bench NAME [ARGS]   (memcgsim bench NAME --help)\nbenches:\n",
		      argc < 2 ? stderr : stdout);
		for (size_t i = 0; i < n; i++)
			fprintf(argc < 2 ? stderr : stdout, "  %-24s %s\n", b[i]->name, b[i]->summary);
		return argc < 2 ? 2 : 0;
	}
	const struct bench_engine *b = bench_find(argv[1]);
	if (!b) {
		fprintf(stderr, "memcgsim: no bench named '%s' (memcgsim bench --help)\n", argv[1]);
		return 2;
	}
	return bench_run(b, argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		puts("memcgsim " MEMCGSIM_VERSION_STRING);
		return 0;
	}
	if (!strcmp(cmd, "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "race"))
		return msim_cli_race(argc - 1, argv + 1);
	if (!strcmp(cmd, "merge"))
		return msim_cli_merge(argc - 1, argv + 1);
	if (!strcmp(cmd, "bench"))
		return cmd_bench(argc - 1, argv + 1);
	if (!strcmp(cmd, "demo"))
		return msim_cli_demo(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return msim_cli_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "oracle"))
		return msim_cli_oracle(argc - 1, argv + 1);
	fprintf(stderr, "memcgsim: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
