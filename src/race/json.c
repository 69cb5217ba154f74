/* SPDX-License-Identifier: MIT */
/*
 * json.c - shared JSON helpers on Jansson (json_internal.h says why Jansson).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_internal.h"

json_t *msim__json_string(const char *s)
{
	json_t *v;
	char *copy;

	if (!s)
		return json_null();
	v = json_string(s);
	if (v)
		return v;
	/* Not valid UTF-8: keep the ASCII, mark the rest. */
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	v = json_string(copy);
	free(copy);
	return v;
}

json_t *msim__json_number(double v, int precision)
{
	char buf[64], *end;
	long long i;

	if (!isfinite(v))
		return json_null();
	snprintf(buf, sizeof(buf), "%.*g", precision, v);
	if (!strpbrk(buf, ".eE") && strcmp(buf, "-0")) {
		i = strtoll(buf, &end, 10);
		if (!*end)
			return json_integer(i);
	}
	return json_real(v);
}
