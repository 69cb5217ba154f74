/* SPDX-License-Identifier: MIT */
/*
 * kmem_arena.c - address space for the kernel-memory model's objects, committed
 * only where the model writes.
 *
 * Thread 001's table 2 allocates some 62 million 520-byte shrinker units per
 * upfront layout (32 GB), almost all of them zeroed and never written again; the
 * walks still read each unit's bitmap word, as the kernel does. So the objects
 * live in private anonymous memory reserved with MAP_NORESERVE: a page nobody
 * wrote costs the process nothing, and reading it maps the shared zero page.
 *
 * A region of address space (1 TiB, less if the system refuses or RLIMIT_AS
 * leaves less: region_add) is reserved once
 * and cut into chunks of 64 KiB to 2 MiB, each aligned to its size. A 2 MiB chunk
 * for objects that are mostly never written (the pool's previous chunk says so)
 * is first mapped to the huge zero page: one fault, where reading it page by page
 * would fault 512 times (16 million faults for table 2's units). The chunk is
 * marked MADV_HUGEPAGE for one read, then back to MADV_NOHUGEPAGE like the rest
 * of the region, so khugepaged never collapses a sparsely written range into a
 * huge page. A write into such a chunk makes the kernel allocate the whole huge
 * page (2 MiB resident), which is why densely written pools do not get it.
 *
 * A free chunk with written pages is kept dirty for the same owner (its pages
 * stay: an explorer's thousands of short-lived hosts cost no system call, and the
 * next headers of an expansion land where the old ones were) while the kept
 * chunks' written bytes stay under KMEM_DIRTY_CAP; beyond that its pages are
 * released with MADV_DONTNEED. One with nothing written is clean as it is.
 *
 * A table with one entry per 64 KiB maps an address back to its chunk; chunk
 * descriptors live as long as the process, so a stale pointer finds a free chunk,
 * never garbage.
 * One mutex guards the free lists and the carving; lookups take no lock.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "kmem_arena.h"

#define KMEM_MAX_REGIONS 16
#define KMEM_MIN_REGION (64ULL << 20)
#define KMEM_NSHIFTS (KMEM_HUGE_SHIFT - KMEM_GRAIN_SHIFT + 1)
#define KMEM_DIRTY_CAP (1ULL << 30)
#define KMEM_KEEPERS 512              /* owners with dirty chunks; power of two */

/* The free chunks whose pages an owner's objects may have written. */
struct kmem_keeper {
	const void *owner;
	struct kmem_chunk *dirty[KMEM_NSHIFTS];
};

struct kmem_region {
	char *base;
	size_t bytes;
	size_t bump;                      /* carved so far */
	struct kmem_chunk **table;        /* one entry per grain (NORESERVE) */
};

static struct {
	pthread_mutex_t lock;
	bool tried, ok;
	bool said_no_region;              /* the stderr line of region_add, once */
	int pagemap;                      /* /proc/self/pagemap, or -1 */
	unsigned int nregions;            /* published with release */
	struct kmem_region region[KMEM_MAX_REGIONS];
	struct kmem_chunk *clean[KMEM_NSHIFTS]; /* free, reading as zero */
	struct kmem_keeper keeper[KMEM_KEEPERS];
	struct msim__kmem_arena_stats st;
} arena = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void *map_noreserve(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Address space the process may still map: RLIMIT_AS (ulimit -v, a batch job's
 * memory limit) less what is mapped already (/proc/self/statm); SIZE_MAX
 * without a limit.
 */
static size_t address_space_left(void)
{
	struct rlimit rl;
	unsigned long pages = 0;
	size_t used;
	FILE *f;

	if (getrlimit(RLIMIT_AS, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return SIZE_MAX;
	f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	used = (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
	return rl.rlim_cur > used ? (size_t)(rl.rlim_cur - used) : 0;
}

/*
 * Caller holds the lock. A region as large as the system allows: 1 TiB, or a
 * quarter of the address space a limit leaves (the heap, the task stacks and
 * the rest of the process need the other three), halved until it maps, down
 * to 64 MiB. A 4 GiB region under a 6 GiB limit left too little for the
 * rest: the run failed with ENOMEM where 4 and 8 GiB worked.
 */
static bool region_add(void)
{
	size_t cap = address_space_left() / 4, bytes = 1ULL << 40;
	struct kmem_region *r;

	if (arena.nregions == KMEM_MAX_REGIONS)
		return false;
	r = &arena.region[arena.nregions];
	while (bytes > cap && bytes > KMEM_MIN_REGION)
		bytes >>= 1;
	for (; bytes >= KMEM_MIN_REGION && bytes <= cap; bytes >>= 1) {
		/* One extra huge chunk, so the base can be aligned to 2 MiB. */
		char *raw = map_noreserve(bytes + (1UL << KMEM_HUGE_SHIFT));
		size_t entries = bytes >> KMEM_GRAIN_SHIFT;

		if (!raw)
			continue;
		r->table = map_noreserve(entries * sizeof(*r->table));
		if (!r->table) {
			munmap(raw, bytes + (1UL << KMEM_HUGE_SHIFT));
			continue;
		}
		r->base = (char *)(((uintptr_t)raw + (1UL << KMEM_HUGE_SHIFT) - 1) &
				   ~(((uintptr_t)1 << KMEM_HUGE_SHIFT) - 1));
		r->bytes = bytes;
		r->bump = 0;
		/* Small pages everywhere unless a chunk asks for the huge zero page. */
		madvise(r->base, bytes, MADV_NOHUGEPAGE);
		arena.st.reserved_bytes += bytes;
		__atomic_store_n(&arena.nregions, arena.nregions + 1, __ATOMIC_RELEASE);
		return true;
	}
	if (!arena.said_no_region) {
		char why[96];

		arena.said_no_region = true;
		if (cap == SIZE_MAX / 4)
			snprintf(why, sizeof(why), "the system refused even %llu MiB",
				 KMEM_MIN_REGION >> 20);
		else
			snprintf(why, sizeof(why), "%zu MiB left under RLIMIT_AS", cap * 4 >> 20);
		fprintf(stderr, "memcgsim: kmem arena: cannot reserve %s address space (%s): "
			"kernel objects come from the heap, committed as they are allocated\n",
			arena.nregions ? "more" : "any", why);
	}
	return false;
}

bool msim__kmem_arena_available(void)
{
	pthread_mutex_lock(&arena.lock);
	if (!arena.tried) {
		arena.tried = true;
		arena.ok = region_add();
		arena.pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	}
	pthread_mutex_unlock(&arena.lock);
	return arena.ok;
}

/*
 * Map a fresh 2 MiB chunk to the huge zero page: one read while the range may use
 * huge pages, then small pages again (a later write splits the mapping or takes
 * a huge page; the range is never collapsed behind the model's back). Without
 * transparent huge pages the read maps one small zero page and the rest faults
 * page by page: slower, same bytes.
 */
static void map_huge_zero(struct kmem_chunk *c)
{
	size_t bytes = (size_t)1 << c->shift;

	madvise(c->base, bytes, MADV_HUGEPAGE);
	(void)*(volatile const char *)c->base;
	madvise(c->base, bytes, MADV_NOHUGEPAGE);
	c->huge_zero = true;
	arena.st.huge_zero_maps++;
}

/* Caller holds the lock. A new chunk carved from a region, or NULL. */
static struct kmem_chunk *chunk_carve(unsigned int shift)
{
	size_t bytes = (size_t)1 << shift;
	struct kmem_chunk *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	for (;;) {
		struct kmem_region *r = &arena.region[arena.nregions - 1];
		size_t off = (r->bump + bytes - 1) & ~(bytes - 1);

		if (off + bytes <= r->bytes) {
			r->bump = off + bytes;
			c->base = r->base + off;
			c->shift = shift;
			for (size_t g = 0; g < bytes >> KMEM_GRAIN_SHIFT; g++)
				__atomic_store_n(&r->table[(off >> KMEM_GRAIN_SHIFT) + g], c,
						 __ATOMIC_RELEASE);
			return c;
		}
		if (!region_add()) {
			free(c);
			return NULL;
		}
	}
}

/* Bytes of c's pages that are the process's own (not the zero page, not absent); -1: unknown. */
static ssize_t pages_written(const struct kmem_chunk *c)
{
	uint64_t e[(size_t)1 << (KMEM_HUGE_SHIFT - 12)];
	size_t n = (size_t)1 << (c->shift - 12), bytes = 0;

	if (arena.pagemap < 0 ||
	    pread(arena.pagemap, e, n * sizeof(e[0]),
		  (off_t)((uintptr_t)c->base / 4096 * sizeof(e[0]))) != (ssize_t)(n * sizeof(e[0])))
		return -1;
	/* pagemap: bit 63 present, 62 swapped, 56 mapped by this process alone */
	for (size_t i = 0; i < n; i++)
		if ((e[i] >> 62 & 1) || ((e[i] >> 63 & 1) && (e[i] >> 56 & 1)))
			bytes += 4096;
	return (ssize_t)bytes;
}

/*
 * The written bytes of a chunk being given back. Read for huge chunks only;
 * smaller chunks (an explorer's hosts give back thousands a second) count as
 * written wherever slots were handed out, and so does any chunk whose pages
 * cannot be read.
 */
static size_t chunk_resident(const struct kmem_chunk *c)
{
	ssize_t w;

	if (!c->dirty)
		return 0;
	if (c->shift != KMEM_HUGE_SHIFT || (w = pages_written(c)) < 0)
		return (size_t)1 << c->shift;
	return (size_t)w;
}

bool msim__kmem_chunk_sparse(const struct kmem_chunk *c)
{
	ssize_t w = pages_written(c);

	return w < 0 || (size_t)w * 4 < c->dirty;
}

/* Caller holds the lock. The keeper of owner's dirty chunks (NULL when the table is full). */
static struct kmem_keeper *keeper_of(const void *owner)
{
	uint64_t x = (uint64_t)(uintptr_t)owner * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(x >> 40) & (KMEM_KEEPERS - 1);

	for (unsigned int n = 0; n < KMEM_KEEPERS; n++, i = (i + 1) & (KMEM_KEEPERS - 1)) {
		struct kmem_keeper *kp = &arena.keeper[i];

		if (kp->owner == owner)
			return kp;
		if (!kp->owner) {
			kp->owner = owner;
			return kp;
		}
	}
	return NULL;
}

static struct kmem_chunk *list_pop(struct kmem_chunk **list)
{
	struct kmem_chunk *c = *list;

	if (c)
		*list = c->next;
	return c;
}

/*
 * The owner's own dirty chunks come first: its objects are likely written the
 * same way again (a new header where an old one was), so its resident pages are
 * reused instead of new ones cleared. Another owner's dirty pages would make
 * resident what that owner may never write (units in old headers' pages), so the
 * next choice is a clean chunk, then fresh address space.
 */
struct kmem_chunk *msim__kmem_chunk_get(unsigned int shift, const void *owner, bool huge_zero)
{
	struct kmem_keeper *kp;
	struct kmem_chunk *c = NULL;
	unsigned int i = shift - KMEM_GRAIN_SHIFT;

	if (shift < KMEM_GRAIN_SHIFT || shift > KMEM_HUGE_SHIFT || !msim__kmem_arena_available())
		return NULL;
	pthread_mutex_lock(&arena.lock);
	kp = keeper_of(owner);
	if (kp && (c = list_pop(&kp->dirty[i])))
		arena.st.free_dirty_bytes -= c->resident;
	else if (!(c = list_pop(&arena.clean[i])))
		c = chunk_carve(shift);
	if (c) {
		c->next = c->prev = NULL;
		arena.st.chunk_bytes += (size_t)1 << shift;
		if (huge_zero && shift == KMEM_HUGE_SHIFT && !c->huge_zero && !c->dirty)
			map_huge_zero(c);
	}
	pthread_mutex_unlock(&arena.lock);
	return c;
}

/*
 * A chunk whose pages are all zero pages or absent goes back clean as it is (no
 * system call). One with written pages stays with its owner, dirty, while the
 * dirty chunks' resident bytes stay under KMEM_DIRTY_CAP; past that its pages are
 * given back with MADV_DONTNEED.
 */
void msim__kmem_chunk_put(struct kmem_chunk *c, const void *owner)
{
	size_t bytes = (size_t)1 << c->shift;
	struct kmem_keeper *kp = NULL;

	free(c->used);
	free(c->rcu);
	c->used = c->rcu = NULL;
	c->pool = NULL;
	c->slot = c->nslots = c->live = c->hint = 0;
	pthread_mutex_lock(&arena.lock);
	arena.st.chunk_bytes -= bytes;
	c->resident = chunk_resident(c);
	if (!c->resident)
		c->dirty = 0;
	else if (!(kp = keeper_of(owner)) ||
		 arena.st.free_dirty_bytes + c->resident > KMEM_DIRTY_CAP) {
		madvise(c->base, bytes, MADV_DONTNEED);
		c->dirty = c->resident = 0;
		c->huge_zero = false;
		kp = NULL;
		arena.st.releases++;
	}
	if (kp) {
		arena.st.free_dirty_bytes += c->resident;
		c->next = kp->dirty[c->shift - KMEM_GRAIN_SHIFT];
		kp->dirty[c->shift - KMEM_GRAIN_SHIFT] = c;
	} else {
		c->next = arena.clean[c->shift - KMEM_GRAIN_SHIFT];
		arena.clean[c->shift - KMEM_GRAIN_SHIFT] = c;
	}
	pthread_mutex_unlock(&arena.lock);
}

static const struct kmem_region *region_of(const void *p)
{
	unsigned int n = __atomic_load_n(&arena.nregions, __ATOMIC_ACQUIRE);

	for (unsigned int i = 0; i < n; i++) {
		const struct kmem_region *r = &arena.region[i];

		if ((uintptr_t)p >= (uintptr_t)r->base &&
		    (uintptr_t)p - (uintptr_t)r->base < r->bytes)
			return r;
	}
	return NULL;
}

bool msim__kmem_arena_contains(const void *p)
{
	return region_of(p) != NULL;
}

struct kmem_chunk *msim__kmem_chunk_of(const void *p)
{
	const struct kmem_region *r = region_of(p);

	if (!r)
		return NULL;
	return __atomic_load_n(&r->table[((uintptr_t)p - (uintptr_t)r->base) >> KMEM_GRAIN_SHIFT],
			       __ATOMIC_ACQUIRE);
}

void msim__kmem_arena_trim(void)
{
	pthread_mutex_lock(&arena.lock);
	for (unsigned int i = 0; i < KMEM_KEEPERS; i++) {
		struct kmem_keeper *kp = &arena.keeper[i];

		for (unsigned int s = 0; s < KMEM_NSHIFTS; s++) {
			struct kmem_chunk *c;

			while ((c = list_pop(&kp->dirty[s]))) {
				madvise(c->base, (size_t)1 << c->shift, MADV_DONTNEED);
				arena.st.free_dirty_bytes -= c->resident;
				c->dirty = c->resident = 0;
				c->huge_zero = false;
				arena.st.releases++;
				c->next = arena.clean[s];
				arena.clean[s] = c;
			}
		}
	}
	pthread_mutex_unlock(&arena.lock);
}

void msim__kmem_arena_stats(struct msim__kmem_arena_stats *out)
{
	pthread_mutex_lock(&arena.lock);
	*out = arena.st;
	pthread_mutex_unlock(&arena.lock);
}

/*
 * Against a page of zeros: libc's memcmp reads a vector a step, where a loop over
 * words compared one (the word loop was a fifth of a 96-CPU host's DFS run, in the
 * per-CPU copies' check).
 */
bool msim__kmem_reads_zero(const void *p, size_t n)
{
	static const char zeros[4096];
	const char *c = p;

	for (size_t i = 0; i < n; i += sizeof(zeros)) {
		size_t k = n - i < sizeof(zeros) ? n - i : sizeof(zeros);

		if (memcmp(c + i, zeros, k))
			return false;
	}
	return true;
}
