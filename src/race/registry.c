/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the races a program knows by name, and the settings that make
 * one side of a race.
 *
 * Races register from constructors (MSIM_RACE_REGISTER) or explicitly, before
 * any run; the registry is not locked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/race.h>

#define MAX_RACES 64

static const struct msim_race *races[MAX_RACES];
static size_t nr_races;

int msim_race_register(const struct msim_race *r)
{
	if (!r || !r->name || !r->name[0] || !r->target.setup)
		return -EINVAL;
	if (msim_race_find(r->name))
		return -EEXIST;
	if (nr_races == MAX_RACES)
		return -ENOSPC;
	races[nr_races++] = r;
	return 0;
}

const struct msim_race *msim_race_find(const char *name)
{
	for (size_t i = 0; name && i < nr_races; i++)
		if (!strcmp(races[i]->name, name))
			return races[i];
	return NULL;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(const struct msim_race *const *)a)->name,
		      (*(const struct msim_race *const *)b)->name);
}

size_t msim_race_list(const struct msim_race **out, size_t max)
{
	qsort(races, nr_races, sizeof(races[0]), cmp_name);
	for (size_t i = 0; i < nr_races && i < max; i++)
		out[i] = races[i];
	return nr_races;
}

const struct msim_race_side *msim_race_side_find(const struct msim_race *r, const char *name)
{
	for (const struct msim_race_side *s = r->sides; name && s && s->name; s++)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

/* "lru=classic|mglru" into cfg: 0, 1 when tok is not one, or -EINVAL. */
static int apply_lru_setting(struct msim_config *cfg, const char *tok, char *err, size_t errlen)
{
	if (strncmp(tok, "lru=", 4))
		return 1;
	if (!strcmp(tok + 4, "classic"))
		cfg->lru = MSIM_LRU_CLASSIC;
	else if (!strcmp(tok + 4, "mglru"))
		cfg->lru = MSIM_LRU_MGLRU;
	else {
		snprintf(err, errlen, "'%s': lru is classic or mglru", tok);
		return -EINVAL;
	}
	return 0;
}

/* "cpus=N", "cgroup=v1|v2", "preempt=MODEL", "memory-model=MODEL" or "lru=..." into cfg: 0, 1 when tok
 * is none of them, or -EINVAL. */
static int apply_host_setting(struct msim_config *cfg, const char *tok, char *err,
			      size_t errlen)
{
	char *end;

	if (!strncmp(tok, "cpus=", 5)) {
		unsigned long n = strtoul(tok + 5, &end, 10);

		if (end == tok + 5 || *end || n < 1 || n > MSIM_MAX_CPUS) {
			snprintf(err, errlen, "'%s': cpus needs a number from 1 to %d", tok,
				 MSIM_MAX_CPUS);
			return -EINVAL;
		}
		cfg->nr_cpus = (unsigned int)n;
		return 0;
	}
	if (!strncmp(tok, "memory-model=", 13)) {
		if (msim_memory_model_parse(tok + 13, &cfg->memory_model)) {
			snprintf(err, errlen, "'%s': memory-model is sc, tso or pso", tok);
			return -EINVAL;
		}
		return 0;
	}
	if (!strncmp(tok, "preempt=", 8)) {
		if (msim_preempt_parse(tok + 8, &cfg->preempt)) {
			snprintf(err, errlen, "'%s': preempt is unmodelled, none or full", tok);
			return -EINVAL;
		}
		return 0;
	}
	if (strncmp(tok, "cgroup=", 7))
		return apply_lru_setting(cfg, tok, err, errlen);
	if (!strcmp(tok + 7, "v1"))
		cfg->cgroup_version = MSIM_CGROUP_V1;
	else if (!strcmp(tok + 7, "v2"))
		cfg->cgroup_version = MSIM_CGROUP_V2;
	else {
		snprintf(err, errlen, "'%s': cgroup is v1 or v2", tok);
		return -EINVAL;
	}
	return 0;
}

int msim_race_settings_apply(struct msim_config *cfg, const char *settings, char *err,
			     size_t errlen)
{
	char buf[MSIM_VARIANTS_STRLEN], *tok, *save = NULL;

	if (!settings)
		return 0;
	if (strlen(settings) >= sizeof(buf)) {
		snprintf(err, errlen, "settings longer than %zu characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", settings);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int ret = apply_host_setting(cfg, tok, err, errlen);

		if (ret == 1)
			ret = msim_variant_set(&cfg->variants, tok, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}
