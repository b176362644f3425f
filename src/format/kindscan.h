/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kindscan.h - whether the pages of a mapped trace.dat hold a record of
 * some event kinds, looked for in threads, in no time order.
 */
#ifndef BLKSTACK_KINDSCAN_H
#define BLKSTACK_KINDSCAN_H

#include <stdint.h>

#include "format/datfile.h"

struct tep_handle;

/**
 * kindscan_any - whether a stream of @l holds a record of @kinds that a
 * read of the file in time order would deliver
 * @map: the mapped file
 * @fd: the file open, or -1 (datpages_init())
 * @l: its layout, from datfile_layout_parse()
 * @tep: its formats
 * @kinds: a bit per kind, 1ULL << kind (enum blk_kind or pc_kind)
 * @jobs: threads that share the pages (1: the caller's thread alone)
 *
 * A read stops a stream at its first damaged chunk: a record after it
 * does not count, as it would not be delivered.
 *
 * Returns 1 (held), 0 (not), or -ENOMEM.
 */
int kindscan_any(const uint8_t *map, int fd, const struct datfile_layout *l,
		 struct tep_handle *tep, uint64_t kinds, int jobs);

#endif /* BLKSTACK_KINDSCAN_H */
