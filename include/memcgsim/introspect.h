/* SPDX-License-Identifier: MIT */
/*
 * introspect.h - what tests, scenarios and benches read of the model's insides,
 * one header per layer under introspect/ (as the public headers are one per
 * concept): raw per-CPU and per-array statistics, rstat's updated lists, NMI
 * staging and vmstat's diffs; list lengths, counts and raw reference counts of
 * the LRU, objcg, shrinker and list_lru layers. No yield point, no clamping,
 * and mostly no kernel counterpart.
 *
 * The third part of the API (docs/design.md, Public API): the model is what an
 * experiment calls, the driver (sim.h, explore.h, race.h) runs it, and this is
 * introspection. It is not part of the ABI: nothing here carries MSIM_API, so
 * libmemcgsim.so does not export it (unit/test_exports checks), memcgsim.h does
 * not include it and neither it nor introspect/ is installed. The tests, the
 * races (scenarios/), the benches and the command link the static library,
 * where it is defined.
 *
 * This header includes every layer's part, so it is every layer's: only the
 * folders above the model include it (unit/test_layers checks). A layer's own
 * sources include their part, <memcgsim/introspect/LAYER.h>.
 */
#ifndef MEMCGSIM_INTROSPECT_H
#define MEMCGSIM_INTROSPECT_H

#include <memcgsim/introspect/rstat.h>
#include <memcgsim/introspect/vmstat.h>
#include <memcgsim/introspect/lru.h>
#include <memcgsim/introspect/objcg.h>
#include <memcgsim/introspect/shrinker.h>
#include <memcgsim/introspect/list_lru.h>

#endif /* MEMCGSIM_INTROSPECT_H */
