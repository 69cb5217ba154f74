/* SPDX-License-Identifier: MIT */
/*
 * guest.h - helpers shared by the oracle's guest programs (static binaries that run
 * inside the QEMU guest, as /init's children). They read their parameters from the
 * kernel command line (oracle.NAME=VALUE) and print one tagged JSON object per line
 * on the serial console ("@@ORACLE {...}"), which the host's runner collects.
 * Header-only so that each guest program is one translation unit.
 */
#ifndef ORACLE_GUEST_H
#define ORACLE_GUEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define CG "/sys/fs/cgroup"

static inline void g_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stdout, "@@ORACLE {\"error\":\"");
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fprintf(stdout, " (errno %d: %s)\"}\n", errno, strerror(errno));
	fflush(stdout);
	exit(1);
}

/* Everything after "@@ORACLE " is one JSON object; the caller writes the body. */
static inline void g_emit(const char *fmt, ...)
{
	va_list ap;

	fputs("@@ORACLE {", stdout);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fputs("}\n", stdout);
	fflush(stdout);
}

/* The value of oracle.NAME= on the kernel command line, or def. */
static inline long g_param(const char *name, long def)
{
	static char cmdline[4096];
	char key[128];
	const char *p;
	int fd;

	if (!cmdline[0]) {
		fd = open("/proc/cmdline", O_RDONLY);
		if (fd < 0 || read(fd, cmdline, sizeof(cmdline) - 1) < 0)
			g_die("reading /proc/cmdline");
		close(fd);
	}
	snprintf(key, sizeof(key), "oracle.%s=", name);
	for (p = strstr(cmdline, key); p; p = strstr(p + 1, key))
		if (p == cmdline || p[-1] == ' ')
			return strtol(p + strlen(key), NULL, 0);
	return def;
}

static inline void g_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		g_die("writing '%s' to %s", s, path);
	close(fd);
}

/* Reads a whole (small) file into buf; returns its length. */
static inline size_t g_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		g_die("opening %s", path);
	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	close(fd);
	return n;
}

/* The number after "key " at the start of a line of a memory.stat-like text, or -1. */
static inline long long g_lookup(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == ':'))
			return strtoll(p + kl + 1, NULL, 10);
	return -1;
}

/* One value of a cgroup's memory.stat (a fresh read: the read is what flushes). */
static inline long long g_memstat(const char *cgdir, const char *key)
{
	static char buf[16384];
	char path[256];

	snprintf(path, sizeof(path), "%s/memory.stat", cgdir);
	g_read(path, buf, sizeof(buf));
	return g_lookup(buf, key);
}

static inline void g_mkdir(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		g_die("mkdir %s", path);
}

static inline void g_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		g_die("pinning to CPU %d", cpu);
}

#endif /* ORACLE_GUEST_H */
