/* SPDX-License-Identifier: MIT */
/*
 * zswap.c - guest side of the oracle's zswap root-count experiment. zswap and its
 * shrinker on, swap on a brd RAM disk. A workload of N anonymous pages in the root
 * cgroup is pushed into zswap by proactive reclaim of the root (memory.reclaim), then
 * more reclaim rounds run the zswap shrinker, whose count for the root comes from the
 * root's memcg statistics: zswpwb (pages written back, /proc/vmstat) stays 0. The same
 * workload in a child c, reclaimed through c, is written back.
 *
 * Parameters: oracle.pages (default 4096), oracle.rounds (default 8).
 */
#include "guest.h"

#include <sys/mman.h>
#include <sys/sysmacros.h>

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

/* The workload: n pages touched (compressible, not zero), from inside cg. */
static char *workload(const char *cg, long n)
{
	char procs[160];
	char *a;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	g_write(procs, "0");
	a = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		g_die("mmap");
	madvise(a, n * 4096, MADV_NOHUGEPAGE);
	for (long i = 0; i < n * 4096; i++)
		a[i] = (char)((i / 64) ^ (i >> 12));
	g_write(CG "/cgroup.procs", "0");
	return a;
}

static void phase(const char *name, const char *cg, long n, int rounds)
{
	char path[160], amount[32];
	long long wb0 = vmstat("zswpwb"), out0 = vmstat("zswpout");
	char *a = workload(cg, n);

	snprintf(path, sizeof(path), "%s/memory.reclaim", cg);
	snprintf(amount, sizeof(amount), "%ld", n * 4096);
	for (int r = 0; r < rounds; r++) {
		int fd = open(path, O_WRONLY);

		if (fd < 0)
			g_die("opening %s", path);
		if (write(fd, amount, strlen(amount)) < 0 && errno != EAGAIN)
			g_die("writing %s", path);
		close(fd);
	}
	g_emit("\"exp\":\"zswap\",\"row\":\"phase\",\"workload\":\"%s\",\"pages\":%ld,"
	       "\"rounds\":%d,\"zswpout\":%lld,\"zswpwb\":%lld", name, n, rounds,
	       vmstat("zswpout") - out0, vmstat("zswpwb") - wb0);
	munmap(a, n * 4096);
}

int main(void)
{
	long pages = g_param("pages", 4096);
	int rounds = (int)g_param("rounds", 8);

	run("insmod /lib/modules/brd.ko rd_nr=1 rd_size=131072");
	if (access("/dev/ram0", F_OK) && mknod("/dev/ram0", S_IFBLK | 0600, makedev(1, 0)))
		g_die("mknod /dev/ram0");
	run("mkswap /dev/ram0 >/dev/null && swapon /dev/ram0");
	g_write("/sys/module/zswap/parameters/enabled", "Y");
	g_write("/sys/module/zswap/parameters/shrinker_enabled", "Y");
	g_mkdir(CG "/c");
	phase("root", CG, pages, rounds);
	phase("child", CG "/c", pages, rounds);
	return 0;
}
