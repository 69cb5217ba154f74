/* SPDX-License-Identifier: MIT */
/*
 * oracle_guest.c - one guest boot from the memcgsim command: oracle/run-guest.sh does
 * the fetching, the initramfs and the time-limited QEMU boot (and prints a hung or
 * crashed guest's console tail on stderr); this file runs it and parses the JSON lines
 * it prints. Its exit status 3 or 4 means the rig cannot run on this machine (no
 * QEMU, busybox, or kernel package): that is "unavailable", not a failure of the rig.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "oracle.h"

/* Single-quoted for sh, with embedded quotes escaped. */
static void sh_quote(char *out, size_t len, const char *s)
{
	size_t n = 0;

	if (len < 3)
		return;
	out[n++] = '\'';
	for (; *s && n + 5 < len; s++) {
		if (*s == '\'') {
			memcpy(out + n, "'\\''", 4);
			n += 4;
		} else {
			out[n++] = *s;
		}
	}
	out[n++] = '\'';
	out[n] = '\0';
}

static int build_command(const struct oracle_opts *o, const char *exp, unsigned int cpus,
			 unsigned int mem_mib, unsigned int limit_s, const char *const *args,
			 char *cmd, size_t len)
{
	char script[1200], q[1300];
	int n;

	snprintf(script, sizeof(script), "%s/run-guest.sh", o->rig_dir);
	sh_quote(q, sizeof(q), script);
	n = snprintf(cmd, len, "%s %s --cpus %u --mem %u --timeout %u", q, exp, cpus, mem_mib,
		     limit_s);
	for (; args && *args && n > 0 && (size_t)n < len; args++) {
		sh_quote(q, sizeof(q), *args);
		n += snprintf(cmd + n, len - (size_t)n, " --arg %s", q);
	}
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int oracle_guest_run(const struct oracle_opts *o, const char *exp, unsigned int cpus,
		     unsigned int mem_mib, unsigned int limit_s, const char *const *args,
		     json_t **lines, char *err, size_t errlen)
{
	char cmd[4096], line[8192];
	FILE *p;
	int status;

	*lines = json_array();
	if (build_command(o, exp, cpus, mem_mib, limit_s, args, cmd, sizeof(cmd)))
		return snprintf(err, errlen, "guest command too long"), -1;
	fflush(NULL);
	p = popen(cmd, "r");
	if (!p)
		return snprintf(err, errlen, "cannot run %s/run-guest.sh", o->rig_dir), -1;
	while (fgets(line, sizeof(line), p)) {
		json_error_t je;
		json_t *obj = json_loads(line, 0, &je);

		if (json_is_object(obj))
			json_array_append_new(*lines, obj);
		else
			json_decref(obj);
	}
	status = pclose(p);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && (WEXITSTATUS(status) == 3 || WEXITSTATUS(status) == 4))
		return snprintf(err, errlen, "the kernel rig cannot run here (run-guest.sh "
				"status %d: see its message above)", WEXITSTATUS(status)), 1;
	snprintf(err, errlen, "guest experiment '%s' at %u CPUs failed (run-guest.sh status %d; "
		 "the console's tail is above)", exp, cpus,
		 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return -1;
}

const char *oracle_kernel_version(const struct oracle_opts *o)
{
	static char version[256];
	char cmd[1400], q[1300], path[1200], dir[1024];
	FILE *p, *f;

	if (version[0])
		return version;
	snprintf(path, sizeof(path), "%s/fetch-kernel.sh", o->rig_dir);
	sh_quote(q, sizeof(q), path);
	snprintf(cmd, sizeof(cmd), "%s 2>/dev/null", q);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	if (!fgets(dir, sizeof(dir), p))
		dir[0] = '\0';
	pclose(p);
	dir[strcspn(dir, "\n")] = '\0';
	if (!dir[0])
		return NULL;
	snprintf(path, sizeof(path), "%s/VERSION", dir);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	if (!fgets(version, sizeof(version), f))
		version[0] = '\0';
	fclose(f);
	version[strcspn(version, "\n")] = '\0';
	return version[0] ? version : NULL;
}
