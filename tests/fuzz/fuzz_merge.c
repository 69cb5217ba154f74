/* SPDX-License-Identifier: MIT */
/*
 * fuzz_merge: shard merging through the library alone (no object file of the
 * memcgsim command). Each line of the input is one shard's JSON, read with
 * msim_race_shard_from_json(); what reads is merged with msim_race_merge()
 * and printed both ways. Nothing may crash, leak or overflow, and whatever is
 * merged must keep its counts consistent.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/race.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LINES 16

static void print_both(const struct msim_race_result *out)
{
	static FILE *null;

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	msim_race_print_text(null, out);
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
