/* SPDX-License-Identifier: MIT */
/*
 * The umbrella header <memcgsim/memcgsim.h> includes every public header of
 * include/memcgsim (one concept per header, docs/design.md): a header added
 * without its line in the umbrella fails here. Headers under static/ are the
 * inline bodies of the public ones and are reached through them; introspect.h
 * and introspect/ are the tests' (not exported, not installed) and never in it.
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

#ifndef MSIM_SOURCE_DIR
#error "MSIM_SOURCE_DIR must be defined by the build"
#endif

#define INC_DIR MSIM_SOURCE_DIR "/include/memcgsim"

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static void umbrella_includes_every_public_header(void **st)
{
	char *umbrella = read_all(INC_DIR "/memcgsim.h");
	DIR *d = opendir(INC_DIR);
	struct dirent *e;
	unsigned int checked = 0, missing = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char line[300];

		if (!has_suffix(e->d_name, ".h") || !strcmp(e->d_name, "memcgsim.h"))
			continue;
		/* introspection is the tests' (not exported, not installed): never in it */
		if (!strcmp(e->d_name, "introspect.h")) {
			assert_null(strstr(umbrella, "<memcgsim/introspect"));
			continue;
		}
		snprintf(line, sizeof(line), "#include <memcgsim/%s>\n", e->d_name);
		checked++;
		if (!strstr(umbrella, line)) {
			fprintf(stderr, "memcgsim.h lacks: %s", line);
			missing++;
		}
	}
	closedir(d);
	free(umbrella);
	assert_true(checked >= 20);
	assert_int_equal(missing, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(umbrella_includes_every_public_header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
