/* SPDX-License-Identifier: MIT */
/*
 * threshold.c - guest side of the oracle's flush-threshold experiment.
 *
 * A memory.stat read flushes a memcg's statistics only when the memcg's own batched
 * update count is above MEMCG_CHARGE_BATCH x online CPUs (mem_cgroup_flush_stats());
 * otherwise it shows what the last flush left. This program finds, by bisection to one
 * page, the smallest number of pages written in a fresh leaf memcg that a read of the
 * leaf shows in full, for tmpfs pages (memory.stat "shmem") and anonymous pages
 * ("anon"). One trial: fresh parent p and leaf p/l; this process, pinned to CPU 0,
 * moves into the leaf with a file descriptor opened beforehand (so that nothing but the
 * pages is allocated in the leaf), writes N pages, moves back to the root, and reads
 * leaf, parent and root from outside. Before each trial every CPU's LRU add batch is
 * drained (drop_caches=1 runs lru_add_drain_all), so a trial starts from empty batches.
 * A periodic flush (every 2 s) during a trial makes a stale read exact, never the
 * reverse, so a count is "shown" only if every one of the trials shows it.
 *
 * Parameters (kernel command line): oracle.max (largest N, default 480),
 * oracle.trials (default 3), oracle.kinds (1 tmpfs, 2 anon, 3 both; default 3),
 * oracle.quiet_ms (the wait before a root-row trial, default 2500),
 * oracle.periodic_ms (the wait of the periodic-flush row, default 4500).
 */
#include "guest.h"

#include <sys/mman.h>
#include <time.h>

enum kind { TMPFS = 1, ANON = 2 };

static int procs_root = -1;
static unsigned int serial;
static char *page;

struct reading {
	int leaf, parent, root;           /* 1 when the read shows all N pages */
	long long leaf_b, parent_b, root_delta_b;
};

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static const char *stat_key(enum kind k)
{
	return k == TMPFS ? "shmem" : "anon";
}

/* Writes n pages into the leaf, from inside it; returns the mapping to undo (anon). */
static void *write_pages(enum kind k, int fd, int procs_leaf, long n)
{
	char *area = NULL;

	if (k == ANON) {
		/* 2 MiB aligned: the page table comes with page 0, touched outside the leaf */
		char *raw = mmap(NULL, 4UL << 20, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (raw == MAP_FAILED)
			g_die("mmap");
		area = (char *)(((unsigned long)raw + (2UL << 20) - 1) & ~((2UL << 20) - 1));
		if (madvise(raw, 4UL << 20, MADV_NOHUGEPAGE))
			g_die("madvise");
		area[0] = 1;
		area = raw;
	}
	g_write("/proc/sys/vm/drop_caches", "1");
	if (write(procs_leaf, "0", 1) != 1)
		g_die("moving into the leaf");
	if (k == TMPFS) {
		for (long i = 0; i < n; i++)
			if (pwrite(fd, page, 4096, i * 4096) != 4096)
				g_die("pwrite");
	} else {
		char *a = (char *)(((unsigned long)area + (2UL << 20) - 1) & ~((2UL << 20) - 1));
		for (long i = 1; i <= n; i++)
			a[i * 4096] = 1;
	}
	if (write(procs_root, "0", 1) != 1)
		g_die("moving back to the root");
	return area;
}

#define MAX_KEPT 256
static struct kept { void *area; int fd, cfd, procs; } kept[MAX_KEPT];
static unsigned int nkept;

static void keep(void *area, int fd, int cfd, int procs)
{
	if (nkept == MAX_KEPT)
		g_die("more than %d trials", MAX_KEPT);
	kept[nkept++] = (struct kept){ area, fd, cfd, procs };
}

/* The trials' mappings, files and memcgs, removed once every trial is done. */
static void teardown(void)
{
	char path[128];

	for (unsigned int i = 0; i < nkept; i++) {
		if (kept[i].area)
			munmap(kept[i].area, 4UL << 20);
		if (kept[i].fd >= 0)
			close(kept[i].fd);
		close(kept[i].cfd);
		close(kept[i].procs);
	}
	for (unsigned int k = 1; k <= serial; k++) {
		snprintf(path, sizeof(path), "/mnt/t/f%u", k);
		unlink(path);
		snprintf(path, sizeof(path), "/mnt/t/canary%u", k);
		unlink(path);
		snprintf(path, sizeof(path), CG "/p%u/l", k);
		rmdir(path);
		snprintf(path, sizeof(path), CG "/p%u", k);
		rmdir(path);
		snprintf(path, sizeof(path), CG "/c%u", k);
		rmdir(path);
	}
	nkept = 0;
}

/* One page into a fresh canary memcg beside p (a root flush is the only thing that
 * shows it), from inside it, with descriptors opened outside. */
static int canary_write(const char *c, int *fd_out, char *file, size_t flen)
{
	char procs[192];
	int procs_c, fd;

	g_mkdir(c);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", c);
	snprintf(file, flen, "/mnt/t/canary%u", serial);
	procs_c = open(procs, O_WRONLY);
	fd = open(file, O_CREAT | O_RDWR, 0644);
	if (procs_c < 0 || fd < 0)
		g_die("canary setup");
	if (write(procs_c, "0", 1) != 1 || pwrite(fd, page, 4096, 0) != 4096 ||
	    write(procs_root, "0", 1) != 1)
		g_die("canary write");
	close(procs_c);
	*fd_out = fd;
	return 0;
}

/*
 * One trial. A root flush (the periodic one, or any reader's) between the writes and
 * the reads would make a stale read exact: the canary, written first and read after
 * leaf and parent, shows its page only then, and such a trial is run again.
 */
static struct reading trial_once(enum kind k, long n, long quiet_ms, int *disturbed)
{
	char p[128], l[160], c[128], procs[192], file[64], cfile[64];
	struct reading r;
	long long root_before;
	int fd = -1, cfd = -1, procs_leaf;
	void *area;

	serial++;
	snprintf(p, sizeof(p), CG "/p%u", serial);
	snprintf(c, sizeof(c), CG "/c%u", serial);
	snprintf(l, sizeof(l), "%s/l", p);
	g_mkdir(p);
	g_write((snprintf(procs, sizeof(procs), "%s/cgroup.subtree_control", p), procs), "+memory");
	g_mkdir(l);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", l);
	procs_leaf = open(procs, O_WRONLY);
	if (procs_leaf < 0)
		g_die("opening %s", procs);
	if (k == TMPFS) {
		snprintf(file, sizeof(file), "/mnt/t/f%u", serial);
		fd = open(file, O_CREAT | O_RDWR, 0644);
		if (fd < 0)
			g_die("creating %s", file);
	}
	if (quiet_ms)
		msleep(quiet_ms);
	root_before = g_memstat(CG, stat_key(k));
	canary_write(c, &cfd, cfile, sizeof(cfile));
	area = write_pages(k, fd, procs_leaf, n);
	r.leaf_b = g_memstat(l, stat_key(k));
	r.parent_b = g_memstat(p, stat_key(k));
	*disturbed = g_memstat(c, "shmem") != 0;
	r.root_delta_b = g_memstat(CG, stat_key(k)) - root_before;
	r.leaf = r.leaf_b == n * 4096;
	r.parent = r.parent_b == n * 4096;
	/* the root counts the canary's page too, and for anon page 0 (touched outside) */
	r.root_delta_b -= (k == TMPFS) * 4096;
	r.root = r.root_delta_b == (n + (k == ANON)) * 4096;
	/*
	 * Nothing is torn down until the end (teardown()): an rmdir's offline and an
	 * unlink's frees run partly in workers, and they would reach into a later
	 * trial (with a quiet wait before the trial they never do; without one a trial
	 * of tmpfs at 2 CPUs was sometimes shown a page early).
	 */
	keep(area, fd, cfd, procs_leaf);
	return r;
}

static struct reading trial(enum kind k, long n, long quiet_ms)
{
	struct reading r;
	int disturbed = 1, tries = 0;

	while (disturbed && tries++ < 8)
		r = trial_once(k, n, quiet_ms, &disturbed);
	if (disturbed)
		g_die("eight trials of %ld pages in a row saw a root flush", n);
	return r;
}

/* Shown: every trial's read of the leaf (or of the parent) shows all n pages. */
static int shown(enum kind k, long n, int trials, int cpus, int parent)
{
	int all = 1;

	for (int t = 0; t < trials; t++) {
		struct reading r = trial(k, n, 0);

		g_emit("\"exp\":\"threshold\",\"row\":\"probe\",\"kind\":\"%s\",\"cpus\":%d,"
		       "\"pages\":%ld,\"for\":\"%s\",\"trial\":%d,\"leaf_bytes\":%lld,\"parent_bytes\":%lld,"
		       "\"root_delta_bytes\":%lld",
		       k == TMPFS ? "tmpfs" : "anon", cpus, n, parent ? "parent" : "leaf", t, r.leaf_b, r.parent_b,
		       r.root_delta_b);
		all &= parent ? r.parent : r.leaf;
	}
	return all;
}

/*
 * The rows at the threshold, each trial after a quiet wait between the mkdirs and the
 * writes (the periodic flush has folded and reset what the mkdirs charged to the
 * parent), at lo - 1 and lo pages: leaf, parent and root.
 */
static void edges(enum kind k, long lo, int cpus, long quiet_ms)
{
	for (long n = lo - 1; n <= lo; n++) {
		struct reading r;

		r = trial(k, n, quiet_ms);
		g_emit("\"exp\":\"threshold\",\"row\":\"edge\",\"kind\":\"%s\",\"cpus\":%d,"
		       "\"pages\":%ld,\"leaf\":%d,\"parent\":%d,\"root\":%d",
		       k == TMPFS ? "tmpfs" : "anon", cpus, n, r.leaf, r.parent, r.root);
	}
}

static void periodic(enum kind k, int cpus, long wait_ms)
{
	char p[128], l[160], procs[192], file[64];
	int fd = -1, procs_leaf;
	void *area;

	serial++;
	snprintf(p, sizeof(p), CG "/p%u", serial);
	snprintf(l, sizeof(l), "%s/l", p);
	g_mkdir(p);
	g_write((snprintf(procs, sizeof(procs), "%s/cgroup.subtree_control", p), procs), "+memory");
	g_mkdir(l);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", l);
	procs_leaf = open(procs, O_WRONLY);
	if (k == TMPFS) {
		snprintf(file, sizeof(file), "/mnt/t/f%u", serial);
		fd = open(file, O_CREAT | O_RDWR, 0644);
	}
	if (procs_leaf < 0 || (k == TMPFS && fd < 0))
		g_die("periodic setup");
	area = write_pages(k, fd, procs_leaf, 1);
	msleep(wait_ms);
	g_emit("\"exp\":\"threshold\",\"row\":\"periodic\",\"kind\":\"%s\",\"cpus\":%d,"
	       "\"pages\":1,\"wait_ms\":%ld,\"leaf\":%d,\"parent\":%d",
	       k == TMPFS ? "tmpfs" : "anon", cpus, wait_ms,
	       g_memstat(l, stat_key(k)) == 4096, g_memstat(p, stat_key(k)) == 4096);
	keep(area, fd, -1, procs_leaf);
}

/* The smallest n in [1, max] shown (-1 if max is not), assuming it stays shown above. */
static long bisect(enum kind k, long max, int trials, int cpus, int parent)
{
	long lo = 1, hi = max;

	if (!shown(k, hi, trials, cpus, parent))
		return -1;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (shown(k, mid, trials, cpus, parent))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int main(void)
{
	long max = g_param("max", 480), quiet_ms = g_param("quiet_ms", 2500);
	int trials = (int)g_param("trials", 3), kinds = (int)g_param("kinds", 3);
	int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);

	page = malloc(4096);
	memset(page, 0x5a, 4096);
	g_pin(0);
	g_mkdir("/mnt/t");
	if (mount("tmpfs", "/mnt/t", "tmpfs", 0, "size=64m"))
		g_die("mounting tmpfs");
	procs_root = open(CG "/cgroup.procs", O_WRONLY);
	if (procs_root < 0)
		g_die("opening the root's cgroup.procs");
	for (int k = TMPFS; k <= ANON; k++) {
		long leaf_min, parent_min;

		if (!(kinds & k))
			continue;
		leaf_min = bisect(k, max, trials, cpus, 0);
		parent_min = bisect(k, max, trials, cpus, 1);
		g_emit("\"exp\":\"threshold\",\"row\":\"result\",\"kind\":\"%s\",\"cpus\":%d,"
		       "\"leaf_min\":%ld,\"parent_min\":%ld,\"trials\":%d,\"max\":%ld",
		       k == TMPFS ? "tmpfs" : "anon", cpus, leaf_min, parent_min, trials, max);
		if (leaf_min > 1)
			edges(k, leaf_min, cpus, quiet_ms);
		periodic(k, cpus, g_param("periodic_ms", 4500));
		teardown();
	}
	return 0;
}
