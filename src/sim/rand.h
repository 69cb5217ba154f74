/* SPDX-License-Identifier: MIT */
/*
 * rand.h - the schedulers' random numbers: splitmix64, small, seedable, and the
 * same on every platform, so a seed names one run everywhere.
 */
#ifndef MSIM_SIM_RAND_H
#define MSIM_SIM_RAND_H

#include <stdint.h>

static inline uint64_t msim__rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif /* MSIM_SIM_RAND_H */
