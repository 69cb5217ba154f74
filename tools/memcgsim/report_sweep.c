/* SPDX-License-Identifier: MIT */
/*
 * report_sweep.c - the x-points a plot needs beyond a bench's own run: the same
 * bench again through its own options, one run per point (root-flush with
 * --memcgs N for flush cost against active memcgs; shrinker-units with
 * --mounts N for slab per empty cgroup against the shrinker count). Each run is
 * `memcgsim bench NAME --json ... OPT N`, a child of this program, its JSON in
 * DIR/sweeps/NAME-N.json and its stderr in DIR/logs; run one after another once
 * the benches are done, so they never share the CPUs with a timed bench.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

static const struct {
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

/* One run: fork, the child's stdout and stderr on files, exec this program. */
static int run_point(struct report *rep, unsigned int s, unsigned int x, const char *json,
		     const char *log)
{
	const char *argv[24];
	char xs[16];
	size_t n = 0;
	int status, out, err;
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
	if (pid < 0)
		return -1;
	if (!pid) {
		out = open(json, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		err = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
			_exit(127);
		execv("/proc/self/exe", (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

static int sweep_one(struct report *rep, unsigned int s, unsigned int x)
{
	char rel[REPORT_NAME_MAX], json[REPORT_PATH_MAX], log[REPORT_PATH_MAX];
	struct report_sweep *sw;
	double t0 = report_now();

	if (rep->nr_sweeps == REPORT_MAX_SWEEPS)
		return 1;
	sw = &rep->sweeps[rep->nr_sweeps];
	memset(sw, 0, sizeof(*sw));
	snprintf(rel, sizeof(rel), "sweeps/%s-%u.json", sweeps[s].bench, x);
	if (!report_path(rep, rel, json, sizeof(json)))
		return 1;
	snprintf(rel, sizeof(rel), "logs/sweep-%s-%u.log", sweeps[s].bench, x);
	if (!report_path(rep, rel, log, sizeof(log)))
		return 1;
	if (run_point(rep, s, x, json, log)) {
		report_progress(rep, "sweep %s %s %u FAILED (%s)", sweeps[s].bench, sweeps[s].opt, x,
				log);
		return 1;
	}
	sw->doc = json_load_file(json, 0, NULL);
	if (!sw->doc)
		return 1;
	sw->bench = sweeps[s].bench;
	sw->x = x;
	rep->nr_sweeps++;
	report_progress(rep, "sweep %s %s %u done in %.1f s", sweeps[s].bench, sweeps[s].opt, x,
			report_now() - t0);
	return 0;
}

int report_sweeps(struct report *rep)
{
	int failed = 0;

	for (unsigned int s = 0; sweeps[s].bench; s++) {
		const unsigned int *xs = rep->quick ? sweeps[s].quick : sweeps[s].full;

		if (!report_wants(rep, sweeps[s].thread))
			continue;
		for (unsigned int i = 0; i < 8 && xs[i]; i++)
			failed += sweep_one(rep, s, xs[i]);
	}
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
