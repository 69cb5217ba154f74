/* SPDX-License-Identifier: MIT */
/*
 * report_sweep.c - the x-points a plot needs beyond a bench's own run: the same
 * bench again through its own options, one run per point (root-flush with
 * --memcgs N for flush cost against active memcgs; shrinker-units with
 * --mounts N for slab per empty cgroup against the shrinker count). Each run is
 * `memcgsim bench NAME --json ... OPT N`, a child of this program, its JSON in
 * DIR/sweeps/NAME-N.json and its stderr in DIR/logs; run two at a time once
 * the benches are done, as the benches run (one process per core).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

static const struct sweep_def {
	const char *bench;
	const char *thread;
	const char *opt;          /* the option that sets the x-point */
	unsigned int full[8], quick[8];   /* 0-ended */
	const char *args[12];     /* what every run of the sweep adds (NULL-ended) */
} sweeps[] = {
	/* the bench's own run gives 128 (the thread's); one repetition per point */
	{ "root-flush", "002", "--memcgs", { 16, 32, 64, 192, 256 }, { 8, 32 },
	  { "--reps", "1", "--reads", "1000", NULL } },
	/* table 1's machine (1 node, 4 CPUs); the per-cgroup bytes do not depend on
	 * how many cgroups there are, so 20 stand for the thread's 2000 */
	{ "shrinker-units", "001", "--mounts", { 1000, 2500, 5000, 10000, 15000 },
	  { 2500, 5000 },
	  { "--cgroups", "20", "--nodes", "1", "--cpus", "4", "--reps", "1", NULL } },
	{ NULL },
};

/* One run started: fork, the child's stdout and stderr on files, exec this program. */
static pid_t start_point(const struct report *rep, unsigned int s, unsigned int x,
			 const char *json, const char *log)
{
	const char *argv[24];
	char xs[16];
	size_t n = 0;
	int out, err;
	pid_t pid;

	snprintf(xs, sizeof(xs), "%u", x);
	argv[n++] = "memcgsim";
	argv[n++] = "bench";
	argv[n++] = sweeps[s].bench;
	argv[n++] = "--json";
	if (rep->quick)
		argv[n++] = "--quick";
	for (unsigned int k = 0; sweeps[s].args[k]; k++)
		argv[n++] = sweeps[s].args[k];
	argv[n++] = sweeps[s].opt;
	argv[n++] = xs;
	argv[n] = NULL;
	pid = fork();
	if (!pid) {
		out = open(json, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		err = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(127);
		execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	return pid;
}

/* One point of sweep s: its files, its process (pid -1: not started). */
struct point {
	unsigned int s, x;
	char json[REPORT_PATH_MAX], log[REPORT_PATH_MAX];
	pid_t pid;
	double started;
};

static int point_start(struct report *rep, struct point *pt)
{
	char rel[REPORT_NAME_MAX];

	pt->pid = -1;
	pt->started = report_now();
	snprintf(rel, sizeof(rel), "sweeps/%s-%u.json", sweeps[pt->s].bench, pt->x);
	if (!report_path(rep, rel, pt->json, sizeof(pt->json)))
		return 1;
	snprintf(rel, sizeof(rel), "logs/sweep-%s-%u.log", sweeps[pt->s].bench, pt->x);
	if (!report_path(rep, rel, pt->log, sizeof(pt->log)))
		return 1;
	pt->pid = start_point(rep, pt->s, pt->x, pt->json, pt->log);
	return pt->pid < 0;
}

/* Wait for a started point; its JSON read back into the next sweep entry. */
static int point_finish(struct report *rep, struct point *pt)
{
	const struct sweep_def *sw_def = &sweeps[pt->s];
	struct report_sweep *sw;
	int status;

	if (waitpid(pt->pid, &status, 0) != pt->pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		report_progress(rep, "sweep %s %s %u FAILED (%s)", sw_def->bench, sw_def->opt,
				pt->x, pt->log);
		return 1;
	}
	if (rep->nr_sweeps == REPORT_MAX_SWEEPS)
		return 1;
	sw = &rep->sweeps[rep->nr_sweeps];
	memset(sw, 0, sizeof(*sw));
	sw->doc = json_load_file(pt->json, 0, NULL);
	if (!sw->doc)
		return 1;
	sw->bench = sw_def->bench;
	sw->x = pt->x;
	rep->nr_sweeps++;
	report_progress(rep, "sweep %s %s %u done in %.1f s", sw_def->bench, sw_def->opt, pt->x,
			report_now() - pt->started);
	return 0;
}

/* Every point, in order: the sweep and its x-point. */
static unsigned int points_of(const struct report *rep, struct point *pts, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int s = 0; sweeps[s].bench; s++) {
		const unsigned int *xs = rep->quick ? sweeps[s].quick : sweeps[s].full;

		if (!report_wants(rep, sweeps[s].thread))
			continue;
		for (unsigned int i = 0; i < 8 && xs[i] && n < max; i++)
			pts[n++] = (struct point){ .s = s, .x = xs[i] };
	}
	return n;
}

/*
 * Two points at a time, as the benches run (one per core of this 2-core
 * machine): a pair started, then both waited for, so their entries keep the
 * points' order.
 */
int report_sweeps(struct report *rep)
{
	struct point *pts = calloc(REPORT_MAX_SWEEPS, sizeof(*pts));
	unsigned int n;
	int failed = 0;

	if (!pts)
		return 1;
	n = points_of(rep, pts, REPORT_MAX_SWEEPS);
	for (unsigned int i = 0; i < n; i += 2) {
		int bad[2] = { 0, 0 };

		for (unsigned int k = i; k < n && k < i + 2; k++)
			bad[k - i] = point_start(rep, &pts[k]);
		for (unsigned int k = i; k < n && k < i + 2; k++) {
			if (bad[k - i]) {
				report_progress(rep, "sweep %s %s %u: not started",
						sweeps[pts[k].s].bench, sweeps[pts[k].s].opt,
						pts[k].x);
				failed++;
				continue;
			}
			failed += point_finish(rep, &pts[k]);
		}
	}
	free(pts);
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
