/* SPDX-License-Identifier: MIT */
/*
 * rcu.h - what rcu.c offers the rest of src/sim (the API is <memcgsim/rcu.h>).
 */
#ifndef MSIM_SIM_RCU_H
#define MSIM_SIM_RCU_H

/* Concurrent-mode RCU thread registration (liburcu): a CPU thread's start and end. */
void msim__rcu_thread_online(void);
void msim__rcu_thread_offline(void);

#endif /* MSIM_SIM_RCU_H */
