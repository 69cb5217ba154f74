/* SPDX-License-Identifier: MIT */
/*
 * misuse.h - the set of live hosts behind msim_host_live() (sim.h), so that a
 * destroyed host's handle is recognised without reading the memory it pointed
 * to, and the check the driver's entry points make with it. docs/reliability.md
 * lists each misuse case.
 */
#ifndef MSIM_SIM_MISUSE_H
#define MSIM_SIM_MISUSE_H

#include <memcgsim/sim.h>   /* msim_misuse(), msim_host_live() */

/* msim_create() and msim_destroy() keep the set msim_host_live() asks. */
void msim__host_live_add(const struct msim *m);
void msim__host_live_del(const struct msim *m);

/* m must be a live host for call: else a misuse (NULL, or destroyed already). */
void msim__host_check(const struct msim *m, const char *call);

#endif
