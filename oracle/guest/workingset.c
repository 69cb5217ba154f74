/* SPDX-License-Identifier: MIT */
/*
 * workingset.c - guest side of the oracle's workingset experiment: the protectable
 * thrashing workload (a hot set that fits in the memcg, read repeatedly, against a
 * cold stream read once) in a memcg under memory.high, on an ext2 file system on a
 * RAM block device (brd), once with the classic LRU and once with MGLRU
 * (/sys/kernel/mm/lru_gen/enabled 0, then 7, each written before that phase's memcg
 * is made).
 *
 * Each phase has its own files, so no shadow entry of an earlier phase is left in
 * their mappings: the hot file has data at every stride-th page only (written by
 * the root, synced and dropped from the page cache before the memcg exists), the cold
 * file is a hole (its pages are zero-filled on read: every cold read is a miss that
 * reads nothing from the device, so the device's reads are the hot set's misses and
 * the file system's metadata). All files are opened with POSIX_FADV_RANDOM: a read
 * brings in only the page it reads, as the model's reads do. Each of a visit's reads
 * of a hot page goes through its own open file: filemap_read() marks a folio
 * accessed only on the first of consecutive reads of it through one file (the
 * file's ra->prev_pos), and the workload is that every read is an access.
 *
 * A round, for each hot page i: `reads` reads of hot page i * stride, then `cold`
 * reads of the next pages of the cold stream. Printed per round: the hot pages
 * that missed (mincore() of the page before its visit) and the cold pages that did, the pages read from the
 * device (pgpgin of /proc/vmstat: brd keeps no disk statistics), the hot pages
 * resident at the round's end (mincore), the round's workingset_refault_file,
 * workingset_activate_file, workingset_restore_file and workingset_nodereclaim
 * (memory.stat of the memcg), and workingset_nodes at the end (/proc/vmstat: 6.12's
 * memory.stat does not show it; the memcg's reads make the only shadow entries, as
 * drop_caches leaves none).
 *
 * Parameters: oracle.memcg_pages (default 16384), oracle.hot (8192), oracle.stride
 * (8), oracle.reads (3), oracle.cold (2), oracle.rounds (8), oracle.use_max (0:
 * memory.high; 1: memory.max).
 */
#include "guest.h"

#include <sys/mman.h>
#include <sys/sysmacros.h>

#define PG 4096L
#define MAX_READS 8

struct ws_params {
	long memcg_pages, hot, stride, reads, cold, rounds, use_max;
};

struct ws_files {
	int hot[MAX_READS], cold;
	unsigned char *map;       /* the hot file, mapped for mincore() only */
	unsigned char *cold_map;  /* the cold file, likewise */
	long cold_next;
};

static void run(const char *cmd)
{
	if (system(cmd))
		g_die("'%s' failed", cmd);
}

static long long vmstat(const char *key)
{
	static char buf[16384];

	g_read("/proc/vmstat", buf, sizeof(buf));
	return g_lookup(buf, key);
}

static void setup_disk(void)
{
	run("insmod /lib/modules/brd.ko rd_nr=1 rd_size=262144");
	run("insmod /lib/modules/crc16.ko && insmod /lib/modules/mbcache.ko && "
	    "insmod /lib/modules/crc32c_generic.ko && insmod /lib/modules/jbd2.ko && "
	    "insmod /lib/modules/ext4.ko");
	if (access("/dev/ram0", F_OK) && mknod("/dev/ram0", S_IFBLK | 0600, makedev(1, 0)))
		g_die("mknod /dev/ram0");
	run("mke2fs -q -b 4096 /dev/ram0 >/dev/null");
	g_mkdir("/mnt/e");
	if (mount("/dev/ram0", "/mnt/e", "ext2", 0, NULL))
		g_die("mounting ext2 on /dev/ram0");
}

static int open_random(const char *path, int flags)
{
	int fd = open(path, flags, 0644);

	if (fd < 0)
		g_die("opening %s", path);
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM))
		g_die("fadvise %s", path);
	return fd;
}

static long cold_pages(const struct ws_params *p)
{
	return p->rounds * p->hot * p->cold + 1;
}

/* The phase's files: the hot file's pages written (by the root), synced, dropped. */
static void make_files(const struct ws_params *p, int phase, struct ws_files *f)
{
	static char buf[PG];
	char hot[64], cold[64];
	int fd;

	snprintf(hot, sizeof(hot), "/mnt/e/hot%d", phase);
	snprintf(cold, sizeof(cold), "/mnt/e/cold%d", phase);
	fd = open_random(hot, O_CREAT | O_RDWR);
	for (long i = 0; i < p->hot; i++) {
		memset(buf, (int)(i & 0xff) | 1, sizeof(buf));
		if (pwrite(fd, buf, PG, i * p->stride * PG) != PG)
			g_die("writing %s", hot);
	}
	if (ftruncate(fd, p->hot * p->stride * PG) || fsync(fd))
		g_die("syncing %s", hot);
	close(fd);
	fd = open_random(cold, O_CREAT | O_RDWR);
	if (ftruncate(fd, cold_pages(p) * PG) || fsync(fd))
		g_die("sizing %s", cold);
	close(fd);
	sync();
	g_write("/proc/sys/vm/drop_caches", "3");
	for (long k = 0; k < p->reads; k++)
		f->hot[k] = open_random(hot, O_RDONLY);
	f->cold = open_random(cold, O_RDONLY);
	f->map = mmap(NULL, p->hot * p->stride * PG, PROT_READ, MAP_SHARED, f->hot[0], 0);
	f->cold_map = mmap(NULL, cold_pages(p) * PG, PROT_READ, MAP_SHARED, f->cold, 0);
	if (f->map == MAP_FAILED || f->cold_map == MAP_FAILED)
		g_die("mapping the files");
	f->cold_next = 0;
}

/* Closed and removed: the inodes' eviction frees their shadow entries and nodes. */
static void close_files(const struct ws_params *p, struct ws_files *f, int phase)
{
	char path[64];

	munmap(f->map, p->hot * p->stride * PG);
	munmap(f->cold_map, cold_pages(p) * PG);
	for (long k = 0; k < p->reads; k++)
		close(f->hot[k]);
	close(f->cold);
	snprintf(path, sizeof(path), "/mnt/e/hot%d", phase);
	unlink(path);
	snprintf(path, sizeof(path), "/mnt/e/cold%d", phase);
	unlink(path);
}

static int page_is_resident(const unsigned char *map, long index)
{
	unsigned char v = 0;

	if (mincore((void *)(map + index * PG), PG, &v))
		g_die("mincore");
	return v & 1;
}

static long hot_resident(const struct ws_params *p, const struct ws_files *f)
{
	long n = 0;

	for (long i = 0; i < p->hot; i++)
		n += page_is_resident(f->map, i * p->stride);
	return n;
}

static void read_page(int fd, long index)
{
	static char buf[PG];

	if (pread(fd, buf, PG, index * PG) != PG)
		g_die("reading page %ld", index);
}

struct ws_counts {
	long long refault, activate, restore, nodereclaim, nodes, pgpgin;
};

static void counts(const char *cg, struct ws_counts *c)
{
	c->refault = g_memstat(cg, "workingset_refault_file");
	c->activate = g_memstat(cg, "workingset_activate_file");
	c->restore = g_memstat(cg, "workingset_restore_file");
	c->nodereclaim = g_memstat(cg, "workingset_nodereclaim");
	c->nodes = vmstat("workingset_nodes");
	c->pgpgin = vmstat("pgpgin");
}

static void round_run(const struct ws_params *p, struct ws_files *f, const char *lru,
		      const char *cg, long round)
{
	struct ws_counts a, b;
	long misses = 0, cold_misses = 0;

	counts(cg, &a);
	for (long i = 0; i < p->hot; i++) {
		misses += !page_is_resident(f->map, i * p->stride);
		for (long k = 0; k < p->reads; k++)
			read_page(f->hot[k], i * p->stride);
		for (long k = 0; k < p->cold; k++) {
			cold_misses += !page_is_resident(f->cold_map, f->cold_next);
			read_page(f->cold, f->cold_next++);
		}
	}
	counts(cg, &b);
	g_emit("\"exp\":\"workingset\",\"row\":\"round\",\"lru\":\"%s\",\"round\":%ld,"
	       "\"hot_misses\":%ld,\"cold_misses\":%ld,\"device_pages\":%lld,\"hot_resident\":%ld,"
	       "\"workingset_refault_file\":%lld,\"workingset_activate_file\":%lld,"
	       "\"workingset_restore_file\":%lld,\"workingset_nodereclaim\":%lld,"
	       "\"workingset_nodes\":%lld", lru, round, misses, cold_misses,
	       (b.pgpgin - a.pgpgin) / (PG / 1024), hot_resident(p, f), b.refault - a.refault,
	       b.activate - a.activate, b.restore - a.restore, b.nodereclaim - a.nodereclaim,
	       b.nodes);
}

static void phase(const struct ws_params *p, int idx, const char *lru, const char *enabled)
{
	char cg[64], path[96], limit[32];
	struct ws_files f;

	g_write("/sys/kernel/mm/lru_gen/enabled", enabled);
	make_files(p, idx, &f);
	snprintf(cg, sizeof(cg), CG "/ws%d", idx);
	g_mkdir(cg);
	snprintf(path, sizeof(path), "%s/%s", cg, p->use_max ? "memory.max" : "memory.high");
	snprintf(limit, sizeof(limit), "%ld", p->memcg_pages * PG);
	g_write(path, limit);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	g_write(path, "0");
	for (long r = 0; r < p->rounds; r++)
		round_run(p, &f, lru, cg, r);
	g_write(CG "/cgroup.procs", "0");
	close_files(p, &f, idx);
	g_write("/proc/sys/vm/drop_caches", "3");
	rmdir(cg);
}

int main(void)
{
	struct ws_params p = {
		g_param("memcg_pages", 16384), g_param("hot", 8192), g_param("stride", 8),
		g_param("reads", 3), g_param("cold", 2), g_param("rounds", 8), g_param("use_max", 0),
	};

	if (p.reads < 1 || p.reads > MAX_READS || p.hot < 1 || p.stride < 1 || p.rounds < 1 ||
	    p.cold < 0 || p.memcg_pages < 1)
		g_die("bad parameters");
	/* one CPU: no folio waits in another CPU's LRU-add batch (the model's reader is on CPU 0) */
	g_pin(0);
	setup_disk();
	g_emit("\"exp\":\"workingset\",\"row\":\"setup\",\"memcg_pages\":%ld,\"hot\":%ld,"
	       "\"stride\":%ld,\"reads\":%ld,\"cold\":%ld,\"rounds\":%ld,\"limit\":\"%s\"",
	       p.memcg_pages, p.hot, p.stride, p.reads, p.cold, p.rounds,
	       p.use_max ? "memory.max" : "memory.high");
	phase(&p, 0, "classic", "0");
	phase(&p, 1, "mglru", "7");
	return 0;
}
