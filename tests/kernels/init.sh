#!/bin/sh
# pid 1 of a kernel-matrix VM (tests/kernels/run.sh): mount what a system
# has, apply the configuration's sysctls (llw.sysctl=KEY=VALUE,... on the
# kernel command line), run the cases, power off.  Everything goes to the
# serial console, which the host reads.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -o remount,rw /
ip link set lo up

for arg in $(cat /proc/cmdline); do
	case $arg in
	llw.quick=1)
		export LLW_QUICK=1
		;;
	llw.suites=*)
		export LLW_SUITES="${arg#llw.suites=}"
		;;
	llw.sysctl=*)
		for kv in $(echo "${arg#llw.sysctl=}" | tr , ' '); do
			key=${kv%%=*}
			f=/proc/sys/$(echo "$key" | tr . /)
			if [ -e "$f" ]; then
				echo "${kv#*=}" >"$f" && echo "LLWSYSCTL $key=${kv#*=}"
			else
				echo "LLWSYSCTL $key absent"
			fi
		done
		;;
	esac
done

sh /llw/cases.sh
sh /llw/suite.sh
echo "LLWDONE"
sync
echo o >/proc/sysrq-trigger
sleep 10
