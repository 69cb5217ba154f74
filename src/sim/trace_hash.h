/* SPDX-License-Identifier: MIT */
/*
 * trace_hash.h - the trace hash's fold of a step's stopping point (trace_hash.c):
 * FNV-1a over the point's name, the same value as the byte loop, in a multiply,
 * an add and a table load per step.
 */
#ifndef MSIM_SIM_TRACE_HASH_H
#define MSIM_SIM_TRACE_HASH_H

#include <stdint.h>

#define MSIM__FNV_PRIME 0x100000001b3ULL
#define MSIM__FNV_BASIS 0xcbf29ce484222325ULL   /* FNV-1a's offset basis */

/* FNV-1a of the bytes of s folded into h, one byte at a time (the definition). */
static inline uint64_t msim__fnv_bytes(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * MSIM__FNV_PRIME;
	return h;
}

struct msim__step_fold;

/* A name's fold (trace_hash.c says why it is exact): fnv(h) = h * pk + t[h & 255]. */
struct msim__name_fold {
	const char *name;
	uint64_t pk;              /* P^k, k the name's length */
	uint64_t t[256];
	/* by pick value c < 256: the whole step's fold, made when first asked */
	struct msim__step_fold *step[256];
};

/*
 * A whole step of the trace hash for one pick value c and one name: the pick's
 * byte, then the name's, fnv(h) = h * q + u[h & 255] (the same argument).
 */
struct msim__step_fold {
	uint64_t q;               /* P * P^k */
	uint64_t u[256];
};

/*
 * msim__fnv_bytes(h, name) for a name with static storage (yield point names
 * are: sched_points.c keys its table by the address too); other strings may
 * take msim__fnv_bytes.
 */
uint64_t msim__fnv_point(uint64_t h, const char *name);
/*
 * The fold of such a name, to keep beside it (a task's point table does):
 * NULL for an empty name or when out of memory. Valid while the process lives.
 */
const struct msim__name_fold *msim__fnv_fold_of(const char *name);
/* msim__fnv_point(h, name) through the name's fold f (NULL: the byte loop). */
static inline uint64_t msim__fnv_fold(uint64_t h, const struct msim__name_fold *f,
				      const char *name)
{
	if (!f)
		return msim__fnv_bytes(h, name); /* empty, or no memory for the cache */
	return h * f->pk + f->t[h & 255];
}

/*
 * The step fold of pick value c (pick + 2, as the scheduler mixes it) and the name
 * of fold f: NULL when f is NULL, c is 256 or more (its XOR reaches above the low
 * byte), or out of memory. Valid while the process lives.
 */
const struct msim__step_fold *msim__fnv_step_of(const struct msim__name_fold *f, uint64_t c);

/* (h ^ c) * P, then the name's bytes, through the step fold sf of (c, name). */
static inline uint64_t msim__fnv_step(uint64_t h, const struct msim__step_fold *sf)
{
	return h * sf->q + sf->u[h & 255];
}

#endif /* MSIM_SIM_TRACE_HASH_H */
