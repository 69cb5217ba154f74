/* SPDX-License-Identifier: MIT */
/*
 * drive_host.h - what src/sim offers the layers inside the library and no user:
 * not installed, never part of the public API. Implemented in current.c.
 */
#ifndef MSIM_SIM_DRIVE_HOST_H
#define MSIM_SIM_DRIVE_HOST_H

#include <memcgsim/sim.h>

/*
 * Make m the host the driver works on, as msim_set_current_host() does, but only
 * outside tasks (inside a task the task's own host is current and stays so). The
 * memcg entry points (msim_root_mem_cgroup, msim_memcg_create, msim_memcg_rmdir)
 * call it, so a driver that alternates between hosts needs no call of its own.
 */
void msim__drive_host(struct msim *m);

#endif /* MSIM_SIM_DRIVE_HOST_H */
