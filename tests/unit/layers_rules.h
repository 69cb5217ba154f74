/* SPDX-License-Identifier: MIT */
/*
 * layers_rules.h - the include rules behind test_layers.c (its rule 1): what each
 * folder may include (rules[], one row per folder), the includes allowed against
 * them with their reasons, and the scan that checks every #include line.
 * Included by test_layers.c only (one translation unit).
 */
#ifndef MSIM_TESTS_LAYERS_RULES_H
#define MSIM_TESTS_LAYERS_RULES_H

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

#include "unit/layers_scan.h"

/* ==== 1. includes ==== */

/*
 * What each folder may not include (docs/design.md, Layout): sim and lib know
 * no subsystem; memcg knows sim and lib; the layers above know memcg and each
 * other only where the kernel does: rstat the node counters (vmstat:
 * mod_lruvec_state), lru the lruvec and node stats, workingset lru, list_lru
 * (its shadow-node shrinker) and rstat, zswap list_lru, lru and rstat, damon the
 * rstat readers. The race engine (src/race) sits above the model, the races
 * (scenarios/) above it, bench/ above the races, the command (tools/) above
 * bench; nothing but the tests includes a test's helper. The examples are
 * experiments against the installed package: the public API, never introspection
 * (not installed); the kernel rig's guest programs (oracle/) run on Linux itself
 * and include no header of the library.
 */
#define ABOVE_RACE "race", "scenarios", "bench", "tools", "tests"
static const char *const upper_of_sim[] = {
	"memcg", "rstat", "vmstat", "lru", "shrinker", "list_lru", "workingset", "zswap", "damon",
	ABOVE_RACE, NULL,
};
static const char *const upper_of_memcg[] = {
	"rstat", "vmstat", "lru", "shrinker", "list_lru", "workingset", "zswap", "damon",
	ABOVE_RACE, NULL,
};
static const char *const not_for_rstat[] = {
	"lru", "shrinker", "list_lru", "workingset", "zswap", "damon", ABOVE_RACE, NULL,
};
static const char *const not_for_vmstat[] = {
	"rstat", "lru", "shrinker", "list_lru", "workingset", "zswap", "damon", ABOVE_RACE, NULL,
};
static const char *const not_for_lru[] = {
	"shrinker", "list_lru", "workingset", "zswap", "damon", ABOVE_RACE, NULL,
};
static const char *const not_for_shrinker[] = {
	"rstat", "vmstat", "lru", "workingset", "zswap", "damon", ABOVE_RACE, NULL,
};
static const char *const not_for_workingset[] = {
	"vmstat", "zswap", "damon", ABOVE_RACE, NULL,
};
static const char *const not_for_zswap[] = { "vmstat", "workingset", "damon", ABOVE_RACE, NULL };
static const char *const not_for_damon[] = {
	"vmstat", "lru", "shrinker", "list_lru", "workingset", "zswap", ABOVE_RACE, NULL,
};
static const char *const not_for_race[] = { "scenarios", "bench", "tools", "tests", NULL };
static const char *const not_for_scenarios[] = { "bench", "tools", "tests", NULL };
static const char *const not_for_bench[] = { "tools", "tests", NULL };
static const char *const not_for_tools[] = { "tests", NULL };
/* The tests' helpers: the command is run as a process, never included. */
static const char *const not_for_test_helpers[] = { "tools", NULL };
static const char *const not_for_examples[] = {
	"introspect", "scenarios", "bench", "tools", "tests", NULL,
};
static const char *const not_for_oracle[] = { "memcgsim", ABOVE_RACE, NULL };

struct layer_rule {
	const char *dir;                 /* relative to the source root */
	const char *const *forbidden;
	bool helpers_only;               /* tests: only the helpers, not test_*.c */
};

static const struct layer_rule rules[] = {
	{ "src/sim", upper_of_sim, false },          { "src/lib", upper_of_sim, false },
	{ "src/memcg", upper_of_memcg, false },      { "src/rstat", not_for_rstat, false },
	{ "src/vmstat", not_for_vmstat, false },     { "src/lru", not_for_lru, false },
	{ "src/shrinker", not_for_shrinker, false }, { "src/workingset", not_for_workingset, false },
	{ "src/zswap", not_for_zswap, false },       { "src/damon", not_for_damon, false },
	{ "src/race", not_for_race, false },         { "scenarios", not_for_scenarios, false },
	{ "bench", not_for_bench, false },           { "tools", not_for_tools, false },
	{ "tests", not_for_test_helpers, true },
	{ "examples", not_for_examples, false },     { "oracle", not_for_oracle, false },
};

/*
 * Includes allowed against the rules, each with its reason. An entry nobody
 * needs any more fails the test (delete it). from is a folder (folder_of()),
 * header the include as it resolves. The list ends with a NULL from.
 */
struct allowed_include {
	const char *from, *header, *why;
};

static const struct allowed_include allowed_includes[] = {
	/* The scheduler benches time sim's internal switch (msim__sched_resumes,
	 * msim__sched_always_switch) beside the public run loop. */
	{ "bench", "src/sim/sched.h", "sched-switch and update-cost time sim's internal switch" },
	{ "bench", "src/sim/explore.h", "explore-rate times the host part inside the explorer's runs" },
	/* The trace export (race --trace) observes the scheduler's event stream, a
	 * library-internal interface between two folders of the library. */
	{ "src/race", "src/sim/sched.h", "trace export: the scheduler's event observer" },
	{ NULL, NULL, NULL },
};

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
 * Does a forbidden list name a layer of the model (not only the folders above it,
 * or the introspection headers)?
 */
static bool forbids_a_layer(const char *const *forbidden)
{
	static const char *const above[] = { ABOVE_RACE, "introspect" };

	for (const char *const *f = forbidden; *f; f++) {
		bool is_above = false;

		for (size_t i = 0; i < sizeof(above) / sizeof(above[0]); i++)
			is_above |= strcmp(*f, above[i]) == 0;
		if (!is_above)
			return true;
	}
	return false;
}

/* The first subsystem of forbidden that path belongs to, or NULL. */
static const char *belongs_to(const char *path, const char *const *forbidden)
{
	const char *comp = path;
	const char *base = strrchr(path, '/');

	/*
	 * The umbrellas are every layer's: the model's layers never include them
	 * (a layer includes its own part, <memcgsim/introspect/LAYER.h>).
	 */
	base = base ? base + 1 : path;
	if ((strcmp(base, "memcgsim.h") == 0 || strcmp(base, "introspect.h") == 0) &&
	    forbids_a_layer(forbidden))
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
	unsigned int files, includes, violations;
	bool allowed_seen[sizeof(allowed_includes) / sizeof(allowed_includes[0])];
	char report[8192];
};

static void report(struct scan *s, const char *fmt, ...)
{
	size_t used = strlen(s->report);
	va_list ap;

	s->violations++;
	va_start(ap, fmt);
	vsnprintf(s->report + used, sizeof(s->report) - used, fmt, ap);
	va_end(ap);
}

/* Is the include of rel by a file of folder an allowed exception? (noted) */
static bool include_allowed(struct scan *s, const char *folder, const char *rel)
{
	for (size_t i = 0; allowed_includes[i].from; i++) {
		if (strcmp(allowed_includes[i].from, folder) || strcmp(allowed_includes[i].header, rel))
			continue;
		s->allowed_seen[i] = true;
		return true;
	}
	return false;
}

/* One include of file (in folder, under root): an upper layer's, or another folder's. */
static void check_include(const char *root, const char *folder, const char *file,
			  unsigned int lineno, const char *inc, const char *const *forbidden,
			  struct scan *s)
{
	char dir[4096], rel[4096] = "", other[256];
	const char *slash = strrchr(file, '/');
	const char *sub;
	bool resolved;

	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file), file);
	resolved = resolve_include(root, dir, inc, rel, sizeof(rel));
	sub = belongs_to(inc, forbidden);
	if (!sub && resolved)
		sub = belongs_to(rel, forbidden);
	if (resolved && include_allowed(s, folder, rel))
		return;
	if (sub)
		report(s, "  %s:%u includes \"%s\" (a %s header)\n", file, lineno, inc, sub);
	else if (resolved && strncmp(folder, "tests", 5) != 0 && folder_of(rel, other, sizeof(other)) &&
		 strncmp(other, "src/", 4) == 0 && strcmp(other, folder) != 0)
		report(s, "  %s:%u includes \"%s\" (%s's internal header)\n", file, lineno, inc,
		       other);
}

static void scan_file(const char *root, const char *file, const char *const *forbidden,
		      struct scan *s)
{
	FILE *f = fopen(file, "r");
	char line[1024], inc[512], folder[256];
	unsigned int lineno = 0;

	if (!f)
		return;
	/* The file's own folder (tools/memcgsim for tools/memcgsim/shared/x.c). */
	if (!folder_of(file + strlen(root) + 1, folder, sizeof(folder)))
		snprintf(folder, sizeof(folder), ".");
	s->files++;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!parse_include(line, inc, sizeof(inc)))
			continue;
		s->includes++;
		check_include(root, folder, file, lineno, inc, forbidden, s);
	}
	fclose(f);
}

/* A test's own .c (test_*.c, a fuzz harness): white-box, not a helper. */
static bool is_test_program(const char *name)
{
	size_t n = strlen(name);

	return name[n - 1] == 'c';
}

/* Every .c and .h below dir (recursively); the tests' helpers only where asked. */
static void scan_dir(const char *root, const char *dir, const struct layer_rule *rule,
		     struct scan *s)
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
			scan_dir(root, path, rule, s);
		else if (S_ISREG(st.st_mode) && is_source(e->d_name) &&
			 !(rule->helpers_only && is_test_program(e->d_name)))
			scan_file(root, path, rule->forbidden, s);
	}
	closedir(d);
}

/* The include rules over the tree at root; the report goes to stderr (or nowhere). */
static unsigned int check_includes(const char *root, FILE *out, unsigned int *files_total,
				   unsigned int *stale)
{
	unsigned int bad = 0;
	bool seen[sizeof(allowed_includes) / sizeof(allowed_includes[0])] = { false };

	*files_total = 0;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		char dir[4096];
		struct scan s;

		memset(&s, 0, sizeof(s));
		snprintf(dir, sizeof(dir), "%s/%s", root, rules[i].dir);
		scan_dir(root, dir, &rules[i], &s);
		*files_total += s.files;
		if (s.violations && out)
			fprintf(out, "layer rule broken in %s (%u include(s)):\n%s", rules[i].dir,
				s.violations, s.report);
		bad += s.violations;
		for (size_t k = 0; allowed_includes[k].from; k++)
			seen[k] |= s.allowed_seen[k];
	}
	*stale = 0;
	for (size_t k = 0; allowed_includes[k].from; k++) {
		if (seen[k])
			continue;
		if (out)
			fprintf(out, "  %s no longer includes %s: delete it from allowed_includes[]\n",
				allowed_includes[k].from, allowed_includes[k].header);
		(*stale)++;
	}
	return bad;
}

/* The row of rules[] that covers folder (a rule's dir is the folder or above it). */
static const struct layer_rule *rule_of(const char *folder)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		size_t n = strlen(rules[i].dir);

		if (strncmp(folder, rules[i].dir, n) == 0 && (folder[n] == '\0' || folder[n] == '/'))
			return &rules[i];
	}
	return NULL;
}

#endif /* MSIM_TESTS_LAYERS_RULES_H */
