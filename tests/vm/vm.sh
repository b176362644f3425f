#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot Debian's own kernel under qemu (TCG) with a busybox initramfs, build a
# named device-mapper stack on fresh disk images, record a fixed workload with
# trace-cmd (and blktrace, and blkstack when src/blkstack is built) and bring the
# results back.  This host's kernel has no device-mapper: the guest's has.
#
#   tests/vm/vm.sh [--stack NAME|all] [--out DIR] [--keep]
#
# Results: DIR/NAME/{status,trace.dat,topo.txt,uname,timing,console.log,...}
# Exit: 0 every stack ok, 1 a stack failed, 77 this host cannot run the VM.
# Environment: VM_KVER (kernel ABI, e.g. 6.1.0-56-amd64; default: what
# linux-image-amd64 depends on), VM_TIMEOUT (seconds per boot, default 300),
# VM_ACCEL (tcg or kvm, default tcg), VM_CACHE (default tests/vm/cache),
# VM_FILE_VERSION (trace.dat version written by trace-cmd in the guest: 6, the
# default, uncompressed; or 7, compressed).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRCDIR=$(cd "$HERE/../.." && pwd)
CACHE=${VM_CACHE:-$HERE/cache}
OUT=$HERE/out
STACK=all
KEEP=0
VM_TIMEOUT=${VM_TIMEOUT:-300}
VM_ACCEL=${VM_ACCEL:-tcg}
VM_FILE_VERSION=${VM_FILE_VERSION:-6}
WORK=
QEMU_PID=

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
	echo "stacks: all $(list_stacks | tr '\n' ' ')"
}

# Stack scripts starting with "_" are shared pieces, not stacks.
list_stacks() {
	local f
	for f in "$HERE"/stacks/[!_]*.sh; do
		f=${f##*/}
		echo "${f%.sh}"
	done
}

cleanup() {
	local rc=$?
	if [[ -n $QEMU_PID ]] && kill -0 "$QEMU_PID" 2>/dev/null; then
		kill "$QEMU_PID" 2>/dev/null || true
		wait "$QEMU_PID" 2>/dev/null || true
	fi
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
	--out) OUT=${2:?--out needs a directory}; shift 2 ;;
	--keep) KEEP=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 1 ;;
	esac
done
if [[ $STACK == all ]]; then
	mapfile -t STACKS < <(list_stacks)
else
	[[ -r $HERE/stacks/$STACK.sh && $STACK != _* ]] || fail "unknown stack '$STACK' (have: $(list_stacks | tr '\n' ' '))"
	STACKS=("$STACK")
fi

# --- host tools --------------------------------------------------------------

# command -> Debian package that provides it
declare -A PKG=(
	[qemu-system-x86_64]=qemu-system-x86 [busybox]=busybox-static
	[dmsetup]=dmsetup [mke2fs]=e2fsprogs [trace-cmd]=trace-cmd
	[blktrace]=blktrace [blkparse]=blktrace [depmod]=kmod [modprobe]=kmod
	[dpkg-deb]=dpkg [ldd]=libc-bin [gzip]=gzip [timeout]=coreutils
	[flock]=util-linux [tar]=tar
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

# The kernel ABI that linux-image-amd64 points to, else the newest cached one.
resolve_kver() {
	local k
	if [[ -n ${VM_KVER:-} ]]; then
		echo "$VM_KVER"
		return
	fi
	k=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\(.*-amd64\)$/\1/p' | head -n1) || true
	if [[ -z $k ]]; then
		apt-get update -q >&2 || true
		k=$(apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: linux-image-\(.*-amd64\)$/\1/p' | head -n1) || true
	fi
	if [[ -z $k ]]; then
		k=$(find "$CACHE" -maxdepth 2 -name .complete -printf '%h\n' 2>/dev/null |
			sed 's|.*/||' | sort -V | tail -n1)
	fi
	[[ -n $k ]] || skip "cannot tell which kernel to use: apt-cache knows no linux-image-amd64 and nothing is cached"
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
	KROOT=$dir
	VMLINUZ=$KROOT/boot/vmlinuz-$kver
	[[ -r $VMLINUZ ]] || fail "$VMLINUZ missing in the cache: remove $dir and retry"
}

# --- initramfs -----------------------------------------------------------------

# Copy an executable and the shared libraries it needs into the initramfs.
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

# Modules in load order, from modprobe's own dependency resolution.
MODULES=(virtio_pci virtio_blk ahci sd_mod crc64_rocksoft_generic dm_mod
	dm_thin_pool dm_crypt xts aesni_intel ext4)

build_initramfs() {
	local kver=$1 m line p b
	IRD=$WORK/initramfs
	mkdir -p "$IRD"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,etc,vm/stacks,lib/modules}
	install -m 755 "$(command -v busybox)" "$IRD/bin/busybox"
	copy_bin "$(command -v busybox)" /bin/busybox
	copy_bin "$(command -v bash)" /bin/bash
	copy_bin "$(command -v dmsetup)" /sbin/dmsetup
	copy_bin "$(command -v mke2fs)" /sbin/mke2fs
	[[ ! -r /etc/mke2fs.conf ]] || cp /etc/mke2fs.conf "$IRD/etc/"
	copy_bin "$(command -v trace-cmd)" /usr/bin/trace-cmd
	copy_bin "$(command -v blktrace)" /usr/sbin/blktrace
	copy_bin "$(command -v blkparse)" /usr/bin/blkparse
	BLKSTACK_BIN=
	if b=$(blkstack_binary); then
		BLKSTACK_BIN=$b
		say "including blkstack from $b"
		copy_bin "$b" /usr/local/bin/blkstack
	else
		say "src/blkstack is not built: the guest will skip blkstack trace"
	fi
	: >"$IRD/vm/modules.order"
	for m in "${MODULES[@]}"; do
		modprobe -d "$KROOT" -S "$kver" --show-depends "$m" ||
			fail "module $m not found in $kver"
	done | while read -r line; do
		[[ $line == insmod\ * ]] || continue
		p=${line#insmod }
		p=${p%% *}
		p=/lib/modules/$kver/${p#"$KROOT"/lib/modules/"$kver"/}
		if ! grep -qxF "$p" "$IRD/vm/modules.order"; then
			echo "$p" >>"$IRD/vm/modules.order"
			install -D -m 644 "$KROOT$p" "$IRD$p"
		fi
	done
	install -m 755 "$HERE/guest/init" "$IRD/init"
	install -m 644 "$HERE/guest/lib.sh" "$HERE/guest/workload.sh" "$HERE/guest/pagecache.sh" \
		"$IRD/vm/"
	# the page-cache run maps a file: busybox has no tool that does
	"${CC:-cc}" -O2 -Wall -o "$WORK/mmapread" "$HERE/guest/mmapread.c" ||
		fail "cannot build guest/mmapread.c"
	copy_bin "$WORK/mmapread" /vm/mmapread
	install -m 644 "$HERE"/stacks/*.sh "$IRD/vm/stacks/"
	(cd "$IRD" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$WORK/initrd.gz"
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

run_stack() {
	local stack=$1 dest=$OUT/$1 dir=$WORK/$1 bus d name size start idx=0 img rc t0 t1
	local -a STACK_DISKS=() qemu=()
	local STACK_BUS=
	# the stack script is plain assignments plus functions: safe to source here
	# shellcheck source=/dev/null
	. "$HERE/stacks/$stack.sh"
	bus=$STACK_BUS
	mkdir -p "$dir"
	rm -rf "$dest"
	mkdir -p "$dest"

	case $VM_ACCEL in
	tcg) qemu+=(-accel "tcg,thread=multi" -cpu max) ;;
	kvm) qemu+=(-accel kvm -cpu host) ;;
	*) fail "VM_ACCEL must be tcg or kvm" ;;
	esac
	qemu+=(-machine q35 -smp 2 -m 1024 -nodefaults -display none -no-reboot
		-monitor none -serial "file:$dir/console.log"
		-kernel "$VMLINUZ" -initrd "$WORK/initrd.gz"
		-append "console=ttyS0 panic=-1 loglevel=4 bsk.stack=$stack bsk.fver=$VM_FILE_VERSION")
	for d in "${STACK_DISKS[@]}"; do
		read -r name size start <<<"$d"
		img=$dir/$name.img
		truncate -s "${size}M" "$img"
		[[ $start == 0 ]] || write_mbr "$img" "$start" $((size * 2048)) $((0x42534b00 + idx))
		qemu+=(-drive "file=$img,if=none,id=$name,format=raw,cache=unsafe,discard=unmap")
		case $bus in
		virtio) qemu+=(-device "virtio-blk-pci,drive=$name,serial=bsk-$name") ;;
		sata) qemu+=(-device "ide-hd,drive=$name,bus=ide.$idx,serial=bsk-$name") ;;
		*) fail "$stack: unknown bus $bus" ;;
		esac
		idx=$((idx + 1))
	done
	truncate -s 128M "$dir/out.img"
	qemu+=(-drive "file=$dir/out.img,if=none,id=out,format=raw,cache=unsafe"
		-device "virtio-blk-pci,drive=out,serial=bsk-out")

	{
		echo "kernel $KVER"
		echo "accel $VM_ACCEL"
		qemu-system-x86_64 --version | head -n1
		trace-cmd --version 2>/dev/null | grep -m1 version
		echo "blkstack ${BLKSTACK_BIN:-not built}"
	} >"$dest/host.txt"
	say "$stack: booting $(basename "$VMLINUZ") ($VM_ACCEL, timeout ${VM_TIMEOUT}s)"
	t0=$(date +%s.%N)
	timeout -k 5 "$VM_TIMEOUT" qemu-system-x86_64 "${qemu[@]}" </dev/null >"$dir/qemu.log" 2>&1 &
	QEMU_PID=$!
	rc=0
	wait "$QEMU_PID" || rc=$?
	QEMU_PID=
	t1=$(date +%s.%N)
	cp "$dir/console.log" "$dest/console.log" 2>/dev/null || true
	if ((rc == 124 || rc == 137)); then
		say "$stack: console log tail:"
		tail -n 30 "$dir/console.log" >&2 || true
		say "$stack: FAIL: guest did not power off within ${VM_TIMEOUT}s"
		return 1
	elif ((rc != 0)); then
		cat "$dir/qemu.log" >&2
		say "$stack: FAIL: qemu exited with status $rc"
		return 1
	fi
	if ! tar -xf "$dir/out.img" -C "$dest" 2>/dev/null || [[ ! -s $dest/status ]]; then
		tail -n 30 "$dir/console.log" >&2 || true
		say "$stack: FAIL: the guest wrote no results"
		return 1
	fi
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "wall %.1f\n", b - a }' >>"$dest/timing"
	if [[ $(<"$dest/status") != ok ]]; then
		tail -n 20 "$dest/console.log" >&2 || true
		say "$stack: FAIL: $(<"$dest/status"); dmesg in $dest/dmesg.txt"
		return 1
	fi
	say "$stack: ok ($(tr '\n' ' ' <"$dest/timing")) -> $dest"
}

# --- main ----------------------------------------------------------------------

[[ $(uname -m) == x86_64 ]] || skip "needs an x86_64 host (qemu-system-x86_64 and an amd64 kernel)"
ensure_tools
qemu-system-x86_64 -machine q35 -accel help >/dev/null 2>&1 || skip "qemu-system-x86_64 does not run here"
if [[ $VM_ACCEL == kvm && ! -w /dev/kvm ]]; then skip "VM_ACCEL=kvm but /dev/kvm is not usable"; fi
KVER=$(resolve_kver)
fetch_kernel "$KVER"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/blkstack-vm.XXXXXX")
build_initramfs "$KVER"
failed=()
for s in "${STACKS[@]}"; do
	run_stack "$s" || failed+=("$s")
done
((${#failed[@]} == 0)) || fail "stack(s) failed: ${failed[*]}"
say "all ok: ${STACKS[*]} (kernel $KVER) in $OUT"
