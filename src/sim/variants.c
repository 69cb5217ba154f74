/* SPDX-License-Identifier: MIT */
/*
 * variants.c - the variant table's machinery and the thread presets.
 *
 * The rows are the registered subsystems' (subsys.h); a value lives at the slot
 * of its row, v->value[id][row]. Parsing, setting and formatting walk the
 * registered rows in one order: subsystems by name (msim_subsys_list()), each
 * one's rows as it declares them, so the variants string a run records depends
 * on the set of rows alone, never on the order constructors ran in.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <memcgsim/subsys.h>
#include <memcgsim/variants.h>

/*
 * The presets: settings strings, resolved against the registered rows when
 * applied (variants.h says why they live here).
 */
static const struct msim_preset_desc presets[] = {
	{ "mainline", "every variant at its mainline value", "" },
	{ "thread-000", "thread 000: shadow budget from page state (patch 1), dying-memcg redirect for "
	  "all hierarchies, RCU only when dying (patches 2, 3)",
	  "dying-redirect=all-rcu-on-dying,shadow-budget=page-state-local" },
	{ "thread-001", "thread 001: shrinker units on demand in an xarray",
	  "shrinker-info=xarray" },
	{ "thread-002", "thread 002: zswap's root count from the pool (patch 1), root memcg "
	  "lruvec stats read from node counters (patch 2), no root flush in "
	  "workingset_test_recent (patch 3), DAMON's goal from node counters (patch 4)",
	  "zswap-root-count=pool,root-lruvec-read=node,workingset-root-flush=skip,"
	  "damon-root-read=node" },
	{ "thread-004", "thread 004: keep propagating stats updates to ancestors",
	  "rstat-propagate=continue" },
	{ "linux-6.12", "the model as Debian's Linux 6.12 runs (memcgsim oracle): no early break "
	  "in memcg_rstat_updated, folios name their memcg (no LRU reparenting, no dying "
	  "redirect on v2), the shadow budget from lruvec_page_state_local, vmstat's per-CPU "
	  "node counters, MEMCG_KMEM counted, one charge stock slot per CPU, 6.12's memcg "
	  "struct sizes, MGLRU's protection before the 6.14 rework; run it with "
	  "MGLRU (lru_gen enabled 0x0007)",
	  "rstat-propagate=skip-atomic,lru-reparent=off,shadow-budget=page-state-local,"
	  "node-stat=percpu,kmem-stat=counted,charge-stock=single,memcg-layout=linux-6.12,"
	  "mglru-protection=6.12" },
	{ NULL, NULL, NULL },
};

/* A registered row and its slot. */
struct row_ref {
	const struct msim_variant_desc *d;
	unsigned int id, row;
};

/* Every registered row, in the table's order; returns how many. */
static unsigned int rows_collect(struct row_ref out[MSIM_MAX_VARIANTS])
{
	const struct msim_subsys *ss[MSIM_MAX_SUBSYS];
	unsigned int nss = msim_subsys_list(ss, MSIM_MAX_SUBSYS), n = 0;

	for (unsigned int i = 0; i < nss && i < MSIM_MAX_SUBSYS; i++)
		/* id 0: unregistered since the list was read (no slot of its own) */
		for (unsigned int r = 0; *ss[i]->id && ss[i]->variants && ss[i]->variants[r].name; r++)
			out[n++] = (struct row_ref){ &ss[i]->variants[r], *ss[i]->id, r };
	return n;
}

unsigned int msim_variant_list(const struct msim_variant_desc **out, unsigned int max)
{
	struct row_ref rows[MSIM_MAX_VARIANTS];
	unsigned int n = rows_collect(rows);

	for (unsigned int i = 0; out && i < n && i < max; i++)
		out[i] = rows[i].d;
	return n;
}

const struct msim_preset_desc *msim_preset_table(void)
{
	return presets;
}

void msim_variants_init(struct msim_variants *v)
{
	if (v)
		memset(v, 0, sizeof(*v));
}

static unsigned int nr_values(const struct msim_variant_desc *d)
{
	unsigned int n = 0;

	while (d->values[n])
		n++;
	return n;
}

/* The registered row of that name (len bytes of it), 0; or -ENOENT. */
static int find(const char *name, size_t len, struct row_ref *out)
{
	struct row_ref rows[MSIM_MAX_VARIANTS];
	unsigned int n = rows_collect(rows);

	for (unsigned int i = 0; i < n; i++) {
		if (strlen(rows[i].d->name) == len && !strncmp(rows[i].d->name, name, len)) {
			*out = rows[i];
			return 0;
		}
	}
	return -ENOENT;
}

static void list_names(char *err, size_t errlen, const char *what, size_t len)
{
	struct row_ref rows[MSIM_MAX_VARIANTS];
	unsigned int nr = rows_collect(rows);
	size_t n = (size_t)snprintf(err, errlen, "unknown variant '%.*s'; valid variants:",
				    (int)len, what);

	for (unsigned int i = 0; i < nr && n < errlen; i++)
		n += (size_t)snprintf(err + n, errlen - n, " %s", rows[i].d->name);
}

static void list_values(char *err, size_t errlen, const struct msim_variant_desc *d,
			const char *value)
{
	size_t n = (size_t)snprintf(err, errlen, "unknown value '%s' for %s; valid values:",
				    value, d->name);

	for (const char *const *p = d->values; *p && n < errlen; p++)
		n += (size_t)snprintf(err + n, errlen - n, " %s", *p);
}

int msim_variant_set(struct msim_variants *v, const char *assignment, char *err, size_t errlen)
{
	const char *eq = assignment ? strchr(assignment, '=') : NULL;
	struct row_ref r;

	if (!v) {
		if (err && errlen)
			snprintf(err, errlen, "no variants to set '%s' in",
				 assignment ? assignment : "(null)");
		return -EINVAL;
	}
	if (!eq) {
		if (err && errlen)
			snprintf(err, errlen, "variant '%s' is not of the form NAME=VALUE",
				 assignment ? assignment : "(null)");
		return -EINVAL;
	}
	if (find(assignment, (size_t)(eq - assignment), &r)) {
		if (err && errlen)
			list_names(err, errlen, assignment, (size_t)(eq - assignment));
		return -EINVAL;
	}
	for (unsigned int i = 0; r.d->values[i]; i++) {
		if (!strcmp(r.d->values[i], eq + 1)) {
			v->value[r.id][r.row] = (unsigned char)i;
			return 0;
		}
	}
	if (err && errlen)
		list_values(err, errlen, r.d, eq + 1);
	return -EINVAL;
}

int msim_variant_set_value(struct msim_variants *v, const char *name, int value)
{
	struct row_ref r;

	if (!v || !name || find(name, strlen(name), &r) || value < 0 ||
	    (unsigned int)value >= nr_values(r.d))
		return -EINVAL;
	v->value[r.id][r.row] = (unsigned char)value;
	return 0;
}

/*
 * One setting of a preset. A preset spans layers, and a program linked against the
 * static library registers only the layers it links: a row nobody registered is
 * skipped (test_sched's every_preset_applies checks, with every layer linked, that
 * each setting names a real row and value).
 */
static int preset_setting(struct msim_variants *v, char *tok, char *err, size_t errlen)
{
	const char *eq = strchr(tok, '=');
	struct row_ref r;

	if (eq && find(tok, (size_t)(eq - tok), &r) == -ENOENT)
		return 0;
	return msim_variant_set(v, tok, err, errlen);
}

int msim_preset_apply(struct msim_variants *v, const char *preset, char *err, size_t errlen)
{
	const struct msim_preset_desc *p;
	char buf[256], *tok, *save = NULL;

	if (!v) {
		if (err && errlen)
			snprintf(err, errlen, "no variants to apply preset '%s' to",
				 preset ? preset : "(null)");
		return -EINVAL;
	}
	for (p = presets; p->name; p++) {
		if (strcmp(p->name, preset ? preset : ""))
			continue;
		msim_variants_init(v);
		snprintf(buf, sizeof(buf), "%s", p->settings);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			int ret = preset_setting(v, tok, err, errlen);
			if (ret)
				return ret;
		}
		return 0;
	}
	if (err && errlen) {
		size_t n = (size_t)snprintf(err, errlen, "unknown preset '%s'; valid presets:",
					    preset ? preset : "(null)");
		for (p = presets; p->name && n < errlen; p++)
			n += (size_t)snprintf(err + n, errlen - n, " %s", p->name);
	}
	return -EINVAL;
}

/* The value name at r's slot; "?" for a value the row does not have. */
static const char *value_name(const struct msim_variants *v, const struct row_ref *r)
{
	unsigned int val = v->value[r->id][r->row];

	return val < nr_values(r->d) ? r->d->values[val] : "?";
}

const char *msim_variant_get(const struct msim_variants *v, const char *name)
{
	struct row_ref r;

	if (!v || !name || find(name, strlen(name), &r))
		return NULL;
	return value_name(v, &r);
}

int msim_variant_value(const struct msim_variants *v, const char *name)
{
	struct row_ref r;

	if (!v || !name || find(name, strlen(name), &r))
		return -EINVAL;
	return v->value[r.id][r.row];
}

size_t msim_variants_format(const struct msim_variants *v, char *buf, size_t len)
{
	struct row_ref rows[MSIM_MAX_VARIANTS];
	unsigned int nr = rows_collect(rows);
	size_t n = 0;

	if (buf && len)
		buf[0] = '\0';
	if (!v || !buf)
		len = 0;
	for (unsigned int i = 0; v && i < nr; i++) {
		int w = snprintf(len > n ? buf + n : NULL, len > n ? len - n : 0, "%s%s=%s",
				 n ? "," : "", rows[i].d->name, value_name(v, &rows[i]));
		n += (size_t)w;
	}
	return n;
}
