#!/bin/sh
# /init of the oracle's guest (busybox sh): mount what the experiments read, enable the
# memory controller below the root, run the experiment the kernel command line names
# (oracle.exp=NAME runs /bin/exp-NAME), mark its start and end on the console, power off.
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t cgroup2 none /sys/fs/cgroup
echo +memory > /sys/fs/cgroup/cgroup.subtree_control
exp=$(sed -n 's/.*oracle\.exp=\([a-z0-9_-]*\).*/\1/p' /proc/cmdline)
echo "@@ORACLE-BEGIN $exp $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"
if [ -x "/bin/exp-$exp" ]; then
	"/bin/exp-$exp"
	rc=$?
else
	echo "@@ORACLE {\"error\":\"no guest program for experiment '$exp'\"}"
	rc=127
fi
echo "@@ORACLE-END $rc"
poweroff -f
