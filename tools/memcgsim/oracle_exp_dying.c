/* SPDX-License-Identifier: MIT */
/*
 * oracle_exp_dying.c - experiment "dying": a memcg removed while it still owns page
 * cache (guest: oracle/guest/dying.c, an ext2 file on brd; model:
 * oracle_model_dying.c). In 6.12 nothing moves at offline on cgroup v2: the pages keep
 * their charge and statistics in the dying child, which the parent's hierarchical
 * figures include, and the child stays dying until they are freed.
 */
#include <stdio.h>
#include <string.h>

#include "oracle.h"

static const char *const whens[3] = { "before rmdir", "after rmdir", "after drop_caches" };

static int kernel_states(json_t *lines, struct oracle_dying_state k[3], char *err,
			 size_t errlen)
{
	for (int w = 0; w < 3; w++) {
		size_t i;
		json_t *o;
		bool found = false;

		json_array_foreach(lines, i, o) {
			const char *when = json_string_value(json_object_get(o, "when"));

			if (!when || strcmp(when, whens[w]))
				continue;
			k[w].nr_dying = json_number_value(json_object_get(o, "nr_dying_descendants"));
			k[w].parent_file = json_number_value(json_object_get(o, "parent_file_bytes"));
			k[w].parent_current =
				json_number_value(json_object_get(o, "parent_current_bytes"));
			found = true;
		}
		if (!found)
			return snprintf(err, errlen, "the guest's dying line '%s' is missing",
					whens[w]), -1;
	}
	return 0;
}

int oracle_exp_dying(const struct oracle_opts *o, struct oracle_rows *rows, char *err,
		     size_t errlen)
{
	const unsigned int cpus = o->cpus ? o->cpus : 2;
	const long pages = o->small ? 512 : 1024;
	struct oracle_dying_state k[3], m[3];
	char a_pages[32], name[96], rule[160];
	const char *args[] = { a_pages, NULL };
	json_t *lines;
	int ret;

	snprintf(a_pages, sizeof(a_pages), "pages=%ld", pages);
	ret = oracle_guest_run(o, "dying", cpus, 512, 300, args, &lines, err, errlen);
	if (!ret)
		ret = kernel_states(lines, k, err, errlen);
	json_decref(lines);
	if (ret)
		return ret;
	fprintf(stderr, "oracle: dying at %u CPUs: the model's side\n", cpus);
	if (oracle_model_dying(cpus, pages, m, err, errlen))
		return -1;
	for (int w = 0; w < 3; w++) {
		snprintf(name, sizeof(name), "parent's nr_dying_descendants, %s", whens[w]);
		oracle_row_equal(rows, "dying", name, k[w].nr_dying, m[w].nr_dying, "memcgs",
				 "equal (cgroup.stat; the model: memcgs removed and not released)");
		snprintf(name, sizeof(name), "parent's memory.stat file, %s", whens[w]);
		oracle_row_equal(rows, "dying", name, k[w].parent_file, m[w].parent_file, "bytes",
				 "equal: the child's page cache stays in the parent's hierarchical "
				 "figure until it is freed");
		snprintf(name, sizeof(name), "parent's memory.current, %s", whens[w]);
		snprintf(rule, sizeof(rule), "within 64 pages per CPU (%u x 256 KiB: the charge "
			 "stock and slab pages the model does not charge)", cpus);
		oracle_row_judged(rows, "dying", name, k[w].parent_current, m[w].parent_current,
				  "bytes", rule,
				  k[w].parent_current - m[w].parent_current <= 64.0 * 4096 * cpus &&
				  m[w].parent_current - k[w].parent_current <= 64.0 * 4096 * cpus);
	}
	return 0;
}
