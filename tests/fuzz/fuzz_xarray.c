/* SPDX-License-Identifier: MIT */
/*
 * fuzz_xarray: the xarray against a reference map. Each 3-byte step of the
 * input is an operation (store, erase, insert, cmpxchg, reserve, release, load)
 * on one of 32 indexes spread over the index space (0, neighbours, node and
 * level boundaries, ULONG_MAX) with one of 8 entries; after each step every
 * index must load what the map holds, and at the end the entry count must be
 * the map's. Entries are even tagged pointers (never internal entries).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <memcgsim/sim.h>
#include <memcgsim/xarray.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NR_IDX 32

static const unsigned long idx[NR_IDX] = {
	0, 1, 2, 3, 63, 64, 65, 127, 128, 4095, 4096, 4097, 262143, 262144, 262145,
	16777215, 16777216, 1UL << 30, (1UL << 30) + 1, 1UL << 32, (1UL << 32) + 64,
	1UL << 36, 1UL << 42, (1UL << 48) - 1, 1UL << 48, 1UL << 54, 1UL << 60,
	(1UL << 60) + 1, ULONG_MAX - 64, ULONG_MAX - 1, ULONG_MAX, 12345,
};

/* The map: NULL, an entry, or reserved (loads as NULL, counts as an entry). */
struct ref {
	void *entry;
	bool reserved;
};

static void *entry_of(unsigned int v)
{
	return (void *)(uintptr_t)(0x1000 + 8 * (v % 8));
}

/* The xarray holds what the map holds, at every index. */
static void check(struct msim_xarray *xa, const struct ref *map)
{
	unsigned long entries = 0;

	for (unsigned int i = 0; i < NR_IDX; i++) {
		if (msim_xa_load(xa, idx[i]) != map[i].entry)
			abort();
		entries += map[i].entry || map[i].reserved;
	}
	if (msim_xa_nr_entries(xa) != entries)
		abort();
}

static void step(struct msim_xarray *xa, struct ref *map, uint8_t op, uint8_t which, uint8_t v)
{
	unsigned int i = which % NR_IDX;
	void *e = entry_of(v), *old;
	int err = 0;

	switch (op % 7) {
	case 0:   /* store: the old entry back (a reserved slot reads NULL) */
		old = msim_xa_store(xa, idx[i], e, &err);
		if (err || old != map[i].entry)
			abort();
		map[i] = (struct ref){ .entry = e };
		break;
	case 1:
		old = msim_xa_erase(xa, idx[i]);
		if (old != map[i].entry)
			abort();
		map[i] = (struct ref){ 0 };
		break;
	case 2:   /* insert: -EBUSY where anything is, reserved slots included */
		err = msim_xa_insert(xa, idx[i], e);
		if (err != (map[i].entry || map[i].reserved ? -EBUSY : 0))
			abort();
		if (!err)
			map[i] = (struct ref){ .entry = e };
		break;
	case 3:   /* cmpxchg from the entry of v / 2 */
		old = msim_xa_cmpxchg(xa, idx[i], entry_of(v / 2), e, &err);
		if (err || old != map[i].entry)
			abort();
		if (old == entry_of(v / 2))
			map[i] = (struct ref){ .entry = e };
		break;
	case 4:
		err = msim_xa_reserve(xa, idx[i]);
		if (err)
			abort();
		if (!map[i].entry)
			map[i].reserved = true;
		break;
	case 5:
		msim_xa_release(xa, idx[i]);
		map[i].reserved = false;
		break;
	default:
		if (msim_xa_load(xa, idx[i]) != map[i].entry)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ref map[NR_IDX] = { 0 };
	struct msim_config cfg;
	struct msim_xarray xa;
	struct msim *m;

	msim_config_init(&cfg);
	cfg.nr_cpus = 1;
	if (msim_create(&cfg, &m, NULL, 0))
		abort();
	msim_set_current_host(m);
	msim_xa_init(m, &xa, "fuzz");
	for (size_t k = 0; k + 3 <= size && k < 3 * 256; k += 3) {
		step(&xa, map, data[k], data[k + 1], data[k + 2]);
		check(&xa, map);
	}
	msim_xa_fini(&xa);
	msim_destroy(m);
	return 0;
}
