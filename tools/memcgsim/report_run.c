/* SPDX-License-Identifier: MIT */
/*
 * report_run.c - the benches of `memcgsim report`: every registered bench as a
 * child process of this program (`memcgsim bench NAME --json [--quick]`), two at
 * a time, its JSON on DIR/bench-NAME.json and its stderr in DIR/logs; then every
 * JSON read back with Jansson.
 *
 * The full report splits explore, the longest bench by far, into two processes
 * that take its cases one at a time from a shared counter (bench explore
 * --share), started first so the other benches fill the slots behind them; the
 * parts' JSON merge into bench-explore.json (bench_ex_merge), and its time is
 * the first part's start to the last part's end, its CPU time the parts' sum.
 * The sweeps' points (report_sweep.c) queue with the benches, longest first.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_explore.h"
#include "report.h"

extern char **environ;

/*
 * Options the report adds for a bench whose own sizes do not fit its budget
 * (the whole report in under 120 s on 2 cores, --quick under 20 s): the
 * documents print them beside the bench's figures.
 * node-read-drift: its default is 10 virtual seconds on the thread's 80 CPUs
 * plus a PCT schedule, minutes on this machine. The full report keeps 80 CPUs
 * and the schedule but runs 3 s (one 2 s periodic-flush window and a second);
 * --quick takes 8 CPUs and no seeded schedule, so there its schedule verdicts
 * are "not comparable", and say why.
 */
static const struct {
	const char *bench;
	const char *full[6];
	const char *quick[6];
} size_args[] = {
	{ "node-read-drift", { "--seconds", "3", NULL },
	  { "--cpus", "8", "--schedules", "0", NULL } },
	/*
	 * explore: random and PCT decide none of its verdicts (DPOR against DFS)
	 * and ran every fixed side's whole budget; the report keeps the rest.
	 */
	{ "explore", { "--verdicts-only", NULL }, { NULL } },
	{ NULL },
};

/*
 * A bench the full report runs as several processes sharing its cases (only
 * explore knows how: --share, then bench_ex_merge).
 */
#define EXPLORE_PARTS 2
/*
 * The fixed sides whose stated DPOR count is at least this run as two pieces
 * in the parts, DPOR and DFS with twice the count, side by side (bench explore
 * --split-over): on this tree zswap-shrink-vs-offline's fixed side (169576)
 * and rstat-thp-trace's bpf-forced (93024), each a chain of DPOR then DFS
 * longer than any other case. Where DPOR's count turns out other than the
 * stated one, the counts are still one process's: below it the DFS piece's
 * first 2C schedules answer, above it the DPOR piece runs the check itself
 * (bench_explore_share.c).
 */
#define EXPLORE_SPLIT_OVER "50000"

enum job_kind { JOB_BENCH, JOB_PART, JOB_SWEEP };

/* What the slots run: a bench whole, one part of explore, or a sweep's point. */
struct job {
	enum job_kind kind;
	unsigned int bench;       /* JOB_BENCH, JOB_PART: the bench */
	int part;                 /* JOB_PART: which */
	unsigned int point;       /* JOB_SWEEP: report_sweep_plan's index */
	double cost;              /* expected CPU seconds, for the order */
};

static struct job jobs[REPORT_MAX_BENCHES + EXPLORE_PARTS + REPORT_MAX_SWEEPS];
static unsigned int nr_jobs;
static unsigned int parts_left[REPORT_MAX_BENCHES];
static char share_path[512];

static bool split(const struct report *rep, const struct report_bench *rb)
{
	return !rep->quick && !strcmp(rb->b->name, "explore");
}

/* Part k's file beside the whole's: DIR/logs/bench-explore.partK.json or .log. */
static void part_path(const struct report *rep, const struct report_bench *rb, int k,
		      const char *ext, char *buf, size_t len)
{
	char name[160];

	snprintf(name, sizeof(name), "logs/bench-%s.part%d.%s", rb->b->name, k, ext);
	report_path(rep, name, buf, len);
}

const char *report_bench_size_args(const struct report *rep, const char *bench, char *buf,
				   size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; size_args[i].bench; i++) {
		const char *const *a = rep->quick ? size_args[i].quick : size_args[i].full;

		if (strcmp(size_args[i].bench, bench))
			continue;
		for (unsigned int k = 0; a[k] && n < len; k++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? " " : "", a[k]);
	}
	return buf;
}

static void bench_argv(const struct report *rep, const struct report_bench *rb, int part,
		       const char **argv, size_t max)
{
	size_t n = 0;

	argv[n++] = "memcgsim";
	argv[n++] = "bench";
	argv[n++] = rb->b->name;
	argv[n++] = "--json";
	if (rep->quick)
		argv[n++] = "--quick";
	for (unsigned int i = 0; size_args[i].bench; i++) {
		const char *const *a = rep->quick ? size_args[i].quick : size_args[i].full;

		if (strcmp(size_args[i].bench, rb->b->name))
			continue;
		for (unsigned int k = 0; a[k] && n + 1 < max; k++)
			argv[n++] = a[k];
	}
	if (part >= 0 && n + 6 < max) {   /* one of the processes sharing the cases */
		argv[n++] = "--share";
		argv[n++] = share_path;
		argv[n++] = "--split-over";
		argv[n++] = EXPLORE_SPLIT_OVER;
		/*
		 * Its DFS under each race's budget is the run the report's races
		 * make on every side (same budget, bound and order) when the report
		 * runs them all: the merge takes theirs (explore_dfs_source).
		 */
		if (!rep->only_thread)
			argv[n++] = "--defer-dfs";
	}
	argv[n] = NULL;
}

/* Spawn sweep job j into a free slot. */
static void spawn_sweep(struct report *rep, unsigned int slot, unsigned int j)
{
	int pid;

	if (report_sweep_spawn(rep, jobs[j].point, &pid))
		return;   /* its status stays -1: collect counts it failed */
	rep->running[slot] = (int)j;
	rep->pids[slot] = pid;
}

/* Spawn job j into a free slot; its stdout and stderr go to its two files. */
static void spawn_job(struct report *rep, unsigned int slot, unsigned int j)
{
	struct report_bench *rb = &rep->benches[jobs[j].bench];
	int part = jobs[j].kind == JOB_PART ? jobs[j].part : -1;
	posix_spawn_file_actions_t fa;
	char json[512], log[512];
	const char *argv[16];
	pid_t pid;
	int ret;

	if (jobs[j].kind == JOB_SWEEP) {
		spawn_sweep(rep, slot, j);
		return;
	}
	if (part >= 0) {
		part_path(rep, rb, part, "json", json, sizeof(json));
		part_path(rep, rb, part, "log", log, sizeof(log));
	}
	bench_argv(rep, rb, part, argv, 16);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, part >= 0 ? json : rb->json_path,
					 O_WRONLY | O_CREAT | O_TRUNC, 0666);
	posix_spawn_file_actions_addopen(&fa, 2, part >= 0 ? log : rb->log_path,
					 O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (part <= 0)
		rb->started = report_now();
	ret = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret) {
		rb->status = -1;
		if (part >= 0)
			parts_left[jobs[j].bench]--;
		report_progress(rep, "bench %s: cannot start (%s)", rb->b->name, strerror(ret));
		return;
	}
	rep->running[slot] = (int)j;
	rep->pids[slot] = pid;
	if (part >= 0)
		report_progress(rep, "bench %s part %d of %d started", rb->b->name, part + 1,
				EXPLORE_PARTS);
	else
		report_progress(rep, "bench %s started (%u/%u)", rb->b->name,
				jobs[j].bench + 1, rep->nr_benches);
}

static void fill_slots(struct report *rep)
{
	for (unsigned int s = 0; s < 2; s++)
		while (rep->running[s] < 0 && rep->next_bench < nr_jobs) {
			spawn_job(rep, s, rep->next_bench++);
		}
}

/*
 * The CPU seconds a full report's bench took (run preset, measured in
 * docs/benches.md), for the order benches start in: the longest first, so
 * that the last to end is a short one and neither slot idles long while the
 * other finishes. A bench missing here (a new one) starts after these, in
 * registry order. Only the order depends on it, never a figure.
 */
static const struct {
	const char *bench;
	double cpu_s;
} expected_cpu[] = {
	{ "shrinker-units", 43 },       { "explore-rate", 14 }, { "scale", 7 },
	{ "anon-churn", 5 },            { "root-flush", 4 }, { "thrashing-protection", 3 },
	{ "rstat-propagate", 2.4 },     { "update-cost", 1.9 }, { "node-read-drift", 1.1 },
	{ NULL, 0 },
};

static double expected_cost(const struct report_bench *rb)
{
	for (unsigned int i = 0; expected_cpu[i].bench; i++)
		if (!strcmp(expected_cpu[i].bench, rb->b->name))
			return expected_cpu[i].cpu_s;
	return 0;
}

/*
 * The jobs in the order they start: split benches' parts first, then the other
 * benches and the sweeps' points, longest first.
 */
static void plan_jobs(struct report *rep)
{
	unsigned int first, points = report_sweep_plan(rep);

	nr_jobs = 0;
	for (unsigned int i = 0; i < rep->nr_benches; i++) {
		parts_left[i] = 0;
		if (!split(rep, &rep->benches[i]))
			continue;
		for (int k = 0; k < EXPLORE_PARTS; k++)
			jobs[nr_jobs++] = (struct job){ .kind = JOB_PART, .bench = i, .part = k };
		parts_left[i] = EXPLORE_PARTS;
		rep->benches[i].cpu_seconds = 0;
	}
	first = nr_jobs;
	for (unsigned int i = 0; i < rep->nr_benches; i++)
		if (!split(rep, &rep->benches[i]))
			jobs[nr_jobs++] = (struct job){ .kind = JOB_BENCH, .bench = i,
							.cost = expected_cost(&rep->benches[i]) };
	for (unsigned int p = 0; p < points; p++)
		jobs[nr_jobs++] = (struct job){ .kind = JOB_SWEEP, .point = p,
						.cost = report_sweep_cost(p) };
	for (unsigned int i = first + 1; i < nr_jobs; i++)   /* insertion sort: stable */
		for (unsigned int k = i; k > first && jobs[k].cost > jobs[k - 1].cost; k--) {
			struct job t = jobs[k];

			jobs[k] = jobs[k - 1];
			jobs[k - 1] = t;
		}
}

/* The counter the parts share starts at case 0: an empty file. */
static void share_reset(struct report *rep)
{
	int fd;

	report_path(rep, "logs/explore.cases", share_path, sizeof(share_path));
	fd = open(share_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd >= 0)
		close(fd);
}

void report_benches_start(struct report *rep)
{
	const struct bench_engine *b[REPORT_MAX_BENCHES];
	size_t n = bench_list(b, REPORT_MAX_BENCHES);
	char name[160];

	rep->running[0] = rep->running[1] = -1;
	for (size_t i = 0; i < n && i < REPORT_MAX_BENCHES; i++) {
		struct report_bench *rb = &rep->benches[rep->nr_benches];

		memset(rb, 0, sizeof(*rb));
		rb->b = b[i];
		report_thread_of(b[i]->summary, rb->thread, sizeof(rb->thread));
		if (!report_wants(rep, rb->thread))
			continue;
		snprintf(name, sizeof(name), "bench-%s.json", b[i]->name);
		report_path(rep, name, rb->json_path, sizeof(rb->json_path));
		snprintf(name, sizeof(name), "logs/bench-%s.log", b[i]->name);
		report_path(rep, name, rb->log_path, sizeof(rb->log_path));
		rep->nr_benches++;
	}
	rep->next_bench = 0;
	share_reset(rep);
	plan_jobs(rep);
	fill_slots(rep);
}

/*
 * A race side's DFS result (report_races.c: the race's budget, stopping at the
 * first violation) as explore's DFS cell. On a fixed side explore runs on past
 * a violation, so a fixed side that had one is not the same run: -ENOENT, and
 * the merge runs explore's own.
 */
static int report_dfs_cell(json_t *ex, bool bug, struct bench_ex_cell *out)
{
	json_int_t violations = json_integer_value(json_object_get(ex, "violations"));

	if ((!bug && violations) || json_is_true(json_object_get(ex, "env_replay")) ||
	    json_is_true(json_object_get(ex, "no_verdict")))
		return -ENOENT;
	*out = (struct bench_ex_cell){
		.runs = (unsigned int)json_integer_value(json_object_get(ex, "runs")),
		.found = violations > 0,
		.exhausted = json_is_true(json_object_get(ex, "exhausted")),
		.seconds = json_number_value(json_object_get(ex, "seconds")),
	};
	return 0;
}

/* The races' DFS run on race/side, as explore's cell (report_races.c ran it). */
static int explore_dfs_source(void *arg, const char *race, const char *side, bool bug,
			      struct bench_ex_cell *out)
{
	const struct report *rep = arg;

	for (unsigned int i = 0; i < rep->nr_races; i++) {
		const struct report_race *rr = &rep->races[i];
		json_t *sides = json_object_get(rr->doc, "sides"), *sd, *ex;
		size_t k, e;

		if (strcmp(rr->r->name, race))
			continue;
		json_array_foreach(sides, k, sd) {
			if (strcmp(json_string_value(json_object_get(sd, "side")) ?: "", side))
				continue;
			json_array_foreach(json_object_get(sd, "explore"), e, ex)
				if (!strcmp(json_string_value(json_object_get(ex, "strategy")) ?: "",
					    "dfs"))
					return report_dfs_cell(ex, bug, out);
		}
	}
	return -ENOENT;
}

/* Every part of bench i ended: their JSON merged into the bench's own. */
static void parts_merge(struct report *rep, unsigned int i)
{
	const struct bench_ex_dfs_source src = { explore_dfs_source, rep };
	struct report_bench *rb = &rep->benches[i];
	char paths[EXPLORE_PARTS][512], err[512] = "";
	const char *p[EXPLORE_PARTS];
	struct bench_ex_result *r;
	FILE *f;

	if (rb->status)
		return;
	for (int k = 0; k < EXPLORE_PARTS; k++) {
		part_path(rep, rb, k, "json", paths[k], sizeof(paths[k]));
		p[k] = paths[k];
	}
	r = calloc(1, sizeof(*r));
	if (!r || bench_ex_merge_from(p, EXPLORE_PARTS, &src, r, err, sizeof(err)) ||
	    !(f = fopen(rb->json_path, "w"))) {
		report_progress(rep, "bench %s: its parts do not merge (%s)", rb->b->name,
				*err ? err : strerror(errno));
		rb->status = 1;
		free(r);
		return;
	}
	bench_ex_print_json(f, r);
	fclose(f);
	free(r);
}

static void reaped(struct report *rep, unsigned int slot, int wstatus, const struct rusage *ru)
{
	const struct job *jb = &jobs[rep->running[slot]];
	struct report_bench *rb = &rep->benches[jb->bench];
	double cpu = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 +
		     (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
	int status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);

	rep->running[slot] = -1;
	if (jb->kind == JOB_SWEEP) {
		report_sweep_reaped(rep, jb->point, wstatus, cpu);
		return;
	}
	rb->seconds = report_now() - rb->started;
	if (jb->kind == JOB_BENCH) {
		rb->cpu_seconds = cpu;
		rb->status = status;
	} else {
		rb->cpu_seconds += cpu;
		rb->status = rb->status ? rb->status : status;
		report_progress(rep, "bench %s part %d %s in %.1f s (%.1f s of CPU)", rb->b->name,
				jb->part + 1, status ? "FAILED" : "done", rb->seconds, cpu);
		if (--parts_left[jb->bench])
			return;   /* merged once the races are done (report_benches_finish) */
	}
	report_progress(rep, "bench %s %s in %.1f s (%.1f s of CPU)", rb->b->name,
			rb->status ? "FAILED" : "done", rb->seconds, rb->cpu_seconds);
}

/* Reap the benches that ended (waiting for one when block), then refill the slots. */
static void poll_slots(struct report *rep, bool block)
{
	struct rusage ru;
	int wstatus;
	pid_t pid;

	while ((rep->running[0] >= 0 || rep->running[1] >= 0) &&
	       (pid = wait4(-1, &wstatus, block ? 0 : WNOHANG, &ru)) > 0) {
		for (unsigned int s = 0; s < 2; s++)
			if (rep->running[s] >= 0 && rep->pids[s] == pid)
				reaped(rep, s, wstatus, &ru);
		block = false;
	}
	fill_slots(rep);
}

void report_benches_poll(struct report *rep)
{
	poll_slots(rep, false);
}

/* The bench's JSON read back; a bench that failed keeps doc NULL. */
static int read_back(struct report *rep, struct report_bench *rb)
{
	json_error_t jerr;

	if (rb->status)
		return 1;
	rb->doc = json_load_file(rb->json_path, 0, &jerr);
	if (!rb->doc) {
		report_progress(rep, "bench %s: its JSON does not parse (%s, line %d)",
				rb->b->name, jerr.text, jerr.line);
		return 1;
	}
	return 0;
}

int report_benches_finish(struct report *rep)
{
	int failed = 0;

	while (rep->running[0] >= 0 || rep->running[1] >= 0 || rep->next_bench < nr_jobs)
		poll_slots(rep, true);
	for (unsigned int i = 0; i < rep->nr_benches; i++) {
		if (split(rep, &rep->benches[i]))
			parts_merge(rep, i);
		failed += read_back(rep, &rep->benches[i]);
	}
	return failed;
}
