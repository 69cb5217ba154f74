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

/* What merge says about each hostile shard file of tests/unit/data/merge/ (README there). */
static const struct {
	const char *file, *says;
} refused[] = {
	{ "violations_string.jsonl", "violations_string.jsonl:1: \"violations\" is not an integer" },
	{ "runs_real.jsonl", "\"runs\" is not an integer" },
	{ "runs_missing.jsonl", "no \"runs\" (every shard line has it)" },
	{ "violations_above_runs.jsonl", "101 violations in 100 runs" },
	{ "violations_wrap.jsonl", "4294967295 violations in 100 runs" },
	{ "first_violation_run_big.jsonl", "\"first_violation_run\" 4294967300 out of range" },
	{ "first_violation_run_without_violations.jsonl", "first_violation_run 10 with 0 violations" },
	{ "schedule_injection.jsonl", "schedule has characters no schedule has" },
	{ "seconds_neg_huge.jsonl", "seconds is not a number from 0 to 1e9" },
	{ "seconds_huge.jsonl", "seconds is not a number from 0 to 1e9" },
	{ "seed_negative.jsonl", "\"seed\" is not an unsigned 64-bit integer" },
	{ "expected_lie.jsonl", "expected_violation does not follow from the shard's configuration" },
	{ "behaved_lie.jsonl", "behaved_as_expected does not follow from the shard's figures" },
	{ "trace_hash_bad.jsonl", "trace_hash is not up to 16 hex digits" },
	{ "strategy_dfs.jsonl", "strategy 'dfs' is not one a shard runs" },
	{ "deadlocked_int.jsonl", "\"deadlocked\" is not true or false" },
	{ "side_number.jsonl", "\"side\" is not a string or null" },
	{ "duplicate_key.jsonl", "duplicate object key" },
	{ "race_ansi.jsonl", "no race named '\\x1b[2Jcleared'" },
	{ "variants_unknown.jsonl", "unknown value '\\x1b[5mblink'" },
};

/* Every field checked: a wrong type, a missing key, a count out of range is exit 2 and why. */
static void merge_refuses_hostile_shards(void **st)
{
	for (unsigned int i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int rc = run("merge " DATA "%s", refused[i].file);

		if (rc != 2 || !strstr(buf, refused[i].says))
			fail_msg("%s: exit %d, want 2 and \"%s\"; got:\n%s", refused[i].file, rc,
				 refused[i].says, buf);
		assert_null(strchr(buf, '\x1b'));
	}
	/* a directory: the read error, not "no results" */
	assert_int_equal(run("merge " DATA), 2);
	assert_non_null(strstr(buf, "Is a directory"));
	assert_int_equal(run("merge " DATA "no-such-file.jsonl"), 2);
	assert_non_null(strstr(buf, "No such file or directory"));
	/* the untouched shards merge */
	assert_int_equal(run("merge " DATA "good.jsonl"), 0);
	assert_non_null(strstr(buf, "runs 200, violations 14"));
}

/*
 * What merge prints from a shard never drives the terminal nor a shell: an
 * escape sequence in why comes out as \x1b; a schedule too long to keep is
 * marked, not cut into a replay line; the replay line is single-quoted.
 */
static void merge_output_is_escaped(void **st)
{
	assert_int_equal(run("merge " DATA "why_ansi.jsonl"), 0);
	assert_null(strchr(buf, '\x1b'));
	assert_null(strchr(buf, '\a'));
	assert_non_null(strstr(buf, "\\x1b[31mRED\\x1b[0m\\x07 bell"));
	assert_non_null(strstr(buf, "--schedule '0*11.2*25.1*89.2*17'\n"));
	assert_int_equal(run("merge --json " DATA "why_ansi.jsonl"), 0);
	assert_null(strchr(buf, '\x1b'));
	assert_non_null(strstr(buf, "\\u001B[31mRED"));
	assert_int_equal(run("merge " DATA "schedule_long.jsonl"), 0);
	assert_non_null(strstr(buf, "schedule too long to print in full"));
	assert_null(strstr(buf, "replay: "));
	assert_int_equal(run("merge --json " DATA "schedule_long.jsonl"), 0);
	assert_non_null(strstr(buf, "\"schedule_truncated\": true"));
}

/* Seeds are unsigned 64-bit: 2^64 - 1 prints, reads and merges as itself, never -1. */
static void seeds_are_unsigned_64_bit(void **st)
{
	assert_int_equal(run("race rstat-early-exit --side bug --strategy pct --runs 20 "
			     "--seed 18446744073709551615 --json"), 0);
	assert_non_null(strstr(buf, "\"seed\": \"18446744073709551615\""));
	assert_int_equal(run("merge --json " DATA "seed_max.jsonl"), 0);
	assert_non_null(strstr(buf, "\"seed\": \"18446744073709551615\""));
	assert_non_null(strstr(buf, "\"first_violation_seed\": 1}"));
	assert_null(strstr(buf, "\"seed\": -1"));
}

/* --shard takes digits only, as every other integer option: no sign, no space. */
static void shard_option_is_strict(void **st)
{
	const char *bad[] = { "' 0/2'", "+1/2", "-0/2", "'1/ 2'", "1/+2", "0/2x", "/2", "0/" };

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(run("race toy-percpu-reset --strategy pct --runs 4 --shard %s",
				     bad[i]), 2);
		assert_non_null(strstr(buf, "want I/N with 0 <= I < N"));
	}
	assert_int_equal(run("race toy-percpu-reset --strategy pct --runs 4 --shard 1/2"), 0);
}

/* --minimize refuses a schedule whose replay diverged (here: picks left over). */
static void minimize_refuses_diverged_schedule(void **st)
{
	assert_int_equal(run("race toy-percpu-reset --schedule 1*4.0*3.1*7 --minimize"), 0);
	assert_non_null(strstr(buf, "minimal: 1 preemptions"));
	assert_int_equal(run("race toy-percpu-reset --schedule 1*4.0*3.1*7.0*3 --minimize"), 2);
	assert_non_null(strstr(buf, "diverged"));
	assert_non_null(strstr(buf, "nothing to minimize"));
	assert_null(strstr(buf, "minimized"));
}

/*
 * The kmem arena sizes its reservation to what RLIMIT_AS leaves: under ulimit
 * -v of 4, 6 and 8 GiB a run works (6 GiB once failed with ENOMEM: a 4 GiB
 * reservation left too little for the rest), and under a limit too small for
 * any reservation it says so. AddressSanitizer maps
 * terabytes of shadow memory, so a sanitized build cannot run under a limit.
 */
static void kmem_arena_fits_rlimit_as(void **st)
{
#ifndef MSIM_ASAN
	const unsigned int gib[] = { 4, 6, 8 };
	char limit[128];

	for (unsigned int i = 0; i < 3; i++) {
		snprintf(limit, sizeof(limit), "bash -c 'ulimit -v %u && exec \"$0\" \"$@\"'",
			 gib[i] << 20);
		if (run_env(limit, "race rstat-early-exit --strategy pct --runs 50 --seed 1"))
			fail_msg("under ulimit -v %u GiB:\n%s", gib[i], buf);
		assert_null(strstr(buf, "kmem arena"));
	}
	/* too little for any reservation (or, here, for the run): it says so, then fails cleanly */
	assert_int_equal(run_env("bash -c 'ulimit -v 200000 && exec \"$0\" \"$@\"'",
				 "race rstat-early-exit --strategy pct --runs 5 --seed 1"), 1);
	assert_non_null(strstr(buf, "memcgsim: kmem arena: cannot reserve any address space ("));
	assert_non_null(strstr(buf, "MiB left under RLIMIT_AS)"));
	assert_non_null(strstr(buf, "exploration failed (Cannot allocate memory)"));
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(env_schedule_gives_no_verdict),
		cmocka_unit_test(explore_rate_refuses_env_schedule),
		cmocka_unit_test(merge_refuses_hostile_shards),
		cmocka_unit_test(merge_output_is_escaped),
		cmocka_unit_test(seeds_are_unsigned_64_bit),
		cmocka_unit_test(shard_option_is_strict),
		cmocka_unit_test(minimize_refuses_diverged_schedule),
		cmocka_unit_test(kmem_arena_fits_rlimit_as),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
