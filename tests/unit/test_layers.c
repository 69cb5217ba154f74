/* SPDX-License-Identifier: MIT */
/*
 * test_layers.c - the layer rule of DESIGN.md section 1, checked on the sources.
 *
 * Layers only call downward:
 *   src/sim, src/lib  know no subsystem: they may include no header of memcg,
 *                     rstat, shrinker, list_lru, workingset, zswap or damon (and
 *                     not the umbrella <memcgsim/memcgsim.h>, which includes them);
 *   src/memcg         knows sim and lib only: no header of the layers above it
 *                     (rstat, shrinker, list_lru, workingset, zswap, damon).
 * Lifecycle events reach the upper layers through msim_memcg_hooks instead.
 *
 * The check is deliberately simple: it reads every .c and .h below those
 * directories (MSIM_SOURCE_DIR is the source tree) and looks at each #include
 * line. A header "belongs" to a subsystem when a directory of its path is the
 * subsystem's name ("../rstat/flush.h", "shrinker/info.h") or its file name is
 * the subsystem's name, alone or followed by '_' or '-' ("rstat.h",
 * <memcgsim/list_lru.h>, "memcg_internal.h"). Conditional includes count too: a
 * lower layer has no business naming an upper header at all.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MSIM_SOURCE_DIR
#error "MSIM_SOURCE_DIR must be defined by the build"
#endif

/* Subsystems above sim/lib, in layer order. */
static const char *const upper_of_sim[] = {
	"memcg", "rstat", "shrinker", "list_lru", "workingset", "zswap", "damon",
	NULL,
};
static const char *const upper_of_memcg[] = {
	"rstat", "shrinker", "list_lru", "workingset", "zswap", "damon",
	NULL,
};

struct layer_rule {
	const char *dir;                 /* relative to MSIM_SOURCE_DIR */
	const char *const *forbidden;
};

static const struct layer_rule rules[] = {
	{ "src/sim", upper_of_sim },
	{ "src/lib", upper_of_sim },
	{ "src/memcg", upper_of_memcg },
};

/*
 * If line is an #include directive, copy the included path into out and return
 * true. Accepts "# include", tabs, <...> and "...".
 */
static bool parse_include(const char *line, char *out, size_t len)
{
	const char *p = line;
	char close;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != '#')
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "include", 7) != 0)
		return false;
	p += 7;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '<')
		close = '>';
	else if (*p == '"')
		close = '"';
	else
		return false;
	p++;
	n = strcspn(p, (char[]){ close, '\n', '\0' });
	if (p[n] != close || n == 0 || n >= len)
		return false;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

/* Does one path component (dir name or file name) name subsystem sub? */
static bool component_names(const char *comp, size_t len, const char *sub, bool is_file)
{
	size_t sl = strlen(sub);

	if (len < sl || strncmp(comp, sub, sl) != 0)
		return false;
	if (len == sl)
		return !is_file;  /* a directory named exactly like the subsystem */
	if (is_file)          /* "rstat.h", "rstat_flush.h", "list_lru-internal.h" */
		return comp[sl] == '.' || comp[sl] == '_' || comp[sl] == '-';
	return false;
}

/*
 * The first subsystem of forbidden that path belongs to, or NULL. The umbrella
 * header <memcgsim/memcgsim.h> includes every layer, so it counts as the upper
 * layers' header for every rule.
 */
static const char *belongs_to(const char *path, const char *const *forbidden)
{
	const char *comp = path;
	const char *base = strrchr(path, '/');

	if (strcmp(base ? base + 1 : path, "memcgsim.h") == 0)
		return "umbrella (every layer's)";

	while (*comp) {
		size_t len = strcspn(comp, "/");
		bool is_file = comp[len] == '\0';

		for (const char *const *f = forbidden; *f; f++)
			if (component_names(comp, len, *f, is_file))
				return *f;
		comp += len;
		if (*comp == '/')
			comp++;
	}
	return NULL;
}

struct scan {
	unsigned int files;
	unsigned int includes;
	unsigned int violations;
	char report[4096];
};

static void scan_file(const char *file, const char *const *forbidden, struct scan *s)
{
	FILE *f = fopen(file, "r");
	char line[1024], inc[512];
	unsigned int lineno = 0;

	if (!f)
		return;
	s->files++;
	while (fgets(line, sizeof(line), f)) {
		const char *sub;

		lineno++;
		if (!parse_include(line, inc, sizeof(inc)))
			continue;
		s->includes++;
		sub = belongs_to(inc, forbidden);
		if (!sub)
			continue;
		s->violations++;
		size_t used = strlen(s->report);
		snprintf(s->report + used, sizeof(s->report) - used,
			 "  %s:%u includes \"%s\" (a %s header)\n", file, lineno, inc, sub);
	}
	fclose(f);
}

static bool is_source(const char *name)
{
	size_t n = strlen(name);

	return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h');
}

static void scan_dir(const char *dir, const char *const *forbidden, struct scan *s)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;  /* a layer with no sources yet */
	while ((e = readdir(d))) {
		char path[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			scan_dir(path, forbidden, s);
		else if (S_ISREG(st.st_mode) && is_source(e->d_name))
			scan_file(path, forbidden, s);
	}
	closedir(d);
}

/* ---- the classifier itself (so that the real check can fail) ---- */

static void test_parse_include(void **state)
{
	char inc[64];

	(void)state;
	assert_true(parse_include("#include <memcgsim/sim.h>\n", inc, sizeof(inc)));
	assert_string_equal(inc, "memcgsim/sim.h");
	assert_true(parse_include("  #  include \"../rstat/flush.h\" /* why */\n", inc, sizeof(inc)));
	assert_string_equal(inc, "../rstat/flush.h");
	assert_true(parse_include("#\tinclude\t<stdio.h>", inc, sizeof(inc)));
	assert_string_equal(inc, "stdio.h");
	assert_false(parse_include("// #include <memcgsim/rstat.h>\n", inc, sizeof(inc)));
	assert_false(parse_include("#define include_rstat 1\n", inc, sizeof(inc)));
	assert_false(parse_include("#include MACRO_HEADER\n", inc, sizeof(inc)));
	assert_false(parse_include("#include <unterminated\n", inc, sizeof(inc)));
}

static void test_belongs_to(void **state)
{
	(void)state;
	/* Upper-layer headers seen from sim/lib. */
	assert_string_equal(belongs_to("memcgsim/rstat.h", upper_of_sim), "rstat");
	assert_string_equal(belongs_to("memcgsim/memcg.h", upper_of_sim), "memcg");
	assert_string_equal(belongs_to("memcgsim/list_lru.h", upper_of_sim), "list_lru");
	assert_string_equal(belongs_to("../shrinker/info.h", upper_of_sim), "shrinker");
	assert_string_equal(belongs_to("memcg/memcg_internal.h", upper_of_sim), "memcg");
	assert_string_equal(belongs_to("zswap_pool.h", upper_of_sim), "zswap");
	assert_string_equal(belongs_to("memcgsim/memcgsim.h", upper_of_sim),
			    "umbrella (every layer's)");
	assert_string_equal(belongs_to("memcgsim/memcgsim.h", upper_of_memcg),
			    "umbrella (every layer's)");
	/* Same-layer and lower headers are fine. */
	assert_null(belongs_to("memcgsim/sim.h", upper_of_sim));
	assert_null(belongs_to("memcgsim/sync.h", upper_of_sim));
	assert_null(belongs_to("memcgsim/xarray.h", upper_of_sim));
	assert_null(belongs_to("host.h", upper_of_sim));
	assert_null(belongs_to("stdio.h", upper_of_sim));
	assert_null(belongs_to("memcgsim/kmem.h", upper_of_memcg));
	/* memcg may include sim, lib and its own headers, not rstat/shrinker. */
	assert_null(belongs_to("memcgsim/memcg.h", upper_of_memcg));
	assert_null(belongs_to("../sim/host.h", upper_of_memcg));
	assert_string_equal(belongs_to("memcgsim/rstat.h", upper_of_memcg), "rstat");
	assert_string_equal(belongs_to("../shrinker/shrinker_internal.h", upper_of_memcg),
			    "shrinker");
	/* Names that merely start with a subsystem's letters are not that subsystem. */
	assert_null(belongs_to("memcgroup_compat.h", upper_of_sim));
	assert_null(belongs_to("rstatistics.h", upper_of_sim));
	assert_null(belongs_to("memcgsim/sched.h", upper_of_sim));
}

/* A file that breaks the rule is reported with its line. */
static void test_scan_catches_violation(void **state)
{
	char dir[] = "/tmp/msim-layers-XXXXXX";
	char file[sizeof(dir) + 16];
	struct scan s;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/bad.c", dir);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("#include <memcgsim/sim.h>\n#include \"../rstat/rstat.h\"\nint x;\n", f);
	fclose(f);

	memset(&s, 0, sizeof(s));
	scan_dir(dir, upper_of_sim, &s);
	remove(file);
	rmdir(dir);
	assert_int_equal(s.files, 1);
	assert_int_equal(s.includes, 2);
	assert_int_equal(s.violations, 1);
	assert_non_null(strstr(s.report, "bad.c:2 includes \"../rstat/rstat.h\""));
}

/* ---- the real check ---- */

static void test_layers_only_call_downward(void **state)
{
	struct scan s;
	unsigned int files_total = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		char dir[4096];

		memset(&s, 0, sizeof(s));
		snprintf(dir, sizeof(dir), "%s/%s", MSIM_SOURCE_DIR, rules[i].dir);
		scan_dir(dir, rules[i].forbidden, &s);
		files_total += s.files;
		if (s.violations) {
			fprintf(stderr, "layer rule broken in %s (%u include(s)):\n%s", rules[i].dir,
				s.violations, s.report);
			fail_msg("%s includes upper-layer headers; use msim_memcg_hooks or move the code",
				 rules[i].dir);
		}
	}
	/* The sim layer must exist, or this test checks nothing. */
	assert_true(files_total > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_include),
		cmocka_unit_test(test_belongs_to),
		cmocka_unit_test(test_scan_catches_violation),
		cmocka_unit_test(test_layers_only_call_downward),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
