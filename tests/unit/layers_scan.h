/* SPDX-License-Identifier: MIT */
/*
 * layers_scan.h - the source reader behind test_layers.c: a C tokenizer good
 * enough for this project's sources, and each file's definitions, references,
 * includes and what a header gives its users (layers_graph.h builds the graph).
 *
 * What counts (test_layers.c says why):
 *  - definitions: a .c file's non-static functions and variables;
 *  - references: identifiers in function bodies, initialisers and macro bodies,
 *    not in comments or literals, not struct/union/enum tags, not members
 *    after '.' or '->';
 *  - a header's inline function or macro runs in the file that uses it: its
 *    references join the user's when the user names it (as in the object file);
 *  - includes, resolved against the including file's folder, src/ and include/.
 * Included by test_layers.c only (one translation unit).
 */
#ifndef MSIM_TESTS_LAYERS_SCAN_H
#define MSIM_TESTS_LAYERS_SCAN_H

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- paths ---- */

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

/*
 * Where an include of a file in dir resolves, relative to root: dir/inc first,
 * then the build's include path (CMakeLists.txt: src, include, tests for the
 * tests' helpers, and tools/memcgsim and bench for the programs), as
 * "src/<folder>/<file>", "include/memcgsim/<file>", "bench/<file>"...; false
 * if none exists.
 */
static bool resolve_include(const char *root, const char *dir, const char *inc, char *out,
			    size_t len)
{
	static const char *const base[] = { "src", "include", "tests", "tools/memcgsim", "bench" };
	const size_t nbase = sizeof(base) / sizeof(base[0]);
	char path[4096], real[PATH_MAX], rroot[PATH_MAX];
	size_t rl, i;

	for (i = 0; i <= nbase; i++) {
		if (i == 0)
			snprintf(path, sizeof(path), "%s/%s", dir, inc);
		else
			snprintf(path, sizeof(path), "%s/%s/%s", root, base[i - 1], inc);
		if (realpath(path, real))
			break;
	}
	if (i > nbase || !realpath(root, rroot))
		return false;
	rl = strlen(rroot);
	if (strncmp(real, rroot, rl) != 0 || real[rl] != '/')
		return false;
	snprintf(out, len, "%s", real + rl + 1);
	return true;
}

/*
 * The folder of a path relative to the root, in out: "src/<layer>",
 * "tests/<suite>", "tools/memcgsim", else its top folder ("bench", "scenarios",
 * "include"); false for a file at the root.
 */
static bool folder_of(const char *rel, char *out, size_t len)
{
	const char *slash = strchr(rel, '/');

	if (!slash)
		return false;
	if (strncmp(rel, "src/", 4) == 0 || strncmp(rel, "tests/", 6) == 0 ||
	    strncmp(rel, "tools/", 6) == 0) {
		const char *second = strchr(slash + 1, '/');

		if (second)
			slash = second;
	}
	snprintf(out, len, "%.*s", (int)(slash - rel), rel);
	return true;
}

static bool is_source(const char *name)
{
	size_t n = strlen(name);

	return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h');
}

/* ---- string sets ---- */

struct strvec {
	char **v;
	size_t n, cap;
};

static bool sv_has(const struct strvec *s, const char *p, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->v[i]) == len && memcmp(s->v[i], p, len) == 0)
			return true;
	return false;
}

static void sv_add(struct strvec *s, const char *p, size_t len)
{
	if (sv_has(s, p, len))
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		assert_non_null(s->v);
	}
	s->v[s->n] = strndup(p, len);
	assert_non_null(s->v[s->n]);
	s->n++;
}

static void sv_free(struct strvec *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* What a header gives its users: an inline function's or a macro's references. */
struct provide {
	char *name;
	struct strvec refs;
};

struct srcfile {
	char name[128];          /* base name, "core.c" */
	char rel[512];           /* from the root, "src/rstat/core.c" */
	int node;                /* graph node: the file's concept (layers_graph.h) */
	struct strvec defs;      /* non-static functions and variables (.c only) */
	struct strvec refs;      /* identifiers used (bodies, initialisers, macros) */
	struct strvec incs;      /* included files that resolve, from the root */
	struct provide *prov;    /* inline functions and macros, by name */
	size_t nprov;
};

/* ---- the tokenizer: identifiers and the punctuation that shapes C ---- */

enum tok_kind { T_END, T_IDENT, T_PUNCT, T_DIRECTIVE };

struct lexer {
	const char *p;
	bool line_start;
	const char *tok;         /* identifier start; or the punctuation char */
	size_t len;
};

/* Skip blanks, comments and literals; false at the end of the text. */
static bool skip_noise(struct lexer *lx)
{
	for (;;) {
		const char *p = lx->p;

		if (*p == '\0')
			return false;
		if (*p == '\n') {
			lx->line_start = true;
			lx->p++;
		} else if (isspace((unsigned char)*p)) {
			lx->p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			lx->p = e ? e + 2 : p + strlen(p);
		} else if (p[0] == '/' && p[1] == '/') {
			lx->p = p + strcspn(p, "\n");
		} else if (*p == '"' || *p == '\'') {
			for (lx->p++; *lx->p && *lx->p != *p && *lx->p != '\n'; lx->p++)
				if (*lx->p == '\\' && lx->p[1])
					lx->p++;
			if (*lx->p == *p)
				lx->p++;
		} else {
			return true;
		}
	}
}

static enum tok_kind next_token(struct lexer *lx)
{
	const char *p;

	if (!skip_noise(lx))
		return T_END;
	p = lx->p;
	lx->tok = p;
	if (*p == '#' && lx->line_start) {
		lx->line_start = false;
		lx->p++;
		return T_DIRECTIVE;
	}
	lx->line_start = false;
	if (isalpha((unsigned char)*p) || *p == '_') {
		while (isalnum((unsigned char)*lx->p) || *lx->p == '_')
			lx->p++;
		lx->len = (size_t)(lx->p - p);
		return T_IDENT;
	}
	if (isdigit((unsigned char)*p)) {  /* a number, 0x6b6bULL included: no identifier */
		while (isalnum((unsigned char)*lx->p) || *lx->p == '_' || *lx->p == '.')
			lx->p++;
		lx->len = (size_t)(lx->p - p);
		return T_PUNCT;
	}
	lx->len = (p[0] == '-' && p[1] == '>') ? 2 : 1;
	lx->p += lx->len;
	return T_PUNCT;
}

/* The end of a preprocessor line (after its continuations). */
static const char *directive_end(const char *p)
{
	for (; *p && *p != '\n'; p++)
		if (*p == '\\' && p[1] == '\n')
			p++;
	return p;
}

static bool ident_is(const struct lexer *lx, const char *word)
{
	return lx->len == strlen(word) && memcmp(lx->tok, word, lx->len) == 0;
}

/*
 * After "#ifdef __cplusplus": the end of the block (its #endif line), so that
 * C++-only lines such as 'extern "C" {' are not read as C.
 */
static const char *skip_cplusplus(const char *p)
{
	int level = 1;

	while (*p && level > 0) {
		const char *line = p, *q;

		p = directive_end(p);
		if (*p)
			p++;
		for (q = line; *q == ' ' || *q == '\t'; q++)
			;
		if (*q++ != '#')
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, "if", 2) == 0)
			level++;
		else if (strncmp(q, "endif", 5) == 0)
			level--;
	}
	return p;
}

static struct provide *provide_new(struct srcfile *f, const char *name, size_t len)
{
	struct provide *pv;

	f->prov = realloc(f->prov, (f->nprov + 1) * sizeof(*f->prov));
	assert_non_null(f->prov);
	pv = &f->prov[f->nprov++];
	memset(pv, 0, sizeof(*pv));
	pv->name = strndup(name, len);
	assert_non_null(pv->name);
	return pv;
}

/*
 * #include: where it resolves. #define NAME body: the body's references, the
 * file's own in a .c, what NAME gives its users in a header.
 */
static void directive(struct lexer *lx, const char *root, const char *dir, struct srcfile *f)
{
	const char *end = directive_end(lx->p);
	char line[1024], inc[512], rel[4096];
	struct lexer sub = { .p = lx->p };
	struct provide *pv = NULL;
	bool is_c = f->name[strlen(f->name) - 1] == 'c';
	enum tok_kind k;

	snprintf(line, sizeof(line), "#%.*s", (int)(end - lx->p), lx->p);
	if (parse_include(line, inc, sizeof(inc)) &&
	    resolve_include(root, dir, inc, rel, sizeof(rel)))
		sv_add(&f->incs, rel, strlen(rel));
	if (next_token(&sub) == T_IDENT && ident_is(&sub, "ifdef") &&
	    next_token(&sub) == T_IDENT && ident_is(&sub, "__cplusplus")) {
		lx->p = skip_cplusplus(end);
		lx->line_start = true;
		return;
	}
	sub = (struct lexer){ .p = lx->p };
	if (next_token(&sub) == T_IDENT && ident_is(&sub, "define") && next_token(&sub) == T_IDENT) {
		if (!is_c)
			pv = provide_new(f, sub.tok, sub.len);
		while ((k = next_token(&sub)) != T_END && sub.tok < end)
			if (k == T_IDENT)
				sv_add(pv ? &pv->refs : &f->refs, sub.tok, sub.len);
	}
	lx->p = end;
}

/*
 * The state of one top-level declaration or definition: brace and paren depth,
 * the storage class, and the candidate names of what it defines.
 */
struct decl {
	int depth, parens, brackets;
	bool in_fn_body;          /* depth > 0 inside a function body */
	bool in_prov;             /* ... of a header's inline function: prov[cur] */
	size_t cur;
	bool local;               /* static, extern or typedef: defines nothing exported */
	bool after_eq, saw_paren;
	bool prev_tag_kw;         /* previous token was struct/union/enum */
	bool prev_member;         /* previous token was '.' or '->' */
	bool prev_close_paren;
	bool last_is_tag;
	const char *last; size_t last_len;      /* last declarator-level identifier */
	const char *fn; size_t fn_len;          /* identifier before the last '(' */
};

static void decl_reset(struct decl *d)
{
	int depth = d->depth;

	memset(d, 0, sizeof(*d));
	d->depth = depth;
}

static void define(struct srcfile *f, bool is_c, const char *name, size_t len)
{
	if (is_c && name && len)
		sv_add(&f->defs, name, len);
}

/* An identifier: a reference inside braces or after '=', else a declaration word. */
static void on_ident(struct decl *d, struct srcfile *f, const struct lexer *lx)
{
	bool tag_kw = ident_is(lx, "struct") || ident_is(lx, "union") || ident_is(lx, "enum");

	if (d->depth > 0 || d->after_eq) {
		if (!d->prev_tag_kw && !d->prev_member && !tag_kw) {
			sv_add(&f->refs, lx->tok, lx->len);
			if (d->in_prov)
				sv_add(&f->prov[d->cur].refs, lx->tok, lx->len);
		}
	} else if (ident_is(lx, "static") || ident_is(lx, "extern") || ident_is(lx, "typedef")) {
		d->local = true;
	} else if (d->parens == 0 && d->brackets == 0 && !tag_kw) {
		d->last = lx->tok;
		d->last_len = lx->len;
		d->last_is_tag = d->prev_tag_kw;
	}
	d->prev_tag_kw = tag_kw;
	d->prev_member = false;
	d->prev_close_paren = false;
}

static void on_open_brace(struct decl *d, struct srcfile *f, bool is_c)
{
	if (d->depth == 0 && d->parens == 0) {
		if (d->prev_close_paren && d->fn && !d->after_eq) {
			d->in_fn_body = true;
			if (!d->local)
				define(f, is_c, d->fn, d->fn_len);
			if (!is_c) {  /* a header's (inline) function: what it gives users */
				provide_new(f, d->fn, d->fn_len);
				d->in_prov = true;
				d->cur = f->nprov - 1;
			}
		}
	}
	d->depth++;
}

static void on_close_brace(struct decl *d)
{
	if (d->depth > 0 && --d->depth == 0 && d->in_fn_body)
		decl_reset(d);
}

/* ';' or '=' at the top level: a variable definition unless local or a prototype. */
static void on_top_punct(struct decl *d, struct srcfile *f, bool is_c, char c)
{
	if (c == '=' && !d->after_eq) {
		if (!d->local && !d->saw_paren && !d->last_is_tag)
			define(f, is_c, d->last, d->last_len);
		d->after_eq = true;
	} else if (c == ';') {
		if (!d->local && !d->after_eq && !d->saw_paren && !d->last_is_tag)
			define(f, is_c, d->last, d->last_len);
		decl_reset(d);
	}
}

static void on_punct(struct decl *d, struct srcfile *f, bool is_c, const struct lexer *lx)
{
	char c = lx->tok[0];
	bool member = lx->len == 2 || c == '.';

	if (c == '{') {
		on_open_brace(d, f, is_c);
	} else if (c == '}') {
		on_close_brace(d);
	} else if (d->depth == 0) {
		if (c == '(' && d->parens++ == 0 && !d->after_eq) {
			d->saw_paren = true;
			d->fn = d->last;
			d->fn_len = d->last_len;
		} else if (c == ')') {
			d->parens--;
		} else if (c == '[') {
			d->brackets++;
		} else if (c == ']') {
			d->brackets--;
		} else if (d->parens == 0 && (c == '=' || c == ';')) {
			on_top_punct(d, f, is_c, c);
		}
	}
	d->prev_close_paren = c == ')' && d->depth == 0 && d->parens == 0;
	d->prev_member = member;
	d->prev_tag_kw = false;
}

/* Read root/rel: its definitions, references, includes and what it provides. */
static bool parse_source(const char *root, const char *rel, struct srcfile *f)
{
	bool is_c = rel[strlen(rel) - 1] == 'c';
	char path[4096], dir[4096], *text;
	struct decl d = { 0 };
	const char *slash;
	struct lexer lx;
	long size;
	enum tok_kind k;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	slash = strrchr(path, '/');
	fp = fopen(path, "r");
	if (!fp)
		return false;
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	rewind(fp);
	text = calloc(1, (size_t)size + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	snprintf(f->name, sizeof(f->name), "%s", slash + 1);
	snprintf(f->rel, sizeof(f->rel), "%s", rel);
	lx = (struct lexer){ .p = text, .line_start = true };
	while ((k = next_token(&lx)) != T_END) {
		if (k == T_DIRECTIVE)
			directive(&lx, root, dir, f);
		else if (k == T_IDENT)
			on_ident(&d, f, &lx);
		else
			on_punct(&d, f, is_c, &lx);
	}
	free(text);
	return true;
}

#endif /* MSIM_TESTS_LAYERS_SCAN_H */
