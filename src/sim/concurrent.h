/* SPDX-License-Identifier: MIT */
/*
 * concurrent.h - MSIM_CONCURRENT runs (concurrent.c).
 */
#ifndef MSIM_SIM_CONCURRENT_H
#define MSIM_SIM_CONCURRENT_H

#include "internal.h"

/* One thread per CPU with tasks; 0, or -EAGAIN/-ENOMEM when threads cannot start. */
int msim__run_concurrent(struct msim *m);

#endif /* MSIM_SIM_CONCURRENT_H */
