/* SPDX-License-Identifier: MIT */
/*
 * report_sweep.c - the x-points a plot needs beyond a bench's own run: the same
 * bench again through its own options, one run per point (root-flush with
 * --memcgs N for flush cost against active memcgs; shrinker-units with
 * --mounts N for slab per empty cgroup against the shrinker count). Each run is
 * `memcgsim bench NAME --json ... OPT N`, a child of this program, its JSON in
 * DIR/sweeps/NAME-N.json and its stderr in DIR/logs; run in the benches' two
 * slots (report_run.c), longest first among them, so no core waits for a pair.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

extern char **environ;

static const struct sweep_def {
	const char *bench;
	const char *thread;
	const char *opt;          /* the option that sets the x-point */
	unsigned int full[8], quick[8];   /* 0-ended */
	const char *args[12];     /* what every run of the sweep adds (NULL-ended) */
	double cpu_per_x;         /* expected CPU seconds of a point per unit of x */
} sweeps[] = {
	/*
	 * The bench's own run gives 128 (the thread's); one repetition per point.
	 * The plot reads the active flush and the memcgs it flushed, never the
	 * call-site phase (bench_root_flush_sites.c), which is most of a run's
	 * time at 30 steps (9.6 s of CPU at 256 memcgs, 0.4 s at one step) and
	 * leaves the flush's figures as they are: one step.
	 */
	{ "root-flush", "002", "--memcgs", { 16, 32, 64, 192, 256 }, { 8, 32 },
	  { "--reps", "1", "--reads", "1000", "--site-steps", "1", NULL }, 0.002 },
	/* table 1's machine (1 node, 4 CPUs); the per-cgroup bytes do not depend on
	 * how many cgroups there are, so 20 stand for the thread's 2000 */
	{ "shrinker-units", "001", "--mounts", { 1000, 2500, 5000, 10000, 15000 },
	  { 2500, 5000 },
	  { "--cgroups", "20", "--nodes", "1", "--cpus", "4", "--reps", "1", NULL }, 0.00012 },
	{ NULL },
};

/* One point of sweep s: its files, its process, how it ended. */
struct point {
	unsigned int s, x;
	char json[REPORT_PATH_MAX], log[REPORT_PATH_MAX];
	double started, seconds;
	int status;               /* exit status, -1 when it did not start */
};

static struct point pts[REPORT_MAX_SWEEPS];
static unsigned int nr_pts;
static double first_start, last_end;

/* Every point, in order: the sweep and its x-point. */
unsigned int report_sweep_plan(struct report *rep)
{
	nr_pts = 0;
	rep->sweeps_seconds = rep->sweeps_cpu_seconds = 0;
	first_start = last_end = 0;
	for (unsigned int s = 0; sweeps[s].bench; s++) {
		const unsigned int *xs = rep->quick ? sweeps[s].quick : sweeps[s].full;

		if (!report_wants(rep, sweeps[s].thread))
			continue;
		for (unsigned int i = 0; i < 8 && xs[i] && nr_pts < REPORT_MAX_SWEEPS; i++)
			pts[nr_pts++] = (struct point){ .s = s, .x = xs[i], .status = -1 };
	}
	return nr_pts;
}

double report_sweep_cost(unsigned int i)
{
	return i < nr_pts ? sweeps[pts[i].s].cpu_per_x * pts[i].x : 0;
}

/* Point pt's argv: `memcgsim bench NAME --json [--quick] ARGS... OPT X`. */
static void point_argv(const struct report *rep, const struct point *pt, char *xs, size_t xlen,
		       const char **argv)
{
	size_t n = 0;

	snprintf(xs, xlen, "%u", pt->x);
	argv[n++] = "memcgsim";
	argv[n++] = "bench";
	argv[n++] = sweeps[pt->s].bench;
	argv[n++] = "--json";
	if (rep->quick)
		argv[n++] = "--quick";
	for (unsigned int k = 0; sweeps[pt->s].args[k]; k++)
		argv[n++] = sweeps[pt->s].args[k];
	argv[n++] = sweeps[pt->s].opt;
	argv[n++] = xs;
	argv[n] = NULL;
}

static int path_too_long(struct report *rep, const struct point *pt)
{
	report_progress(rep, "sweep %s %s %u: not started (the --out path is too long)",
			sweeps[pt->s].bench, sweeps[pt->s].opt, pt->x);
	return -ENAMETOOLONG;
}

int report_sweep_spawn(struct report *rep, unsigned int i, int *pid)
{
	struct point *pt = &pts[i];
	posix_spawn_file_actions_t fa;
	char rel[REPORT_NAME_MAX], xs[16];
	const char *argv[24];
	pid_t p;
	int ret;

	pt->started = report_now();
	if (!first_start)
		first_start = pt->started;
	snprintf(rel, sizeof(rel), "sweeps/%s-%u.json", sweeps[pt->s].bench, pt->x);
	if (!report_path(rep, rel, pt->json, sizeof(pt->json)))
		return path_too_long(rep, pt);
	snprintf(rel, sizeof(rel), "logs/sweep-%s-%u.log", sweeps[pt->s].bench, pt->x);
	if (!report_path(rep, rel, pt->log, sizeof(pt->log)))
		return path_too_long(rep, pt);
	point_argv(rep, pt, xs, sizeof(xs), argv);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, pt->json, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	posix_spawn_file_actions_addopen(&fa, 2, pt->log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	ret = posix_spawn(&p, "/proc/self/exe", &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret) {
		report_progress(rep, "sweep %s %s %u: not started (%s)", sweeps[pt->s].bench,
				sweeps[pt->s].opt, pt->x, strerror(ret));
		return -ret;
	}
	*pid = (int)p;
	return 0;
}

void report_sweep_reaped(struct report *rep, unsigned int i, int wstatus, double cpu)
{
	struct point *pt = &pts[i];
	const struct sweep_def *sw = &sweeps[pt->s];

	pt->seconds = report_now() - pt->started;
	pt->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	last_end = report_now();
	rep->sweeps_cpu_seconds += cpu;
	if (pt->status)
		report_progress(rep, "sweep %s %s %u FAILED (%s)", sw->bench, sw->opt, pt->x,
				pt->log);
	else
		report_progress(rep, "sweep %s %s %u done in %.1f s (%.1f s of CPU)", sw->bench,
				sw->opt, pt->x, pt->seconds, cpu);
}

/* Point pt's JSON read back into the next sweep entry: 0, or 1 when it failed. */
static int point_read(struct report *rep, const struct point *pt)
{
	struct report_sweep *sw;

	if (pt->status || rep->nr_sweeps == REPORT_MAX_SWEEPS)
		return 1;
	sw = &rep->sweeps[rep->nr_sweeps];
	memset(sw, 0, sizeof(*sw));
	sw->doc = json_load_file(pt->json, 0, NULL);
	if (!sw->doc) {
		report_progress(rep, "sweep %s %s %u: its JSON does not parse", sweeps[pt->s].bench,
				sweeps[pt->s].opt, pt->x);
		return 1;
	}
	sw->bench = sweeps[pt->s].bench;
	sw->x = pt->x;
	rep->nr_sweeps++;
	return 0;
}

int report_sweeps_collect(struct report *rep)
{
	int failed = 0;

	for (unsigned int i = 0; i < nr_pts; i++)
		failed += point_read(rep, &pts[i]);
	rep->sweeps_seconds = last_end > first_start ? last_end - first_start : 0;
	if (nr_pts)
		report_progress(rep, "sweeps: %u points, %.1f s from the first start to the last "
				"end, %.1f s of CPU", nr_pts, rep->sweeps_seconds,
				rep->sweeps_cpu_seconds);
	return failed;
}

const char *report_sweep_args(const char *bench, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int s = 0; sweeps[s].bench; s++) {
		if (strcmp(sweeps[s].bench, bench))
			continue;
		for (unsigned int k = 0; sweeps[s].args[k] && n < len; k++)
			n += (size_t)snprintf(buf + n, len - n, "%s ", sweeps[s].args[k]);
		if (n < len)
			snprintf(buf + n, len - n, "%s N", sweeps[s].opt);
	}
	return buf;
}
