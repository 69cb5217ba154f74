/* SPDX-License-Identifier: MIT */
/*
 * `memcgsim race NAME --shard I/N`, `memcgsim merge` and `--jobs N` through the
 * command, as a batch engine would drive them: the merged JSON and the --jobs
 * JSON equal the single-process JSON (wall-clock seconds aside); bad input and
 * misuse exit 2 with a reason.
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
#include <unistd.h>

#define CLI MSIM_BINARY_DIR "/memcgsim"
#define RACE "rstat-early-exit --side bug --strategy pct --runs 200 --seed 3"

static char out[1 << 16];
static char dir[] = "/tmp/msim-shard-XXXXXX";

/* Run a shell command line with the command's path for CLI; exit status, output in out. */
static int sh(const char *fmt, ...)
{
	char cmd[2048], line[1024];
	va_list ap;
	size_t n = 0;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd %s && M=%s; { %s; } 2>&1", dir, CLI, line);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < sizeof(out) && (line[0] = 0, fgets(out + n, (int)(sizeof(out) - n), p)))
		n += strlen(out + n);
	out[n] = '\0';
	int st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The JSON object in out with its "seconds" field cut out. */
static void strip_seconds(char *dst, size_t len)
{
	char *s = strstr(out, "\"seconds\": ");
	size_t head = s ? (size_t)(s - out) : strlen(out);
	const char *tail = s ? strchr(s, ',') : "";

	snprintf(dst, len, "%.*s%s", (int)head, out, tail ? tail : "");
}

static int setup(void **st)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void merged_shards_print_the_single_run(void **st)
{
	static char one[1 << 16], merged[1 << 16], jobs[1 << 16];

	assert_int_equal(sh("$M race " RACE " --json"), 0);
	strip_seconds(one, sizeof(one));
	for (int i = 0; i < 3; i++)
		assert_int_equal(sh("$M race " RACE " --shard %d/3 --json > s%d.json", i, i), 0);
	assert_int_equal(sh("cat s2.json s0.json s1.json | $M merge --json"), 0);
	strip_seconds(merged, sizeof(merged));
	assert_string_equal(one, merged);
	assert_int_equal(sh("$M race " RACE " --jobs 2 --json 2>/dev/null"), 0);
	strip_seconds(jobs, sizeof(jobs));
	assert_string_equal(one, jobs);
	assert_int_equal(sh("$M merge s0.json s1.json s2.json"), 0);
	assert_non_null(strstr(out, "replay: memcgsim race rstat-early-exit"));
}

static void misuse_exits_2(void **st)
{
	assert_int_equal(sh("$M merge --help"), 0);
	assert_non_null(strstr(out, "usage: memcgsim merge"));
	assert_int_equal(sh("$M race " RACE " --shard 0/2 --json > a.json && $M merge a.json"), 2);
	assert_non_null(strstr(out, "1 results for 2 shards"));
	assert_int_equal(sh("echo '{not json' | $M merge"), 2);
	assert_int_equal(sh("$M merge no-such-file.json"), 2);
	assert_int_equal(sh("$M race " RACE " --shard 3/2"), 2);
	assert_non_null(strstr(out, "I/N"));
	assert_int_equal(sh("$M race rstat-early-exit --strategy dfs --jobs 2"), 2);
	assert_non_null(strstr(out, "random and pct"));
	assert_int_equal(sh("$M race rstat-lost-batch --shard 0/2 --json"), 2);
	assert_int_equal(sh("$M race rstat-lost-batch --minimize --trace t.json"), 2);
	/* an index past its count, hand-edited: refused, no crash */
	assert_int_equal(sh("$M race " RACE " --shard 1/2 --json | sed 's/\"shard_index\": 1/"
			    "\"shard_index\": 4000000/' > bad.json; cat s0.json bad.json | $M merge"),
			 2);
	assert_int_equal(sh("$M race " RACE " --jobs 2 --shard 0/2"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merged_shards_print_the_single_run),
		cmocka_unit_test(misuse_exits_2),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
