/* SPDX-License-Identifier: MIT */
/*
 * mmzone.h - memory zones of a node (include/linux/mmzone.h, enum zone_type).
 *
 * The zones of x86_64 without ZONE_DEVICE: a folio lives in one zone of one node,
 * and per-lruvec LRU sizes are kept per zone (mz->lru_zone_size[zone][lru],
 * lrugen->nr_pages[gen][type][zone]). Which zones a node populates, and their
 * managed pages, are the vmstat layer's configuration; the LRU layer only needs
 * the indices. The host configuration (sim.h) sets the managed pages per zone.
 */
#ifndef MEMCGSIM_MMZONE_H
#define MEMCGSIM_MMZONE_H

#ifdef __cplusplus
extern "C" {
#endif

enum msim_zone_type {
	MSIM_ZONE_DMA = 0,      /* below 16 MiB: node 0 only */
	MSIM_ZONE_DMA32,        /* below 4 GiB: node 0 only */
	MSIM_ZONE_NORMAL,
	MSIM_ZONE_MOVABLE,      /* populated only when configured (movablecore=) */
	MSIM_MAX_NR_ZONES       /* MAX_NR_ZONES */
};

#ifdef __cplusplus
}
#endif
#endif /* MEMCGSIM_MMZONE_H */
