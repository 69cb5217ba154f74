/* SPDX-License-Identifier: MIT */
/*
 * The memcgsim command under hostile input (docs/reliability.md): a run that
 * was not the one asked for prints no verdict and exits non-zero; every bad
 * option is a usage error with a reason; `memcgsim merge` checks every field of
 * the shard files in tests/unit/data/merge/ and prints nothing from them raw.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define CLI MSIM_BINARY_DIR "/memcgsim"
#define DATA MSIM_SOURCE_DIR "/tests/unit/data/merge/"

static char buf[1 << 17];

/* Run `env memcgsim args` through the shell; its exit status, stdout and stderr in buf. */
static int run_env(const char *env, const char *fmt, ...)
{
	char cmd[8192], args[6144];
	va_list ap;
	size_t n = 0;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "env %s %s %s 2>&1", env ? env : "", CLI, args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < sizeof(buf)) {
		size_t r = fread(buf + n, 1, sizeof(buf) - n - 1, p);
		if (!r)
			break;
		n += r;
	}
	buf[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#define run(...) run_env(NULL, __VA_ARGS__)

/*
 * MSIM_SCHEDULE turns an exploration into one replay: whether the string
 * diverges or not, that is not the dfs, dpor or pct run the command names, so
 * there is no verdict ("space exhausted -> as expected" after one schedule of
 * 617 was the wrong answer), and the exit status is 1.
 */
static void env_schedule_gives_no_verdict(void **st)
{
	const char *strategies[] = { "dfs", "dpor", "pct", "random" };

	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(run_env("MSIM_SCHEDULE=0", "race rstat-early-exit --side fix "
					 "--strategy %s", strategies[i]), 1);
		assert_non_null(strstr(buf, "no verdict: MSIM_SCHEDULE='0' replaced the"));
		assert_null(strstr(buf, "as expected"));
		assert_null(strstr(buf, "space exhausted"));
	}
	assert_int_equal(run_env("MSIM_SCHEDULE=0", "race rstat-early-exit --side fix "
				 "--strategy dfs --json"), 1);
	assert_non_null(strstr(buf, "\"no_verdict\": true"));
	assert_non_null(strstr(buf, "\"env_replay\": true"));
	/* a --schedule that diverges: no verdict either */
	assert_int_equal(run("race rstat-early-exit --side fix --schedule 0"), 1);
	assert_non_null(strstr(buf, "no verdict: the replay diverged"));
	/* without the variable, the exploration gives its verdict */
	assert_int_equal(run("race rstat-early-exit --side fix --strategy dfs"), 0);
	assert_non_null(strstr(buf, "space exhausted (expected) -> as expected"));
}

/*
 * bench explore-rate under MSIM_SCHEDULE: a string that is not a schedule, or
 * one that turns each exploration into a replay, gives no figures and no
 * verdict (it once printed a garbage run count and "[holds]").
 */
static void explore_rate_refuses_env_schedule(void **st)
{
	assert_int_equal(run_env("MSIM_SCHEDULE=x", "bench explore-rate --quick --runs 20"), 1);
	assert_non_null(strstr(buf, "MSIM_SCHEDULE='x' is not a schedule"));
	assert_null(strstr(buf, "holds"));
	assert_null(strstr(buf, "runs"));
	assert_int_equal(run_env("MSIM_SCHEDULE=0", "bench explore-rate --quick --runs 20"), 1);
	assert_non_null(strstr(buf, "no verdict: MSIM_SCHEDULE='0'"));
	assert_null(strstr(buf, "holds"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(env_schedule_gives_no_verdict),
		cmocka_unit_test(explore_rate_refuses_env_schedule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
