/* SPDX-License-Identifier: MIT */
/*
 * info_array_unit_cache.c - the `array-unit-cache` shrinker_info layout (thread
 * 001's base: v7.3-rc7 with "mm/shrinker: allocate shrinker_info_unit from a
 * dedicated kmem_cache"): the mainline pointer array with every unit up front,
 * but units from a 520-byte cache instead of kmalloc-1k (msim__unit_alloc reads
 * .unit_cache). Everything else is info_array.c's.
 */
#include "shrinker/shrinker_internal.h"

const struct msim__info_ops msim__info_array_unit_cache_ops = {
	.name = "array-unit-cache",
	.on_demand = false,
	.unit_cache = true,
	.alloc_node = msim__array_alloc_node,
	.free_node = msim__array_free_node,
	.expand_node = msim__array_expand_node,
	.unit = msim__array_unit,
	.next_unit = msim__array_next_unit,
	.install = msim__no_install,
	.container_bytes = msim__array_container_bytes,
};
