/* SPDX-License-Identifier: MIT */
/*
 * report.c - `memcgsim report [--out DIR] [--quick] [--thread N]`: the command,
 * its options, and the order of the work (report.h has the shape).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "bench_args.h"
#include "report.h"

double report_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void report_progress(const struct report *rep, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "[report %5.1f s] ", report_now() - rep->started);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

const char *report_path(const struct report *rep, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", rep->out, name);

	if (n < 0 || (size_t)n >= len) {
		buf[0] = '\0';
		report_progress(rep, "%s/%s: path too long (over %zu bytes); not written",
				rep->out, name, len - 1);
		return NULL;
	}
	return buf;
}

bool report_wants(const struct report *rep, const char *thread)
{
	return !rep->only_thread || !strcmp(rep->only_thread, thread);
}

/* DIR and its folders; an existing DIR is reused (its files are overwritten). */
static int make_dirs(const struct report *rep)
{
	static const char *const sub[] = { "", "plots", "logs", "traces", "sweeps", NULL };
	char path[REPORT_PATH_MAX];

	for (unsigned int i = 0; sub[i]; i++) {
		if (!report_path(rep, sub[i], path, sizeof(path)))
			return -ENAMETOOLONG;
		if (mkdir(path, 0777) && errno != EEXIST) {
			fprintf(stderr, "memcgsim report: cannot create %s: %s\n", path,
				strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/* gnuplot on PATH, and its version line (the report says which drew the plots). */
static void find_gnuplot(struct report *rep)
{
	FILE *p = popen("gnuplot --version 2>/dev/null", "r");

	rep->gnuplot = false;
	if (!p)
		return;
	if (fgets(rep->gnuplot_version, sizeof(rep->gnuplot_version), p))
		rep->gnuplot = !strncmp(rep->gnuplot_version, "gnuplot", 7);
	rep->gnuplot_version[strcspn(rep->gnuplot_version, "\n")] = '\0';
	pclose(p);
}

/* --thread N: "4", "04" and "004" name thread 004; "other" the model's own. */
static int parse_thread(const char *value, void *dest, char *err, size_t errlen)
{
	static char id[8];
	char *end;
	long n = strtol(value, &end, 10);

	if (!strcmp(value, REPORT_OTHER)) {
		snprintf(id, sizeof(id), "%s", REPORT_OTHER);
	} else if (*value && !*end && n >= 0 && n <= 999) {
		snprintf(id, sizeof(id), "%03ld", n);
	} else {
		snprintf(err, errlen, "--thread: '%s' is not a thread number (000-999) or 'other'",
			 value);
		return -EINVAL;
	}
	for (const struct report_thread *t = report_threads; t->id; t++) {
		if (!strcmp(t->id, id)) {
			*(const char **)dest = id;
			return 0;
		}
	}
	snprintf(err, errlen, "--thread: the report knows no thread %s (000, 001, 002, 004, other)",
		 id);
	return -EINVAL;
}

/*
 * --out DIR: not empty (which would write into "/"), and short enough that
 * DIR/NAME fits for every NAME the report writes.
 */
static int parse_out(const char *value, void *dest, char *err, size_t errlen)
{
	size_t n = strlen(value);

	if (!n) {
		snprintf(err, errlen, "the directory name is empty (say --out . for the "
			 "current directory)");
		return -EINVAL;
	}
	if (n + 1 + REPORT_NAME_MAX >= REPORT_PATH_MAX) {
		snprintf(err, errlen, "the directory name is %zu bytes; the report's "
			 "file names under it need it under %d", n,
			 REPORT_PATH_MAX - 1 - REPORT_NAME_MAX);
		return -ENAMETOOLONG;
	}
	*(const char **)dest = value;
	return 0;
}

static int parse_report_args(struct report *rep, int argc, char **argv)
{
	const struct bench_arg opts[] = {
		BENCH_OPT_HELP(),
		BENCH_OPT_CALL("--out", "DIR", parse_out, &rep->out,
			       "where the report goes (default memcgsim-report; created; not\n"
			      "empty, under 3935 bytes)"),
		BENCH_OPT_FLAG("--quick", &rep->quick,
			       "every bench with --quick and small explorer budgets (a smoke run,\n"
			      "under 20 s; its figures are not the thread's sizes)"),
		BENCH_OPT_CALL("--thread", "N", parse_thread, &rep->only_thread,
			       "only thread N (000, 001, 002, 004) or 'other' (the model's own)"),
		BENCH_OPT_END,
	};
	const struct bench_args spec = {
		.prog = "memcgsim report",
		.summary = "Every bench and race of the threads, in one report.",
		.description =
			"Runs every registered bench (memcgsim bench NAME --json, two at a time)\n"
			"and every race (each side scripted, the explorers on each side, a trace\n"
			"of the bug side), then the extra x-points its plots need (DIR/sweeps),\n"
			"and writes DIR/index.html and DIR/report.md (per thread: what it claims,\n"
			"a table of its answers: each claim with the thread's figure, ours, the\n"
			"verdict and the command that reproduces it, each race side in its own\n"
			"words; what does not hold and why; its plots; then every bench and race\n"
			"in full), DIR/*.json (every figure), DIR/plots (gnuplot SVG and PNG, with\n"
			"their data), DIR/traces (Chrome trace JSON) and DIR/logs. Without gnuplot\n"
			"the plots' data is still written and the report says why there is no\n"
			"picture.\n"
			"Progress goes to stderr. Exit 0 when every bench and race ran, 1 when one\n"
			"failed (the report still shows the rest), 2 on a usage error.",
		.tables = { opts },
	};

	return bench_args_parse_main(&spec, argc, argv);
}

/* CPU time of this process and of its reaped children (the benches), in seconds. */
static double cpu_used(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
			kids.ru_stime.tv_sec) +
	       (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
			kids.ru_stime.tv_usec) / 1e6;
}

/* CPU time of this process alone, in seconds. */
static double self_cpu(void)
{
	struct rusage self;

	getrusage(RUSAGE_SELF, &self);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
	       (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
}

/* The races, in this process while the benches run: their part's wall and CPU time. */
static int races_timed(struct report *rep)
{
	double t0 = report_now(), c0 = self_cpu();
	int failed = report_run_races(rep);

	rep->races_seconds = report_now() - t0;
	rep->races_cpu_seconds = self_cpu() - c0;
	report_progress(rep, "races: %u in %.1f s (%.1f s of CPU in this process)",
			rep->nr_races, rep->races_seconds, rep->races_cpu_seconds);
	return failed;
}

static void report_free(struct report *rep)
{
	for (unsigned int i = 0; i < rep->nr_benches; i++)
		json_decref(rep->benches[i].doc);
	for (unsigned int i = 0; i < rep->nr_races; i++)
		json_decref(rep->races[i].doc);
	for (unsigned int i = 0; i < rep->nr_sweeps; i++)
		json_decref(rep->sweeps[i].doc);
}

int msim_cli_report(int argc, char **argv)
{
	struct report *rep = calloc(1, sizeof(*rep));
	int ret, failed;

	if (!rep)
		return 1;
	rep->out = "memcgsim-report";
	ret = parse_report_args(rep, argc, argv);
	if (ret) {
		free(rep);
		return bench_args_exit_status(ret);
	}
	rep->started = report_now();
	if (getloadavg(&rep->load_before, 1) != 1)
		rep->load_before = -1;
	if (make_dirs(rep)) {
		free(rep);
		return 1;
	}
	find_gnuplot(rep);
	report_progress(rep, "writing to %s%s; %s", rep->out, rep->quick ? " (--quick)" : "",
			rep->gnuplot ? rep->gnuplot_version : "gnuplot not found: no pictures");
	report_benches_start(rep);
	failed = races_timed(rep);
	failed += report_benches_finish(rep);
	failed += report_sweeps_collect(rep);
	report_plots(rep);
	rep->seconds = report_now() - rep->started;
	rep->cpu_seconds = cpu_used();
	ret = report_write_docs(rep);
	if (ret)
		report_progress(rep, "FAILED: the documents under %s were not all written",
				rep->out);
	else
		report_progress(rep, "done: %s/index.html and %s/report.md (%u benches, %u "
				"races, %u plots)", rep->out, rep->out, rep->nr_benches,
				rep->nr_races, rep->nr_plots);
	report_free(rep);
	free(rep);
	return ret || failed ? 1 : 0;
}
