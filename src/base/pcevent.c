// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pcevent.c - names and systems of the page-cache event kinds.
 */
#include <stddef.h>

#include "base/pcevent.h"

static const struct {
	const char *system;
	const char *name;
	const char *alt;
} pc_kinds[PC_NKINDS] = {
	[PC_EV_ADD - PC_EV_ADD]	       = { "filemap", "mm_filemap_add_to_page_cache", NULL },
	[PC_EV_DELETE - PC_EV_ADD]     = { "filemap", "mm_filemap_delete_from_page_cache", NULL },
	[PC_EV_FAULT - PC_EV_ADD]      = { "filemap", "mm_filemap_fault", NULL },
	[PC_EV_GET_PAGES - PC_EV_ADD]  = { "filemap", "mm_filemap_get_pages", NULL },
	[PC_EV_MAP_PAGES - PC_EV_ADD]  = { "filemap", "mm_filemap_map_pages", NULL },
	[PC_EV_RA_SYNC - PC_EV_ADD]    = { "readahead", "page_cache_sync_ra", NULL },
	[PC_EV_RA_ASYNC - PC_EV_ADD]   = { "readahead", "page_cache_async_ra", NULL },
	[PC_EV_WB_DIRTY - PC_EV_ADD]   = { "writeback", "writeback_dirty_folio",
					   "writeback_dirty_page" },
	[PC_EV_WB_START - PC_EV_ADD]   = { "writeback", "writeback_single_inode_start", NULL },
	[PC_EV_WB_END - PC_EV_ADD]     = { "writeback", "writeback_single_inode", NULL },
	[PC_EV_WB_MARK - PC_EV_ADD]    = { "writeback", "sb_mark_inode_writeback", NULL },
	[PC_EV_DIO_BEGIN - PC_EV_ADD]  = { "iomap", "iomap_dio_rw_begin", NULL },
	[PC_EV_DIO_END - PC_EV_ADD]    = { "iomap", "iomap_dio_complete", NULL },
	[PC_EV_DIO_ITER - PC_EV_ADD]   = { "iomap", "iomap_iter", NULL },
};

const char *pc_kind_system(unsigned int kind)
{
	return pc_kind_is(kind) ? pc_kinds[kind - PC_EV_ADD].system : NULL;
}

const char *pc_kind_name(unsigned int kind)
{
	return pc_kind_is(kind) ? pc_kinds[kind - PC_EV_ADD].name : NULL;
}

const char *pc_kind_alt_name(unsigned int kind)
{
	return pc_kind_is(kind) ? pc_kinds[kind - PC_EV_ADD].alt : NULL;
}
