/* SPDX-License-Identifier: MIT */
/*
 * subsys.c - the subsystem registry and attaching subsystems to hosts (subsys.h).
 *
 * The registry is process-wide: an array indexed by subsystem id (1..), under a
 * mutex. Attaching never holds that mutex while a subsystem's host_init runs (a
 * layer may register another subsystem from there): it works on a snapshot.
 *
 * Order. A plan is a depth-first walk that appends each subsystem after its
 * dependencies; the walk starts from the wanted subsystems in name order and
 * follows each one's dependencies in the order they are listed, so the attach
 * order depends on the registered set alone, never on the order in which
 * constructors happened to run. A subsystem met again while its own dependencies
 * are being walked closes a cycle.
 *
 * Detaching shares the host's destructor stack with msim_host_on_destroy(): the
 * subsystems and the layers that still attach by hand are torn down newest first,
 * whatever mechanism attached them, and a failed attach unwinds exactly what it
 * pushed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "current.h"
#include "subsys.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct msim_subsys *registry[MSIM_MAX_SUBSYS + 1];  /* by id; 0 unused */
static unsigned int hosts_attached[MSIM_MAX_SUBSYS + 1];   /* live hosts with it */

static int subsys_error(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int subsys_error(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* ---- the registry ---- */

static unsigned int find_id_locked(const char *name)
{
	for (unsigned int id = 1; id <= MSIM_MAX_SUBSYS; id++)
		if (registry[id] && !strcmp(registry[id]->name, name))
			return id;
	return 0;
}

/* A row list fits struct msim_variants: rows and values countable, each row named. */
static bool variant_rows_valid(const struct msim_variant_desc *rows)
{
	unsigned int nr = 0, nvalues;

	for (; rows && rows->name; rows++, nr++) {
		if (nr >= MSIM_SUBSYS_MAX_VARIANTS || !*rows->name || !rows->values)
			return false;
		for (nvalues = 0; rows->values[nvalues]; nvalues++)
			;
		if (!nvalues || nvalues > 255)
			return false;
	}
	return true;
}

static bool row_named(const struct msim_variant_desc *rows, const char *name)
{
	for (; rows && rows->name; rows++)
		if (!strcmp(rows->name, name))
			return true;
	return false;
}

/* A variant name of ss that another registered subsystem (or ss itself, twice) has. */
static bool variant_name_taken_locked(const struct msim_subsys *ss)
{
	for (const struct msim_variant_desc *r = ss->variants; r && r->name; r++) {
		if (row_named(r + 1, r->name))
			return true;
		for (unsigned int id = 1; id <= MSIM_MAX_SUBSYS; id++)
			if (registry[id] && row_named(registry[id]->variants, r->name))
				return true;
	}
	return false;
}

int msim_subsys_register(const struct msim_subsys *ss)
{
	unsigned int id, free_id = 0;
	int ret = 0;

	if (!ss || !ss->name || !*ss->name || !ss->id || !variant_rows_valid(ss->variants))
		return -EINVAL;
	pthread_mutex_lock(&registry_lock);
	id = find_id_locked(ss->name);
	if (id) {
		ret = registry[id] == ss ? 0 : -EEXIST;
		goto out;
	}
	if (variant_name_taken_locked(ss)) {
		ret = -EEXIST;
		goto out;
	}
	for (id = 1; id <= MSIM_MAX_SUBSYS && !free_id; id++)
		if (!registry[id])
			free_id = id;
	if (!free_id) {
		ret = -ENOSPC;
		goto out;
	}
	registry[free_id] = ss;
	*ss->id = free_id;
out:
	pthread_mutex_unlock(&registry_lock);
	return ret;
}

int msim_subsys_unregister(const struct msim_subsys *ss)
{
	int ret = 0;

	if (!ss || !ss->id)
		return -EINVAL;
	pthread_mutex_lock(&registry_lock);
	if (!*ss->id || *ss->id > MSIM_MAX_SUBSYS || registry[*ss->id] != ss)
		ret = -ENOENT;
	else if (hosts_attached[*ss->id])
		ret = -EBUSY;
	else {
		registry[*ss->id] = NULL;
		*ss->id = 0;
	}
	pthread_mutex_unlock(&registry_lock);
	return ret;
}

const struct msim_subsys *msim_subsys_find(const char *name)
{
	const struct msim_subsys *ss = NULL;
	unsigned int id;

	if (!name)
		return NULL;
	pthread_mutex_lock(&registry_lock);
	id = find_id_locked(name);
	if (id)
		ss = registry[id];
	pthread_mutex_unlock(&registry_lock);
	return ss;
}

static int by_name(const void *a, const void *b); /* the plans' order (below) */

unsigned int msim_subsys_list(const struct msim_subsys **out, unsigned int max)
{
	const struct msim_subsys *all[MSIM_MAX_SUBSYS];
	unsigned int n = 0;

	pthread_mutex_lock(&registry_lock);
	for (unsigned int id = 1; id <= MSIM_MAX_SUBSYS; id++)
		if (registry[id])
			all[n++] = registry[id];
	pthread_mutex_unlock(&registry_lock);
	qsort(all, n, sizeof(all[0]), by_name);
	for (unsigned int i = 0; out && i < n && i < max; i++)
		out[i] = all[i];
	return n;
}

/* ---- lookups (plain loads: an unregistered subsystem has id 0, whose slot is NULL) ---- */

bool msim_subsys_attached(const struct msim *m, const struct msim_subsys *ss)
{
	return m && ss && ss->id && m->subsys.attached[*ss->id];
}

void *msim_subsys_state(const struct msim *m, const struct msim_subsys *ss)
{
	return m->subsys.state[*ss->id];
}

int msim_subsys_variant(const struct msim_variants *v, const struct msim_subsys *ss,
			unsigned int row)
{
	unsigned int id = ss && ss->id ? *ss->id : 0;
	unsigned int val, nr = 0, rows = 0;

	if (!v || !id || id > MSIM_MAX_SUBSYS || !ss->variants)
		return 0;
	while (rows <= row && ss->variants[rows].name)
		rows++;
	if (row >= rows || row >= MSIM_SUBSYS_MAX_VARIANTS)
		return 0;
	val = v->value[id][row];
	/*
	 * A registry id is handed out again after an unregister: a value stored for the
	 * slot's earlier owner must not reach the new one's code as a value its row lacks.
	 */
	while (ss->variants[row].values[nr])
		nr++;
	return val < nr ? (int)val : 0;
}

void **msim_subsys_slot(struct msim *m, const struct msim_subsys *ss)
{
	return ss->id && *ss->id ? &m->subsys.state[*ss->id] : NULL;
}

/* ---- plans: the order in which to attach ---- */

enum visit_mark { UNSEEN = 0, VISITING, PLANNED };

struct plan {
	const struct msim_subsys *snap[MSIM_MAX_SUBSYS + 1]; /* registry snapshot, by id */
	unsigned char mark[MSIM_MAX_SUBSYS + 1];
	const struct msim_subsys *order[MSIM_MAX_SUBSYS];
	unsigned int nr;
	const struct msim_subsys *path[MSIM_MAX_SUBSYS]; /* the walk, for a cycle's message */
	unsigned int depth;
	const struct msim_config *cfg; /* non-NULL: dependencies must be enabled by it */
	char *err;
	size_t errlen;
};

static void plan_init(struct plan *p, const struct msim_config *cfg, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->cfg = cfg;
	p->err = err;
	p->errlen = errlen;
	pthread_mutex_lock(&registry_lock);
	memcpy(p->snap, registry, sizeof(registry));
	pthread_mutex_unlock(&registry_lock);
}

static const struct msim_subsys *plan_find(const struct plan *p, const char *name)
{
	for (unsigned int id = 1; id <= MSIM_MAX_SUBSYS; id++)
		if (p->snap[id] && !strcmp(p->snap[id]->name, name))
			return p->snap[id];
	return NULL;
}

static bool enabled_by(const struct msim_subsys *ss, const struct msim_config *cfg)
{
	return !ss->enabled || ss->enabled(cfg);
}

/* "dependency cycle: a -> b -> a", from the walk's path back to ss. */
static int cycle_error(struct plan *p, const struct msim_subsys *ss)
{
	size_t len = 0;
	unsigned int i = 0;

	if (!p->err || !p->errlen)
		return -EINVAL;
	while (i < p->depth && p->path[i] != ss)
		i++;
	len = (size_t)snprintf(p->err, p->errlen, "subsystem dependency cycle:");
	for (; i < p->depth && len < p->errlen; i++)
		len += (size_t)snprintf(p->err + len, p->errlen - len, " %s ->", p->path[i]->name);
	if (len < p->errlen)
		snprintf(p->err + len, p->errlen - len, " %s", ss->name);
	return -EINVAL;
}

static int plan_visit(struct plan *p, const struct msim *m, const struct msim_subsys *ss);

static int plan_dependency(struct plan *p, const struct msim *m, const struct msim_subsys *ss,
			   const char *name)
{
	const struct msim_subsys *dep = plan_find(p, name);

	if (!dep)
		return subsys_error(p->err, p->errlen, -EINVAL,
				    "subsystem %s depends on %s, which is not registered",
				    ss->name, name);
	if (p->cfg && !m->subsys.attached[*dep->id] && !enabled_by(dep, p->cfg))
		return subsys_error(p->err, p->errlen, -EINVAL,
				    "subsystem %s depends on %s, which this configuration "
				    "does not enable", ss->name, name);
	return plan_visit(p, m, dep);
}

static int plan_visit(struct plan *p, const struct msim *m, const struct msim_subsys *ss)
{
	int ret;

	if (p->mark[*ss->id] == PLANNED || m->subsys.attached[*ss->id])
		return 0;
	if (p->mark[*ss->id] == VISITING)
		return cycle_error(p, ss);
	p->mark[*ss->id] = VISITING;
	p->path[p->depth++] = ss;
	for (const char *const *d = ss->depends; d && *d; d++) {
		ret = plan_dependency(p, m, ss, *d);
		if (ret)
			return ret;
	}
	p->depth--;
	p->mark[*ss->id] = PLANNED;
	p->order[p->nr++] = ss;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct msim_subsys *x = *(const struct msim_subsys *const *)a;
	const struct msim_subsys *y = *(const struct msim_subsys *const *)b;

	return strcmp(x->name, y->name);
}

/* ---- the destructor stack ---- */

void msim__host_unwind(struct msim *m, unsigned int mark)
{
	while (m->nr_dtors > mark) {
		m->nr_dtors--;
		m->dtors[m->nr_dtors].fn(m, m->dtors[m->nr_dtors].arg);
	}
}

int msim_host_on_destroy(struct msim *m, void (*fn)(struct msim *m, void *arg), void *arg)
{
	if (!fn)
		return -EINVAL;
	if (m->nr_dtors >= MSIM_MAX_DTORS)
		return -ENOSPC;
	m->dtors[m->nr_dtors].fn = fn;
	m->dtors[m->nr_dtors].arg = arg;
	m->nr_dtors++;
	return 0;
}

/* ---- attaching and detaching ---- */

static void detach_one(struct msim *m, void *arg)
{
	const struct msim_subsys *ss = arg;
	unsigned int id = *ss->id;

	if (ss->host_fini)
		ss->host_fini(m, m->subsys.state[id]);
	m->subsys.state[id] = NULL;
	m->subsys.attached[id] = false;
	pthread_mutex_lock(&registry_lock);
	hosts_attached[id]--;
	pthread_mutex_unlock(&registry_lock);
}

static int attach_one(struct msim *m, const struct msim_subsys *ss)
{
	unsigned int id = *ss->id;
	int ret;

	/* A subsystem's host_init may attach one planned after it (msim_subsys_attach). */
	if (m->subsys.attached[id])
		return 0;
	if (m->nr_dtors >= MSIM_MAX_DTORS)
		return -ENOSPC;
	if (ss->state_size) {
		/* A state left from an unwound attach is reused, zeroed again. */
		void *st = m->subsys.owned[id] ? m->subsys.owned[id] : malloc(ss->state_size);
		if (!st)
			return -ENOMEM;
		memset(st, 0, ss->state_size);
		m->subsys.owned[id] = st;
		m->subsys.state[id] = st;
	}
	ret = ss->host_init ? ss->host_init(m, m->subsys.state[id]) : 0;
	if (ret) {
		m->subsys.state[id] = NULL;
		return ret;
	}
	m->subsys.attached[id] = true;
	pthread_mutex_lock(&registry_lock);
	hosts_attached[id]++;
	pthread_mutex_unlock(&registry_lock);
	/* Cannot fail: the capacity was checked before host_init. */
	msim_host_on_destroy(m, detach_one, (void *)ss);
	return 0;
}

/* Attach the plan's subsystems in order; on failure undo what this call pushed. */
static int attach_plan(struct msim *m, const struct plan *p, char *err, size_t errlen)
{
	unsigned int mark = m->nr_dtors;

	for (unsigned int i = 0; i < p->nr; i++) {
		int ret = attach_one(m, p->order[i]);
		if (ret) {
			msim__host_unwind(m, mark);
			return subsys_error(err, errlen, ret, "subsystem %s: host init failed (%s)",
					    p->order[i]->name, strerror(-ret));
		}
	}
	return 0;
}

int msim__subsys_attach_all(struct msim *m, char *err, size_t errlen)
{
	const struct msim_subsys *wanted[MSIM_MAX_SUBSYS];
	unsigned int nr = 0;
	struct plan p;
	int ret;

	plan_init(&p, &m->cfg, err, errlen);
	for (unsigned int id = 1; id <= MSIM_MAX_SUBSYS; id++)
		if (p.snap[id] && enabled_by(p.snap[id], &m->cfg))
			wanted[nr++] = p.snap[id];
	qsort(wanted, nr, sizeof(wanted[0]), by_name);
	for (unsigned int i = 0; i < nr; i++) {
		ret = plan_visit(&p, m, wanted[i]);
		if (ret)
			return ret;
	}
	return attach_plan(m, &p, err, errlen);
}

int msim_subsys_attach(struct msim *m, const struct msim_subsys *ss, char *err, size_t errlen)
{
	struct plan p;
	int ret;

	if (!m || !ss || msim__tls_task)
		return subsys_error(err, errlen, -EINVAL, "subsystem attach: no host, no "
				    "subsystem, or called from a task");
	plan_init(&p, NULL, err, errlen);
	if (!ss->id || !*ss->id || p.snap[*ss->id] != ss)
		return subsys_error(err, errlen, -EINVAL, "subsystem %s is not registered",
				    ss->name ? ss->name : "?");
	ret = plan_visit(&p, m, ss);
	if (ret)
		return ret;
	msim_drive_host(m); /* host_init uses the shims of its own host */
	return attach_plan(m, &p, err, errlen);
}

void msim__subsys_free_states(struct msim *m)
{
	for (unsigned int id = 1; id <= MSIM_MAX_SUBSYS; id++) {
		free(m->subsys.owned[id]);
		m->subsys.owned[id] = NULL;
	}
}
