/* SPDX-License-Identifier: MIT */
/*
 * lockdep_print.c - the lock-order checker's reports (lockdep.h), as the
 * kernel's lockdep words them, for a person, and as JSON.
 *
 * Where the kernel prints a call stack, an acquisition here is named by the
 * simulator's coordinates: task, CPU, run, step, and the last yield point the
 * task passed before it, with the locks it held then.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lockdep_internal.h"

static const char *const irq_names[] = { "HARDIRQ", "SOFTIRQ", "NMI" };
static const char *const irq_lower[] = { "hardirq", "softirq", "NMI" };

/* "lru_lock", or "lru_lock/1" for a nested subclass. */
static const char *cls_name(const struct msim_lockdep *ld, unsigned int cls, char *buf,
			    size_t len)
{
	const struct ld_class *c = &ld->classes[cls];

	if (!c->subclass)
		snprintf(buf, len, "%s", c->name);
	else
		snprintf(buf, len, "%s/%u", c->name, c->subclass);
	return buf;
}

static const char *title_of(const struct ld_report *r)
{
	static const char *const inversion[] = {
		"HARDIRQ-safe -> HARDIRQ-unsafe lock order detected",
		"SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected",
		"NMI-safe -> NMI-unsafe lock order detected",
	};

	switch (r->kind) {
	case MSIM_LOCKDEP_CIRCULAR:
		return "possible circular locking dependency detected";
	case MSIM_LOCKDEP_RECURSIVE:
		return "possible recursive locking detected";
	case MSIM_LOCKDEP_IRQ_INCONSISTENT:
		return "inconsistent lock state";
	case MSIM_LOCKDEP_IRQ_INVERSION:
		return inversion[r->irq_kind];
	default:
		return "lock taken in NMI context and outside it";
	}
}

static const char *kind_key(enum msim_lockdep_kind k)
{
	static const char *const keys[] = { "circular", "recursive", "irq_inconsistent",
					     "irq_inversion", "nmi_unsafe" };

	return keys[k];
}

const char *msim_lockdep_report_title(const struct msim_lockdep *ld, unsigned int i)
{
	return ld && i < ld->nr_reports ? title_of(&ld->reports[i]) : NULL;
}

unsigned int msim_lockdep_report_classes(const struct msim_lockdep *ld, unsigned int i,
					 const char **out, unsigned int max)
{
	const struct ld_report *r;
	unsigned int n = 0;

	if (!ld || i >= ld->nr_reports)
		return 0;
	r = &ld->reports[i];
	if (!r->nr_chain) {
		if (max)
			out[n++] = ld->classes[r->cls_a].name;
		return n;
	}
	if (max)
		out[n++] = ld->classes[ld->deps[r->chain[0]].from].name;
	for (unsigned int c = 0; c < r->nr_chain && n < max; c++) {
		unsigned int to = ld->deps[r->chain[c]].to;
		/* A cycle's last dependency leads back to its first class. */
		if (r->kind == MSIM_LOCKDEP_CIRCULAR && c == r->nr_chain - 1)
			break;
		out[n++] = ld->classes[to].name;
	}
	return n;
}

/* ---- text ---- */

static const char *ctx_text(unsigned int ctx)
{
	if (ctx & LD_CTX_NMI)
		return "NMI";
	if (ctx & LD_CTX_HARDIRQ)
		return "hardirq";
	if (ctx & LD_CTX_SOFTIRQ)
		return "softirq";
	return ctx & LD_CTX_HARDIRQS_OFF ? "process, irqs off" : "process";
}

/* "task ab (cpu 0), run 3, step 17, process" */
static void acq_where(FILE *f, const struct ld_acq *a)
{
	fprintf(f, "task %s", a->task);
	if (a->cpu >= 0)
		fprintf(f, " (cpu %d)", a->cpu);
	if (a->run >= 0)
		fprintf(f, ", run %d", a->run);
	else
		fprintf(f, ", host #%u", a->host);
	fprintf(f, ", step %llu, %s context", (unsigned long long)a->step, ctx_text(a->ctx));
}

/* The acquisition: where, the locks held then, and the lock taken. */
static void acq_text(FILE *f, const struct msim_lockdep *ld, const struct ld_acq *a,
		     const char *indent)
{
	char buf[160];

	fprintf(f, "%s", indent);
	acq_where(f, a);
	fputc('\n', f);
	if (a->nr_held > LD_FRAMES)
		fprintf(f, "%s  ... %u outer locks held\n", indent, a->nr_held - LD_FRAMES);
	for (unsigned int i = 0; i < a->nr_held && i < LD_FRAMES; i++)
		fprintf(f, "%s  holding  %-24s taken after %s\n", indent,
			cls_name(ld, a->held[i].cls, buf, sizeof(buf)), a->held[i].after);
	fprintf(f, "%s  acquires %-24s after %s\n", indent, cls_name(ld, a->cls, buf, sizeof(buf)),
		a->after);
}

static void banner(FILE *f, const char *title)
{
	size_t n = strlen(title) + 9;

	for (size_t i = 0; i < n; i++)
		fputc('=', f);
	fprintf(f, "\nWARNING: %s\n", title);
	for (size_t i = 0; i < n; i++)
		fputc('-', f);
	fputc('\n', f);
}

/* Each CPU of the cycle holds one class and waits for the next one's. */
static void circular_scenario(FILE *f, const struct msim_lockdep *ld, const struct ld_report *r)
{
	char a[160], b[160];

	fputs("\n Possible unsafe locking scenario:\n\n", f);
	if (r->nr_chain == 2) {
		cls_name(ld, r->cls_a, a, sizeof(a));
		cls_name(ld, r->cls_b, b, sizeof(b));
		fprintf(f, "       CPU0                    CPU1\n"
			   "       ----                    ----\n"
			   "  lock(%s);\n                               lock(%s);\n"
			   "                               lock(%s);\n  lock(%s);\n",
			a, b, a, b);
	} else {
		for (unsigned int c = 0; c < r->nr_chain; c++) {
			const struct ld_dep *d = &ld->deps[r->chain[c]];
			fprintf(f, "  CPU%u: lock(%s); ... lock(%s);  waits for CPU%u\n", c,
				cls_name(ld, d->from, a, sizeof(a)), cls_name(ld, d->to, b, sizeof(b)),
				(c + 1) % r->nr_chain);
		}
	}
	fputs("\n *** DEADLOCK ***\n", f);
}

static void chain_text(FILE *f, const struct msim_lockdep *ld, const struct ld_report *r)
{
	char a[160], b[160];

	for (unsigned int c = 0; c < r->nr_chain; c++) {
		const struct ld_dep *d = &ld->deps[r->chain[c]];
		fprintf(f, "-> #%u %s -> %s, first recorded by:\n", c,
			cls_name(ld, d->from, a, sizeof(a)), cls_name(ld, d->to, b, sizeof(b)));
		acq_text(f, ld, &d->acq, "     ");
	}
}

static void circular_text(FILE *f, const struct msim_lockdep *ld, const struct ld_report *r)
{
	char a[160], b[160];

	cls_name(ld, r->cls_a, a, sizeof(a));
	cls_name(ld, r->cls_b, b, sizeof(b));
	fprintf(f, "task %s is trying to acquire %s while holding %s,\n", r->trigger.task, b, a);
	fprintf(f, "but %s was already held while %s was taken (%s -> %s). The cycle, each\n"
		   "dependency with the acquisition that first recorded it (the runs need not\n"
		   "overlap, nor be the same run):\n\n", b, a, b, a);
	chain_text(f, ld, r);
	circular_scenario(f, ld, r);
}

static void recursive_text(FILE *f, const struct msim_lockdep *ld, const struct ld_report *r)
{
	char a[160];

	cls_name(ld, r->cls_a, a, sizeof(a));
	fprintf(f, "task %s takes a second lock of class %s while it holds one:\n\n",
		r->trigger.task, a);
	acq_text(f, ld, &r->trigger, "  ");
	fprintf(f, "\n Possible unsafe locking scenario:\n\n       CPU0\n       ----\n"
		   "  lock(%s);\n  lock(%s);\n\n *** DEADLOCK ***\n\n May be due to missing lock "
		   "nesting notation (msim_lock_nested()).\n", a, a);
}

static void usage_text(FILE *f, const struct msim_lockdep *ld, unsigned int cls,
		       enum ld_usage u, const char *what)
{
	char a[160];

	fprintf(f, "%s was %s first by:\n", cls_name(ld, cls, a, sizeof(a)), what);
	acq_text(f, ld, &ld->classes[cls].usage_acq[u], "  ");
}

static void irq_text(FILE *f, const struct msim_lockdep *ld, const struct ld_report *r)
{
	static const enum ld_usage safe[] = { LD_USED_IN_HARDIRQ, LD_USED_IN_SOFTIRQ,
					      LD_USED_IN_NMI };
	static const enum ld_usage unsafe[] = { LD_ENABLED_HARDIRQ, LD_ENABLED_SOFTIRQ,
						LD_USED_OUTSIDE_NMI };
	static const char *const unsafe_what[] = { "taken with hardirqs enabled",
						   "taken with softirqs enabled",
						   "taken outside NMI context" };
	unsigned int k = r->irq_kind;
	char a[160], b[160], in[64];

	snprintf(in, sizeof(in), "taken in %s context", irq_lower[k]);
	if (r->kind != MSIM_LOCKDEP_IRQ_INVERSION)
		fprintf(f, "inconsistent {IN-%s} -> {%s-ON} usage.\n", irq_names[k],
			irq_names[k]);
	usage_text(f, ld, r->cls_a, safe[k], in);
	usage_text(f, ld, r->cls_b, unsafe[k], unsafe_what[k]);
	cls_name(ld, r->cls_a, a, sizeof(a));
	cls_name(ld, r->cls_b, b, sizeof(b));
	if (r->kind == MSIM_LOCKDEP_IRQ_INVERSION) {
		fprintf(f, "and %s -> %s in the graph:\n", a, b);
		chain_text(f, ld, r);
		fprintf(f, "\n Possible interrupt unsafe locking scenario:\n\n"
			   "       CPU0                    CPU1\n       ----                    ----\n"
			   "  lock(%s);\n                               <%s off>\n"
			   "                               lock(%s);\n"
			   "                               lock(%s);\n  <Interrupt: %s>\n"
			   "    lock(%s);\n\n *** DEADLOCK ***\n", b, irq_lower[k], a, b,
			irq_lower[k], a);
		return;
	}
	fprintf(f, "\n Possible unsafe locking scenario:\n\n       CPU0\n       ----\n"
		   "  lock(%s);\n  <Interrupt: %s>\n    lock(%s);\n\n *** DEADLOCK ***\n", a,
		irq_lower[k], a);
}

void msim_lockdep_print_text(FILE *f, const struct msim_lockdep *ld)
{
	if (!ld)
		return;
	for (unsigned int i = 0; i < ld->nr_reports; i++) {
		const struct ld_report *r = &ld->reports[i];

		fputc('\n', f);
		banner(f, title_of(r));
		if (r->kind == MSIM_LOCKDEP_CIRCULAR)
			circular_text(f, ld, r);
		else if (r->kind == MSIM_LOCKDEP_RECURSIVE)
			recursive_text(f, ld, r);
		else
			irq_text(f, ld, r);
	}
	if (ld->reports_dropped)
		fprintf(f, "\nlockdep: %u more reports not kept\n", ld->reports_dropped);
	if (ld->depth_overflow)
		fprintf(f, "lockdep: a task held more than %d locks and was no longer checked\n",
			LD_MAX_DEPTH);
}

/* ---- JSON ---- */

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void cls_json(FILE *f, const struct msim_lockdep *ld, unsigned int cls)
{
	char buf[160];

	jstr(f, cls_name(ld, cls, buf, sizeof(buf)));
}

static void acq_json(FILE *f, const struct msim_lockdep *ld, const struct ld_acq *a)
{
	fputs("{\"task\": ", f);
	jstr(f, a->task);
	fprintf(f, ", \"cpu\": %d, \"run\": %d, \"host\": %u, \"step\": %llu, \"context\": ",
		a->cpu, a->run, a->host, (unsigned long long)a->step);
	jstr(f, ctx_text(a->ctx));
	fputs(", \"lock\": ", f);
	cls_json(f, ld, a->cls);
	fputs(", \"after\": ", f);
	jstr(f, a->after);
	fprintf(f, ", \"held_total\": %u, \"held\": [", a->nr_held);
	for (unsigned int i = 0; i < a->nr_held && i < LD_FRAMES; i++) {
		fputs(i ? ", {\"lock\": " : "{\"lock\": ", f);
		cls_json(f, ld, a->held[i].cls);
		fputs(", \"after\": ", f);
		jstr(f, a->held[i].after);
		fputc('}', f);
	}
	fputs("]}", f);
}

static void report_json(FILE *f, const struct msim_lockdep *ld, const struct ld_report *r)
{
	static const enum ld_usage safe[] = { LD_USED_IN_HARDIRQ, LD_USED_IN_SOFTIRQ,
					      LD_USED_IN_NMI };
	static const enum ld_usage unsafe[] = { LD_ENABLED_HARDIRQ, LD_ENABLED_SOFTIRQ,
						LD_USED_OUTSIDE_NMI };

	fprintf(f, "{\"kind\": \"%s\", \"title\": ", kind_key(r->kind));
	jstr(f, title_of(r));
	fputs(", \"classes\": [", f);
	cls_json(f, ld, r->cls_a);
	if (r->cls_b != r->cls_a) {
		fputs(", ", f);
		cls_json(f, ld, r->cls_b);
	}
	fputs("], \"trigger\": ", f);
	acq_json(f, ld, &r->trigger);
	fputs(", \"chain\": [", f);
	for (unsigned int c = 0; c < r->nr_chain; c++) {
		const struct ld_dep *d = &ld->deps[r->chain[c]];
		fputs(c ? ", {\"from\": " : "{\"from\": ", f);
		cls_json(f, ld, d->from);
		fputs(", \"to\": ", f);
		cls_json(f, ld, d->to);
		fputs(", \"first\": ", f);
		acq_json(f, ld, &d->acq);
		fputc('}', f);
	}
	fputc(']', f);
	if (r->kind >= MSIM_LOCKDEP_IRQ_INCONSISTENT) {
		fprintf(f, ", \"irq\": \"%s\", \"safe_use\": ", irq_lower[r->irq_kind]);
		acq_json(f, ld, &ld->classes[r->cls_a].usage_acq[safe[r->irq_kind]]);
		fputs(", \"unsafe_use\": ", f);
		acq_json(f, ld, &ld->classes[r->cls_b].usage_acq[unsafe[r->irq_kind]]);
	}
	fputc('}', f);
}

void msim_lockdep_print_json(FILE *f, const struct msim_lockdep *ld)
{
	if (!ld) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"classes\": %u, \"dependencies\": %u, \"hosts\": %u, \"reports_total\": %u, "
		   "\"depth_overflow\": %s, \"reports\": [",
		ld->nr_classes, ld->nr_deps, ld->hosts, ld->nr_reports + ld->reports_dropped,
		ld->depth_overflow ? "true" : "false");
	for (unsigned int i = 0; i < ld->nr_reports; i++) {
		if (i)
			fputs(", ", f);
		report_json(f, ld, &ld->reports[i]);
	}
	/* The lock order the runs showed, in the order it was first seen. */
	fputs("], \"order\": [", f);
	for (unsigned int d = 0; d < ld->nr_deps; d++) {
		fputs(d ? ", [" : "[", f);
		cls_json(f, ld, ld->deps[d].from);
		fputs(", ", f);
		cls_json(f, ld, ld->deps[d].to);
		fputc(']', f);
	}
	fputs("]}", f);
}
