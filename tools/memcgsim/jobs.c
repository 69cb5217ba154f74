/* SPDX-License-Identifier: MIT */
/*
 * jobs.c - `memcgsim race NAME --jobs N`: an exploration split into N shards,
 * each run by a forked worker process, merged as msim_race_merge() merges
 * shards run anywhere. Workers are forked before any host exists, and hand their
 * result back whole through a pipe: the same program image, so the result's
 * pointers (race name, side) mean the same in the parent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* What a worker sends: its return code, its message, its result. */
struct job_reply {
	int ret;
	char err[512];
	struct msim_race_result res;
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The worker: shard index of jobs, its reply on fd; never returns. */
static void run_worker(const struct msim_race *r, const struct msim_config *cfg,
		       const struct msim_race_opts *o, unsigned int index, unsigned int jobs,
		       int fd)
{
	struct job_reply *rep = calloc(1, sizeof(*rep));
	struct msim_race_opts so = *o;
	int status = 1;

	if (rep) {
		so.shard_index = index;
		so.shard_count = jobs;
		rep->ret = msim_race_run(r, cfg, &so, &rep->res, rep->err, sizeof(rep->err));
		status = write_all(fd, rep, sizeof(*rep)) ? 1 : 0;
	}
	_exit(status);
}

/* Start jobs workers; their pipes' read ends in fds. */
static int start_workers(const struct msim_race *r, const struct msim_config *cfg,
			 const struct msim_race_opts *o, unsigned int jobs, int *fds,
			 pid_t *pids)
{
	fflush(NULL);   /* nothing buffered twice */
	for (unsigned int i = 0; i < jobs; i++) {
		int p[2];

		if (pipe(p))
			return -errno;
		pids[i] = fork();
		if (pids[i] < 0)
			return -errno;
		if (pids[i] == 0) {
			close(p[0]);
			run_worker(r, cfg, o, i, jobs, p[1]);
		}
		close(p[1]);
		fds[i] = p[0];
	}
	return 0;
}

/* Every worker's reply, in shard order; progress on stderr; err NULL: keep the caller's. */
static int collect(unsigned int jobs, const int *fds, const pid_t *pids,
		   struct job_reply *replies, char *err, size_t errlen)
{
	struct timespec t0, t1;
	int ret = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int i = 0; i < jobs; i++) {
		int status = 0;
		bool got = fds[i] >= 0 && !read_all(fds[i], &replies[i], sizeof(replies[i]));

		if (fds[i] >= 0)
			close(fds[i]);
		if (pids[i] > 0)
			waitpid(pids[i], &status, 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!got && !ret) {
			if (err)
				snprintf(err, errlen, "worker %u/%u died without a result", i, jobs);
			ret = -ECHILD;
		} else if (got && replies[i].ret && !ret) {
			if (err)
				snprintf(err, errlen, "%s", replies[i].err);
			ret = replies[i].ret;
		} else if (got && !replies[i].ret)
			fprintf(stderr, "[race] shard %u/%u: %u runs, %u violations (%.1f s)\n", i,
				jobs, replies[i].res.ex.runs, replies[i].res.ex.violations,
				(double)(t1.tv_sec - t0.tv_sec) +
					(double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	return ret;
}

int msim_cli_race_jobs(const struct msim_race *r, const struct msim_config *cfg,
		       const struct msim_race_opts *o, unsigned int jobs,
		       struct msim_race_result *res, char *err, size_t errlen)
{
	struct job_reply *replies = calloc(jobs, sizeof(*replies));
	const struct msim_race_result **parts = calloc(jobs, sizeof(*parts));
	int *fds = malloc(jobs * sizeof(*fds));
	pid_t *pids = calloc(jobs, sizeof(*pids));
	int ret = -ENOMEM;

	if (!replies || !parts || !fds || !pids)
		goto out;
	for (unsigned int i = 0; i < jobs; i++)
		fds[i] = -1;
	ret = start_workers(r, cfg, o, jobs, fds, pids);
	if (ret)
		snprintf(err, errlen, "could not start %u workers: %s", jobs, strerror(-ret));
	/* Always collect: the workers that did start are waited for. */
	ret = collect(jobs, fds, pids, replies, ret ? NULL : err, errlen) ?: ret;
	for (unsigned int i = 0; !ret && i < jobs; i++)
		parts[i] = &replies[i].res;
	if (!ret)
		ret = msim_race_merge(parts, jobs, res, err, errlen);
out:
	free(replies);
	free(parts);
	free(fds);
	free(pids);
	return ret;
}
