/* SPDX-License-Identifier: MIT */
/*
 * subsys.h - attaching and detaching subsystems (subsys.c), for host.c (the API
 * is <memcgsim/subsys.h>).
 */
#ifndef MSIM_SIM_SUBSYS_H
#define MSIM_SIM_SUBSYS_H

#include <stddef.h>

#include "internal.h"

/* Attach every registered subsystem cfg enables, in dependency order. */
int msim__subsys_attach_all(struct msim *m, char *err, size_t errlen);
/* Free the states sim allocated (msim_destroy, after the last RCU callback). */
void msim__subsys_free_states(struct msim *m);
/* Run destructors newest first until mark are left (msim_destroy: mark 0). */
void msim__host_unwind(struct msim *m, unsigned int mark);

#endif /* MSIM_SIM_SUBSYS_H */
