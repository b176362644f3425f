# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Guest-side helpers, sourced by init and by the stack scripts.  Runs inside the
# qemu guest (busybox + bash from the host), never on the host.

# Disk names in STACK_DISKS map to a virtio serial "bsk-NAME" or, on SATA, to
# the AHCI port of the same index; the results disk is always virtio "bsk-out".
SERIAL_PREFIX=bsk-

log() { echo "blkstack-vm: $*" >&2; }
die() { log "error: $*"; exit 1; }

# Index of disk NAME in STACK_DISKS ("name size_mib part_start [bus]").
disk_index() {
	local i n
	for i in "${!STACK_DISKS[@]}"; do
		read -r n _ <<<"${STACK_DISKS[$i]}"
		[[ $n == "$1" ]] && { echo "$i"; return 0; }
	done
	die "disk '$1' is not declared by stack $STACK"
}

disk_field() { # NAME FIELD(1=size 2=part_start 3=bus)
	local i f
	i=$(disk_index "$1")
	read -r -a f <<<"${STACK_DISKS[$i]}"
	echo "${f[$2]:-}"
}

# The bus of disk NAME: its own, else the stack's (STACK_BUS).
disk_bus() {
	local b
	b=$(disk_field "$1" 3)
	echo "${b:-$STACK_BUS}"
}

# Index of disk NAME among the stack's SATA disks: its AHCI port (vm.sh).
sata_port() {
	local i n p=0
	for i in "${!STACK_DISKS[@]}"; do
		read -r n _ <<<"${STACK_DISKS[$i]}"
		[[ $n == "$1" ]] && { echo "$p"; return 0; }
		[[ $(disk_bus "$n") != sata ]] || p=$((p + 1))
	done
	die "disk '$1' is not declared by stack $STACK"
}

# Kernel name (vdb, sda) of the disk whose virtio serial is SERIAL.
virtio_by_serial() {
	local s
	for s in /sys/block/vd*/serial; do
		[[ -e $s ]] || continue
		if [[ $(<"$s") == "$1" ]]; then
			s=${s%/serial}
			echo "${s##*/}"
			return 0
		fi
	done
	return 1
}

# Kernel name (nvme0n1) of the namespace of the NVMe controller whose serial
# is SERIAL (qemu pads it with spaces).
nvme_by_serial() {
	local s v
	for s in /sys/block/nvme*/device/serial; do
		[[ -e $s ]] || continue
		v=$(tr -d ' \n' <"$s")
		if [[ $v == "$1" ]]; then
			s=${s%/device/serial}
			echo "${s##*/}"
			return 0
		fi
	done
	return 1
}

# Kernel name of the SATA disk on AHCI port PORT (0-based): the only libata
# host is q35's AHCI controller, so port N is ata(N+1) whatever the probe order.
sata_by_port() {
	local d p
	for d in /sys/block/sd*; do
		[[ -e $d ]] || continue
		p=$(readlink -f "$d")
		if [[ $p == */ata$(($1 + 1))/* ]]; then
			echo "${d##*/}"
			return 0
		fi
	done
	return 1
}

# Kernel names (sda sdb) of the SCSI disks whose VPD page 0x80 carries
# SERIAL: the paths of a multipath disk (vm.sh's bus "mpath").
scsi_by_serial() {
	local d out=()
	for d in /sys/block/sd*; do
		[[ -r $d/device/vpd_pg80 ]] || continue
		[[ $(tail -c +5 "$d/device/vpd_pg80" | tr -d ' \000\n') == "$1" ]] && out+=("${d##*/}")
	done
	((${#out[@]})) || return 1
	echo "${out[@]}"
}

# The paths of multipath disk NAME, each checked as disk_name checks a disk.
mpath_paths() {
	local k out=() want
	want=$(($(disk_field "$1" 1) * 2048))
	for k in $(scsi_by_serial "$SERIAL_PREFIX$1"); do
		[[ $(<"/sys/block/$k/size") == "$want" ]] || die "$k ($1) has $(<"/sys/block/$k/size") sectors, expected $want"
		out+=("$k")
	done
	((${#out[@]} == 2)) || die "disk $1: ${#out[@]} paths (${out[*]:-none}), expected 2"
	echo "${out[@]}"
}

# The block devices that stand for stack disk NAME: its paths for a
# multipath disk, else the disk.
disk_devices() {
	if [[ $(disk_bus "$1") == mpath ]]; then mpath_paths "$1"; else disk_name "$1"; fi
}

# Kernel name of stack disk NAME, after checking it is the disk we expect
# (identity and size): a harness that formats disks must never guess.
disk_name() {
	local name=$1 idx k want have
	case $(disk_bus "$name") in
	virtio) k=$(virtio_by_serial "$SERIAL_PREFIX$name") ||
		die "no virtio disk with serial $SERIAL_PREFIX$name" ;;
	nvme) k=$(nvme_by_serial "$SERIAL_PREFIX$name") ||
		die "no NVMe disk with serial $SERIAL_PREFIX$name" ;;
	mpath) k=$(mpath_paths "$name") || exit 1
		k=${k%% *} ;;
	sata)
		idx=$(sata_port "$name")
		k=$(sata_by_port "$idx") || die "no SATA disk on port $idx"
		# libata passes the qemu serial through VPD page 0x80 when present
		if [[ -r /sys/block/$k/device/vpd_pg80 ]] &&
			! grep -qa "$SERIAL_PREFIX$name" "/sys/block/$k/device/vpd_pg80"; then
			die "SATA port $idx ($k) does not carry serial $SERIAL_PREFIX$name"
		fi ;;
	*) die "unknown bus $(disk_bus "$name")" ;;
	esac
	want=$(($(disk_field "$name" 1) * 2048))
	have=$(<"/sys/block/$k/size")
	[[ $have == "$want" ]] || die "$k ($name) has $have sectors, expected $want: refusing to touch it"
	echo "$k"
}

disk_dev() { echo "/dev/$(disk_name "$1")"; }

# Partition 1 of disk NAME, checked against the start the host wrote.
part_dev() {
	local k p want
	k=$(disk_name "$1")
	want=$(disk_field "$1" 2)
	[[ $want != 0 ]] || die "disk $1 has no partition table"
	p=${k}1
	[[ -e /sys/class/block/$p/start ]] || die "$k has no partition 1"
	[[ $(<"/sys/class/block/$p/start") == "$want" ]] ||
		die "$p starts at $(<"/sys/class/block/$p/start"), expected $want"
	echo "/dev/$p"
}

# Size in 512-byte sectors of a block device node.
dev_sectors() {
	local n
	n=$(readlink -f "$1")
	cat "/sys/class/block/${n##*/}/size"
}

# Create a dm device without udev: libdm then makes /dev/mapper/NAME itself.
dm_create() {
	local name=$1 table=$2
	log "dmsetup create $name: $table"
	# a uuid, as LVM ("LVM-...") and cryptsetup ("CRYPT-...") set one
	dmsetup --noudevsync create "$name" -u "BSK-$name" --table "$table"
	[[ -b /dev/mapper/$name ]] || die "/dev/mapper/$name missing after create"
}

# Create md array /dev/NAME without udev: "md_create NAME LEVEL CHUNK_KIB|- DEV...".
# --assume-clean: no resync runs behind the workload; no bitmap (none is the
# default at this size anyway): md's own writes are its superblock updates.
md_create() {
	local name=$1 level=$2 chunk=$3 opts=()
	shift 3
	[[ $chunk == - ]] || opts+=(--chunk="$chunk")
	log "mdadm --create /dev/$name --level=$level ${opts[*]}: $*"
	mdadm --create "/dev/$name" --run --assume-clean --metadata=1.2 --bitmap=none \
		--level="$level" "${opts[@]}" --raid-devices=$# "$@" </dev/null >&2
	[[ -b /dev/$name ]] || die "/dev/$name missing after mdadm --create"
}

# Set the I/O scheduler of each stack disk ("none" on virtio, "mq-deadline" on SATA).
set_scheduler() {
	local sched=$1 n k
	for n in "${STACK_DISK_NAMES[@]}"; do
		for k in $(disk_devices "$n"); do
			echo "$sched" >"/sys/block/$k/queue/scheduler"
			grep -q "\[$sched\]" "/sys/block/$k/queue/scheduler" ||
				die "$k: scheduler $sched not selected: $(<"/sys/block/$k/queue/scheduler")"
		done
	done
}

list_dir() { # comma-separated entries of a sysfs directory, "-" when empty
	local out=() e
	for e in "$1"/*; do
		[[ -e $e ]] && out+=("${e##*/}")
	done
	if ((${#out[@]})); then (IFS=,; echo "${out[*]}"); else echo -; fi
}

# virtio has a serial file; libata passes the serial in SCSI VPD page 0x80
disk_serial() {
	local s=-
	if [[ -r /sys/class/block/$1/serial ]]; then
		s=$(tr -d ' \n' <"/sys/class/block/$1/serial")
	elif [[ -r /sys/class/block/$1/device/vpd_pg80 ]]; then
		s=$(tail -c +5 "/sys/class/block/$1/device/vpd_pg80" | tr -d ' \000\n')
	fi
	echo "${s:--}"
}

read_or_dash() { if [[ -r $1 ]]; then tr -d '\n' <"$1"; else echo -n -; fi; }

# One "blk" line per /sys/class/block entry, then the dm tables and the mount.
dump_topology() {
	local d n sched parent
	echo "# blkstack vm topology v1"
	echo "kernel $(uname -r)"
	echo "stack $STACK"
	echo "bus $STACK_BUS"
	for d in /sys/class/block/*; do
		n=${d##*/}
		echo -n "blk name=$n dev=$(<"$d/dev") size=$(<"$d/size")"
		if [[ -e $d/partition ]]; then
			parent=$(readlink -f "$d/..")
			echo -n " partition=$(<"$d/partition") start=$(<"$d/start") parent=${parent##*/}"
		else
			echo -n " partition=0 start=- parent=-"
		fi
		echo -n " holders=$(list_dir "$d/holders") slaves=$(list_dir "$d/slaves")"
		echo -n " dm_name=$(read_or_dash "$d/dm/name") dm_uuid=$(read_or_dash "$d/dm/uuid")"
		echo -n " md_level=$(read_or_dash "$d/md/level")"
		sched=$(read_or_dash "$d/queue/scheduler")
		sched=${sched#*\[}
		echo -n " scheduler=${sched%%]*}"
		echo -n " lbs=$(read_or_dash "$d/queue/logical_block_size")"
		echo -n " max_sectors_kb=$(read_or_dash "$d/queue/max_sectors_kb")"
		echo " serial=$(disk_serial "$n")"
	done
	dmsetup table | sed 's/^/table /'
	# md arrays: level, chunk, members (/proc/mdstat) and rmw_level (raid4/5/6)
	for d in /sys/block/md*/md; do
		[[ -e $d ]] || continue
		n=${d%/md}
		n=${n##*/}
		echo "md $n level=$(read_or_dash "$d/level") chunk_size=$(read_or_dash "$d/chunk_size")" \
			"raid_disks=$(read_or_dash "$d/raid_disks") rmw_level=$(read_or_dash "$d/rmw_level")" \
			"members=$(list_dir "/sys/block/$n/slaves")"
	done
	grep " $MNT " /proc/mounts | sed 's/^/mount /' || true
}

# --- the traced window ----------------------------------------------------------

# Every block device's I/O counters (/proc/diskstats) and in-flight requests
# (/sys/block/*/inflight), as one string: equal strings mean no I/O between.
io_state() {
	local f
	cat /proc/diskstats
	for f in /sys/block/*/inflight; do echo "${f%/inflight} $(<"$f")"; done
}

# Nothing in flight anywhere.
io_idle() {
	local f r w
	for f in /sys/block/*/inflight; do
		read -r r w <"$f"
		((r == 0 && w == 0)) || return 1
	done
	! awk '$12 != 0 { bad = 1 } END { exit !bad }' /proc/diskstats
}

# Wait until no block device has I/O in flight and the counters have not
# moved for QUIET_MS (default 1500: longer than dm-thin's 1 s commit period),
# at most TIMEOUT_S seconds (default 30).  Prints the final state on stdout.
wait_quiet() {
	local quiet_ms=${1:-1500} timeout_s=${2:-30} prev cur still=0 t=0
	prev=$(io_state)
	while ((t < timeout_s * 1000)); do
		sleep 0.1
		t=$((t + 100))
		cur=$(io_state)
		if [[ $cur == "$prev" ]] && io_idle; then
			still=$((still + 100))
			if ((still >= quiet_ms)); then
				echo "$cur"
				return 0
			fi
		else
			still=0
			prev=$cur
		fi
	done
	log "block devices still busy after ${timeout_s}s:"
	cat /proc/diskstats >&2
	return 1
}
