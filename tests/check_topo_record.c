// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_topo_record.c - recorded device stacks: reading what tests/vm's
 * guest wrote for a real dm stack, writing a fixture sysfs tree and reading
 * it back, and files that are not recorded stacks.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/event.h"
#include "check_run.h"
#include "track/layermatch.h"
#include "track/topo-record.h"

#ifndef FIXTURES_DIR
#error "FIXTURES_DIR must name tests/fixtures"
#endif

#define VM_TOPO		FIXTURES_DIR "/vm/6.1.0-56-amd64-ref-virtio.topo"
#define DM_ROOT		FIXTURES_DIR "/sysfs/dm"

static char tmp_path[] = "/tmp/check_topo_record.XXXXXX";

static void write_tmp(const char *text)
{
	int fd = mkstemp(tmp_path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void tmp_teardown(void)
{
	unlink(tmp_path);
	strcpy(tmp_path, "/tmp/check_topo_record.XXXXXX");
}

/* dm-crypt -> thin -> thin-pool (striped data, vdc metadata) -> partitions */
START_TEST(test_vm_stack)
{
	const struct topo_dev_info *d;
	struct topo_record r;
	unsigned int line;
	char name[64];

	ck_assert_int_eq(topo_record_load(VM_TOPO, &r, &line), 0);
	ck_assert_uint_eq(r.n, 10);
	for (size_t i = 1; i < r.n; i++)
		ck_assert_uint_lt(r.devs[i - 1].dev, r.devs[i].dev);

	d = topo_record_find(&r, KDEV_MKDEV(253, 1));
	ck_assert_ptr_nonnull(d);
	ck_assert_str_eq(d->name, "dm-1");
	ck_assert_int_eq(d->kind, TOPO_DM);
	ck_assert_str_eq(d->dm_name, "bsk-pool");
	ck_assert_str_eq(d->target, "thin-pool");	/* from its table line */
	ck_assert_uint_eq(d->size_sectors, 196608);
	ck_assert_uint_eq(d->nholders, 1);
	ck_assert_uint_eq(d->holders[0], KDEV_MKDEV(253, 2));
	ck_assert_uint_eq(d->nslaves, 2);
	ck_assert_uint_eq(d->slaves[0], KDEV_MKDEV(253, 0));
	ck_assert_uint_eq(d->slaves[1], KDEV_MKDEV(254, 32));
	ck_assert_str_eq(topo_record_find(&r, KDEV_MKDEV(253, 3))->target, "crypt");
	ck_assert_str_eq(topo_record_find(&r, KDEV_MKDEV(253, 0))->target, "striped");

	d = topo_record_find(&r, KDEV_MKDEV(254, 17));
	ck_assert_str_eq(d->name, "vdb1");
	ck_assert_int_eq(d->kind, TOPO_PARTITION);
	ck_assert_uint_eq(d->part_start, 4096);
	ck_assert_uint_eq(d->parent, KDEV_MKDEV(254, 16));

	/* the pool's metadata disk: a holder, no remap ever leads into it */
	d = topo_record_find(&r, KDEV_MKDEV(254, 32));
	ck_assert_int_eq(d->kind, TOPO_DISK);
	ck_assert_uint_eq(d->nholders, 1);
	ck_assert_uint_eq(d->holders[0], KDEV_MKDEV(253, 1));
	ck_assert_str_eq(d->scheduler, "none");

	ck_assert_ptr_null(topo_record_find(&r, KDEV_MKDEV(8, 0)));
	ck_assert_str_eq(topo_record_name(KDEV_MKDEV(254, 0), name, sizeof(name), &r), "vda");
	ck_assert_ptr_null(topo_record_name(KDEV_MKDEV(8, 0), name, sizeof(name), &r));
	topo_record_free(&r);
	ck_assert_uint_eq(r.n, 0);
}
END_TEST

/* Every device of the dm fixture tree, written and read back, as sysfs says. */
START_TEST(test_write_read_back)
{
	uint32_t devs[64];
	size_t n = 0;
	struct topo_record r;
	unsigned int line;
	struct dirent *de;
	DIR *dir = opendir(DM_ROOT "/sys/dev/block");
	FILE *f;
	int fd;

	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir)) && n < 64) {
		unsigned int ma, mi;

		if (sscanf(de->d_name, "%u:%u", &ma, &mi) == 2)
			devs[n++] = KDEV_MKDEV(ma, mi);
	}
	closedir(dir);
	ck_assert_uint_ge(n, 10);
	fd = mkstemp(tmp_path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_int_eq(topo_record_write(f, DM_ROOT, devs, n), 0);
	ck_assert_int_eq(fclose(f), 0);

	ck_assert_int_eq(topo_record_load(tmp_path, &r, &line), 0);
	ck_assert_uint_eq(r.n, n);
	for (size_t i = 0; i < n; i++) {
		const struct topo_dev_info *got = topo_record_find(&r, devs[i]);
		struct topo_dev_info want;

		ck_assert_int_eq(topo_dev_info(DM_ROOT, devs[i], &want), 0);
		ck_assert_ptr_nonnull(got);
		ck_assert_str_eq(got->name, want.name);
		ck_assert_int_eq(got->kind, want.kind);
		ck_assert_str_eq(got->dm_name, want.dm_name);
		ck_assert_str_eq(got->dm_uuid, want.dm_uuid);
		ck_assert_str_eq(got->target, want.target);
		ck_assert_uint_eq(got->part_start, want.part_start);
		ck_assert_uint_eq(got->parent, want.parent);
		ck_assert_uint_eq(got->size_sectors, want.size_sectors);
		ck_assert_uint_eq(got->nslaves, want.nslaves);
		ck_assert_uint_eq(got->nholders, want.nholders);
		for (size_t j = 0; j < want.nslaves; j++)
			ck_assert_uint_eq(got->slaves[j], want.slaves[j]);
		for (size_t j = 0; j < want.nholders; j++)
			ck_assert_uint_eq(got->holders[j], want.holders[j]);
		topo_dev_info_free(&want);
	}
	topo_record_free(&r);
}
END_TEST

static const struct {
	const char *text;
	int ret;
	unsigned int line;
} bad[] = {
	/* a device line without its number */
	{ "# blkstack topology v1\nblk name=sda size=8\n", -EINVAL, 2 },
	/* a device number that is not MAJ:MIN */
	{ "blk name=sda dev=8\n", -EINVAL, 1 },
	{ "blk name=sda dev=8:0:1\n", -EINVAL, 1 },
	/* no name */
	{ "blk dev=8:0 name=-\n", -EINVAL, 1 },
	/* a slave no line describes */
	{ "blk name=dm-0 dev=253:0 slaves=sdz\n", -EINVAL, 0 },
	/* a parent no line describes */
	{ "blk name=sda1 dev=8:1 partition=1 start=2048 parent=sda\n", -EINVAL, 0 },
	/* nothing but notes */
	{ "# blkstack topology v1\nkernel 6.1\n\n", -ENODATA, 0 },
	{ "", -ENODATA, 0 },
	/* binary garbage */
	{ "\x7f" "ELF\x02\x01\x01\n\x01\x02\x03", -ENODATA, 0 },
};

START_TEST(test_not_a_stack)
{
	struct topo_record r;
	unsigned int line;

	write_tmp(bad[_i].text);
	ck_assert_int_eq(topo_record_load(tmp_path, &r, &line), bad[_i].ret);
	if (bad[_i].line)
		ck_assert_uint_eq(line, bad[_i].line);
	ck_assert_ptr_null(r.devs);
	ck_assert_uint_eq(r.n, 0);
}
END_TEST

START_TEST(test_missing_file)
{
	struct topo_record r;
	unsigned int line;

	ck_assert_int_eq(topo_record_load("/nonexistent/stack.topo", &r, &line), -ENOENT);
}
END_TEST

/* Fields in any order, unknown ones and other keywords skipped. */
START_TEST(test_free_order)
{
	struct topo_record r;
	unsigned int line;

	write_tmp("note whatever\n"
		  "blk holders=- newfield=1 dev=8:16 name=sdb scheduler=mq-deadline\n"
		  "blk slaves=sdb dm_name=vg-lv target=linear name=dm-4 dev=253:4\n");
	ck_assert_int_eq(topo_record_load(tmp_path, &r, &line), 0);
	ck_assert_uint_eq(r.n, 2);
	ck_assert_str_eq(topo_record_find(&r, KDEV_MKDEV(8, 16))->scheduler, "mq-deadline");
	ck_assert_str_eq(topo_record_find(&r, KDEV_MKDEV(253, 4))->target, "linear");
	ck_assert_uint_eq(topo_record_find(&r, KDEV_MKDEV(253, 4))->slaves[0], KDEV_MKDEV(8, 16));
	topo_record_free(&r);
}
END_TEST

/*
 * The place each lower device fills: a dm table's order, not the device
 * numbers' (the stripe of ref-sata on 6.1 names sdb1 first), from its
 * table line or from slots=; what no line describes is left out.
 */
START_TEST(test_slots)
{
	struct topo_record r;
	unsigned int line;
	const struct topo_dev_info *d;

	ck_assert_int_eq(topo_record_load(FIXTURES_DIR "/vm/6.1.0-56-amd64-ref-sata.topo", &r, &line), 0);
	d = topo_record_find(&r, KDEV_MKDEV(253, 0));
	ck_assert_uint_eq(d->nslots, 2);
	ck_assert_uint_eq(d->slots[0], KDEV_MKDEV(8, 17));
	ck_assert_uint_eq(d->slots[1], KDEV_MKDEV(8, 1));
	/* thin-pool METADATA DATA: sdc first, the stripe second */
	d = topo_record_find(&r, KDEV_MKDEV(253, 1));
	ck_assert_uint_eq(d->nslots, 2);
	ck_assert_uint_eq(d->slots[0], KDEV_MKDEV(8, 32));
	ck_assert_uint_eq(d->slots[1], KDEV_MKDEV(253, 0));
	ck_assert_uint_eq(topo_record_find(&r, KDEV_MKDEV(8, 1))->nslots, 0);
	topo_record_free(&r);

	write_tmp("blk name=sda dev=8:0\nblk name=sdb dev=8:16\n"
		  "blk name=dm-0 dev=253:0 dm_name=m slaves=sda,sdb slots=sdb,sda\n"
		  "table m: 0 8 striped 2 64 8:0 0 8:16 0\n"
		  "blk name=dm-1 dev=253:1 dm_name=n slaves=sda\n"
		  "table n: 0 8 linear 8:0 0\ntable n: 8 8 linear 9:9 0\n");
	ck_assert_int_eq(topo_record_load(tmp_path, &r, &line), 0);
	/* slots= given: the table line does not override it */
	d = topo_record_find(&r, KDEV_MKDEV(253, 0));
	ck_assert_uint_eq(d->nslots, 2);
	ck_assert_uint_eq(d->slots[0], KDEV_MKDEV(8, 16));
	ck_assert_uint_eq(d->target[0], 's');
	/* 9:9 is no device of the stack */
	d = topo_record_find(&r, KDEV_MKDEV(253, 1));
	ck_assert_uint_eq(d->nslots, 1);
	ck_assert_uint_eq(d->slots[0], KDEV_MKDEV(8, 0));
	topo_record_free(&r);
}
END_TEST

/*
 * A layer's role: by dm or md name, else by its place in the layer above
 * (a stripe's legs in table order, a pool's metadata device first), a
 * disk by its partition's; the same stack on two kernels pairs layer for
 * layer though its disks swap names (ref-sata: sda is the second leg on
 * 6.1, the first on 6.12).
 */
START_TEST(test_roles_and_match)
{
	struct topo_record a, b;
	struct layer_pair *pairs;
	unsigned int line;
	char key[128];
	size_t n;
	const uint32_t da[] = { KDEV_MKDEV(253, 3), KDEV_MKDEV(8, 1), KDEV_MKDEV(8, 0),
				KDEV_MKDEV(8, 17), KDEV_MKDEV(8, 32), KDEV_MKDEV(7, 0) };
	const uint32_t db[] = { KDEV_MKDEV(8, 17), KDEV_MKDEV(8, 1), KDEV_MKDEV(253, 3),
				KDEV_MKDEV(8, 32), KDEV_MKDEV(8, 16) };

	ck_assert_int_eq(topo_record_load(FIXTURES_DIR "/vm/6.1.0-56-amd64-ref-sata.topo", &a, &line), 0);
	ck_assert_int_eq(topo_record_load(FIXTURES_DIR "/vm/6.12.117+deb12-amd64-ref-sata.topo", &b, &line), 0);
	ck_assert_str_eq(layer_role(&a, KDEV_MKDEV(253, 3), key, sizeof(key)), "dm bsk-crypt");
	ck_assert_str_eq(layer_role(&a, KDEV_MKDEV(8, 17), key, sizeof(key)), "dm bsk-stripe/0");
	ck_assert_str_eq(layer_role(&a, KDEV_MKDEV(8, 1), key, sizeof(key)), "dm bsk-stripe/1");
	ck_assert_str_eq(layer_role(&a, KDEV_MKDEV(8, 0), key, sizeof(key)), "dm bsk-stripe/1/disk");
	ck_assert_str_eq(layer_role(&a, KDEV_MKDEV(8, 32), key, sizeof(key)), "dm bsk-pool/0");
	ck_assert_str_eq(layer_role(&a, KDEV_MKDEV(254, 0), key, sizeof(key)), "name vda");
	ck_assert_str_eq(layer_role(&a, KDEV_MKDEV(7, 0), key, sizeof(key)), "dev 7:0");
	ck_assert_str_eq(layer_role(NULL, KDEV_MKDEV(8, 1), key, sizeof(key)), "dev 8:1");
	ck_assert_str_eq(layer_role(&b, KDEV_MKDEV(8, 1), key, sizeof(key)), "dm bsk-stripe/0");

	ck_assert_int_eq(layer_match(&a, da, 6, &b, db, 5, &pairs, &n), 0);
	ck_assert_uint_eq(n, 6);	/* every layer of B paired */
	/* A's in A's order, each with B's in the same place */
	ck_assert_uint_eq(pairs[0].b, KDEV_MKDEV(253, 3));
	ck_assert(pairs[0].by_role);
	ck_assert_uint_eq(pairs[1].b, KDEV_MKDEV(8, 17));	/* the second leg */
	ck_assert_uint_eq(pairs[2].b, KDEV_MKDEV(8, 16));	/* its disk */
	ck_assert_uint_eq(pairs[3].b, KDEV_MKDEV(8, 1));	/* the first leg */
	ck_assert_uint_eq(pairs[4].b, KDEV_MKDEV(8, 32));
	/* 7:0 is in neither stack, nor in B: alone */
	ck_assert_uint_eq(pairs[5].a, KDEV_MKDEV(7, 0));
	ck_assert_uint_eq(pairs[5].b, 0);
	free(pairs);
	/* B's layers paired with none come last */
	ck_assert_int_eq(layer_match(&a, da, 1, &b, db, 2, &pairs, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(pairs[0].b, 0);
	ck_assert_uint_eq(pairs[1].a, 0);
	ck_assert_uint_eq(pairs[1].b, db[0]);
	ck_assert_uint_eq(pairs[2].b, db[1]);
	free(pairs);
	/* no stack: by number, not said to be by role */
	ck_assert_int_eq(layer_match(NULL, da, 2, NULL, db, 2, &pairs, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(pairs[1].b, KDEV_MKDEV(8, 1));
	ck_assert(!pairs[1].by_role);
	free(pairs);
	topo_record_free(&a);
	topo_record_free(&b);
}
END_TEST

static Suite *topo_record_suite(void)
{
	Suite *s = suite_create("topo-record");
	TCase *tc = tcase_create("read");

	tcase_add_checked_fixture(tc, NULL, tmp_teardown);
	tcase_add_test(tc, test_vm_stack);
	tcase_add_test(tc, test_write_read_back);
	tcase_add_loop_test(tc, test_not_a_stack, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_missing_file);
	tcase_add_test(tc, test_free_order);
	tcase_add_test(tc, test_slots);
	tcase_add_test(tc, test_roles_and_match);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(topo_record_suite());
}
