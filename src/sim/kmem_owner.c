/* SPDX-License-Identifier: MIT */
/*
 * kmem_owner.c - the owner table of the kernel-memory model: which static string
 * an allocation is charged to. Owner strings are static, so the pointer is the
 * key of a lock-free open-addressing table (slots are published with release
 * stores and never removed); two pointers to the same text share one record.
 * Records past KMEM_OWNER_RECORDS go to "(other)".
 */
#include <string.h>

#include "kmem_owner.h"

static size_t owner_hash(const char *p)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 32;
	return (size_t)x & (KMEM_OWNER_SLOTS - 1);
}

/* The slot of owner pointer p, or -1; *empty gets the first empty slot seen. */
static int owner_probe(struct msim_kmem *k, const char *p, int *empty)
{
	size_t h = owner_hash(p);

	for (unsigned int i = 0; i < KMEM_OWNER_SLOTS; i++, h = (h + 1) & (KMEM_OWNER_SLOTS - 1)) {
		const char *key = __atomic_load_n(&k->slot_key[h], __ATOMIC_ACQUIRE);

		if (key == p)
			return (int)h;
		if (!key) {
			if (empty)
				*empty = (int)h;
			return -1;
		}
	}
	if (empty)
		*empty = -1;
	return -1;
}

int msim__kmem_owner_record_find(struct msim_kmem *k, const char *name)
{
	unsigned int n = __atomic_load_n(&k->nr_owners, __ATOMIC_ACQUIRE);

	/* the first byte first: most owners' names differ there (each host asks for every one) */
	for (unsigned int i = 0; i < n; i++)
		if (k->owners[i].name && k->owners[i].name[0] == name[0] &&
		    strcmp(k->owners[i].name, name) == 0)
			return (int)i;
	return -1;
}

static uint16_t owner_index_slow(struct msim_kmem *k, const char *p)
{
	int slot, empty = -1, rec;

	pthread_mutex_lock(&k->lock);
	slot = owner_probe(k, p, &empty);
	if (slot >= 0) {
		rec = k->slot_owner[slot];
		goto out;
	}
	rec = msim__kmem_owner_record_find(k, p);    /* same text, another pointer */
	if (rec < 0 && k->nr_owners < KMEM_OWNER_RECORDS) {
		rec = (int)k->nr_owners;
		k->owners[rec].name = p;
		__atomic_store_n(&k->nr_owners, k->nr_owners + 1, __ATOMIC_RELEASE);
	} else if (rec < 0) {
		rec = KMEM_OWNER_OTHER;
	}
	if (empty >= 0) {
		k->slot_owner[empty] = (uint16_t)rec;
		k->used_slot[k->nr_used_slots++] = (uint16_t)empty;
		__atomic_store_n(&k->slot_key[empty], p, __ATOMIC_RELEASE);
	}
out:
	pthread_mutex_unlock(&k->lock);
	return (uint16_t)rec;
}

/* Owner strings are static: the pointer is the key, the text the fallback. */
uint16_t msim__kmem_owner_index(struct msim_kmem *k, const char *p)
{
	int slot;

	if (!p)
		return KMEM_OWNER_NONE;
	slot = owner_probe(k, p, NULL);
	if (slot >= 0)
		return k->slot_owner[slot];
	return owner_index_slow(k, p);
}
