/* SPDX-License-Identifier: MIT */
/*
 * API misuse, each case in a child process (docs/reliability.md): a call the
 * model cannot answer with an error code stops with "memcgsim: misuse: CALL"
 * and abort() instead of touching freed memory; the others return their
 * documented error.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memcgsim/memcgsim.h>

static char err_out[4096];

/*
 * Run fn in a child with stderr into err_out; its wait status. The child exits
 * 0 when fn returns.
 */
static int in_child(void (*fn)(void))
{
	int fds[2], st;
	ssize_t n, len = 0;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(fds[1], 2);
		close(fds[0]);
		fn();
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], err_out + len, sizeof(err_out) - 1 - (size_t)len)) > 0)
		len += n;
	err_out[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

/* fn must stop with abort() and say which call was misused. */
static void expect_misuse(void (*fn)(void), const char *call)
{
	int st = in_child(fn);
	char want[128];

	snprintf(want, sizeof(want), "memcgsim: misuse: %s: ", call);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGABRT || !strstr(err_out, want))
		fail_msg("want abort() after \"%s\"; got status %#x, stderr:\n%s", want, st,
			 err_out);
}

static struct msim *host(void)
{
	struct msim_config cfg;
	struct msim *m;

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	if (msim_create(&cfg, &m, NULL, 0))
		_exit(3);
	return m;
}

static void destroy_twice(void)
{
	struct msim *m = host();

	msim_destroy(m);
	msim_destroy(m);
}

static void run_after_destroy(void)
{
	struct msim *m = host();

	msim_destroy(m);
	msim_run(m);
}

static void task_fn(void *arg)
{
	(void)arg;
}

static void task_after_destroy(void)
{
	struct msim *m = host();
	struct msim_task *t = msim_task_create(m, "t", 0, task_fn, NULL);

	if (!t)
		_exit(3);
	msim_destroy(m);
	msim_run_task(m, t);
}

static void xa_fini_twice(void)
{
	struct msim *m = host();
	struct msim_xarray xa;

	msim_xa_init(m, &xa, "test");
	msim_xa_fini(&xa);
	msim_xa_fini(&xa);
}

static void xa_fini_zeroed(void)
{
	struct msim_xarray xa;

	memset(&xa, 0, sizeof(xa));
	msim_xa_fini(&xa);
}

static void xa_fini_after_destroy(void)
{
	struct msim *m = host();
	struct msim_xarray xa;

	msim_xa_init(m, &xa, "test");
	msim_destroy(m);
	msim_xa_fini(&xa);
}

/* A folio whose last reference was put: freed, and kept in the quarantine. */
static struct msim_folio *freed_folio(void)
{
	struct msim *m = host();
	struct msim_folio *f;

	msim_set_current_host(m);
	if (msim_lru_attach(m, NULL, 0) ||
	    !(f = msim_folio_alloc(m, MSIM_FOLIO_FILE, 0, 0, MSIM_ZONE_NORMAL)))
		_exit(3);
	msim_folio_put(f);
	return f;
}

static void folio_put_twice(void)
{
	msim_folio_put(freed_folio());
}

static void folio_get_after_free(void)
{
	msim_folio_get(freed_folio());
}

static void destroyed_handles_stop(void **st)
{
	expect_misuse(destroy_twice, "msim_destroy");
	expect_misuse(run_after_destroy, "msim_run");
	expect_misuse(task_after_destroy, "msim_run_task/msim_run_until/msim_step");
	expect_misuse(xa_fini_twice, "msim_xa_fini");
	expect_misuse(xa_fini_zeroed, "msim_xa_fini");
	expect_misuse(xa_fini_after_destroy, "msim_xa_fini");
	expect_misuse(folio_put_twice, "msim_folio_put");
	expect_misuse(folio_get_after_free, "msim_folio_get");
}

/* NULL where a host belongs: the documented error, no dereference. */
static void null_host_errors(void)
{
	struct msim_sched_opts o = { .strategy = MSIM_STRAT_RANDOM };

	if (msim_sched_set(NULL, &o) != -EINVAL || msim_config(NULL) != NULL ||
	    msim_run(NULL) != -EINVAL)
		_exit(4);
	msim_destroy(NULL);
}

static void null_host_is_an_error(void **st)
{
	int status = in_child(null_host_errors);

	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("status %#x, stderr:\n%s", status, err_out);
}

/*
 * An extreme delta wraps as the kernel's per-CPU add does (no signed-overflow
 * trap under UBSan): LONG_MIN twice on a counter of 0 is 0 again.
 */
static void extreme_delta(void)
{
	struct msim *m = host();
	struct msim_memcg *c;

	msim_set_current_host(m);
	if (msim_rstat_init(m, NULL) || msim_memcg_create(msim_root_mem_cgroup(m), "c", &c))
		_exit(3);
	msim_mod_memcg_state(c, MSIM_NR_SHMEM, LONG_MIN);
	msim_mod_memcg_state(c, MSIM_NR_SHMEM, LONG_MIN);
	msim_mod_memcg_state(c, MSIM_NR_SHMEM, 3);
	msim_mem_cgroup_flush_stats_forced(msim_root_mem_cgroup(m));
	if (msim_memcg_page_state(c, MSIM_NR_SHMEM) != 3) {
		fprintf(stderr, "NR_SHMEM %lu\n", msim_memcg_page_state(c, MSIM_NR_SHMEM));
		_exit(5);
	}
	msim_memcg_rmdir(c);
	msim_destroy(m);
}

static void extreme_delta_wraps(void **st)
{
	int status = in_child(extreme_delta);

	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail_msg("status %#x, stderr:\n%s", status, err_out);
}

/*
 * msim_folio_alloc() from a zone the node does not populate fails with EINVAL:
 * MOVABLE without configured pages, DMA32 off node 0.
 */
static void folio_from_unpopulated_zone(void **st)
{
	struct msim_config cfg;
	struct msim_folio *f;
	struct msim *m;

	msim_config_init(&cfg);
	cfg.nr_cpus = 2;
	cfg.nr_nodes = 2;
	assert_int_equal(msim_create(&cfg, &m, NULL, 0), 0);
	msim_set_current_host(m);
	assert_int_equal(msim_lru_attach(m, NULL, 0), 0);
	errno = 0;
	assert_null(msim_folio_alloc(m, MSIM_FOLIO_FILE, 0, 0, MSIM_ZONE_MOVABLE));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(msim_folio_alloc(m, MSIM_FOLIO_FILE, 0, 1, MSIM_ZONE_DMA32));
	assert_int_equal(errno, EINVAL);
	f = msim_folio_alloc(m, MSIM_FOLIO_FILE, 0, 1, MSIM_ZONE_NORMAL);
	assert_non_null(f);
	msim_folio_put(f);
	f = msim_folio_alloc(m, MSIM_FOLIO_ANON, 0, 0, MSIM_ZONE_DMA32);
	assert_non_null(f);
	msim_folio_put(f);
	msim_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(destroyed_handles_stop),
		cmocka_unit_test(null_host_is_an_error),
		cmocka_unit_test(extreme_delta_wraps),
		cmocka_unit_test(folio_from_unpopulated_zone),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
