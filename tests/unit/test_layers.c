/* SPDX-License-Identifier: MIT */
/*
 * test_layers.c - the layer rules of docs/design.md (Layers), checked on the sources.
 *
 * 1. Layers only call downward, seen in the #include lines of every src/<layer>:
 *    - a header belongs to a layer when a directory of its path is the layer's
 *      name ("../rstat/flush.h", "shrinker/info.h") or its file name is, alone or
 *      followed by '_', '-' or '.' ("rstat.h", <memcgsim/list_lru.h>,
 *      "memcg_internal.h"); the umbrella <memcgsim/memcgsim.h> is every layer's.
 *      Each layer may include only the layers it uses (rules[] below);
 *    - a header that resolves to another src/<folder>/ is that layer's internal
 *      header: no other layer includes it, upward or not (layers above use the
 *      public include/memcgsim/ header). Conditional includes count too.
 * 2. No circle of files inside a folder (every src/<folder>). The call graph
 *    comes from the source (layers_scan.h, layers_graph.h): each .c file's
 *    non-static functions and variables are its definitions; the identifiers in
 *    its function bodies, initialisers and macro bodies, plus those of every
 *    header inline function or macro it names, are its references (what its
 *    object file would need: on this tree the graph equals the one nm gives); a
 *    .c that references another's definition calls it. Including a header of the
 *    folder is an edge too, where X.h is one node with X.c: a lower file that
 *    includes an upper layer's internal header closes a circle through that
 *    header's own includes. A circle is a strongly connected component of two or
 *    more nodes. Where two files must call each other, one of them owns the
 *    concept and the other gets a callback (kernel/cgroup/rstat.c reaches memcg
 *    only through ss->css_rstat_flush). The exceptions are named below, each with
 *    its reason, and fail once they are no longer needed.
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

#include "unit/layers_graph.h"

#ifndef MSIM_SOURCE_DIR
#error "MSIM_SOURCE_DIR must be defined by the build"
#endif

/* ==== 1. includes ==== */

/*
 * What each layer may not include (docs/design.md, Layers): sim and lib know no
 * subsystem; memcg knows sim and lib; the layers above know memcg and each
 * other only where the kernel does: rstat the node counters (vmstat:
 * mod_lruvec_state), lru the lruvec and node stats, workingset lru, list_lru
 * (its shadow-node shrinker) and rstat, zswap list_lru, lru and rstat, damon the
 * rstat readers. No model layer includes the race engine (src/race): races are
 * defined above the model, in scenarios/ and in users' experiments.
 */
static const char *const upper_of_sim[] = {
	"memcg", "rstat", "vmstat", "lru", "shrinker", "list_lru", "workingset", "zswap", "damon",
	"race", NULL,
};
static const char *const upper_of_memcg[] = {
	"rstat", "vmstat", "lru", "shrinker", "list_lru", "workingset", "zswap", "damon", "race", NULL,
};
static const char *const not_for_rstat[] = {
	"lru", "shrinker", "list_lru", "workingset", "zswap", "damon", "race", NULL,
};
static const char *const not_for_vmstat[] = {
	"rstat", "lru", "shrinker", "list_lru", "workingset", "zswap", "damon", "race", NULL,
};
static const char *const not_for_lru[] = {
	"shrinker", "list_lru", "workingset", "zswap", "damon", "race", NULL,
};
static const char *const not_for_shrinker[] = {
	"rstat", "vmstat", "lru", "workingset", "zswap", "damon", "race", NULL,
};
static const char *const not_for_workingset[] = { "vmstat", "zswap", "damon", "race", NULL };
static const char *const not_for_zswap[] = { "vmstat", "workingset", "damon", "race", NULL };
static const char *const not_for_damon[] = {
	"vmstat", "lru", "shrinker", "list_lru", "workingset", "zswap", "race", NULL,
};

struct layer_rule {
	const char *dir;                 /* relative to the source root */
	const char *const *forbidden;
};

static const struct layer_rule rules[] = {
	{ "src/sim", upper_of_sim },          { "src/lib", upper_of_sim },
	{ "src/memcg", upper_of_memcg },      { "src/rstat", not_for_rstat },
	{ "src/vmstat", not_for_vmstat },     { "src/lru", not_for_lru },
	{ "src/shrinker", not_for_shrinker }, { "src/workingset", not_for_workingset },
	{ "src/zswap", not_for_zswap },       { "src/damon", not_for_damon },
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

/* The first subsystem of forbidden that path belongs to, or NULL. */
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
	unsigned int files, includes, violations;
	char report[4096];
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

/* One include of file (in folder, under root): an upper layer's, or another folder's. */
static void check_include(const char *root, const char *folder, const char *file,
			  unsigned int lineno, const char *inc, const char *const *forbidden,
			  struct scan *s)
{
	char dir[4096], rel[4096], other[256];
	const char *sub = belongs_to(inc, forbidden);
	const char *slash = strrchr(file, '/');

	if (sub)
		report(s, "  %s:%u includes \"%s\" (a %s header)\n", file, lineno, inc, sub);
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - file), file);
	if (!sub && resolve_include(root, dir, inc, rel, sizeof(rel)) &&
	    folder_of(rel, other, sizeof(other)) && strcmp(other, folder) != 0)
		report(s, "  %s:%u includes \"%s\" (%s's internal header)\n", file, lineno, inc,
		       other);
}

static void scan_file(const char *root, const char *folder, const char *file,
		      const char *const *forbidden, struct scan *s)
{
	FILE *f = fopen(file, "r");
	char line[1024], inc[512];
	unsigned int lineno = 0;

	if (!f)
		return;
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

/* Every .c and .h below root/folder (recursively). */
static void scan_dir(const char *root, const char *folder, const char *dir,
		     const char *const *forbidden, struct scan *s)
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
			scan_dir(root, folder, path, forbidden, s);
		else if (S_ISREG(st.st_mode) && is_source(e->d_name))
			scan_file(root, folder, path, forbidden, s);
	}
	closedir(d);
}

/* The include rules over the tree at root; the report goes to stderr. */
static unsigned int check_includes(const char *root, unsigned int *files_total)
{
	unsigned int bad = 0;

	*files_total = 0;
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		char dir[4096];
		struct scan s;

		memset(&s, 0, sizeof(s));
		snprintf(dir, sizeof(dir), "%s/%s", root, rules[i].dir);
		scan_dir(root, rules[i].dir, dir, rules[i].forbidden, &s);
		*files_total += s.files;
		if (s.violations)
			fprintf(stderr, "layer rule broken in %s (%u include(s)):\n%s", rules[i].dir,
				s.violations, s.report);
		bad += s.violations;
	}
	return bad;
}

/* ==== 2. circles of files inside a folder ==== */

/*
 * Calls allowed to go up, each with its reason, until the reason is gone (an
 * entry no longer needed fails the test). None today: the last two, the attach
 * on first use of rstat and the shrinker from their lookups, went when the layers
 * became subsystems that attach at msim_create(). The list ends
 * with an entry whose folder is NULL.
 */
struct allowed_call {
	const char *folder, *from, *symbol, *why;
};

static const struct allowed_call allowed_calls[] = {
	{ NULL, NULL, NULL, NULL },
};

/* Folders whose circles are being cut on another branch: reported, not failed. */
static const struct {
	const char *folder, *why;
} tolerated[] = {
	/* none left: src/sim lost its circle when it became one header per .c */
	{ NULL, NULL },
};

struct circle_check {
	unsigned int folders, edges, circles, stale;
	bool allowed_seen[sizeof(allowed_calls) / sizeof(allowed_calls[0])];
	FILE *out;               /* where circles are told, or NULL */
};

/* The folder's skip_call: an allowed call is left out of the graph (and noted). */
static bool allowed(struct folder *fo, const char *from, const char *sym)
{
	struct circle_check *cc = fo->priv;

	for (size_t i = 0; allowed_calls[i].folder; i++) {
		const struct allowed_call *a = &allowed_calls[i];

		if (strcmp(a->folder, fo->rel) || strcmp(a->from, from) || strcmp(a->symbol, sym))
			continue;
		cc->allowed_seen[i] = true;
		return true;
	}
	return false;
}

static const char *tolerated_why(const char *rel)
{
	for (size_t i = 0; tolerated[i].folder; i++)
		if (strcmp(tolerated[i].folder, rel) == 0)
			return tolerated[i].why;
	return NULL;
}

/* One folder: its circles fail unless tolerated; a tolerance without a circle too. */
static void check_folder(const char *root, const char *rel, struct circle_check *cc)
{
	struct folder fo;
	const char *why = tolerated_why(rel);
	unsigned int n;

	folder_read(root, rel, &fo);
	fo.skip_call = allowed;
	fo.priv = cc;
	folder_graph(&fo);
	cc->folders++;
	for (size_t i = 0; i < fo.nn * fo.nn; i++)
		cc->edges += fo.adj[i];
	if (getenv("MSIM_LAYERS_VERBOSE"))
		print_edges(&fo);
	n = folder_circles(&fo, why ? NULL : cc->out);
	if (why && n && cc->out) {
		fprintf(cc->out, "  (%s: %u circle(s) tolerated: %s)\n", rel, n, why);
	} else if (why && !n) {
		if (cc->out)
			fprintf(cc->out, "  %s has no circle left: delete its entry in tolerated[] "
				"(tests/unit/test_layers.c)\n", rel);
		cc->stale++;
	}
	if (!why)
		cc->circles += n;
	folder_free(&fo);
}

/*
 * Every folder below root/src, circles told to out (or not: NULL); then, on the
 * project's tree (all_allowed), the allowed calls that no longer exist.
 */
static void check_circles(const char *root, bool all_allowed, FILE *out,
			  struct circle_check *cc)
{
	char src[4096];
	struct dirent *e;
	DIR *d;

	memset(cc, 0, sizeof(*cc));
	cc->out = out;
	snprintf(src, sizeof(src), "%s/src", root);
	d = opendir(src);
	assert_non_null(d);
	while ((e = readdir(d))) {
		char rel[512], path[8192];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", src, e->d_name);
		if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		snprintf(rel, sizeof(rel), "src/%s", e->d_name);
		check_folder(root, rel, cc);
	}
	closedir(d);
	for (size_t i = 0; allowed_calls[i].folder; i++) {
		if (cc->allowed_seen[i] || !all_allowed)
			continue;
		if (out)
			fprintf(out, "  %s: %s no longer calls %s: delete it from allowed_calls[]\n",
				allowed_calls[i].folder, allowed_calls[i].from,
				allowed_calls[i].symbol);
		cc->stale++;
	}
}

/* ==== tests of the checks themselves (so that the real checks can fail) ==== */

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
	assert_string_equal(belongs_to("memcgsim/lru.h", upper_of_sim), "lru");
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
	/* rstat and shrinker know memcg, not each other. */
	assert_null(belongs_to("memcgsim/charge.h", not_for_rstat));
	assert_string_equal(belongs_to("memcgsim/list_lru.h", not_for_rstat), "list_lru");
	assert_string_equal(belongs_to("rstat/rstat_internal.h", not_for_shrinker), "rstat");
	assert_null(belongs_to("memcgsim/list_lru.h", not_for_shrinker));
	/* Names that merely start with a subsystem's letters are not that subsystem. */
	assert_null(belongs_to("memcgroup_compat.h", upper_of_sim));
	assert_null(belongs_to("rstatistics.h", upper_of_sim));
	assert_null(belongs_to("lruvec.h", upper_of_sim));
	assert_null(belongs_to("memcgsim/sched.h", upper_of_sim));
}

/* A fixture tree: root/src/<folder>/<file> written from text. */
static void put(const char *root, const char *rel, const char *text)
{
	char path[4096], dir[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = strchr(path + strlen(root) + 1, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		mkdir(dir, 0700);
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void rm_tree(const char *root)
{
	char cmd[4200];

	assert_true(strncmp(root, "/tmp/msim-layers-", 17) == 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* An upper header by name, and another folder's internal header by where it is. */
static void test_scan_catches_violation(void **state)
{
	char root[] = "/tmp/msim-layers-XXXXXX", dir[64];
	struct scan s;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "src/shrinker/internal.h", "int y;\n");
	put(root, "src/memcg/own.h", "int z;\n");
	put(root, "src/memcg/bad.c", "#include <memcgsim/sim.h>\n#include \"../rstat/rstat.h\"\n"
		 "#include \"own.h\"\n#include \"shrinker/internal.h\"\n"
		 "#include \"memcg/own.h\"\nint x;\n");
	memset(&s, 0, sizeof(s));
	snprintf(dir, sizeof(dir), "%s/src/memcg", root);
	scan_dir(root, "src/memcg", dir, upper_of_memcg, &s);
	assert_int_equal(s.files, 2);
	assert_int_equal(s.includes, 5);
	assert_int_equal(s.violations, 2);
	assert_non_null(strstr(s.report, "bad.c:2 includes \"../rstat/rstat.h\" (a rstat header)"));
	assert_non_null(strstr(s.report, "bad.c:4 includes \"shrinker/internal.h\" (a shrinker"));
	/* A lower layer's internal header is no one else's either. */
	memset(&s, 0, sizeof(s));
	put(root, "src/rstat/peek.c", "#include \"memcg/own.h\"\n");
	snprintf(dir, sizeof(dir), "%s/src/rstat", root);
	scan_dir(root, "src/rstat", dir, not_for_rstat, &s);
	assert_int_equal(s.violations, 1);
	assert_non_null(strstr(s.report, "(src/memcg's internal header)"));
	rm_tree(root);
}

/* Definitions and references, past comments, strings, tags and members. */
static void test_parse_source(void **state)
{
	char root[] = "/tmp/msim-layers-XXXXXX";
	struct srcfile f = { 0 };

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "src/a/x.c",
	    "/* calls c_in_comment() */\n#include \"x_int.h\"\n#define M(v) m_in_macro(v)\n"
	    "struct d_tag;\nstatic int hidden(void) { return 0; }\nint proto(int);\n"
	    "extern long ext;\nlong var_def;\nconst struct ops table = { .fld = f_in_init };\n"
	    "static void __attribute__((unused)) quiet(void) {}\n"
	    "struct d_tag *defined_fn(struct d_tag *p, int n)\n{\n"
	    "\tp->member(n);\n\tcallee(\"s_in_string()\", 'x');\n\treturn (struct d_tag *)0;\n}\n");
	put(root, "src/a/x_int.h", "int h;\n");
	assert_true(parse_source(root, "src/a/x.c", &f));
	assert_string_equal(f.name, "x.c");
	assert_int_equal(f.defs.n, 3);
	assert_true(sv_has(&f.defs, "var_def", 7) && sv_has(&f.defs, "table", 5) &&
		    sv_has(&f.defs, "defined_fn", 10));
	assert_true(sv_has(&f.refs, "callee", 6) && sv_has(&f.refs, "f_in_init", 9) &&
		    sv_has(&f.refs, "m_in_macro", 10));
	assert_false(sv_has(&f.refs, "c_in_comment", 12) || sv_has(&f.refs, "s_in_string", 11));
	assert_false(sv_has(&f.refs, "d_tag", 5) || sv_has(&f.refs, "member", 6) ||
		     sv_has(&f.refs, "fld", 3));
	assert_int_equal(f.incs.n, 1);
	assert_string_equal(f.incs.v[0], "src/a/x_int.h");
	srcfile_free(&f);
	rm_tree(root);
}

/* Two files that call each other are a circle; a chain is not. */
static void test_circle_found(void **state)
{
	char root[] = "/tmp/msim-layers-XXXXXX";
	struct circle_check cc;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "src/a/low.c", "int low(void) { return 0; }\n");
	put(root, "src/a/mid.c", "int low(void);\nint mid(void) { return low(); }\n");
	put(root, "src/a/top.c", "int mid(void);\nint top(void) { return mid(); }\n");
	check_circles(root, false, NULL, &cc);
	assert_int_equal(cc.folders, 1);
	assert_int_equal(cc.edges, 2);
	assert_int_equal(cc.circles, 0);
	/* low calls back up: a circle of all three. */
	put(root, "src/a/low.c", "int top(void);\nint low(void) { return 0; }\n"
		 "static int (*back)(void) = top;\n");
	check_circles(root, false, NULL, &cc);
	assert_int_equal(cc.edges, 3);
	assert_int_equal(cc.circles, 1);
	/* A second folder is a graph of its own: a.c and b.c there do not join a's. */
	put(root, "src/b/one.c", "int top(void) { return 1; }\n");
	check_circles(root, false, NULL, &cc);
	assert_int_equal(cc.folders, 2);
	assert_int_equal(cc.circles, 1);
	rm_tree(root);
}

/*
 * A lower file including an upper layer's internal header: the header includes
 * the lower file's own header (X.h counts as X.c), so the include closes a circle.
 */
static void test_include_closes_circle(void **state)
{
	char root[] = "/tmp/msim-layers-XXXXXX";
	struct circle_check cc;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "src/r/core.h", "void core_flush(void);\n");
	put(root, "src/r/core.c", "#include \"core.h\"\nvoid core_flush(void) {}\n");
	put(root, "src/r/upper_internal.h", "#include \"r/core.h\"\nstruct upper { int x; };\n");
	put(root, "src/r/upper.c", "#include \"upper_internal.h\"\n"
		 "void upper(void) { core_flush(); }\n");
	check_circles(root, false, NULL, &cc);
	assert_int_equal(cc.circles, 0);
	put(root, "src/r/core.c", "#include \"core.h\"\n#include \"upper_internal.h\"\n"
		 "void core_flush(void) {}\n");
	check_circles(root, false, NULL, &cc);
	assert_int_equal(cc.circles, 1);
	rm_tree(root);
}

/* An inline in a header runs in its includer: the includer calls what it calls. */
static void test_header_inline_counts(void **state)
{
	char root[] = "/tmp/msim-layers-XXXXXX";
	struct circle_check cc;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "src/h/shared.h", "int top(void);\n"
		 "static inline int via_top(void) { return top(); }\n");
	put(root, "src/h/top.c", "int low(void);\nint top(void) { return low(); }\n");
	put(root, "src/h/low.c", "#include \"shared.h\"\nint low(void) { return 0; }\n");
	check_circles(root, false, NULL, &cc);
	assert_int_equal(cc.circles, 0);  /* low.c includes it but runs none of it */
	put(root, "src/h/low.c", "#include \"shared.h\"\nint low(void) { return via_top(); }\n");
	check_circles(root, false, NULL, &cc);
	assert_int_equal(cc.circles, 1);
	rm_tree(root);
}

/* ==== the real checks ==== */

static void test_layers_only_call_downward(void **state)
{
	unsigned int files_total;

	(void)state;
	if (check_includes(MSIM_SOURCE_DIR, &files_total))
		fail_msg("a layer includes an upper layer's or another folder's internal "
			 "header; use msim_memcg_hooks, a callback, or move the code");
	/* The sim layer must exist, or this test checks nothing. */
	assert_true(files_total > 0);
}

static void test_no_circle_in_a_folder(void **state)
{
	struct circle_check cc;

	(void)state;
	check_circles(MSIM_SOURCE_DIR, true, stderr, &cc);
	if (cc.circles)
		fail_msg("%u circle(s) of files inside a folder (listed above): one file owns "
			 "the concept, the other gets a callback", cc.circles);
	if (cc.stale)
		fail_msg("%u exception(s) no longer needed (listed above)", cc.stale);
	/* The graph must see the folders' calls, or this test checks nothing. */
	assert_true(cc.folders >= 4);
	assert_true(cc.edges >= 40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_include),
		cmocka_unit_test(test_belongs_to),
		cmocka_unit_test(test_scan_catches_violation),
		cmocka_unit_test(test_parse_source),
		cmocka_unit_test(test_circle_found),
		cmocka_unit_test(test_include_closes_circle),
		cmocka_unit_test(test_header_inline_counts),
		cmocka_unit_test(test_layers_only_call_downward),
		cmocka_unit_test(test_no_circle_in_a_folder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
