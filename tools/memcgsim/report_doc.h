/* SPDX-License-Identifier: MIT */
/*
 * report_doc.h - the two writers of `memcgsim report`'s documents (HTML and
 * Markdown) behind one set of operations, and the pieces of a thread's section
 * that more than one file of the report writes (report_doc.c: the writers and
 * the whole document; report_sections.c: a bench's and a race's section;
 * report_summary.c: the table a thread's section opens with).
 */
#ifndef MSIM_TOOL_REPORT_DOC_H
#define MSIM_TOOL_REPORT_DOC_H

#include "report.h"

struct doc {
	FILE *f;
	bool html;
	unsigned int cols;        /* of the table being written */
};

/*
 * What the verdict cells of a walk showed: the benches' verdict words, and the
 * runs of races as their sides state them or not.
 */
struct tally {
	unsigned int holds, fails, nc, bc;   /* bc: "by construction" */
	unsigned int race_ok, race_bad;
};

void doc_text(FILE *f, const char *s);
/* A heading; id NULL: none (HTML ids are unique: "thread-ID", "bench-NAME", "race-NAME"). */
void doc_heading(struct doc *d, int level, const char *id, const char *text);
void doc_para(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void doc_pre(struct doc *d, const char *text);
/* A table: the header cells, NULL-ended; rows of as many cells. */
void doc_table_begin(struct doc *d, const char *const *head);
/*
 * One row. A cell is a plain cell unless classes[i] names its class (a verdict
 * badge: "holds", "fails", "nc", "bc" (by construction), "race-ok", "race-bad", with
 * " sum" in a summary);
 * classes may be NULL. A cell whose class is "code" is a command or a replay
 * string (folded anywhere to keep the table inside the page).
 */
void doc_table_row(struct doc *d, const char *const *cells, const char *const *classes);
void doc_table_end(struct doc *d);
/* The badge class of a bench verdict word, or NULL. */
const char *doc_verdict_class(const char *verdict, bool summary);
/* A bulleted list item (HTML: inside the list the caller opened with doc_list). */
void doc_list(struct doc *d, bool begin);
void doc_item(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "label value unit; ..." of a verdict's figure list. */
void doc_figures_text(json_t *list, char *buf, size_t len);
/* The command that runs bench rb as the report ran it. */
void doc_bench_command(const struct report *rep, const struct report_bench *rb, char *buf,
		       size_t len);
/*
 * What a race run (a script's or an explorer's result) came to, in the race's
 * own words: "bug reached", "not reached within N runs", "fix held over N runs",
 * "fix broken at run K"; class race-ok when it is what the side states.
 */
const char *doc_race_outcome(json_t *run, bool bug, char *buf, size_t len, bool *as_stated);
/* The replay line of a race run's printed text, or for a script the command; NULL: none. */
const char *doc_race_replay(json_t *run, const char *race, const char *side, char *buf,
			    size_t len);

/* A bench's section and a race's (report_sections.c). */
void doc_bench_section(struct doc *d, const struct report *rep, const struct report_bench *rb,
		       struct tally *t);
void doc_race_section(struct doc *d, const struct report_race *rr, struct tally *t);
/* The table a thread's section opens with, and its list of what does not hold. */
void doc_thread_summary(struct doc *d, const struct report *rep, const struct report_thread *th);

#endif /* MSIM_TOOL_REPORT_DOC_H */
