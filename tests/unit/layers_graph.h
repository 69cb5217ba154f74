/* SPDX-License-Identifier: MIT */
/*
 * layers_graph.h - the graph of the concepts of one folder, from what
 * layers_scan.h read. A concept is a file, or a few files behind one header
 * (concept_of() below says which); it is one node. A concept calls another
 * when one of its .c files uses a name a file of the other defines (directly,
 * or through a header's inline function or macro it names), and reaches a
 * header of the folder it includes. Its circles are the strongly connected
 * components of two or more nodes. Included by test_layers.c only (one
 * translation unit).
 */
#ifndef MSIM_TESTS_LAYERS_GRAPH_H
#define MSIM_TESTS_LAYERS_GRAPH_H

#include <dirent.h>

#include "unit/layers_scan.h"

/* ---- the graph of one folder ---- */

struct folder;
/* Calls the graph leaves out (the caller's exceptions); sym is called by file from. */
typedef bool (*skip_call_fn)(struct folder *fo, const char *from, const char *sym);

struct folder {
	char root[4096];
	char rel[512];           /* "src/rstat" */
	struct srcfile *f;       /* the folder's .c and .h files, by name */
	size_t nf;
	struct srcfile **extra;  /* headers outside the folder its files include */
	size_t nextra;
	size_t nn;               /* nodes: the folder's concepts */
	char (*concept)[128];    /* nn names: "lru", "charge", "core" */
	bool *adj;               /* nn x nn: an edge from node i to node j */
	skip_call_fn skip_call;
	void *priv;              /* the caller's */
};

static int cmp_srcfile(const void *a, const void *b)
{
	return strcmp(((const struct srcfile *)a)->name, ((const struct srcfile *)b)->name);
}

/* Read every .c and .h directly in root/rel (subfolders are folders of their own). */
static void folder_read(const char *root, const char *rel, struct folder *fo)
{
	char dir[4096], path[4096];
	struct dirent *e;
	DIR *d;

	memset(fo, 0, sizeof(*fo));
	snprintf(fo->root, sizeof(fo->root), "%s", root);
	snprintf(fo->rel, sizeof(fo->rel), "%s", rel);
	snprintf(dir, sizeof(dir), "%s/%s", root, rel);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !is_source(e->d_name))
			continue;
		fo->f = realloc(fo->f, (fo->nf + 1) * sizeof(*fo->f));
		assert_non_null(fo->f);
		memset(&fo->f[fo->nf], 0, sizeof(fo->f[0]));
		snprintf(path, sizeof(path), "%s/%s", rel, e->d_name);
		if (parse_source(root, path, &fo->f[fo->nf]))
			fo->nf++;
	}
	closedir(d);
	if (fo->nf > 1) /* a folder without sources has no array: qsort(NULL) is undefined */
		qsort(fo->f, fo->nf, sizeof(*fo->f), cmp_srcfile);
}

static bool is_header(const struct srcfile *f)
{
	return f->name[strlen(f->name) - 1] == 'h';
}

/* The folder's file at rel (from the root), or -1. */
static int file_at(const struct folder *fo, const char *rel)
{
	for (size_t i = 0; i < fo->nf; i++)
		if (strcmp(fo->f[i].rel, rel) == 0)
			return (int)i;
	return -1;
}

/* Any header at rel: the folder's, or one from outside read once. */
static const struct srcfile *header_at(struct folder *fo, const char *rel)
{
	int i = file_at(fo, rel);
	size_t n = strlen(rel);

	if (i >= 0)
		return &fo->f[i];
	if (n < 2 || strcmp(rel + n - 2, ".h") != 0)
		return NULL;
	for (size_t k = 0; k < fo->nextra; k++)
		if (strcmp(fo->extra[k]->rel, rel) == 0)
			return fo->extra[k];
	/* One allocation each: callers hold these while more are read. */
	fo->extra = realloc(fo->extra, (fo->nextra + 1) * sizeof(*fo->extra));
	assert_non_null(fo->extra);
	fo->extra[fo->nextra] = calloc(1, sizeof(struct srcfile));
	assert_non_null(fo->extra[fo->nextra]);
	if (!parse_source(fo->root, rel, fo->extra[fo->nextra])) {
		free(fo->extra[fo->nextra]);
		return NULL;
	}
	return fo->extra[fo->nextra++];
}

/* A file's stem: "lru_host.c" -> "lru_host"; a header's "_internal" goes too. */
static void stem_of(const struct srcfile *f, char *out, size_t len)
{
	size_t n = strlen(f->name) - 2;  /* ".c", ".h" */

	if (is_header(f) && n > 9 && strncmp(f->name + n - 9, "_internal", 9) == 0)
		n -= 9;
	snprintf(out, len, "%.*s", (int)n, f->name);
}

/* Is stem s in the concept of header stem p: s is p, or starts with p and '_'? */
static bool stem_in(const char *s, const char *p)
{
	size_t n = strlen(p);

	return strncmp(s, p, n) == 0 && (s[n] == '\0' || s[n] == '_');
}

/* X_internal.h (a bare internal.h is no concept's: src/sim's base, under every file). */
static bool is_internal_header(const struct srcfile *f)
{
	size_t n = strlen(f->name);

	return n > 11 && strcmp(f->name + n - 11, "_internal.h") == 0;
}

/* Is f the header named after its folder (src/memcg/memcg_internal.h)? */
static bool is_folder_header(const struct folder *fo, const struct srcfile *f)
{
	const char *base = strrchr(fo->rel, '/');
	char stem[128];

	stem_of(f, stem, sizeof(stem));
	return strcmp(stem, base ? base + 1 : fo->rel) == 0;
}

/* The folder's header of stem p (p.h or p_internal.h), or -1. */
static int header_of_stem(const struct folder *fo, const char *p)
{
	char hs[128];

	for (size_t h = 0; h < fo->nf; h++) {
		if (!is_header(&fo->f[h]))
			continue;
		stem_of(&fo->f[h], hs, sizeof(hs));
		if (strcmp(hs, p) == 0)
			return (int)h;
	}
	return -1;
}

/*
 * The concept of file i, in out. A concept is named by a header; the files
 * named after it, that say so by including it, are its. For a file of stem S
 * (its name without ".c", ".h" or "_internal.h"):
 *  1. it includes a header of the folder whose stem P is a prefix of S followed
 *     by '_': P's concept (kmem_pool.h and kmem_pool.c include kmem_internal.h:
 *     kmem's; report_doc.h includes report.h: report's; rcu_det.h does not
 *     include rcu.h: a concept of its own);
 *  2. else (a .c) the concept of its own header S.h or S_internal.h;
 *  3. else (a .c without a header of its own) the concept of the longest header
 *     whose stem prefixes S followed by '_' (sched_opts.c: sched's);
 *  4. else (a .c named after no header) the concept of an internal header of
 *     the folder it includes: the files behind that header (stock.c behind
 *     charge_internal.h; every file of src/rstat but the core behind
 *     rstat_internal.h), the first one not named after the folder first
 *     (obj_stock.c includes memcg_internal.h and objcg_internal.h: objcg's);
 *  5. else a concept of its own.
 */
static void concept_of(const struct folder *fo, size_t i, char *out, size_t len)
{
	const struct srcfile *f = &fo->f[i];
	char stem[128], hs[128];
	size_t best = 0;
	int j = -1, longest = -1;

	stem_of(f, stem, sizeof(stem));
	snprintf(out, len, "%s", stem);
	for (size_t k = 0; k < f->incs.n && j < 0; k++) {       /* 1 */
		int h = file_at(fo, f->incs.v[k]);

		if (h < 0 || !is_header(&fo->f[h]))
			continue;
		stem_of(&fo->f[h], hs, sizeof(hs));
		if (strcmp(hs, stem) != 0 && stem_in(stem, hs))
			j = h;
	}
	if (j < 0 && !is_header(f))                               /* 2 */
		j = header_of_stem(fo, stem);
	for (size_t h = 0; j < 0 && !is_header(f) && h < fo->nf; h++) {  /* 3 */
		if (!is_header(&fo->f[h]))
			continue;
		stem_of(&fo->f[h], hs, sizeof(hs));
		if (stem_in(stem, hs) && strlen(hs) > best) {
			best = strlen(hs);
			longest = (int)h;
		}
	}
	if (j < 0)
		j = longest;
	for (int pass = 0; j < 0 && !is_header(f) && pass < 2; pass++) {  /* 4 */
		for (size_t k = 0; k < f->incs.n && j < 0; k++) {
			int h = file_at(fo, f->incs.v[k]);

			if (h >= 0 && is_internal_header(&fo->f[h]) &&
			    (pass == 1 || !is_folder_header(fo, &fo->f[h])))
				j = h;
		}
	}
	if (j >= 0 && (size_t)j != i)
		concept_of(fo, (size_t)j, out, len);
}

/* Nodes: one per concept, in the order of the files' names. */
static void assign_nodes(struct folder *fo)
{
	fo->nn = 0;
	fo->concept = calloc(fo->nf + 1, sizeof(*fo->concept));
	assert_non_null(fo->concept);
	for (size_t i = 0; i < fo->nf; i++) {
		char c[128];
		size_t n;

		concept_of(fo, i, c, sizeof(c));
		for (n = 0; n < fo->nn && strcmp(fo->concept[n], c) != 0; n++)
			;
		if (n == fo->nn)
			snprintf(fo->concept[fo->nn++], sizeof(fo->concept[0]), "%s", c);
		fo->f[i].node = (int)n;
	}
}

/* The folder's .c that defines sym, or -1. */
static int definer(const struct folder *fo, const char *sym)
{
	for (size_t i = 0; i < fo->nf; i++)
		if (sv_has(&fo->f[i].defs, sym, strlen(sym)))
			return (int)i;
	return -1;
}

/* Every header f includes, transitively, in hdrs (as rel paths). */
static void headers_of(struct folder *fo, const struct srcfile *f, struct strvec *hdrs)
{
	for (size_t k = 0; k < f->incs.n; k++) {
		const struct srcfile *h;

		if (sv_has(hdrs, f->incs.v[k], strlen(f->incs.v[k])))
			continue;
		sv_add(hdrs, f->incs.v[k], strlen(f->incs.v[k]));
		h = header_at(fo, f->incs.v[k]);
		if (h)
			headers_of(fo, h, hdrs);
	}
}

/*
 * The names file i uses: its own references, and those of every inline function
 * and macro of an included header that it (or such a function) names.
 */
static void uses_of(struct folder *fo, size_t i, struct strvec *uses)
{
	struct strvec hdrs = { 0 };

	headers_of(fo, &fo->f[i], &hdrs);
	for (size_t k = 0; k < fo->f[i].refs.n; k++)
		sv_add(uses, fo->f[i].refs.v[k], strlen(fo->f[i].refs.v[k]));
	for (size_t k = 0; k < uses->n; k++) {       /* uses grows as it goes */
		for (size_t h = 0; h < hdrs.n; h++) {
			const struct srcfile *hf = header_at(fo, hdrs.v[h]);

			for (size_t p = 0; hf && p < hf->nprov; p++) {
				const struct provide *pv = &hf->prov[p];

				if (strcmp(pv->name, uses->v[k]) != 0)
					continue;
				for (size_t r = 0; r < pv->refs.n; r++)
					sv_add(uses, pv->refs.v[r], strlen(pv->refs.v[r]));
			}
		}
	}
	sv_free(&hdrs);
}

static void append(char *why, size_t len, size_t *used, const char *sep, const char *word)
{
	int n = snprintf(why + *used, len > *used ? len - *used : 0, "%s%s", sep, word);

	*used += n > 0 ? (size_t)n : 0;
}

/* Why file from reaches node to_node, or false: "calls x, y; includes z.h". */
static bool edge_why(struct folder *fo, size_t from, int to_node, char *why, size_t len)
{
	const struct srcfile *f = &fo->f[from];
	struct strvec uses = { 0 };
	size_t used = 0;
	bool calls = false;

	why[0] = '\0';
	if (!is_header(f))
		uses_of(fo, from, &uses);
	for (size_t k = 0; k < uses.n; k++) {
		int d = definer(fo, uses.v[k]);

		if (d < 0 || fo->f[d].node != to_node || (size_t)d == from ||
		    (fo->skip_call && fo->skip_call(fo, f->name, uses.v[k])))
			continue;
		append(why, len, &used, calls ? ", " : "calls ", uses.v[k]);
		calls = true;
	}
	for (size_t k = 0; k < f->incs.n; k++) {
		int j = file_at(fo, f->incs.v[k]);

		if (j >= 0 && fo->f[j].node == to_node && fo->f[j].node != f->node)
			append(why, len, &used, used ? "; includes " : "includes ", fo->f[j].name);
	}
	sv_free(&uses);
	return used > 0;
}

static void folder_graph(struct folder *fo)
{
	char why[4096];

	assign_nodes(fo);
	fo->adj = calloc(fo->nn * fo->nn + 1, sizeof(bool));
	assert_non_null(fo->adj);
	for (size_t i = 0; i < fo->nf; i++)
		for (size_t t = 0; t < fo->nn; t++)
			if ((int)t != fo->f[i].node && edge_why(fo, i, (int)t, why, sizeof(why)))
				fo->adj[(size_t)fo->f[i].node * fo->nn + t] = true;
}

static void srcfile_free(struct srcfile *f)
{
	sv_free(&f->defs);
	sv_free(&f->refs);
	sv_free(&f->incs);
	for (size_t p = 0; p < f->nprov; p++) {
		free(f->prov[p].name);
		sv_free(&f->prov[p].refs);
	}
	free(f->prov);
}

static void folder_free(struct folder *fo)
{
	for (size_t i = 0; i < fo->nf; i++)
		srcfile_free(&fo->f[i]);
	for (size_t i = 0; i < fo->nextra; i++) {
		srcfile_free(fo->extra[i]);
		free(fo->extra[i]);
	}
	free(fo->f);
	free(fo->extra);
	free(fo->adj);
	free(fo->concept);
	memset(fo, 0, sizeof(*fo));
}

/* ---- circles: strongly connected components (Tarjan) ---- */

struct tarjan {
	const struct folder *fo;
	int *index, *low, *comp, *stack;
	bool *on_stack;
	int next, sp, ncomp;
};

static void strongconnect(struct tarjan *t, int v)
{
	size_t nn = t->fo->nn;

	t->index[v] = t->low[v] = t->next++;
	t->stack[t->sp++] = v;
	t->on_stack[v] = true;
	for (size_t w = 0; w < nn; w++) {
		if (!t->fo->adj[(size_t)v * nn + w])
			continue;
		if (t->index[w] < 0) {
			strongconnect(t, (int)w);
			if (t->low[w] < t->low[v])
				t->low[v] = t->low[w];
		} else if (t->on_stack[w] && t->index[w] < t->low[v]) {
			t->low[v] = t->index[w];
		}
	}
	if (t->low[v] != t->index[v])
		return;
	for (int w = -1; w != v;) {
		w = t->stack[--t->sp];
		t->on_stack[w] = false;
		t->comp[w] = t->ncomp;
	}
	t->ncomp++;
}

/* comp[node] = its component; returns how many components. */
static int components(const struct folder *fo, int *comp)
{
	size_t nn = fo->nn ? fo->nn : 1;
	struct tarjan t = {
		.fo = fo, .comp = comp,
		.index = malloc(nn * sizeof(int)), .low = malloc(nn * sizeof(int)),
		.stack = malloc(nn * sizeof(int)), .on_stack = calloc(nn, sizeof(bool)),
	};

	assert_true(t.index && t.low && t.stack && t.on_stack);
	for (size_t v = 0; v < fo->nn; v++)
		t.index[v] = -1;
	for (size_t v = 0; v < fo->nn; v++)
		if (t.index[v] < 0)
			strongconnect(&t, (int)v);
	free(t.index);
	free(t.low);
	free(t.stack);
	free(t.on_stack);
	return t.ncomp;
}

/* The name of node n: its concept. */
static const char *node_name(const struct folder *fo, int n)
{
	return fo->concept[n];
}

/* Print one circle (component c) with the edges inside it. */
static void print_circle(struct folder *fo, const int *comp, int c, FILE *out)
{
	char why[4096];

	fprintf(out, "  circle in %s:", fo->rel);
	for (size_t n = 0; n < fo->nn; n++)
		if (comp[n] == c)
			fprintf(out, " %s", node_name(fo, (int)n));
	fputc('\n', out);
	for (size_t i = 0; i < fo->nf; i++) {
		if (comp[fo->f[i].node] != c)
			continue;
		for (size_t t = 0; t < fo->nn; t++)
			if ((int)t != fo->f[i].node && comp[t] == c &&
			    edge_why(fo, i, (int)t, why, sizeof(why)))
				fprintf(out, "    %s -> %s: %s\n", fo->f[i].name,
					node_name(fo, (int)t), why);
	}
}

/* The circles of one folder, printed to out; returns how many. */
static unsigned int folder_circles(struct folder *fo, FILE *out)
{
	int *comp = calloc(fo->nn + 1, sizeof(int));
	int ncomp = components(fo, comp);
	unsigned int circles = 0;

	for (int c = 0; c < ncomp; c++) {
		size_t size = 0;

		for (size_t n = 0; n < fo->nn; n++)
			size += comp[n] == c;
		if (size < 2)
			continue;
		circles++;
		if (out)
			print_circle(fo, comp, c, out);
	}
	free(comp);
	return circles;
}

/* Every concept and edge of a folder (MSIM_LAYERS_VERBOSE=1: to compare with nm). */
static void print_edges(struct folder *fo)
{
	char why[4096];

	for (size_t n = 0; n < fo->nn; n++) {
		fprintf(stderr, "%s: concept %s:", fo->rel, fo->concept[n]);
		for (size_t i = 0; i < fo->nf; i++)
			if (fo->f[i].node == (int)n)
				fprintf(stderr, " %s", fo->f[i].name);
		fputc('\n', stderr);
	}

	for (size_t i = 0; i < fo->nf; i++)
		for (size_t t = 0; t < fo->nn; t++)
			if ((int)t != fo->f[i].node && edge_why(fo, i, (int)t, why, sizeof(why)))
				fprintf(stderr, "%s: %s -> %s: %s\n", fo->rel, fo->f[i].name,
					node_name(fo, (int)t), why);
}

#endif /* MSIM_TESTS_LAYERS_GRAPH_H */
