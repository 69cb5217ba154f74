/* SPDX-License-Identifier: MIT */
/*
 * test_citations.c - comments resolve inside the repo: no file of src/,
 * include/, scenarios/, tools/ or bench/ cites a section of a document outside it
 * ("reference 1.9", "reference section 3") or an issue tracker ("issue 8").
 * Cite the kernel function or file, a docs/ page or a race name (R1-R10 and
 * S1-S6 resolve in docs/races.md) instead (CONTRIBUTING.md, Style).
 *
 * The whole text of every .c and .h is read, string literals included (some
 * print into docs/races.md); code cannot hold these phrases, so nothing is
 * skipped. A phrase may wrap across comment lines ("reference\n * section 2.9").
 *
 *   tree_cites_nothing_outside   the five folders, every hit as file:line
 *   matcher_on_planted_text      what counts and what does not, on planted text
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#ifndef MSIM_SOURCE_DIR
#error "MSIM_SOURCE_DIR must be defined by the build"
#endif

#define REPORT_BYTES 16384

struct hits {
	unsigned int files, count;
	char report[REPORT_BYTES];
};

static bool is_word_char(int c)
{
	return c == '_' || isalnum(c);
}

/* Between the words of a phrase: blanks, newlines and comment decoration. */
static const char *skip_separators(const char *p)
{
	const char *start = p;

	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '*' || *p == '/')
		p++;
	return p > start ? p : NULL;
}

/* p at a word start: past word (case-insensitive, whole word), or NULL. */
static const char *past_word(const char *p, const char *word)
{
	size_t n = strlen(word);

	if (strncasecmp(p, word, n) != 0 || is_word_char((unsigned char)p[n]))
		return NULL;
	return p + n;
}

/* "reference" then "N.N" or "section(s) N". */
static bool cites_reference(const char *p)
{
	const char *q = past_word(p, "reference");

	if (!q || !(q = skip_separators(q)))
		return false;
	if (isdigit((unsigned char)*q)) {
		while (isdigit((unsigned char)*q))
			q++;
		return q[0] == '.' && isdigit((unsigned char)q[1]);
	}
	q = past_word(q, "sections") ? past_word(q, "sections") : past_word(q, "section");
	return q && (q = skip_separators(q)) && isdigit((unsigned char)*q);
}

/* "issue N", "issues N", "issue #N". */
static bool cites_issue(const char *p)
{
	const char *q = past_word(p, "issues") ? past_word(p, "issues") : past_word(p, "issue");

	if (!q || !(q = skip_separators(q)))
		return false;
	return isdigit((unsigned char)*q) || (*q == '#' && isdigit((unsigned char)q[1]));
}

/* Every citation in text, as "rel:line: phrase"; returns how many. */
static unsigned int scan_text(const char *text, const char *rel, struct hits *h)
{
	unsigned int line = 1, found = 0;

	for (const char *p = text; *p; p++) {
		size_t used;
		int len;

		if (*p == '\n') {
			line++;
			continue;
		}
		if ((p > text && is_word_char((unsigned char)p[-1])) ||
		    !(cites_reference(p) || cites_issue(p)))
			continue;
		used = strlen(h->report);
		len = snprintf(h->report + used, sizeof(h->report) - used, "  %s:%u: %.40s",
			       rel, line, p);
		for (char *c = h->report + used; *c; c++) /* a wrapped phrase on one line */
			*c = *c == '\n' ? ' ' : *c;
		if (len >= 0 && used + (size_t)len + 1 < sizeof(h->report))
			strcat(h->report, "\n");
		found++;
	}
	h->count += found;
	return found;
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)))
		buf[fread(buf, 1, (size_t)n, f)] = '\0';
	fclose(f);
	return buf;
}

static bool is_source(const char *name)
{
	size_t n = strlen(name);

	return n > 2 && name[n - 2] == '.' && (name[n - 1] == 'c' || name[n - 1] == 'h');
}

/* Every .c and .h below root/rel, recursively. */
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

static void tree_cites_nothing_outside(void **state)
{
	static const char *const folders[] = { "src", "include", "scenarios", "tools", "bench" };
	static struct hits h;

	(void)state;
	for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++)
		scan_dir(MSIM_SOURCE_DIR, folders[i], &h);
	if (h.count)
		print_error("citations of documents outside the repo (cite the kernel function "
			    "or file, a docs/ page or a race name instead):\n");
	/* line by line: cmocka's messages are cut at 1 KiB */
	for (char *l = strtok(h.report, "\n"); l; l = strtok(NULL, "\n"))
		print_error("%s\n", l);
	assert_true(h.files > 200); /* the walk found the tree */
	assert_int_equal(h.count, 0);
}

static unsigned int planted(const char *text)
{
	static struct hits h;

	memset(&h, 0, sizeof(h));
	return scan_text(text, "planted.c", &h);
}

static void matcher_on_planted_text(void **state)
{
	(void)state;
	/* citations */
	assert_int_equal(planted("/* kernel: do_shrink_slab() (reference 2.5) */"), 1);
	assert_int_equal(planted(" * races of Reference 1.9 need"), 1);
	assert_int_equal(planted(" * newest mainline (reference section 1)."), 1);
	assert_int_equal(planted(" * (reference sections 0, 1.10 and 8):"), 1);
	assert_int_equal(planted(" * x86_64; reference\n * section 2.9):"), 1);
	assert_int_equal(planted(" * no memory (issue 13:\n"), 1);
	assert_int_equal(planted(" * (Issue 7 item 1) and issues 8\n"), 2);
	assert_int_equal(planted("// see issue #12"), 1);
	assert_int_equal(planted("\"R3 nor R4 (reference 1.9, 8); a \""), 1);
	/* the line of a hit */
	{
		static struct hits h;

		assert_int_equal(scan_text("/*\n *\n * reference 2.10\n */\n", "f.c", &h), 1);
		assert_non_null(strstr(h.report, "f.c:3: reference 2.10  */"));
	}
	/* not citations */
	assert_int_equal(planted("/* holds a reference on its parent; issues smp_mb */"), 0);
	assert_int_equal(planted(" * docs/kmem.md section 2 says why; the initial reference"), 0);
	assert_int_equal(planted(" * the reference 2 levels up; the reference: 1.9"), 0);
	assert_int_equal(planted(" * an issue: 8 pages; reissue 3 times; referenced 1.5"), 0);
	assert_int_equal(planted(" * R1-R10 (docs/races.md), mm/shrinker.c do_shrink_slab()"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tree_cites_nothing_outside),
		cmocka_unit_test(matcher_on_planted_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
