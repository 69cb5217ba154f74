/* SPDX-License-Identifier: MIT */
/*
 * merge.c - `memcgsim merge [--json] [FILE...]`: the JSON lines that
 * `memcgsim race NAME --shard I/N --json` printed, one per shard, from any
 * machines, combined into the result one process would have printed
 * (msim_race_merge): the same runs, violations, first violation and replay
 * string. Each line is read by msim_race_shard_from_json(), which checks it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "cli.h"

#define MAX_PARTS 65536u

struct merge_cli {
	bool json;
	const char *files[256];
	unsigned int nfiles;
};

/* Append every JSON line of f (name for messages) to *parts. */
static int read_parts(FILE *f, const char *name, struct msim_race_result **parts, size_t *n,
		      char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned int lineno = 0;
	int ret = 0;

	ssize_t len;

	errno = 0;
	while (!ret && (len = getline(&line, &cap, f)) >= 0) {
		char why[400];

		lineno++;
		if (strspn(line, " \t\r\n") == (size_t)len)
			continue;
		if (*n >= MAX_PARTS) {
			snprintf(err, errlen, "%s:%u: too many shards", name, lineno);
			ret = -EINVAL;
			break;
		}
		parts[*n] = malloc(sizeof(**parts));
		if (!parts[*n])
			ret = -ENOMEM;
		else if ((ret = msim_race_shard_from_json(line, (size_t)len, parts[*n], why,
							  sizeof(why)))) {
			snprintf(err, errlen, "%s:%u: %s", name, lineno, why);
			free(parts[*n]);
		} else
			(*n)++;
	}
	/* A directory, a read error: the reason, not "no results". */
	if (!ret && ferror(f)) {
		ret = -(errno ? errno : EIO);
		snprintf(err, errlen, "%s: %s", name, strerror(-ret));
	}
	free(line);
	return ret;
}

static int read_files(const struct merge_cli *c, struct msim_race_result **parts, size_t *n,
		      char *err, size_t errlen)
{
	if (!c->nfiles)
		return read_parts(stdin, "<stdin>", parts, n, err, errlen);
	for (unsigned int i = 0; i < c->nfiles; i++) {
		FILE *f = strcmp(c->files[i], "-") ? fopen(c->files[i], "r") : stdin;
		int ret;

		if (!f) {
			snprintf(err, errlen, "%s: %s", c->files[i], strerror(errno));
			return -errno;
		}
		ret = read_parts(f, c->files[i], parts, n, err, errlen);
		if (f != stdin)
			fclose(f);
		if (ret)
			return ret;
	}
	return 0;
}

static int parse_merge_opts(int argc, char **argv, struct merge_cli *c)
{
	const struct bench_arg table[] = {
		BENCH_OPT_HELP(),
		BENCH_OPT_FLAG("--json", &c->json, "print one JSON object"),
		BENCH_OPT_END,
	};
	const struct bench_args spec = {
		.prog = "memcgsim merge",
		.operands_meta = "[FILE...]",
		.summary = "Merge the JSON results of every shard of one exploration\n"
			   "('memcgsim race NAME --shard I/N --json', one line each, from files\n"
			   "or standard input) into the result one process would have printed.\n"
			   "Exit: 0 as expected, 1 not, 2 bad input.",
		.tables = { table },
		.operands = c->files,
		.max_operands = 256,
		.nr_operands = &c->nfiles,
	};

	return bench_args_parse_main(&spec, argc, argv);
}

int msim_cli_merge(int argc, char **argv)
{
	struct merge_cli c = { 0 };
	struct msim_race_result **parts = calloc(MAX_PARTS, sizeof(*parts));
	struct msim_race_result *out = calloc(1, sizeof(*out));
	char err[512] = "";
	size_t n = 0;
	int ret = parse_merge_opts(argc, argv, &c);

	if (ret || !parts || !out) {
		free(parts);
		free(out);
		return ret ? bench_args_exit_status(ret) : 1;
	}
	ret = read_files(&c, parts, &n, err, sizeof(err));
	if (!ret)
		ret = msim_race_merge((const struct msim_race_result *const *)parts, n, out, err,
				      sizeof(err));
	if (ret) {
		/* the reason may quote a shard file: escaped, it cannot drive the terminal */
		fputs("memcgsim merge: ", stderr);
		msim_race_print_escaped(stderr, err);
		fputc('\n', stderr);
	}
	else if (c.json)
		msim_race_print_json(stdout, out);
	else
		msim_race_print_text(stdout, out);
	for (size_t i = 0; i < n; i++)
		free(parts[i]);
	ret = ret ? 2 : (out->behaved_as_expected ? 0 : 1);
	free(parts);
	free(out);
	return ret;
}
