/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcevent.h - page-cache, readahead, writeback and direct-I/O tracepoints in
 * the one decoded form, struct blk_event.
 *
 * These events are generic to every filesystem (filemap, readahead,
 * writeback, iomap), unlike ext4:* or btrfs:*. Their kinds follow the block
 * kinds (from BLK_EV_KIND_MAX on) so that one decoder and one merged stream
 * carry both, and a block consumer that switches on the kind ignores them.
 * They reuse the fields of struct blk_event under the names below (the
 * accessors say which), so that the struct, copied by every stage of the
 * hot path, does not grow.
 */
#ifndef BLKSTACK_PCEVENT_H
#define BLKSTACK_PCEVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/event.h"

/*
 * The page-cache kinds. "s_dev" is the filesystem's superblock device (a
 * block device for ext4 or xfs, an anonymous 0:N for btrfs), "bdi" the
 * backing device whose name writeback events carry ("7:0", "btrfs-1").
 */
enum pc_kind {
	PC_EV_ADD = BLK_EV_KIND_MAX,	/* filemap:mm_filemap_add_to_page_cache */
	PC_EV_DELETE,			/* filemap:mm_filemap_delete_from_page_cache */
	PC_EV_FAULT,			/* filemap:mm_filemap_fault (6.x) */
	PC_EV_GET_PAGES,		/* filemap:mm_filemap_get_pages (6.x) */
	PC_EV_MAP_PAGES,		/* filemap:mm_filemap_map_pages (6.x) */
	PC_EV_RA_SYNC,			/* readahead:page_cache_sync_ra (6.x) */
	PC_EV_RA_ASYNC,			/* readahead:page_cache_async_ra (6.x) */
	PC_EV_WB_DIRTY,			/* writeback:writeback_dirty_folio (or _page) */
	PC_EV_WB_START,			/* writeback:writeback_single_inode_start */
	PC_EV_WB_END,			/* writeback:writeback_single_inode */
	PC_EV_WB_MARK,			/* writeback:sb_mark_inode_writeback: fsync */
	PC_EV_DIO_BEGIN,		/* iomap:iomap_dio_rw_begin (5.17+) */
	PC_EV_DIO_END,			/* iomap:iomap_dio_complete (5.17+) */
	PC_EV_DIO_ITER,			/* iomap:iomap_iter with IOMAP_DIRECT (5.15+): direct
					 * I/O where iomap_dio_rw_begin is missing */
	PC_EV_KIND_MAX
};

#define PC_NKINDS (PC_EV_KIND_MAX - PC_EV_ADD)

/**
 * pc_kind_is - whether an event kind is a page-cache kind
 * @kind: struct blk_event.kind
 */
static inline bool pc_kind_is(unsigned int kind)
{
	return kind >= PC_EV_ADD && kind < PC_EV_KIND_MAX;
}

/** pc_kind_system - the tracefs system of a page-cache kind ("filemap"), or NULL */
const char *pc_kind_system(unsigned int kind);

/** pc_kind_name - the tracepoint name of a page-cache kind, or NULL */
const char *pc_kind_name(unsigned int kind);

/**
 * pc_kind_alt_name - an older name of the same tracepoint (writeback_dirty_page
 * before folios, 5.x), or NULL
 */
const char *pc_kind_alt_name(unsigned int kind);

/* iomap_iter's flags: IOMAP_DIRECT, the same bit from 5.15 to 6.18 */
#define PC_IOMAP_DIRECT	(1U << 4)

/*
 * Field use by page-cache events:
 *   dev	s_dev; writeback events: the bdi as MAJ:MIN when its name is one,
 *		else 0 (and the name is in comm)
 *   sector	the page index (add, delete, fault, get/map_pages, ra, dirty);
 *		the file position in bytes for direct I/O
 *   aux_sector	the inode number
 *   nr_sector	pages: 1 << order (add, delete), last - first + 1 (get/map
 *		pages), 1 (fault, dirty), the request (ra)
 *   bytes	direct I/O: the length asked (iomap_iter: of this mapping),
 *		capped at 4 GiB - 1
 *   count	readahead: the window size in pages; iomap_iter: its flags
 *   error	iomap_dio_complete: the error
 *   comm	writeback events: the bdi name ("7:0", "btrfs-1")
 */
static inline uint64_t pc_ev_ino(const struct blk_event *ev)
{
	return ev->aux_sector;
}

static inline uint64_t pc_ev_index(const struct blk_event *ev)
{
	return ev->sector;
}

static inline uint32_t pc_ev_pages(const struct blk_event *ev)
{
	return ev->nr_sector;
}

static inline const char *pc_ev_bdi(const struct blk_event *ev)
{
	return ev->comm;
}

#endif /* BLKSTACK_PCEVENT_H */
