#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot Debian's own kernels under qemu (TCG) with a busybox initramfs, build a
# named device-mapper / md stack on fresh disk images, record a fixed workload
# with trace-cmd (and blktrace, and blkstack when src/blkstack is built) and
# bring the results back.  This host's kernel has no device-mapper nor md: the
# guest's has.
#
#   tests/vm/vm.sh [--stack NAME|SET] [--kernel K] [--out DIR] [--jobs N] [--keep]
#
# NAME is a stack (stacks/NAME.sh), SET a set of tests/vm/sets (all: the
# default set, next: stacks whose checks still fail, every: both).  K is a
# kernel series (6.1, 6.12), an ABI (6.12.117+deb12-amd64), a comma-separated
# list of them, or "all" (each stack on every kernel it lists); default: a
# set's own kernels, for one stack the first kernel it lists.
# Results: DIR/KVER-NAME/{status,trace.dat,topo.txt,uname,timing,...}
# Exit: 0 every stack ok, 1 a stack failed, 77 this host cannot run the VM.
# Environment: VM_KVER (as --kernel), VM_JOBS (as --jobs: guests booted at
# once, default 2), VM_TIMEOUT (seconds per boot, default 300), VM_ACCEL (tcg
# or kvm, default tcg), VM_CACHE (default tests/vm/cache), VM_FILE_VERSION
# (trace.dat version written by trace-cmd in the guest: 6, the default,
# uncompressed; or 7, compressed).
set -euo pipefail

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRCDIR=$(cd "$HERE/../.." && pwd)
CACHE=${VM_CACHE:-$HERE/cache}
OUT=$HERE/out
STACK=all
KERNEL=${VM_KVER:-}
JOBS=${VM_JOBS:-2}
KEEP=0
VM_TIMEOUT=${VM_TIMEOUT:-300}
VM_ACCEL=${VM_ACCEL:-tcg}
VM_FILE_VERSION=${VM_FILE_VERSION:-6}
WORK=
JOB_PIDS=()

# The kernel series tests/vm knows, and the Debian package whose dependency
# names each one's ABI (linux-image-amd64 is 6.1 on Debian 12).
declare -A KMETA=([6.1]=linux-image-amd64 [6.12]=linux-image-6.12-amd64)
KSERIES=(6.1 6.12)

say() { echo "vm.sh: $*" >&2; }
skip() {
	say "SKIP: $*"
	exit 77
}
fail() {
	say "FAIL: $*"
	exit 1
}

usage() {
	sed -n 's/^#   //p' "${BASH_SOURCE[0]}"
	echo "stacks: $(list_stacks | tr '\n' ' ')"
	echo "sets: $(list_sets | tr '\n' ' ')"
	echo "kernels: ${KSERIES[*]}"
}

# Stack scripts starting with "_" are shared pieces, not stacks.
list_stacks() {
	local f
	for f in "$HERE"/stacks/[!_]*.sh; do
		f=${f##*/}
		echo "${f%.sh}"
	done
}

# tests/vm/sets: "SET SERIES STACK" lines
list_sets() { awk '!/^#/ && NF == 3 { print $1 }' "$HERE/sets" | sort -u; }

# The series (6.1, 6.12) of a kernel ABI or series.
kseries() { sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$1"; }

# "KERNEL STACK" lines to boot, from --stack and --kernel.  A set gives its
# own kernel per stack (filtered by --kernel when given); a stack alone runs
# on the first kernel it lists, or on those --kernel names that it lists.
plan() {
	local want=() k s ks
	if [[ -n $KERNEL && $KERNEL != all ]]; then
		IFS=, read -r -a want <<<"$KERNEL"
	fi
	in_want() { # SERIES: wanted by --kernel (or no --kernel)
		local w
		((${#want[@]})) || return 0
		for w in "${want[@]}"; do [[ $(kseries "$w") == "$1" ]] && return 0; done
		return 1
	}
	if grep -qE "^${STACK}[[:space:]]" "$HERE/sets" 2>/dev/null || [[ $STACK == every ]]; then
		awk -v set="$STACK" '!/^#/ && NF == 3 && ($1 == set || set == "every") { print $2, $3 }' \
			"$HERE/sets" | while read -r k s; do
			in_want "$k" && echo "$k $s"
		done
		return 0
	fi
	[[ -r $HERE/stacks/$STACK.sh && $STACK != _* ]] ||
		fail "unknown stack or set '$STACK' (stacks: $(list_stacks | tr '\n' ' '); sets: $(list_sets | tr '\n' ' '))"
	ks=$(stack_kernels "$STACK")
	for k in $ks; do
		if [[ -z $KERNEL ]]; then
			echo "$k $STACK"
			return 0
		fi
		in_want "$k" && echo "$k $STACK"
	done
	return 0
}

# The kernel series a stack runs on (STACK_KERNELS, default every series).
stack_kernels() {
	(
		STACK_KERNELS="${KSERIES[*]}"
		# shellcheck source=/dev/null
		. "$HERE/stacks/$1.sh"
		echo "$STACK_KERNELS"
	)
}

cleanup() {
	local rc=$? p
	for p in "${JOB_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in "${JOB_PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	if [[ -n $WORK && -d $WORK ]]; then
		if ((KEEP)); then say "kept $WORK"; else rm -rf "$WORK"; fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

while (($#)); do
	case $1 in
	--stack) STACK=${2:?--stack needs a name}; shift 2 ;;
	--kernel) KERNEL=${2:?--kernel needs a kernel}; shift 2 ;;
	--out) OUT=${2:?--out needs a directory}; shift 2 ;;
	--jobs) JOBS=${2:?--jobs needs a number}; shift 2 ;;
	--keep) KEEP=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 1 ;;
	esac
done
[[ $JOBS =~ ^[1-9][0-9]*$ ]] || fail "--jobs must be a positive number"

# --- host tools --------------------------------------------------------------

# command -> Debian package that provides it
declare -A PKG=(
	[qemu-system-x86_64]=qemu-system-x86 [busybox]=busybox-static
	[dmsetup]=dmsetup [mke2fs]=e2fsprogs [trace-cmd]=trace-cmd
	[blktrace]=blktrace [blkparse]=blktrace [depmod]=kmod [modprobe]=kmod
	[dpkg-deb]=dpkg [ldd]=libc-bin [gzip]=gzip [timeout]=coreutils
	[flock]=util-linux [tar]=tar [mdadm]=mdadm [mkfs.xfs]=xfsprogs
	[xfs_io]=xfsprogs [xz]=xz-utils [zstd]=zstd
)

ensure_tools() {
	local missing=() pkgs=() c
	for c in "${!PKG[@]}"; do
		command -v "$c" >/dev/null || missing+=("$c")
	done
	((${#missing[@]})) || return 0
	for c in "${missing[@]}"; do pkgs+=("${PKG[$c]}"); done
	mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sort -u)
	[[ $(id -u) == 0 ]] || skip "missing ${missing[*]} (packages ${pkgs[*]}) and not root to install them"
	command -v apt-get >/dev/null || skip "missing ${missing[*]} and no apt-get"
	say "installing ${pkgs[*]}"
	# lists may be absent on a fresh machine: update once, only when needed
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2; then
		apt-get update -q >&2 || skip "apt-get update failed (no network?)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >&2 ||
			skip "cannot install ${pkgs[*]}"
	fi
	for c in "${missing[@]}"; do
		command -v "$c" >/dev/null || skip "$c still missing after installing ${PKG[$c]}"
	done
}

# --- kernel --------------------------------------------------------------------

# The ABI of kernel K: K itself when it is an ABI (6.1.0-56-amd64), else the
# package KMETA[K] depends on (linux-image-6.12-amd64 ->
# linux-image-6.12.117+deb12-amd64), else the newest cached one of that series.
resolve_kver() {
	local asked=$1 series meta k
	if [[ $asked == *-amd64 ]]; then
		echo "$asked"
		return
	fi
	series=$(kseries "$asked")
	meta=${KMETA[$series]:-}
	[[ -n $meta ]] || fail "unknown kernel '$asked' (have: ${KSERIES[*]}, or an ABI such as 6.1.0-56-amd64)"
	deps() {
		apt-cache depends "$meta" 2>/dev/null |
			sed -n 's/^ *Depends: linux-image-\(.*-amd64\)$/\1/p' | grep -F "$series." | head -n1 || true
	}
	k=$(deps)
	if [[ -z $k ]]; then
		apt-get update -q >&2 || true
		k=$(deps)
	fi
	if [[ -z $k ]]; then
		k=$(find "$CACHE" -maxdepth 2 -name .complete -printf '%h\n' 2>/dev/null |
			sed 's|.*/||' | grep -F "$series." | sort -V | tail -n1) || true
	fi
	[[ -n $k ]] || skip "cannot tell which $series kernel to use: apt-cache knows no $meta and nothing is cached"
	echo "$k"
}

# Download and unpack linux-image-KVER into the cache (never installed).
fetch_kernel() {
	local kver=$1 dir=$CACHE/$1 tmp
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.lock"
	flock 9
	if [[ ! -e $dir/.complete ]]; then
		say "downloading linux-image-$kver into $CACHE"
		tmp=$(mktemp -d "$CACHE/.dl.XXXXXX")
		# _apt cannot write into a private directory: download unsandboxed
		if ! (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "linux-image-$kver" >&2); then
			rm -rf "$tmp"
			skip "cannot download linux-image-$kver (no network or no such package)"
		fi
		dpkg-deb -x "$tmp"/linux-image-"$kver"_*.deb "$tmp/root"
		depmod -b "$tmp/root" "$kver"
		rm -rf "$dir" && mv "$tmp/root" "$dir" && rm -rf "$tmp"
		touch "$dir/.complete"
	fi
	flock -u 9
	exec 9>&-
	[[ -r $dir/boot/vmlinuz-$kver ]] || fail "$dir/boot/vmlinuz-$kver missing in the cache: remove $dir and retry"
}

# --- initramfs -----------------------------------------------------------------

# Copy an executable and the shared libraries it needs into the initramfs IRD.
copy_bin() {
	local src=$1 dst=$2 lib
	install -D -m 755 "$src" "$IRD$dst"
	while read -r lib; do
		[[ -e $IRD$lib ]] || install -D -m 755 "$(readlink -f "$lib")" "$IRD$lib"
	done < <(ldd "$src" 2>/dev/null | grep -o '/[^ ]*' || true)
}

# blkstack may be a libtool wrapper script: take the real ELF binary.
# $BLKSTACK (set by make check, also in out-of-tree builds) comes first.
blkstack_binary() {
	local b
	for b in ${BLKSTACK:+"$BLKSTACK"} "$SRCDIR/src/.libs/blkstack" "$SRCDIR/src/blkstack"; do
		if [[ -f $b && -x $b && $(head -c 4 "$b" | tr -d '\0') == $'\x7fELF' ]]; then
			echo "$b"
			return 0
		fi
	done
	return 1
}

# Modules every stack loads, in this order; a stack adds its own
# (STACK_MODULES).  Each is listed in the initramfs as /vm/mod/NAME.order, the
# files modprobe's own dependency resolution gives, decompressed (6.12's are
# .ko.xz); a module built into the kernel has an empty list.
BASE_MODULES=(virtio_pci virtio_blk ahci sd_mod crc64_rocksoft_generic dm_mod
	dm_thin_pool dm_crypt xts aesni_intel ext4)
EXTRA_MODULES=(nvme md_mod raid1 raid456 dm_snapshot xfs virtio_scsi dm_multipath
	dm_round_robin dm_cache dm_cache_smq)

build_initramfs() {
	local kver=$1 kroot=$CACHE/$1 m line p b ko
	IRD=$WORK/initramfs-$kver
	mkdir -p "$IRD"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc,vm/stacks,vm/mod,lib/modules}
	install -m 755 "$(command -v busybox)" "$IRD/bin/busybox"
	copy_bin "$(command -v busybox)" /bin/busybox
	copy_bin "$(command -v bash)" /bin/bash
	copy_bin "$(command -v dmsetup)" /sbin/dmsetup
	copy_bin "$(command -v mke2fs)" /sbin/mke2fs
	[[ ! -r /etc/mke2fs.conf ]] || cp /etc/mke2fs.conf "$IRD/etc/"
	copy_bin "$(command -v mdadm)" /sbin/mdadm
	copy_bin "$(command -v mkfs.xfs)" /sbin/mkfs.xfs
	copy_bin "$(command -v xfs_io)" /usr/sbin/xfs_io
	copy_bin "$(command -v trace-cmd)" /usr/bin/trace-cmd
	copy_bin "$(command -v blktrace)" /usr/sbin/blktrace
	copy_bin "$(command -v blkparse)" /usr/bin/blkparse
	if [[ -n $BLKSTACK_BIN ]]; then
		copy_bin "$BLKSTACK_BIN" /usr/local/bin/blkstack
	fi
	for m in "${BASE_MODULES[@]}" "${EXTRA_MODULES[@]}"; do
		modprobe -d "$kroot" -S "$kver" --show-depends "$m" >"$WORK/$kver.$m.deps" ||
			fail "module $m not found in $kver"
		: >"$IRD/vm/mod/$m.order"
		while read -r line; do
			[[ $line == insmod\ * ]] || continue
			p=${line#insmod }
			p=${p%% *}
			p=/lib/modules/$kver/${p#"$kroot"/lib/modules/"$kver"/}
			ko=${p%.xz}
			ko=${ko%.zst}
			echo "$ko" >>"$IRD/vm/mod/$m.order"
			[[ ! -e $IRD$ko ]] || continue
			mkdir -p "$(dirname "$IRD$ko")"
			case $p in
			*.xz) xz -dc "$kroot$p" >"$IRD$ko" ;;
			*.zst) zstd -q -dc "$kroot$p" >"$IRD$ko" ;;
			*) install -m 644 "$kroot$p" "$IRD$ko" ;;
			esac
		done <"$WORK/$kver.$m.deps"
	done
	printf '%s\n' "${BASE_MODULES[@]}" >"$IRD/vm/mod/base.list"
	install -m 755 "$HERE/guest/init" "$IRD/init"
	install -m 644 "$HERE"/guest/*.sh "$IRD/vm/"
	copy_bin "$WORK/mmapread" /vm/mmapread
	install -m 644 "$HERE"/stacks/*.sh "$IRD/vm/stacks/"
	(cd "$IRD" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$WORK/initrd-$kver.gz"
}

# --- disk images ---------------------------------------------------------------

le32() { # little-endian 32-bit value as printf escapes
	printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) \
		$((($1 >> 16) & 255)) $((($1 >> 24) & 255))
}

# MBR with one Linux partition from START to the end of the image: written here
# so that no loop device and no partitioning tool is needed on the host.
write_mbr() {
	local img=$1 start=$2 sectors=$3 sig=$4 entry
	entry="\\x00\\xfe\\xff\\xff\\x83\\xfe\\xff\\xff$(le32 "$start")$(le32 $((sectors - start)))"
	# shellcheck disable=SC2059 # the format is built from escapes on purpose
	printf "$(le32 "$sig")" | dd of="$img" bs=1 seek=440 conv=notrunc status=none
	# shellcheck disable=SC2059
	printf "$entry" | dd of="$img" bs=1 seek=446 conv=notrunc status=none
	printf '\x55\xaa' | dd of="$img" bs=1 seek=510 conv=notrunc status=none
}

# --- one stack -----------------------------------------------------------------

# Boot stack STACK on kernel KVER; results in OUT/KVER-STACK.  Run in a
# subshell of its own (several may run at once): TERM kills its qemu.
run_stack() {
	local kver=$1 stack=$2 id=$1-$2 dest dir bus d name size start dbus idx=0 sata=0 img rc t0 t1 lock oops
	local -a STACK_DISKS=() qemu=()
	local STACK_BUS='' qemu_pid=''
	dest=$OUT/$id
	dir=$WORK/$id
	# the stack script is plain assignments plus functions: safe to source here
	# shellcheck source=/dev/null
	. "$HERE/stacks/$stack.sh"
	bus=$STACK_BUS
	mkdir -p "$dir"
	rm -rf "$dest"
	mkdir -p "$dest"
	trap '[[ -z $qemu_pid ]] || kill "$qemu_pid" 2>/dev/null; exit 143' TERM

	case $VM_ACCEL in
	tcg) qemu+=(-accel "tcg,thread=multi" -cpu max) ;;
	kvm) qemu+=(-accel kvm -cpu host) ;;
	*) fail "VM_ACCEL must be tcg or kvm" ;;
	esac
	qemu+=(-machine q35 -smp 2 -m 1024 -nodefaults -display none -no-reboot
		-monitor none -serial "file:$dir/console.log"
		-kernel "$CACHE/$kver/boot/vmlinuz-$kver" -initrd "$WORK/initrd-$kver.gz"
		-append "console=ttyS0 panic=-1 loglevel=4 bsk.stack=$stack bsk.fver=$VM_FILE_VERSION")
	for d in "${STACK_DISKS[@]}"; do
		dbus=
		read -r name size start dbus <<<"$d"
		dbus=${dbus:-$bus}
		img=$dir/$name.img
		truncate -s "${size}M" "$img"
		[[ $start == 0 ]] || write_mbr "$img" "$start" $((size * 2048)) $((0x42534b00 + idx))
		# an image opened by two paths (mpath) is not locked by either
		lock=
		[[ $dbus != mpath ]] || lock=,file.locking=off
		qemu+=(-drive "file=$img,if=none,id=$name,format=raw,cache=unsafe,discard=unmap$lock")
		case $dbus in
		virtio) qemu+=(-device "virtio-blk-pci,drive=$name,serial=bsk-$name") ;;
		sata)
			# AHCI port = the disk's index among the SATA disks (guest/lib.sh)
			qemu+=(-device "ide-hd,drive=$name,bus=ide.$sata,serial=bsk-$name")
			sata=$((sata + 1)) ;;
		nvme) qemu+=(-device "nvme,drive=$name,serial=bsk-$name") ;;
		mpath)
			# two paths to one disk: one SCSI disk (same serial) behind each
			# of two virtio-scsi HBAs, both opening the same image
			qemu+=(-device "virtio-scsi-pci,id=hba$idx.0" -device "virtio-scsi-pci,id=hba$idx.1"
				-device "scsi-hd,drive=$name,bus=hba$idx.0.0,serial=bsk-$name,share-rw=on"
				-drive "file=$img,if=none,id=$name.1,format=raw,cache=unsafe,discard=unmap$lock"
				-device "scsi-hd,drive=$name.1,bus=hba$idx.1.0,serial=bsk-$name,share-rw=on") ;;
		*) fail "$stack: unknown bus $dbus" ;;
		esac
		idx=$((idx + 1))
	done
	truncate -s 128M "$dir/out.img"
	qemu+=(-drive "file=$dir/out.img,if=none,id=out,format=raw,cache=unsafe"
		-device "virtio-blk-pci,drive=out,serial=bsk-out")

	{
		echo "kernel $kver"
		echo "accel $VM_ACCEL"
		echo "jobs $JOBS"
		qemu-system-x86_64 --version | head -n1
		trace-cmd --version 2>/dev/null | grep -m1 version
		echo "blkstack ${BLKSTACK_BIN:-not built}"
	} >"$dest/host.txt"
	say "$id: booting ($VM_ACCEL, timeout ${VM_TIMEOUT}s)"
	t0=$(date +%s.%N)
	timeout -k 5 "$VM_TIMEOUT" qemu-system-x86_64 "${qemu[@]}" </dev/null >"$dir/qemu.log" 2>&1 &
	qemu_pid=$!
	rc=0
	wait "$qemu_pid" || rc=$?
	qemu_pid=
	t1=$(date +%s.%N)
	cp "$dir/console.log" "$dest/console.log" 2>/dev/null || true
	if ((rc == 124 || rc == 137)); then
		say "$id: console log tail:"
		tail -n 30 "$dir/console.log" >&2 || true
		echo "guest did not power off within ${VM_TIMEOUT}s" >"$dest/boot-failure"
		say "$id: FAIL: $(<"$dest/boot-failure")"
		return 1
	elif ((rc != 0)); then
		cat "$dir/qemu.log" >&2
		echo "qemu exited with status $rc" >"$dest/boot-failure"
		say "$id: FAIL: $(<"$dest/boot-failure")"
		return 1
	fi
	if ! tar -xf "$dir/out.img" -C "$dest" 2>/dev/null || [[ ! -s $dest/status ]]; then
		tail -n 30 "$dir/console.log" >&2 || true
		# a guest kernel's oops says more (seen under tcg: an int3 oops
		# in __schedule, right after the workload's tracing started)
		oops=$(grep -a -m1 -E 'Oops:|BUG:|Kernel panic' "$dir/console.log" 2>/dev/null |
			sed 's/^\[ *[0-9.]*\] //' || true)
		echo "the guest wrote no results${oops:+; its kernel: $oops}" >"$dest/boot-failure"
		say "$id: FAIL: $(<"$dest/boot-failure")"
		return 1
	fi
	rm -f "$dir"/*.img
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "wall %.1f\n", b - a }' >>"$dest/timing"
	if [[ $(<"$dest/status") != ok ]]; then
		tail -n 20 "$dest/console.log" >&2 || true
		say "$id: FAIL: $(<"$dest/status"); dmesg in $dest/dmesg.txt"
		return 1
	fi
	say "$id: ok ($(tr '\n' ' ' <"$dest/timing")) -> $dest"
}

# --- main ----------------------------------------------------------------------

[[ $(uname -m) == x86_64 ]] || skip "needs an x86_64 host (qemu-system-x86_64 and an amd64 kernel)"
mapfile -t PLAN < <(plan)
((${#PLAN[@]})) || fail "nothing to boot: stack or set '$STACK' on kernel '${KERNEL:-default}'"
ensure_tools
qemu-system-x86_64 -machine q35 -accel help >/dev/null 2>&1 || skip "qemu-system-x86_64 does not run here"
if [[ $VM_ACCEL == kvm && ! -w /dev/kvm ]]; then skip "VM_ACCEL=kvm but /dev/kvm is not usable"; fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/blkstack-vm.XXXXXX")
BLKSTACK_BIN=
if b=$(blkstack_binary); then
	BLKSTACK_BIN=$b
	say "including blkstack from $b"
else
	say "src/blkstack is not built: the guest will skip blkstack trace"
fi
# the page-cache run maps a file: busybox has no tool that does
"${CC:-cc}" -O2 -Wall -o "$WORK/mmapread" "$HERE/guest/mmapread.c" ||
	fail "cannot build guest/mmapread.c"
# series -> ABI, each kernel fetched and its initramfs built once
declare -A KVER=()
for p in "${PLAN[@]}"; do
	read -r k _ <<<"$p"
	[[ -z ${KVER[$k]:-} ]] || continue
	# an ABI named by --kernel, else the series' current one
	a=$k
	for w in ${KERNEL//,/ }; do [[ $w != *-amd64 || $(kseries "$w") != "$k" ]] || a=$w; done
	KVER[$k]=$(resolve_kver "$a")
	fetch_kernel "${KVER[$k]}"
	build_initramfs "${KVER[$k]}"
done
# Boot up to JOBS guests at once; each job's status in WORK/ID.rc
ids=()
for p in "${PLAN[@]}"; do
	read -r k s <<<"$p"
	while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
	id=${KVER[$k]}-$s
	ids+=("$id")
	(
		rc=0
		run_stack "${KVER[$k]}" "$s" || rc=$?
		echo "$rc" >"$WORK/$id.rc"
	) &
	JOB_PIDS+=($!)
done
wait "${JOB_PIDS[@]}" 2>/dev/null || true
JOB_PIDS=()
failed=()
for id in "${ids[@]}"; do
	[[ $(cat "$WORK/$id.rc" 2>/dev/null) == 0 ]] || failed+=("$id")
done
printf '%s\n' "${ids[@]}" >"$OUT/.booted"
((${#failed[@]} == 0)) || fail "stack(s) failed: ${failed[*]}"
say "all ok: ${ids[*]} in $OUT"
