/* SPDX-License-Identifier: MIT */
/*
 * test_exports.c - the ABI of libmemcgsim.so is exactly its public API.
 *
 * Reads the shared library's dynamic symbol table (.dynsym) with <elf.h> and checks
 * every defined global symbol: it is named msim_ (never the internal msim__), and
 * it is declared MSIM_API in a public header under include/memcgsim/. A symbol that
 * leaks (a missing static, a file built without hidden visibility) fails here, and
 * so does a public declaration that lost its MSIM_API (its symbol would vanish
 * from the .so and consumers would fail to link). The other direction too: every
 * function a public header declares at file scope is in the .so. The introspection
 * headers (introspect.h and introspect/, one per layer: what tests and scenarios
 * read of the model's insides) are the exception both ways: none of what they
 * declare is exported.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define LIB_PATH MSIM_BINARY_DIR "/libmemcgsim.so"
#define HDR_DIR MSIM_SOURCE_DIR "/include/memcgsim"
/* The introspection part of the API: for the tests, not the ABI (not exported). */
#define INTROSPECT "introspect.h"
#define INTROSPECT_DIR HDR_DIR "/introspect"

struct exports {
	char **names;
	size_t nr;
};

static void exports_free(struct exports *ex)
{
	for (size_t i = 0; i < ex->nr; i++)
		free(ex->names[i]);
	free(ex->names);
}

static void *map_file(const char *path, size_t *len)
{
	struct stat st;
	void *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	*len = (size_t)st.st_size;
	return p == MAP_FAILED ? NULL : p;
}

static bool is_defined_global(const Elf64_Sym *s)
{
	unsigned char bind = ELF64_ST_BIND(s->st_info);
	unsigned char type = ELF64_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK))
		return false;
	return type == STT_FUNC || type == STT_OBJECT || type == STT_TLS;
}

/*
 * AddressSanitizer adds an "__odr_asan.NAME" companion for each exported global
 * (its one-definition-rule check): instrumentation, not our ABI.
 */
static bool is_sanitizer_alias(const char *name)
{
	return strncmp(name, "__odr_asan.", 11) == 0;
}

/* Every defined global symbol of the library's .dynsym. */
static struct exports read_exports(const char *path)
{
	struct exports ex = { 0 };
	size_t len, i;
	const unsigned char *img = map_file(path, &len);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
	const Elf64_Shdr *sh;

	assert_non_null(img);
	assert_memory_equal(eh->e_ident, ELFMAG, SELFMAG);
	assert_int_equal(eh->e_ident[EI_CLASS], ELFCLASS64);
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
		const char *str = (const char *)(img + sh[sh[i].sh_link].sh_offset);
		size_t n = sh[i].sh_size / sizeof(*sym), k;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		ex.names = calloc(n, sizeof(*ex.names));
		assert_non_null(ex.names);
		for (k = 0; k < n; k++)
			if (is_defined_global(&sym[k]) && !is_sanitizer_alias(str + sym[k].st_name))
				ex.names[ex.nr++] = strdup(str + sym[k].st_name);
	}
	munmap((void *)img, len);
	return ex;
}

/* Append every .h of dir to all (cap bytes, *used so far). */
static void read_dir_headers(const char *dir, char *all, size_t cap, size_t *used)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[512];
		size_t n = strlen(e->d_name), got;
		FILE *f;

		if (n < 3 || strcmp(e->d_name + n - 2, ".h") || !strcmp(e->d_name, INTROSPECT))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		f = fopen(path, "r");
		assert_non_null(f);
		while ((got = fread(all + *used, 1, cap - *used - 1, f)) > 0)
			*used += got;
		fclose(f);
		assert_true(*used < cap - 1);
	}
	closedir(d);
}

/* All public headers concatenated: a symbol is public if it is declared there. */
static char *read_headers(void)
{
	size_t cap = 4 << 20, used = 0;
	char *all = calloc(1, cap);

	assert_non_null(all);
	read_dir_headers(HDR_DIR, all, cap, &used);
	read_dir_headers(HDR_DIR "/static", all, cap, &used);
	return all;
}

/* "MSIM_API ... name(", "name[", "name;" or "name ATTR;" on one line. */
static bool declared_api(const char *headers, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = strstr(headers, name); p; p = strstr(p + 1, name)) {
		const char *line = p, *after = p + n;

		if (p > headers && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z')))
			continue;
		/* a call, an array, or a variable (possibly with an attribute macro) */
		if (*after != '(' && *after != '[' && *after != ';' && *after != ' ')
			continue;
		while (line > headers && line[-1] != '\n')
			line--;
		/* A declaration may wrap: look back one line for the macro too. */
		if (strstr(line, "MSIM_API") && strstr(line, "MSIM_API") < p)
			return true;
	}
	return false;
}

static void test_no_internal_symbol_exported(void **state)
{
	struct exports ex = read_exports(LIB_PATH);
	size_t i, bad = 0;

	(void)state;
	assert_true(ex.nr > 100); /* the public API, not an empty table */
	for (i = 0; i < ex.nr; i++) {
		if (strncmp(ex.names[i], "msim_", 5) == 0 && ex.names[i][5] != '_')
			continue;
		fprintf(stderr, "exported but not public: %s\n", ex.names[i]);
		bad++;
	}
	exports_free(&ex);
	assert_int_equal(bad, 0);
}

static void test_every_export_is_declared_api(void **state)
{
	struct exports ex = read_exports(LIB_PATH);
	char *headers = read_headers();
	size_t i, bad = 0;

	(void)state;
	for (i = 0; i < ex.nr; i++) {
		if (declared_api(headers, ex.names[i]))
			continue;
		fprintf(stderr, "exported without an MSIM_API declaration: %s\n", ex.names[i]);
		bad++;
	}
	exports_free(&ex);
	free(headers);
	assert_int_equal(bad, 0);
}

/*
 * The name of the function a header line declares at file scope, or NULL:
 * "[MSIM_API] type msim_name(" at the start of a line. Indented lines (struct
 * members, bodies, continued parameter lists), static inlines, typedefs and
 * comment lines declare nothing the .so must export.
 */
static bool declared_function(const char *line, char *name, size_t cap)
{
	const char *p, *end;

	if (!*line || strchr(" \t*#/}", *line) || !strncmp(line, "static", 6) ||
	    !strncmp(line, "typedef", 7) || !strncmp(line, "extern \"C\"", 10))
		return false;
	for (p = strstr(line, "msim_"); p; p = strstr(p + 1, "msim_")) {
		if (p > line && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z')))
			continue;
		for (end = p; *end == '_' || (*end >= 'a' && *end <= 'z') ||
			      (*end >= '0' && *end <= '9') || (*end >= 'A' && *end <= 'Z');
		     end++)
			;
		if (*end != '(' || (size_t)(end - p) >= cap)
			continue;
		memcpy(name, p, (size_t)(end - p));
		name[end - p] = '\0';
		return true;
	}
	return false;
}

static bool exported(const struct exports *ex, const char *name)
{
	for (size_t i = 0; i < ex->nr; i++)
		if (!strcmp(ex->names[i], name))
			return true;
	return false;
}

/*
 * Check every file-scope function declaration of one header against the .so.
 * Returns how many are missing. Lines between "#ifdef __cplusplus" and its
 * "#endif" (the extern "C" braces) are skipped; brace depth keeps struct
 * members and inline bodies out.
 */
static size_t missing_in_header(const char *path, const struct exports *ex, size_t *seen)
{
	char line[1024], name[128];
	size_t bad = 0;
	int depth = 0;
	bool in_cplusplus = false;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "#ifdef __cplusplus", 18))
			in_cplusplus = true;
		else if (in_cplusplus && !strncmp(line, "#endif", 6))
			in_cplusplus = false;
		if (!in_cplusplus && depth == 0 && declared_function(line, name, sizeof(name))) {
			(*seen)++;
			if (!exported(ex, name)) {
				fprintf(stderr, "declared in %s but not exported: %s\n", path, name);
				bad++;
			}
		}
		for (const char *c = line; *c && !in_cplusplus; c++)
			depth += (*c == '{') - (*c == '}');
	}
	fclose(f);
	return bad;
}

static size_t missing_in_dir(const char *dir, const struct exports *ex, size_t *seen)
{
	size_t bad = 0;
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[512];
		size_t n = strlen(e->d_name);

		if (n < 3 || strcmp(e->d_name + n - 2, ".h") || !strcmp(e->d_name, INTROSPECT))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		bad += missing_in_header(path, ex, seen);
	}
	closedir(d);
	return bad;
}

/*
 * The other direction: a function a public header declares without MSIM_API
 * links from the static library but is an undefined reference against the .so.
 */
static void test_every_declared_function_is_exported(void **state)
{
	struct exports ex = read_exports(LIB_PATH);
	size_t bad = 0, seen = 0;

	(void)state;
	bad += missing_in_dir(HDR_DIR, &ex, &seen);
	bad += missing_in_dir(HDR_DIR "/static", &ex, &seen);
	exports_free(&ex);
	fprintf(stderr, "%zu public function declarations, %zu not exported\n", seen, bad);
	assert_true(seen > 100); /* the scan found the API, not nothing */
	assert_int_equal(bad, 0);
}

/*
 * introspect/: every function its headers declare is missing from the .so, on
 * purpose; introspect.h only includes them (it declares nothing itself).
 */
static void test_introspection_is_not_exported(void **state)
{
	struct exports ex = read_exports(LIB_PATH);
	size_t seen = 0, missing, umbrella_seen = 0;

	(void)state;
	missing = missing_in_dir(INTROSPECT_DIR, &ex, &seen);
	assert_int_equal(missing_in_header(HDR_DIR "/" INTROSPECT, &ex, &umbrella_seen), 0);
	exports_free(&ex);
	fprintf(stderr, "%zu introspection declarations, %zu exported\n", seen, seen - missing);
	assert_int_equal(umbrella_seen, 0);
	assert_true(seen >= 40);
	assert_int_equal(missing, seen);
}

static void test_api_entry_points_present(void **state)
{
	static const char *const must[] = { "msim_create", "msim_destroy", "msim_run",
					    "msim_mem_cgroup_flush_stats" };
	struct exports ex = read_exports(LIB_PATH);
	size_t i, k;

	(void)state;
	for (k = 0; k < sizeof(must) / sizeof(must[0]); k++) {
		bool found = false;

		for (i = 0; i < ex.nr && !found; i++)
			found = strcmp(ex.names[i], must[k]) == 0;
		if (!found)
			fprintf(stderr, "missing from the ABI: %s\n", must[k]);
		assert_true(found);
	}
	exports_free(&ex);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_internal_symbol_exported),
		cmocka_unit_test(test_every_export_is_declared_api),
		cmocka_unit_test(test_every_declared_function_is_exported),
		cmocka_unit_test(test_introspection_is_not_exported),
		cmocka_unit_test(test_api_entry_points_present),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
