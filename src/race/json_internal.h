/* SPDX-License-Identifier: MIT */
/*
 * json_internal.h - the few helpers every JSON writer of the project shares, on
 * Jansson (the race printer, the trace export, the bench emitter, the report).
 *
 * Why Jansson and not cJSON: Jansson keeps integers as 64-bit json_int_t, apart
 * from reals, so byte counts, seeds and trace hashes read back exactly (cJSON
 * holds every number as a double plus a 32-bit int); it keeps object keys in
 * insertion order and offers both the compact form the benches print and the
 * ", "/": " form the race printer prints, so the existing output stays
 * byte-identical; and it reads as well as it writes (json_load_file, json_unpack),
 * which the report and shard merging need. Debian ships it as libjansson-dev,
 * with a pkg-config module.
 */
#ifndef MSIM_RACE_JSON_INTERNAL_H
#define MSIM_RACE_JSON_INTERNAL_H

#include <jansson.h>

/*
 * s as a JSON string; NULL gives null. Bytes that are not valid UTF-8 (Jansson
 * refuses them) become '?'. Never NULL except when out of memory.
 */
json_t *msim__json_string(const char *s);

/*
 * v as a JSON number printed the way "%.<precision>g" prints it: a value that
 * prints as an integer becomes a JSON integer (Jansson would add ".0" to a real),
 * anything else a real to be dumped with JSON_REAL_PRECISION(precision).
 * Non-finite values give null.
 */
json_t *msim__json_number(double v, int precision);

struct msim_race_result;
/*
 * A race result as the object msim_race_print_json() prints (a new reference;
 * NULL when out of memory): the report and the trace export reuse it.
 */
json_t *msim__race_result_json(const struct msim_race_result *r);

#endif /* MSIM_RACE_JSON_INTERNAL_H */
