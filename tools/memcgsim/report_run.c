/* SPDX-License-Identifier: MIT */
/*
 * report_run.c - the benches of `memcgsim report`: every registered bench as a
 * child process of this program (`memcgsim bench NAME --json [--quick]`), two at
 * a time, its JSON on DIR/bench-NAME.json and its stderr in DIR/logs; then every
 * JSON read back with Jansson.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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
	{ NULL },
};

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

static void bench_argv(const struct report *rep, const struct report_bench *rb,
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
	argv[n] = NULL;
}

/* Spawn bench i into a free slot; its stdout and stderr go to its two files. */
static void spawn_bench(struct report *rep, unsigned int slot, unsigned int i)
{
	struct report_bench *rb = &rep->benches[i];
	posix_spawn_file_actions_t fa;
	const char *argv[16];
	pid_t pid;
	int ret;

	bench_argv(rep, rb, argv, 16);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, rb->json_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	posix_spawn_file_actions_addopen(&fa, 2, rb->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	rb->started = report_now();
	ret = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret) {
		rb->status = -1;
		report_progress(rep, "bench %s: cannot start (%s)", rb->b->name, strerror(ret));
		return;
	}
	rep->running[slot] = (int)i;
	rep->pids[slot] = pid;
	report_progress(rep, "bench %s started (%u/%u)", rb->b->name, i + 1, rep->nr_benches);
}

static void fill_slots(struct report *rep)
{
	for (unsigned int s = 0; s < 2; s++)
		while (rep->running[s] < 0 && rep->next_bench < rep->nr_benches) {
			spawn_bench(rep, s, rep->next_bench++);
		}
}

void report_benches_start(struct report *rep)
{
	const struct msim_bench *b[REPORT_MAX_BENCHES];
	size_t n = msim_bench_list(b, REPORT_MAX_BENCHES);
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
	fill_slots(rep);
}

static void reaped(struct report *rep, unsigned int slot, int wstatus, const struct rusage *ru)
{
	struct report_bench *rb = &rep->benches[rep->running[slot]];

	rb->seconds = report_now() - rb->started;
	rb->cpu_seconds = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 +
			  (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
	rb->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	report_progress(rep, "bench %s %s in %.1f s (%.1f s of CPU)", rb->b->name,
			rb->status ? "FAILED" : "done", rb->seconds, rb->cpu_seconds);
	rep->running[slot] = -1;
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

	while (rep->running[0] >= 0 || rep->running[1] >= 0 || rep->next_bench < rep->nr_benches)
		poll_slots(rep, true);
	for (unsigned int i = 0; i < rep->nr_benches; i++)
		failed += read_back(rep, &rep->benches[i]);
	return failed;
}
