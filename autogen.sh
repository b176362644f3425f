#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Regenerate the build system from configure.ac and the Makefile.am files.
set -e
cd "$(dirname "$0")"
autoreconf --install --force
