# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the variables are read by init and vm.sh
# Reference stack on virtio-blk disks, no I/O scheduler.
STACK_BUS=virtio
STACK_SCHED=none
# shellcheck source=tests/vm/stacks/_ref.sh
. "$(dirname "${BASH_SOURCE[0]}")/_ref.sh"
