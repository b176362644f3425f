#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Stands in for the unit tests when configure did not find check.
echo "the unit tests need the check library: install it (Debian: apt-get install check) and re-run ./configure" >&2
exit 1
