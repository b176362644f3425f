// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_fanwatch.c - decoding of fanotify events with FID information,
 * built byte for byte as the kernel lays them out (fs/notify/fanotify/
 * fanotify_user.c: the metadata, then an info record per handle, each
 * padded to 4 bytes, DFID_NAME before FID), and of the inode numbers that
 * ext4, xfs and btrfs file handles encode.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/fanotify.h>

#include "check_run.h"
#include "files/fanwatch.h"

static unsigned char buf[4096];
static size_t blen;
static size_t ev_start;

/* Begin an event: its metadata, event_len filled in by end_event(). */
static void begin_event(uint64_t mask, int32_t pid)
{
	struct fanotify_event_metadata md = {
		.vers = FANOTIFY_METADATA_VERSION,
		.metadata_len = sizeof(md),
		.mask = mask,
		.fd = FAN_NOFD,
		.pid = pid,
	};

	ev_start = blen;
	memcpy(buf + blen, &md, sizeof(md));
	blen += sizeof(md);
}

static void end_event(void)
{
	uint32_t len = blen - ev_start;

	memcpy(buf + ev_start, &len, sizeof(len));
}

/* An info record with a file handle (and for DFID_NAME a name), padded to 4. */
static void add_fid(uint8_t type, int32_t fsid0, int handle_type, const void *h,
		    uint32_t hlen, const char *name)
{
	struct fanotify_event_info_fid fid = { 0 };
	struct file_handle fh = { .handle_bytes = hlen, .handle_type = handle_type };
	size_t start = blen, len;

	fid.hdr.info_type = type;
	memcpy(&fid.fsid, (int32_t[2]){ fsid0, 7 }, sizeof(fid.fsid));
	blen += sizeof(fid);
	memcpy(buf + blen, &fh, sizeof(fh));
	blen += sizeof(fh);
	memcpy(buf + blen, h, hlen);
	blen += hlen;
	if (name) {
		strcpy((char *)buf + blen, name);
		blen += strlen(name) + 1;
	}
	while (blen % 4)
		buf[blen++] = 0;
	len = blen - start;
	fid.hdr.len = len;
	memcpy(buf + start, &fid, sizeof(fid));
}

static void setup(void)
{
	memset(buf, 0, sizeof(buf));
	blen = 0;
}

/* ext4: FILEID_INO32_GEN handles, u32 ino then u32 generation */
static const uint32_t ext4_dir[2] = { 2049, 0x1234 };
static const uint32_t ext4_file[2] = { 32514, 0xabcd };

START_TEST(open_on_ext4)
{
	struct fanwatch_event ev;
	size_t off = 0;
	uint64_t ino = 0;

	begin_event(FAN_OPEN, 4321);
	add_fid(FAN_EVENT_INFO_TYPE_DFID_NAME, 99, 1, ext4_dir, sizeof(ext4_dir), "big.bin");
	add_fid(FAN_EVENT_INFO_TYPE_FID, 99, 1, ext4_file, sizeof(ext4_file), NULL);
	end_event();

	ck_assert_int_eq(fanwatch_parse(buf, blen, &off, &ev), 1);
	ck_assert_uint_eq(off, blen);
	ck_assert_uint_eq(ev.mask, FAN_OPEN);
	ck_assert_int_eq(ev.pid, 4321);
	ck_assert_int_eq(ev.fsid[0], 99);
	ck_assert_int_eq(ev.fsid[1], 7);
	ck_assert_str_eq(ev.name, "big.bin");
	ck_assert_uint_eq(ev.dir_handle_len, 8);
	ck_assert_int_eq(ev.dir_type, 1);
	ck_assert_int_eq(memcmp(ev.dir_handle, ext4_dir, 8), 0);
	ck_assert_uint_eq(ev.obj_handle_len, 8);
	ck_assert_int_eq(fanwatch_handle_ino(ev.obj_type, ev.obj_handle, ev.obj_handle_len, &ino), 0);
	ck_assert_uint_eq(ino, 32514);
	ck_assert_int_eq(fanwatch_handle_ino(ev.dir_type, ev.dir_handle, ev.dir_handle_len, &ino), 0);
	ck_assert_uint_eq(ino, 2049);
	ck_assert_int_eq(fanwatch_parse(buf, blen, &off, &ev), 0);
}
END_TEST

/* Several events in one read; an overflow has no info record; a deletion only its FID. */
START_TEST(several_events)
{
	struct fanwatch_event ev;
	size_t off = 0;

	begin_event(FAN_OPEN, 1);
	add_fid(FAN_EVENT_INFO_TYPE_DFID_NAME, 5, 1, ext4_dir, sizeof(ext4_dir), "a");
	add_fid(FAN_EVENT_INFO_TYPE_FID, 5, 1, ext4_file, sizeof(ext4_file), NULL);
	end_event();
	begin_event(FAN_Q_OVERFLOW, -1);
	end_event();
	begin_event(FAN_DELETE_SELF, 2);
	add_fid(FAN_EVENT_INFO_TYPE_FID, 5, 1, ext4_file, sizeof(ext4_file), NULL);
	end_event();

	ck_assert_int_eq(fanwatch_parse(buf, blen, &off, &ev), 1);
	ck_assert_str_eq(ev.name, "a");
	ck_assert_int_eq(fanwatch_parse(buf, blen, &off, &ev), 1);
	ck_assert_uint_eq(ev.mask, FAN_Q_OVERFLOW);
	ck_assert_ptr_null(ev.name);
	ck_assert_ptr_null(ev.obj_handle);
	ck_assert_int_eq(fanwatch_parse(buf, blen, &off, &ev), 1);
	ck_assert_uint_eq(ev.mask, FAN_DELETE_SELF);
	ck_assert_ptr_null(ev.dir_handle);
	ck_assert_ptr_null(ev.name);
	ck_assert_ptr_nonnull(ev.obj_handle);
	ck_assert_int_eq(fanwatch_parse(buf, blen, &off, &ev), 0);
}
END_TEST

/* An info record of a type not asked for (a pidfd) is stepped over. */
START_TEST(unknown_record_skipped)
{
	struct fanwatch_event ev;
	size_t off = 0;
	unsigned char pidfd[8] = { FAN_EVENT_INFO_TYPE_PIDFD, 0, 8, 0, 3, 0, 0, 0 };

	begin_event(FAN_OPEN, 1);
	memcpy(buf + blen, pidfd, sizeof(pidfd));
	blen += sizeof(pidfd);
	add_fid(FAN_EVENT_INFO_TYPE_DFID_NAME, 5, 1, ext4_dir, sizeof(ext4_dir), "b");
	end_event();
	ck_assert_int_eq(fanwatch_parse(buf, blen, &off, &ev), 1);
	ck_assert_str_eq(ev.name, "b");
	ck_assert_ptr_null(ev.obj_handle);
}
END_TEST

/* What a short read, a lying length or an unterminated name would make of the buffer. */
START_TEST(malformed)
{
	struct fanwatch_event ev;
	size_t off = 0, len;

	begin_event(FAN_OPEN, 1);
	add_fid(FAN_EVENT_INFO_TYPE_DFID_NAME, 5, 1, ext4_dir, sizeof(ext4_dir), "name");
	end_event();
	len = blen;

	/* cut short */
	ck_assert_int_eq(fanwatch_parse(buf, len - 4, &off, &ev), -EINVAL);
	ck_assert_uint_eq(off, len - 4);

	/* the name's terminator overwritten, up to the record's end */
	off = 0;
	memset(buf + len - 8, 'x', 8);
	ck_assert_int_eq(fanwatch_parse(buf, len, &off, &ev), -EINVAL);

	/* a handle longer than its record */
	setup();
	begin_event(FAN_OPEN, 1);
	add_fid(FAN_EVENT_INFO_TYPE_FID, 5, 1, ext4_file, sizeof(ext4_file), NULL);
	end_event();
	buf[sizeof(struct fanotify_event_metadata) + sizeof(struct fanotify_event_info_fid)] = 200;
	off = 0;
	ck_assert_int_eq(fanwatch_parse(buf, blen, &off, &ev), -EINVAL);

	/* another metadata version */
	setup();
	begin_event(FAN_OPEN, 1);
	end_event();
	buf[4] = FANOTIFY_METADATA_VERSION + 1;
	off = 0;
	ck_assert_int_eq(fanwatch_parse(buf, blen, &off, &ev), -EINVAL);
}
END_TEST

/* The inode number in the handles of xfs (64-bit) and btrfs, and types not known. */
START_TEST(handle_types)
{
	struct {
		uint64_t ino;
		uint32_t gen;
	} __attribute__((packed)) xfs64 = { 0x100000083ULL, 9 };
	struct {
		uint64_t objectid, root;
		uint32_t gen;
	} __attribute__((packed)) btrfs = { 258, 5, 11 };
	unsigned char fat[12] = { 0 };
	uint64_t ino = 0;

	ck_assert_int_eq(fanwatch_handle_ino(0x81, (void *)&xfs64, sizeof(xfs64), &ino), 0);
	ck_assert_uint_eq(ino, 0x100000083ULL);
	ck_assert_int_eq(fanwatch_handle_ino(0x4d, (void *)&btrfs, sizeof(btrfs), &ino), 0);
	ck_assert_uint_eq(ino, 258);
	ck_assert_int_eq(fanwatch_handle_ino(0x4f, (void *)&btrfs, sizeof(btrfs), &ino), 0);
	ck_assert_uint_eq(ino, 258);
	/* FAT's handles, or any other filesystem's: asked of the kernel instead */
	ck_assert_int_eq(fanwatch_handle_ino(0x71, fat, sizeof(fat), &ino), -EOPNOTSUPP);
	/* too short for what the type says */
	ck_assert_int_eq(fanwatch_handle_ino(1, fat, 4, &ino), -EINVAL);
	ck_assert_int_eq(fanwatch_handle_ino(0x81, fat, 8, &ino), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fanwatch");
	TCase *tc = tcase_create("decode");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, open_on_ext4);
	tcase_add_test(tc, several_events);
	tcase_add_test(tc, unknown_record_skipped);
	tcase_add_test(tc, malformed);
	tcase_add_test(tc, handle_types);
	suite_add_tcase(s, tc);
	return check_run(s);
}
