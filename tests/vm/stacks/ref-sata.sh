# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # the variables are read by init and vm.sh
# Reference stack on SATA disks (q35 AHCI ports 0-2, sd), mq-deadline.
STACK_BUS=sata
STACK_SCHED=mq-deadline
# shellcheck source=tests/vm/stacks/_ref.sh
. "$(dirname "${BASH_SOURCE[0]}")/_ref.sh"
