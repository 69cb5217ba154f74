/* SPDX-License-Identifier: MIT */
/*
 * test_layers.c - the layer rules of docs/design.md (Layout), checked on every
 * folder of the tree: src/<layer>, scenarios/, bench/, tools/memcgsim/, the
 * tests' helpers (the headers of tests/<suite>/), examples/ and oracle/.
 *
 * 1. Folders only call downward, seen in the #include lines:
 *    - a header belongs to a layer when a directory of its path (as written, or
 *      where it resolves on the build's include path) is the layer's name
 *      ("../rstat/flush.h", "tools/memcgsim/scenario.h") or its file name is,
 *      alone or followed by '_', '-' or '.' ("rstat.h", <memcgsim/list_lru.h>,
 *      "memcg_internal.h", <memcgsim/introspect/lru.h>); the umbrellas
 *      <memcgsim/memcgsim.h> and <memcgsim/introspect.h> are every layer's.
 *      Each folder may include only the layers below it (rules[]: one row per
 *      folder, and a folder without a row fails);
 *    - a header that resolves to another src/<folder>/ is that layer's internal
 *      header: no other folder includes it, upward or not (folders above use
 *      the public include/memcgsim/ header). The tests' .c files are white-box
 *      and not scanned; their helpers are. Conditional includes count too.
 * 2. Between the concepts of a folder, calls go one way: no circle. A concept
 *    is a file, or a few files behind one header (layers_graph.h,
 *    concept_of(): xarray_internal.h holds xarray*.c, charge_internal.h the
 *    charge files, rstat_internal.h every file of src/rstat but the generic
 *    core). Inside a concept files may call each other. The call graph comes
 *    from the source (layers_scan.h, layers_graph.h): each .c file's non-static
 *    functions and variables are its definitions; the identifiers in its
 *    function bodies, initialisers and macro bodies, plus those of every header
 *    inline function or macro it names, are its references (what its object
 *    file would need); a concept whose file references another's definition
 *    calls it. Including a header of another concept is an edge too. A circle
 *    is a strongly connected component of two or more concepts. Where two must
 *    call each other, one owns the concept and the other gets a callback
 *    (kernel/cgroup/rstat.c reaches memcg only through ss->css_rstat_flush).
 * 3. No circle between folders: the folders' include graph (an include that
 *    resolves into another folder, or a public header of another layer) has no
 *    strongly connected component of two or more folders.
 * The exceptions are named with their reasons (allowed_includes[] in
 * layers_rules.h, tolerated[] below), and fail once they are no longer needed.
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
#include "unit/layers_rules.h"

#ifndef MSIM_SOURCE_DIR
#error "MSIM_SOURCE_DIR must be defined by the build"
#endif

/* ==== 2. circles between the concepts of a folder ==== */

/* Folders whose circles are being cut on another branch: reported, not failed. */
static const struct {
	const char *folder, *why;
} tolerated[] = {
	{ NULL, NULL },
};

struct circle_check {
	unsigned int folders, concepts, edges, circles, stale;
	FILE *out;               /* where circles are told, or NULL */
};

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
	if (!fo.nf) {
		folder_free(&fo);
		return;
	}
	folder_graph(&fo);
	cc->folders++;
	cc->concepts += (unsigned int)fo.nn;
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

/* The folders of the tree, as folder_of() names them: each gets fn(root, rel, arg). */
typedef void (*folder_fn)(const char *root, const char *rel, void *arg);

static void each_subfolder(const char *root, const char *top, folder_fn fn, void *arg)
{
	char dir[4096];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", root, top);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char rel[512], path[8192];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", top, e->d_name);
		fn(root, rel, arg);
	}
	closedir(d);
}

/*
 * src/<layer>, tests/<suite>, tools/<program> (and its subfolders), bench,
 * scenarios, examples and oracle.
 */
static void each_folder(const char *root, folder_fn fn, void *arg)
{
	static const char *const flat[] = { "bench", "scenarios", "examples", "oracle" };
	char dir[4096];
	struct stat st;

	each_subfolder(root, "src", fn, arg);
	each_subfolder(root, "tests", fn, arg);
	each_subfolder(root, "tools", fn, arg);
	each_subfolder(root, "tools/memcgsim", fn, arg);
	for (size_t i = 0; i < sizeof(flat) / sizeof(flat[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, flat[i]);
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			fn(root, flat[i], arg);
	}
}

static void circle_folder(const char *root, const char *rel, void *arg)
{
	check_folder(root, rel, arg);
}

/* Every folder of the tree at root, circles told to out (or not: NULL). */
static void check_circles(const char *root, FILE *out, struct circle_check *cc)
{
	memset(cc, 0, sizeof(*cc));
	cc->out = out;
	each_folder(root, circle_folder, cc);
}

/* ==== 3. circles between folders ==== */

/*
 * The layer a public header stands for: the first folder of src/ (or above)
 * it names by file ("rstat.h" -> src/rstat, "list_lru.h" -> src/shrinker, and
 * so "introspect/lru.h" -> src/lru); the rest (sim.h, atomic.h, lock.h, ...) are
 * the machine's: src/sim, and so are the two umbrellas (memcgsim.h,
 * introspect.h), which rule 1 keeps out of the model's layers.
 */
static const char *layer_of_public(const char *rel)
{
	static const struct {
		const char *name, *folder;
	} map[] = {
		{ "memcg", "src/memcg" },         { "charge", "src/memcg" },
		{ "objcg", "src/memcg" },         { "rstat", "src/rstat" },
		{ "vmstat", "src/vmstat" },       { "mmzone", "src/vmstat" },
		{ "lru", "src/lru" },             { "folio", "src/lru" },
		{ "list_lru", "src/shrinker" },   { "shrinker", "src/shrinker" },
		{ "workingset", "src/workingset" }, { "zswap", "src/zswap" },
		{ "damon", "src/damon" },         { "race", "src/race" },
		{ "xarray", "src/lib" },          { "idr", "src/lib" },
	};
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		size_t n = strlen(map[i].name);

		if (strncmp(base, map[i].name, n) == 0 && strcmp(base + n, ".h") == 0)
			return map[i].folder;
	}
	return "src/sim";
}

struct folder_graph {
	char name[64][64];
	size_t n;
	bool adj[64][64];
	char why[64][64][176];   /* the first include that makes each edge */
	struct folder fo;        /* the same graph, for components() */
	struct scan seen;        /* allowed_includes[] met (the exceptions are no edge) */
};

static size_t fg_node(struct folder_graph *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->n && strcmp(g->name[i], name) != 0; i++)
		;
	if (i == g->n) {
		assert_true(g->n < 64);
		snprintf(g->name[g->n++], sizeof(g->name[0]), "%s", name);
	}
	return i;
}

/* The edges out of one folder: what its files include, resolved, in another folder. */
static void fg_folder(const char *root, const char *rel, void *arg)
{
	struct folder_graph *g = arg;
	struct folder fo;
	size_t from;

	folder_read(root, rel, &fo);
	if (!fo.nf || strncmp(rel, "tests/", 6) == 0) {  /* tests are the top: no edge in */
		folder_free(&fo);
		return;
	}
	from = fg_node(g, strncmp(rel, "tools/", 6) == 0 ? "tools/memcgsim" : rel);
	for (size_t i = 0; i < fo.nf; i++) {
		for (size_t k = 0; k < fo.f[i].incs.n; k++) {
			const char *inc = fo.f[i].incs.v[k];
			char other[256];
			size_t to;

			if (strncmp(inc, "include/", 8) == 0)
				snprintf(other, sizeof(other), "%s", layer_of_public(inc));
			else if (!folder_of(inc, other, sizeof(other)))
				continue;
			if (strncmp(other, "tools/", 6) == 0)
				snprintf(other, sizeof(other), "tools/memcgsim");
			if (include_allowed(&g->seen, g->name[from], inc))
				continue;
			to = fg_node(g, other);
			if (to == from || g->adj[from][to])
				continue;
			g->adj[from][to] = true;
			snprintf(g->why[from][to], sizeof(g->why[0][0]), "%.80s includes %.70s",
				 fo.f[i].rel, inc);
		}
	}
	folder_free(&fo);
}

/* Circles of two or more folders, told to out; returns how many. */
static unsigned int check_folder_circles(const char *root, FILE *out, unsigned int *nfolders)
{
	struct folder_graph *g = calloc(1, sizeof(*g));
	unsigned int circles;

	assert_non_null(g);
	each_folder(root, fg_folder, g);
	g->fo.nn = g->n;
	g->fo.adj = calloc(g->n * g->n + 1, sizeof(bool));
	g->fo.concept = calloc(g->n + 1, sizeof(*g->fo.concept));
	assert_true(g->fo.adj && g->fo.concept);
	for (size_t i = 0; i < g->n; i++) {
		snprintf(g->fo.concept[i], sizeof(g->fo.concept[0]), "%s", g->name[i]);
		for (size_t j = 0; j < g->n; j++)
			g->fo.adj[i * g->n + j] = g->adj[i][j];
	}
	snprintf(g->fo.rel, sizeof(g->fo.rel), "the tree");
	circles = folder_circles(&g->fo, out);
	if (circles && out) {
		int *comp = calloc(g->n + 1, sizeof(int));

		assert_non_null(comp);
		components(&g->fo, comp);
		for (size_t i = 0; i < g->n; i++)
			for (size_t j = 0; j < g->n; j++)
				if (g->adj[i][j] && comp[i] == comp[j])
					fprintf(out, "    %s -> %s: %s\n", g->name[i], g->name[j],
						g->why[i][j]);
		free(comp);
	}
	*nfolders = (unsigned int)g->n;
	folder_free(&g->fo);
	free(g);
	return circles;
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
	/* Introspection: a layer's own part is that layer's; the umbrella every layer's. */
	assert_string_equal(belongs_to("memcgsim/introspect/lru.h", not_for_rstat), "lru");
	assert_string_equal(belongs_to("memcgsim/introspect/shrinker.h", upper_of_memcg),
			    "shrinker");
	assert_null(belongs_to("memcgsim/introspect/vmstat.h", not_for_rstat));
	assert_null(belongs_to("memcgsim/introspect/lru.h", not_for_workingset));
	assert_string_equal(belongs_to("memcgsim/introspect.h", not_for_rstat),
			    "umbrella (every layer's)");
	assert_null(belongs_to("memcgsim/introspect.h", not_for_scenarios));
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
	scan_dir(root, dir, rule_of("src/memcg"), &s);
	assert_int_equal(s.files, 2);
	assert_int_equal(s.includes, 5);
	assert_int_equal(s.violations, 2);
	assert_non_null(strstr(s.report, "bad.c:2 includes \"../rstat/rstat.h\" (a rstat header)"));
	assert_non_null(strstr(s.report, "bad.c:4 includes \"shrinker/internal.h\" (a shrinker"));
	/* A lower layer's internal header is no one else's either. */
	memset(&s, 0, sizeof(s));
	put(root, "src/rstat/peek.c", "#include \"memcg/own.h\"\n");
	snprintf(dir, sizeof(dir), "%s/src/rstat", root);
	scan_dir(root, dir, rule_of("src/rstat"), &s);
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
	check_circles(root, NULL, &cc);
	assert_int_equal(cc.folders, 1);
	assert_int_equal(cc.edges, 2);
	assert_int_equal(cc.circles, 0);
	/* low calls back up: a circle of all three. */
	put(root, "src/a/low.c", "int top(void);\nint low(void) { return 0; }\n"
		 "static int (*back)(void) = top;\n");
	check_circles(root, NULL, &cc);
	assert_int_equal(cc.edges, 3);
	assert_int_equal(cc.circles, 1);
	/* A second folder is a graph of its own: a.c and b.c there do not join a's. */
	put(root, "src/b/one.c", "int top(void) { return 1; }\n");
	check_circles(root, NULL, &cc);
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
	check_circles(root, NULL, &cc);
	assert_int_equal(cc.circles, 0);
	put(root, "src/r/core.c", "#include \"core.h\"\n#include \"upper_internal.h\"\n"
		 "void core_flush(void) {}\n");
	check_circles(root, NULL, &cc);
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
	check_circles(root, NULL, &cc);
	assert_int_equal(cc.circles, 0);  /* low.c includes it but runs none of it */
	put(root, "src/h/low.c", "#include \"shared.h\"\nint low(void) { return via_top(); }\n");
	check_circles(root, NULL, &cc);
	assert_int_equal(cc.circles, 1);
	rm_tree(root);
}

/* A header groups the files of its concept; an internal header those that include it. */
static void test_concepts(void **state)
{
	char root[] = "/tmp/msim-layers-XXXXXX";
	const char *want[][2] = {
		{ "charge.c", "charge" },   { "charge_host.c", "charge" },
		{ "charge_internal.h", "charge" }, { "stock.c", "charge" },
		{ "core.c", "core" },       { "core.h", "core" },
		{ "lru.c", "lru" },         { "lru_host.c", "lru" },
		{ "lru_internal.h", "lru" }, { "lruvec.c", "lru" },
		{ "page_counter.c", "page_counter" },
		{ "kmem.h", "kmem" },       { "kmem_pool.h", "kmem" },
		{ "kmem_pool.c", "kmem" },
	};
	struct folder fo;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "src/m/charge_internal.h", "int c;\n");
	put(root, "src/m/charge.c", "#include \"charge_internal.h\"\n");
	put(root, "src/m/charge_host.c", "int h;\n");
	put(root, "src/m/stock.c", "#include \"core.h\"\n#include \"charge_internal.h\"\n");
	put(root, "src/m/core.h", "int k;\n");
	put(root, "src/m/core.c", "#include \"core.h\"\n");
	put(root, "src/m/lru_internal.h", "int l;\n");
	put(root, "src/m/lru.c", "int a;\n");
	put(root, "src/m/lru_host.c", "int b;\n");
	/* no header names lruvec.c: the internal header it includes decides */
	put(root, "src/m/lruvec.c", "#include \"lru_internal.h\"\nint v;\n");
	put(root, "src/m/page_counter.c", "#include \"core.h\"\n");
	put(root, "src/m/kmem.h", "int s;\n");
	put(root, "src/m/kmem_pool.h", "#include \"kmem.h\"\n");
	put(root, "src/m/kmem_pool.c", "#include \"kmem_pool.h\"\n");
	folder_read(root, "src/m", &fo);
	folder_graph(&fo);
	assert_int_equal(fo.nf, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < fo.nf; i++) {
		const char *c = NULL;

		for (size_t k = 0; k < fo.nf; k++)
			if (strcmp(want[k][0], fo.f[i].name) == 0)
				c = want[k][1];
		assert_non_null(c);
		assert_string_equal(node_name(&fo, fo.f[i].node), c);
	}
	assert_int_equal(fo.nn, 5);  /* charge, core, lru, page_counter, kmem */
	folder_free(&fo);
	rm_tree(root);
}

/* Two concepts calling each other are a circle; files of one concept are not. */
static void test_circle_between_concepts(void **state)
{
	char root[] = "/tmp/msim-layers-XXXXXX";
	struct circle_check cc;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "src/r/core.h", "void core_flush(void);\n");
	put(root, "src/r/core.c", "#include \"core.h\"\nvoid core_flush(void) {}\n");
	put(root, "src/r/rstat_internal.h", "#include \"core.h\"\nint stats_write(void);\n");
	put(root, "src/r/write.c", "#include \"rstat_internal.h\"\n"
		 "int attach(void);\nint stats_write(void) { return attach(); }\n");
	put(root, "src/r/attach.c", "#include \"rstat_internal.h\"\n"
		 "int attach(void) { core_flush(); return stats_write(); }\n");
	check_circles(root, NULL, &cc);
	assert_int_equal(cc.concepts, 2);  /* core; rstat (write.c, attach.c) */
	assert_int_equal(cc.circles, 0);
	/* The core reaches up into the memcg statistics without a callback. */
	put(root, "src/r/core.c", "#include \"core.h\"\nint stats_write(void);\n"
		 "void core_flush(void) { stats_write(); }\n");
	check_circles(root, NULL, &cc);
	assert_int_equal(cc.circles, 1);
	rm_tree(root);
}

/* Every folder outside src/ is checked too: an upward include in bench/, a circle. */
static void test_folders_beyond_src(void **state)
{
	char root[] = "/tmp/msim-layers-XXXXXX";
	unsigned int files, stale, nfolders;

	(void)state;
	assert_non_null(mkdtemp(root));
	put(root, "src/race/run.c", "#include <memcgsim/race.h>\n");
	put(root, "include/memcgsim/race.h", "int r;\n");
	put(root, "scenarios/toy.c", "#include <memcgsim/race.h>\n");
	put(root, "tools/memcgsim/cli.h", "#include \"bench_args.h\"\n");
	put(root, "bench/bench_args.h", "int a;\n");
	put(root, "bench/bench_x.c", "#include \"bench_args.h\"\n");
	put(root, "tests/unit/unit_util.h", "#include <memcgsim/race.h>\n");
	put(root, "tests/unit/test_x.c", "#include \"cli.h\"\n");  /* a test, not a helper */
	assert_int_equal(check_includes(root, NULL, &files, &stale), 0);
	assert_int_equal(files, 6);
	assert_int_equal(check_folder_circles(root, NULL, &nfolders), 0);
	/* bench reaching up into the command: an upward include, and a circle of folders. */
	put(root, "bench/bench_x.c", "#include \"bench_args.h\"\n#include \"cli.h\"\n");
	assert_int_equal(check_includes(root, NULL, &files, &stale), 1);
	assert_int_equal(check_folder_circles(root, NULL, &nfolders), 1);
	/* A model layer including the race engine, a race including a test's helper. */
	put(root, "src/lru/lru.c", "#include <memcgsim/race.h>\n");
	put(root, "scenarios/toy.c", "#include \"unit/unit_util.h\"\n");
	assert_int_equal(check_includes(root, NULL, &files, &stale), 3);
	/* An example reading introspection (not installed), a guest program the library. */
	put(root, "examples/ok.c", "#include <memcgsim/memcgsim.h>\n#include <memcgsim/race.h>\n");
	assert_int_equal(check_includes(root, NULL, &files, &stale), 3);
	put(root, "examples/peek.c", "#include <memcgsim/introspect/lru.h>\n");
	put(root, "oracle/guest/probe.c", "#include \"guest.h\"\n#include <memcgsim/sim.h>\n");
	assert_int_equal(check_includes(root, NULL, &files, &stale), 5);
	rm_tree(root);
}

/* ==== the real checks ==== */

static void rule_for_folder(const char *root, const char *rel, void *arg)
{
	unsigned int *missing = arg;

	(void)root;
	if (rule_of(rel))
		return;
	fprintf(stderr, "  %s has no row in rules[] (tests/unit/layers_rules.h)\n", rel);
	(*missing)++;
}

static void test_every_folder_has_a_rule(void **state)
{
	unsigned int missing = 0;

	(void)state;
	each_folder(MSIM_SOURCE_DIR, rule_for_folder, &missing);
	if (missing)
		fail_msg("%u folder(s) without a layer rule: say what each may include", missing);
	/* Every layer of src/, the race engine included, has a row of its own. */
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (strncmp(rules[i].dir, "src/", 4) == 0)
			assert_true(strchr(rules[i].dir + 4, '/') == NULL);
	assert_non_null(rule_of("src/race"));
}

static void test_layers_only_call_downward(void **state)
{
	unsigned int files_total, stale;

	(void)state;
	if (check_includes(MSIM_SOURCE_DIR, stderr, &files_total, &stale))
		fail_msg("a folder includes an upper layer's or another folder's internal "
			 "header; use msim_memcg_hooks, a callback, or move the code");
	if (stale)
		fail_msg("%u allowed include(s) no longer needed (listed above)", stale);
	/* src/, scenarios/, bench/, tools/ and the tests' helpers: hundreds of files. */
	assert_true(files_total > 300);
}

static void test_no_circle_between_concepts(void **state)
{
	struct circle_check cc;

	(void)state;
	check_circles(MSIM_SOURCE_DIR, stderr, &cc);
	if (cc.circles)
		fail_msg("%u circle(s) between the concepts of a folder (listed above): one "
			 "concept owns the calls, the other gets a callback", cc.circles);
	if (cc.stale)
		fail_msg("%u exception(s) no longer needed (listed above)", cc.stale);
	/* The graph must see the folders' calls, or this test checks nothing. */
	assert_true(cc.folders >= 15);
	assert_true(cc.edges >= 100);
}

static void test_no_circle_between_folders(void **state)
{
	unsigned int nfolders, circles;

	(void)state;
	circles = check_folder_circles(MSIM_SOURCE_DIR, stderr, &nfolders);
	if (circles)
		fail_msg("%u circle(s) between folders (listed above)", circles);
	assert_true(nfolders >= 14);
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
		cmocka_unit_test(test_concepts),
		cmocka_unit_test(test_circle_between_concepts),
		cmocka_unit_test(test_folders_beyond_src),
		cmocka_unit_test(test_every_folder_has_a_rule),
		cmocka_unit_test(test_layers_only_call_downward),
		cmocka_unit_test(test_no_circle_between_concepts),
		cmocka_unit_test(test_no_circle_between_folders),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
