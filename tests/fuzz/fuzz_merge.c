/* SPDX-License-Identifier: MIT */
/*
 * fuzz_merge: shard merging through the library alone (no object file of the
 * memcgsim command). Each line of the input is one shard's JSON, read with
 * msim_race_shard_from_json(); what reads is merged with msim_race_merge()
 * and printed both ways. Nothing may crash, leak or overflow, and whatever is
 * merged must keep its counts consistent and print no raw control character.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/race.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LINES 16

/* Both printers; the text one writes no control character but newline and tab. */
static void print_both(const struct msim_race_result *out)
{
	static FILE *null;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f || (!null && !(null = fopen("/dev/null", "w"))))
		abort();
	msim_race_print_text(f, out);
	fclose(f);
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)text[i] < 0x20 && text[i] != '\n' && text[i] != '\t') ||
		    (unsigned char)text[i] >= 0x7f)
			abort();   /* shard text reached the terminal raw */
	free(text);
	msim_race_print_json(null, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct msim_race_result parts[MAX_LINES], out;
	const struct msim_race_result *p[MAX_LINES];
	const char *text = (const char *)data, *end = text + size;
	size_t n = 0;
	char err[512];

	while (text < end && n < MAX_LINES) {
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t len = nl ? (size_t)(nl - text) : (size_t)(end - text);

		if (!msim_race_shard_from_json(text, len, &parts[n], err, sizeof(err))) {
			if (parts[n].ex.violations > parts[n].ex.runs)
				abort();
			p[n] = &parts[n];
			n++;
		}
		text += len + 1;
	}
	if (n && !msim_race_merge(p, n, &out, err, sizeof(err))) {
		if (out.ex.violations > out.ex.runs)
			abort();
		print_both(&out);
	}
	return 0;
}
