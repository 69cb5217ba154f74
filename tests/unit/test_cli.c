/* SPDX-License-Identifier: MIT */
/*
 * The memcgsim command: exit codes (0 as expected, 1 not, 2 usage), --help on
 * every command, the --json keys the issue names, replay of a printed schedule
 * (also on a side that is not mainline's), and docs/races.md as `list --markdown`
 * writes it.
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

/* Run the command; return its exit status and its stdout (and stderr) in out. */
static int run(const char *args, char *out, size_t len)
{
	char cmd[1024];
	size_t n = 0;

	snprintf(cmd, sizeof(cmd), "%s %s 2>&1", CLI, args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < len) {
		size_t r = fread(out + n, 1, len - n - 1, p);
		if (!r)
			break;
		n += r;
	}
	out[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char buf[1 << 17];

static void help_everywhere(void **st)
{
	assert_int_equal(run("--help", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "usage: memcgsim"));
	assert_int_equal(run("race --help", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "--strategy"));
	assert_int_equal(run("bench --help", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "sched-switch"));
	assert_int_equal(run("list --help", buf, sizeof(buf)), 0);
	assert_int_equal(run("demo --help", buf, sizeof(buf)), 0);
	assert_int_equal(run("bench sched-switch --help", buf, sizeof(buf)), 0);
}

static void usage_errors_exit_2(void **st)
{
	assert_int_equal(run("", buf, sizeof(buf)), 2);
	assert_int_equal(run("frobnicate", buf, sizeof(buf)), 2);
	assert_int_equal(run("race no-such-race", buf, sizeof(buf)), 2);
	assert_non_null(strstr(buf, "no race named"));
	assert_int_equal(run("race toy-percpu-reset --strategy bogus", buf, sizeof(buf)), 2);
	assert_int_equal(run("race toy-percpu-reset --runs -3", buf, sizeof(buf)), 2);
	assert_int_equal(run("race toy-percpu-reset --cpus 0", buf, sizeof(buf)), 2);
	assert_int_equal(run("race toy-percpu-reset --cpus 1", buf, sizeof(buf)), 2);
	assert_non_null(strstr(buf, "at least 2 CPUs"));
	assert_int_equal(run("race toy-percpu-reset --variant nope=1", buf, sizeof(buf)), 2);
	assert_non_null(strstr(buf, "rstat-propagate"));
	assert_int_equal(run("race toy-percpu-reset --variant shrinker-info=list", buf, sizeof(buf)), 2);
	assert_non_null(strstr(buf, "xarray"));
	assert_int_equal(run("race toy-percpu-reset --preset thread-9", buf, sizeof(buf)), 2);
	assert_non_null(strstr(buf, "thread-004"));
	assert_int_equal(run("race toy-percpu-reset --schedule 'x.y'", buf, sizeof(buf)), 2);
	assert_int_equal(run("bench no-such-bench", buf, sizeof(buf)), 2);
	assert_int_equal(run("list --frob", buf, sizeof(buf)), 2);
	assert_int_equal(run("race toy-percpu-reset --side", buf, sizeof(buf)), 2);
}

static void json_has_the_keys_and_replays(void **st)
{
	const char *keys[] = { "\"race\": \"toy-percpu-reset\"", "\"strategy\": \"pct\"",
			       "\"runs\": ", "\"violations\": ", "\"first_violation_run\": ",
			       "\"seed\": 5", "\"schedule\": \"", "\"outcome\": " };

	assert_int_equal(run("race toy-percpu-reset --strategy pct --seed 5 --json", buf,
			     sizeof(buf)), 0);
	for (unsigned int i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_non_null(strstr(buf, keys[i]));
	/* Replay the printed schedule: the same verdict. */
	char *s = strstr(buf, "\"schedule\": \"") + strlen("\"schedule\": \"");
	char sched[1024];
	size_t n = strcspn(s, "\"");
	assert_true(n < sizeof(sched));
	memcpy(sched, s, n);
	sched[n] = '\0';
	char args[1200];
	snprintf(args, sizeof(args), "race toy-percpu-reset --schedule '%s' --json", sched);
	assert_int_equal(run(args, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "\"violations\": 1"));
	assert_non_null(strstr(buf, sched));
}

/* --preset resets every variant, so it applies before any --variant. */
static void preset_applies_before_variants(void **st)
{
	assert_int_equal(run("race toy-percpu-reset --variant rstat-propagate=break "
			     "--preset thread-004 --json", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "rstat-propagate=break"));
	assert_int_equal(run("race toy-percpu-reset --preset thread-004 --json", buf,
			     sizeof(buf)), 0);
	assert_non_null(strstr(buf, "rstat-propagate=continue"));
}

static void list_prints_races_and_variants(void **st)
{
	assert_int_equal(run("list", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "toy-abba-deadlock"));
	assert_non_null(strstr(buf, "toy-rcu-reader"));
	assert_int_equal(run("list --variants", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "shrinker-info"));
	assert_non_null(strstr(buf, "thread-004"));
	assert_int_equal(run("list --variants --json", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "\"presets\""));
}

/* The command line a run prints after "replay: ", into cmd (without "memcgsim "). */
static void replay_line(const char *out, char *cmd, size_t len)
{
	const char *p = strstr(out, "replay: memcgsim ");
	size_t n;

	assert_non_null(p);
	p += strlen("replay: memcgsim ");
	n = strcspn(p, "\n");
	assert_true(n < len);
	memcpy(cmd, p, n);
	cmd[n] = '\0';
}

/*
 * A violation found on a side other than mainline's prints a replay command that
 * names the side, and that command replays it (the schedule alone would diverge).
 */
static void side_replay_hint_replays(void **st)
{
	char cmd[2048];

	assert_int_equal(run("race dying-redirect-reparent --side all-rcu-on-dying --strategy pct "
			     "--seed 1", buf, sizeof(buf)), 0);
	replay_line(buf, cmd, sizeof(cmd));
	assert_non_null(strstr(cmd, "--side all-rcu-on-dying"));
	assert_int_equal(run(cmd, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "runs 1, violations 1"));
	/* without --side: the variant that differs from mainline is named instead */
	assert_int_equal(run("race shrinker-bit-recount --variant shrinker-recount=off "
			     "--strategy dfs", buf, sizeof(buf)), 0);
	replay_line(buf, cmd, sizeof(cmd));
	assert_non_null(strstr(cmd, "--variant shrinker-recount=off"));
	assert_int_equal(run(cmd, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "runs 1, violations 1"));
	assert_int_equal(run("race toy-percpu-reset --side fix", buf, sizeof(buf)), 2);
	assert_non_null(strstr(buf, "its sides: bug"));
}

/*
 * --memory-model: a bad name is a usage error; dpor explores a weak model (its
 * drains are threads) and exhausts it; a violation found under one prints a replay line naming the model,
 * which replays it (the drains "~C" in the schedule need the model's buffers).
 */
static void memory_model_option(void **st)
{
	char cmd[2048];

	assert_int_equal(run("race --help", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "--memory-model"));
	assert_int_equal(run("race toy-percpu-reset --memory-model arm", buf, sizeof(buf)), 2);
	assert_non_null(strstr(buf, "unknown memory model 'arm' (sc, tso, pso)"));
	assert_int_equal(run("race shrinker-bit-barrier --memory-model tso --strategy dpor", buf,
			     sizeof(buf)), 0);
	assert_non_null(strstr(buf, "space exhausted"));
	assert_int_equal(run("race shrinker-bit-barrier --memory-model pso --variant "
			     "shrinker-bit-barrier=none --strategy dfs --first", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "memory model pso"));
	replay_line(buf, cmd, sizeof(cmd));
	assert_non_null(strstr(cmd, "--memory-model pso"));
	assert_non_null(strstr(cmd, "~1"));
	assert_int_equal(run(cmd, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "runs 1, violations 1"));
	/* sc, the default, is not named: outputs stay as they were */
	assert_int_equal(run("race toy-percpu-reset", buf, sizeof(buf)), 0);
	assert_null(strstr(buf, "memory model"));
}

/* --lockdep: the lock-order reports in text and JSON; without it, no trace of them. */
static void lockdep_flag_prints_reports(void **st)
{
	assert_int_equal(run("race toy-abba-deadlock --strategy dfs --lockdep", buf, sizeof(buf)),
			 0);
	assert_non_null(strstr(buf, "lockdep: 2 lock classes, 2 dependencies over 10 runs: "
				    "1 report"));
	assert_non_null(strstr(buf, "WARNING: possible circular locking dependency detected"));
	assert_int_equal(run("race toy-abba-deadlock --strategy dfs --lockdep --json", buf,
			     sizeof(buf)), 0);
	assert_non_null(strstr(buf, "\"lockdep\": {\"classes\": 2, \"dependencies\": 2"));
	assert_non_null(strstr(buf, "\"kind\": \"circular\""));
	assert_int_equal(run("race toy-abba-deadlock --strategy dfs --json", buf, sizeof(buf)), 0);
	assert_null(strstr(buf, "lockdep"));
	assert_int_equal(run("race toy-rcu-reader --lockdep", buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "lockdep: 1 lock class, 0 dependencies over 1 run: "
				    "no report"));
}

/*
 * docs/races.md is what `memcgsim list --markdown` prints (regenerate it if not),
 * then, after a blank line, the measured section `memcgsim bench explore
 * --markdown` prints (tests/bench-smoke/test_explore.c checks its rows).
 */
static void races_md_is_generated(void **st)
{
	static char doc[1 << 18];
	FILE *f = fopen(MSIM_SOURCE_DIR "/docs/races.md", "r");
	char *measured;
	size_t n;

	assert_non_null(f);
	n = fread(doc, 1, sizeof(doc) - 1, f);
	assert_true(n < sizeof(doc) - 1);
	doc[n] = '\0';
	fclose(f);
	measured = strstr(doc, "\n## Schedules per explorer (measured)\n");
	assert_non_null(measured);
	measured[0] = '\0'; /* the blank line before the heading ends list's part */
	assert_int_equal(run("list --markdown", buf, sizeof(buf)), 0);
	assert_true(strlen(buf) + 1 < sizeof(buf));
	if (strcmp(doc, buf))
		fail_msg("docs/races.md is out of date: run `memcgsim list --markdown > "
			 "docs/races.md; echo >> docs/races.md; memcgsim bench explore "
			 "--markdown >> docs/races.md` (build/release/memcgsim) and commit it");
	assert_non_null(strstr(buf, "### R10: "));
	assert_non_null(strstr(buf, "### S6: "));
	assert_non_null(strstr(buf, "### toy-percpu-reset\n"));
}

/*
 * docs/design.md's layer diagram is what `memcgsim list --layers` prints from the
 * subsystem registry (regenerate it if not): the block from its marker comment
 * to the end of the code fence after it.
 */
static void design_md_layers_are_generated(void **st)
{
	static char doc[1 << 17];
	FILE *f = fopen(MSIM_SOURCE_DIR "/docs/design.md", "r");
	char *block, *end;
	size_t n;

	(void)st;
	assert_non_null(f);
	n = fread(doc, 1, sizeof(doc) - 1, f);
	assert_true(n < sizeof(doc) - 1);
	doc[n] = '\0';
	fclose(f);
	block = strstr(doc, "<!-- Generated by `memcgsim list --layers`");
	assert_non_null(block);
	end = strstr(block, "\n```\n");      /* the fence that opens the diagram */
	assert_non_null(end);
	end = strstr(end + 4, "\n```\n");    /* and the one that closes it */
	assert_non_null(end);
	end[5] = '\0';
	assert_int_equal(run("list --layers", buf, sizeof(buf)), 0);
	if (strcmp(block, buf))
		fail_msg("docs/design.md's layer diagram is out of date: replace its block with "
			 "`memcgsim list --layers` (build/dev/memcgsim) and commit it");
	/* Every layer of the model is in it, with what it needs. */
	assert_non_null(strstr(buf, "workingset (lru, list_lru)"));
	assert_non_null(strstr(buf, "damon (rstat)"));
	assert_non_null(strstr(buf, "zswap ("));
	assert_non_null(strstr(buf, "level 0   "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(help_everywhere),
		cmocka_unit_test(usage_errors_exit_2),
		cmocka_unit_test(json_has_the_keys_and_replays),
		cmocka_unit_test(preset_applies_before_variants),
		cmocka_unit_test(list_prints_races_and_variants),
		cmocka_unit_test(side_replay_hint_replays),
		cmocka_unit_test(races_md_is_generated),
		cmocka_unit_test(design_md_layers_are_generated),
		cmocka_unit_test(memory_model_option),
		cmocka_unit_test(lockdep_flag_prints_reports),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
