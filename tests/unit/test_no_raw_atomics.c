/* SPDX-License-Identifier: MIT */
/*
 * test_no_raw_atomics.c - raw compiler atomics only inside src/sim
 * (CONTRIBUTING.md, "Shared state and yield points").
 *
 * Every shared-memory access above the simulator goes through a shim of
 * <memcgsim/atomic.h>: the kernel vocabulary (a yield point), its _at form (a
 * named race window) or a quiet atomic (bookkeeping, no yield point). The family
 * tells a reader whether a race can turn on the access; a raw __atomic_* or
 * __sync_* builtin tells nothing, so none may appear in src/ outside src/sim.
 *
 * The scan reads identifiers in code, macro bodies included, and skips comments
 * and string or character literals. A hit is reported as file:line (function).
 * The exceptions below are code that another change owns and is rewriting; each
 * names its reason and fails once nothing in it needs the exception any more.
 * None today: the last ones, the host and memcg slots of memcg, charge and the
 * shrinker, went when those layers became subsystems (docs/design.md).
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

#ifndef MSIM_SOURCE_DIR
#error "MSIM_SOURCE_DIR must be defined by the build"
#endif

/*
 * Code whose raw builtins another change converts. path is relative to the
 * source root: a file, or a folder when it ends in '/'; function NULL means the
 * whole file or folder.
 */
struct exception {
	const char *path;
	const char *function;
	const char *reason;
};

static const struct exception exceptions[] = {
	{ NULL, NULL, NULL }, /* the end */
};

#define MAX_EXCEPTIONS 16
#define REPORT_BYTES 16384

struct hits {
	unsigned int files, count;
	const struct exception *ex;      /* the exceptions in force, up to a NULL path */
	unsigned int excepted[MAX_EXCEPTIONS];
	char report[REPORT_BYTES];
};

_Static_assert(sizeof(exceptions) / sizeof(exceptions[0]) <= MAX_EXCEPTIONS,
	       "raise MAX_EXCEPTIONS");

static bool is_raw_builtin(const char *id, size_t len)
{
	return (len > 9 && strncmp(id, "__atomic_", 9) == 0) ||
	       (len > 7 && strncmp(id, "__sync_", 7) == 0);
}

static bool is_ident_char(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* The exception of h that covers (rel, function), or -1. */
static int exception_of(const struct hits *h, const char *rel, const char *function)
{
	for (size_t i = 0; h->ex[i].path; i++) {
		const struct exception *e = &h->ex[i];
		size_t pl = strlen(e->path);
		bool in_path = e->path[pl - 1] == '/' ? strncmp(rel, e->path, pl) == 0
						      : strcmp(rel, e->path) == 0;

		if (in_path && (!e->function || strcmp(e->function, function) == 0))
			return (int)i;
	}
	return -1;
}

static void hit(struct hits *h, const char *rel, unsigned int line, const char *function,
		const char *id, size_t len)
{
	int e = exception_of(h, rel, function);
	size_t used = strlen(h->report);

	if (e >= 0) {
		h->excepted[e]++;
		return;
	}
	h->count++;
	snprintf(h->report + used, sizeof(h->report) - used, "  %s:%u (%s): %.*s\n", rel, line,
		 *function ? function : "file scope", (int)len, id);
}

/*
 * The state of the reader at file scope: which function body it is in (the
 * identifier before the first '(' of the declaration whose '{' opened it).
 */
struct reader {
	int depth;                /* brace depth outside directives */
	bool in_directive;        /* a # line, with its continuations */
	bool at_line_start;       /* only blanks since the newline */
	char pending[128];        /* file scope: first identifier followed by '(' */
	char function[128];
	char last_ident[128];
};

static void on_ident(struct reader *r, const char *id, size_t len)
{
	snprintf(r->last_ident, sizeof(r->last_ident), "%.*s", (int)len, id);
}

static void on_punct(struct reader *r, char c)
{
	if (r->in_directive)
		return;
	if (c == '(' && r->depth == 0 && !r->pending[0] && r->last_ident[0])
		snprintf(r->pending, sizeof(r->pending), "%s", r->last_ident);
	if (c == '{' && r->depth++ == 0)
		snprintf(r->function, sizeof(r->function), "%s", r->pending);
	if (c == '}' && r->depth > 0 && --r->depth == 0)
		r->function[0] = r->pending[0] = '\0';
	if (c == ';' && r->depth == 0)
		r->pending[0] = '\0';
}

/* Past a comment or a literal starting at p; counts its newlines into *line. */
static const char *skip_comment_or_literal(const char *p, unsigned int *line)
{
	if (p[0] == '/' && p[1] == '/') {
		while (*p && *p != '\n')
			p++;
		return p;
	}
	if (p[0] == '/' && p[1] == '*') {
		for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
			*line += *p == '\n';
		return *p ? p + 2 : p;
	}
	/* a string or character literal */
	for (char q = *p++; *p && *p != q && *p != '\n'; p++)
		if (*p == '\\' && p[1])
			*line += *++p == '\n';
	return *p == '\n' || !*p ? p : p + 1;
}

static void scan_text(const char *text, const char *rel, struct hits *h)
{
	struct reader r = { .at_line_start = true };
	unsigned int line = 1;
	const char *p = text;

	while (*p) {
		if ((p[0] == '/' && (p[1] == '/' || p[1] == '*')) || *p == '"' || *p == '\'') {
			p = skip_comment_or_literal(p, &line);
		} else if (is_ident_char((unsigned char)*p) && !(*p >= '0' && *p <= '9')) {
			const char *id = p;

			while (is_ident_char((unsigned char)*p))
				p++;
			if (is_raw_builtin(id, (size_t)(p - id)))
				hit(h, rel, line, r.function, id, (size_t)(p - id));
			if (!r.in_directive)
				on_ident(&r, id, (size_t)(p - id));
			r.at_line_start = false;
		} else {
			if (*p == '\n') {
				line++;
				r.in_directive = r.in_directive && p > text && p[-1] == '\\';
				r.at_line_start = true;
			} else if (*p == '#' && r.at_line_start) {
				r.in_directive = true;
			} else if (*p != ' ' && *p != '\t') {
				r.at_line_start = false;
				if (!is_ident_char((unsigned char)*p))
					on_punct(&r, *p);
				if (!is_ident_char((unsigned char)*p) && *p != '*')
					r.last_ident[0] = '\0';
			}
			p++;
		}
	}
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1))) {
		buf[fread(buf, 1, (size_t)n, f)] = '\0';
	}
	fclose(f);
	return buf;
}

static bool is_source(const char *name)
{
	size_t n = strlen(name);

	return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h');
}

/* Every .c and .h below root/rel, recursively, except root/src/sim. */
static void scan_dir(const char *root, const char *rel, struct hits *h)
{
	char dir[4096];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", root, rel);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d))) {
		char sub[4096], path[8192];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name);
		snprintf(path, sizeof(path), "%s/%s", root, sub);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (strcmp(sub, "src/sim") != 0)
				scan_dir(root, sub, h);
		} else if (is_source(e->d_name)) {
			char *text = read_all(path);

			assert_non_null(text);
			h->files++;
			scan_text(text, sub, h);
			free(text);
		}
	}
	closedir(d);
}

/* Exceptions that matched nothing, appended to the report; their number. */
static unsigned int stale_exceptions(struct hits *h)
{
	unsigned int n = 0;

	for (size_t i = 0; h->ex[i].path; i++) {
		size_t used = strlen(h->report);

		if (h->excepted[i])
			continue;
		n++;
		snprintf(h->report + used, sizeof(h->report) - used,
			 "  exception %s%s%s no longer needed: remove it\n", h->ex[i].path,
			 h->ex[i].function ? " " : "", h->ex[i].function ? h->ex[i].function : "");
	}
	return n;
}

/* ---- the tree ---- */

static void src_has_no_raw_atomics_outside_sim(void **state)
{
	struct hits h = { .ex = exceptions };
	unsigned int stale;

	(void)state;
	scan_dir(MSIM_SOURCE_DIR, "src", &h);
	stale = stale_exceptions(&h);
	if (h.count || stale)
		print_error("raw atomics outside src/sim (use <memcgsim/atomic.h>: a named "
			    "shim, an _at form, or msim_quiet_*):\n");
	/* line by line: cmocka's messages are cut at 1 KiB */
	for (char *l = strtok(h.report, "\n"); l; l = strtok(NULL, "\n"))
		print_error("%s\n", l);
	for (size_t i = 0; h.ex[i].path; i++)
		if (h.excepted[i])
			print_message("pending: %u in %s%s%s (%s)\n", h.excepted[i], h.ex[i].path,
				      h.ex[i].function ? " " : "",
				      h.ex[i].function ? h.ex[i].function : "", h.ex[i].reason);
	assert_true(h.files > 50);  /* the walk found the tree */
	assert_int_equal(h.count, 0);
	assert_int_equal(stale, 0);
}

/* ---- the reader itself, on planted text ---- */

/* Exceptions of the kinds the tree may need: one function, one whole file. */
static const struct exception planted_exceptions[] = {
	{ "src/memcg/lifecycle.c", "msim_memcg_drain", "planted: one function" },
	{ "src/memcg/host.c", NULL, "planted: a whole file" },
	{ NULL, NULL, NULL },
};

static unsigned int scan_planted(const char *rel, const char *text, char *report, size_t len)
{
	struct hits h = { .ex = planted_exceptions };

	scan_text(text, rel, &h);
	snprintf(report, len, "%s", h.report);
	return h.count;
}

/* Calls and macro bodies count, with their line and function; comments and literals do not. */
static void reader_finds_builtins_in_code_only(void **state)
{
	static const char text[] =
		"/* __atomic_load_n in a comment */\n"              /* 1 */
		"#define LD(p) \\\n"                                /* 2 */
		"\t__atomic_load_n((p), 0)\n"                      /* 3 */
		"static const char *s = \"__sync_fetch_and_add\";\n" /* 4 */
		"static int f(int *p)\n"                            /* 5 */
		"{\n"                                               /* 6 */
		"\tchar c = '\\'';  // __atomic_store_n\n"          /* 7 */
		"\treturn __atomic_fetch_add(p, 1, 0) +\n"          /* 8 */
		"\t       __sync_add_and_fetch(p, c);\n"            /* 9 */
		"}\n"                                               /* 10 */
		"struct s *g(void) { return (void *)__atomic_x; }\n"; /* 11 */
	char report[REPORT_BYTES];

	(void)state;
	assert_int_equal(scan_planted("src/x/a.c", text, report, sizeof(report)), 4);
	assert_non_null(strstr(report, "src/x/a.c:3 (file scope): __atomic_load_n\n"));
	assert_non_null(strstr(report, "src/x/a.c:8 (f): __atomic_fetch_add\n"));
	assert_non_null(strstr(report, "src/x/a.c:9 (f): __sync_add_and_fetch\n"));
	assert_non_null(strstr(report, "src/x/a.c:11 (g): __atomic_x\n"));
	assert_null(strstr(report, ":1 "));
	assert_null(strstr(report, ":4 "));
	assert_null(strstr(report, ":7 "));
}

/*
 * An exception covers its function only, or its whole file or folder; one that
 * covered nothing is reported as no longer needed.
 */
static void exceptions_cover_what_they_name(void **state)
{
	static const char text[] =
		"void msim_memcg_drain(void)\n{\n\t__atomic_load_n(p, 0);\n}\n"
		"void other(void)\n{\n\t__atomic_load_n(p, 0);\n}\n";
	char report[REPORT_BYTES];
	struct hits h = { .ex = planted_exceptions };

	(void)state;
	assert_int_equal(scan_planted("src/memcg/lifecycle.c", text, report, sizeof(report)), 1);
	assert_non_null(strstr(report, "src/memcg/lifecycle.c:7 (other)"));
	assert_int_equal(scan_planted("src/memcg/host.c", text, report, sizeof(report)), 0);
	assert_int_equal(scan_planted("src/memcg/host_other.c", text, report, sizeof(report)), 2);

	scan_text(text, "src/memcg/lifecycle.c", &h);
	assert_int_equal(stale_exceptions(&h), 1);
	assert_null(strstr(h.report, "exception src/memcg/lifecycle.c msim_memcg_drain"));
	assert_non_null(strstr(h.report, "exception src/memcg/host.c no longer needed"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reader_finds_builtins_in_code_only),
		cmocka_unit_test(exceptions_cover_what_they_name),
		cmocka_unit_test(src_has_no_raw_atomics_outside_sim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
