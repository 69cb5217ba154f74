/* SPDX-License-Identifier: MIT */
/*
 * dying.c - guest side of the oracle's dying-memcg experiment: a memcg rmdir'ed while
 * it still owns page cache. An ext2 file system on a RAM block device (brd) holds a
 * file of N pages, written and dropped from the page cache by the root; a process in
 * p/c reads it (the page cache is charged to c), leaves, and c is removed. Read each
 * time after a periodic flush (2 x FLUSH_TIME): the parent's cgroup.stat
 * nr_dying_descendants, memory.stat "file" and memory.current, before the rmdir, after
 * it, and after drop_caches=1 freed the clean page cache (which lets the dying memcg
 * go).
 *
 * Parameters: oracle.pages (default 1024), oracle.wait_ms (default 4500).
 */
#include "guest.h"

#include <sys/sysmacros.h>
#include <time.h>

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void run(const char *cmd)
{
	if (system(cmd))
		g_die("'%s' failed", cmd);
}

static long long cg_value(const char *path, const char *key)
{
	static char buf[16384];

	g_read(path, buf, sizeof(buf));
	return key ? g_lookup(buf, key) : strtoll(buf, NULL, 10);
}

static void report(const char *when, long wait_ms)
{
	msleep(wait_ms);
	g_emit("\"exp\":\"dying\",\"row\":\"state\",\"when\":\"%s\",\"nr_dying_descendants\":%lld,"
	       "\"parent_file_bytes\":%lld,\"parent_current_bytes\":%lld", when,
	       cg_value(CG "/p/cgroup.stat", "nr_dying_descendants"),
	       cg_value(CG "/p/memory.stat", "file"), cg_value(CG "/p/memory.current", NULL));
}

int main(void)
{
	long pages = g_param("pages", 1024), wait_ms = g_param("wait_ms", 4500);
	static char buf[4096];
	int fd, procs;

	run("insmod /lib/modules/brd.ko rd_nr=1 rd_size=65536");
	run("insmod /lib/modules/crc16.ko && insmod /lib/modules/mbcache.ko && "
	    "insmod /lib/modules/crc32c_generic.ko && insmod /lib/modules/jbd2.ko && insmod /lib/modules/ext4.ko");
	/* brd's first disk is block 1:0; make the node if devtmpfs did not */
	if (access("/dev/ram0", F_OK) && mknod("/dev/ram0", S_IFBLK | 0600, makedev(1, 0)))
		g_die("mknod /dev/ram0");
	run("mke2fs -q /dev/ram0 >/dev/null");
	if (g_param("debug", 0))
		system("ls -la /dev/ram0 /dev | head; grep -E 'ext|ram' /proc/filesystems /proc/devices;"
		       " mkdir -p /mnt/x; busybox mount -t ext2 /dev/ram0 /mnt/x; busybox dmesg | tail -8");
	g_mkdir("/mnt/e");
	if (mount("/dev/ram0", "/mnt/e", "ext2", 0, NULL))
		g_die("mounting ext2 on /dev/ram0");
	fd = open("/mnt/e/f", O_CREAT | O_RDWR, 0644);
	memset(buf, 0x5a, sizeof(buf));
	for (long i = 0; i < pages; i++)
		if (fd < 0 || pwrite(fd, buf, 4096, i * 4096) != 4096)
			g_die("writing the file");
	fsync(fd);
	g_write("/proc/sys/vm/drop_caches", "1");
	g_mkdir(CG "/p");
	g_write(CG "/p/cgroup.subtree_control", "+memory");
	g_mkdir(CG "/p/c");
	procs = open(CG "/p/c/cgroup.procs", O_WRONLY);
	if (procs < 0 || write(procs, "0", 1) != 1)
		g_die("moving into p/c");
	for (long i = 0; i < pages; i++)
		if (pread(fd, buf, 4096, i * 4096) != 4096)
			g_die("reading the file");
	g_write(CG "/cgroup.procs", "0");
	close(procs);
	g_emit("\"exp\":\"dying\",\"row\":\"setup\",\"pages\":%ld", pages);
	report("before rmdir", wait_ms);
	if (rmdir(CG "/p/c"))
		g_die("rmdir p/c");
	report("after rmdir", wait_ms);
	g_write("/proc/sys/vm/drop_caches", "1");
	report("after drop_caches", wait_ms);
	close(fd);
	return 0;
}
