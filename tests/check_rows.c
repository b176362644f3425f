// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_rows.c - the exports built on the tracker's trees: a tree folded
 * into a row per device (row.c), the row as CSV and as a JSON line
 * (output/rows.c), and the Perfetto document (output/perfetto.c): lanes that
 * never overlap, phases nested in their slice, arrows between layers.
 */
#include <check.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "check_run.h"
#include "output/perfetto.h"
#include "output/row.h"
#include "output/rows.h"

#define DM0	KDEV_MKDEV(253, 0)
#define SDB	KDEV_MKDEV(8, 16)

/*
 * A 64 KiB write to dm-0 split into two 32 KiB pieces on 8:16, the second
 * merged behind the first's request: times in ns from @t.
 */
static void split_tree(struct tk_rec *r, struct tk_io *io, uint64_t t, const char *comm)
{
	r[0] = (struct tk_rec){ .dev = DM0, .sector = 1000, .parent = -1, .depth = 0,
				.kind = TK_LAYER_BIO, .op = BLK_OP_WRITE, .sectors = 128,
				.q = t + 1000, .down = t + 1100, .up = t + 1900, .c = t + 2000,
				.splits = 1, .complete = true };
	r[1] = (struct tk_rec){ .dev = SDB, .sector = 5000, .parent = 0, .parent_dev = DM0,
				.depth = 1, .kind = TK_LAYER_REQUEST, .op = BLK_OP_WRITE,
				.sectors = 64, .q = t + 1100, .down = t + 1200, .up = t + 1800,
				.c = t + 1800, .complete = true };
	r[2] = (struct tk_rec){ .dev = SDB, .sector = 5064, .parent = 0, .parent_dev = DM0,
				.depth = 1, .kind = TK_LAYER_REQUEST, .op = BLK_OP_WRITE,
				.merge = TK_MERGE_BACK, .sectors = 64, .q = t + 1150,
				.down = t + 1250, .up = t + 1900, .c = t + 1900, .complete = true };
	r[1].end = r[2].end = TK_END_DISK;
	*io = (struct tk_io){ .pid = 42, .top = true, .matched = true, .root = r, .recs = r,
			      .nrecs = 3 };
	snprintf(io->comm, sizeof(io->comm), "%s", comm);
}

START_TEST(row_folds_bios_by_device)
{
	struct tk_rec recs[3];
	struct row r = { 0 };
	struct tk_io io;

	split_tree(recs, &io, 0, "dd");
	io.id = 7;
	ck_assert_int_eq(row_build(&r, &io), 0);
	ck_assert_uint_eq(r.io, 7);
	ck_assert_uint_eq(r.dev, DM0);
	ck_assert_uint_eq(r.sector, 1000);
	ck_assert_uint_eq(r.bytes, 65536);
	ck_assert_uint_eq(r.q, 1000);
	ck_assert_uint_eq(r.c, 2000);
	ck_assert_uint_eq(r.nlayers, 2);
	ck_assert_uint_eq(r.layers[0].dev, DM0);
	ck_assert_uint_eq(r.layers[0].splits, 1);
	ck_assert_uint_eq(r.layers[1].dev, SDB);
	ck_assert_uint_eq(r.layers[1].parent_dev, DM0);
	ck_assert_uint_eq(r.layers[1].bios, 2);
	ck_assert_uint_eq(r.layers[1].bytes, 65536);
	/* the first entry and issue, the last completion */
	ck_assert_uint_eq(r.layers[1].q, 1100);
	ck_assert_uint_eq(r.layers[1].down, 1200);
	ck_assert_uint_eq(r.layers[1].up, 1900);
	ck_assert_uint_eq(r.layers[1].c, 1900);
	ck_assert_uint_eq(r.layers[1].merges, 1);
	ck_assert_int_eq(row_span(r.layers[1].q, r.layers[1].c), 800);
	ck_assert_int_eq(row_span(0, r.layers[1].c), -1);
	ck_assert_int_eq(row_span(2000, 1000), -1);
	row_release(&r);
}
END_TEST

static char *capture(int (*fn)(FILE *, const struct row *), const struct row *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	ck_assert_int_eq(fn(fp, r), 0);
	fclose(fp);
	return text;
}

static int header(FILE *fp, const struct row *r)
{
	(void)r;
	return rows_csv_header(fp);
}

START_TEST(csv_line)
{
	struct tk_rec recs[3];
	struct row r = { 0 };
	struct tk_io io;
	char *text, want[1024];
	int n;

	split_tree(recs, &io, 0, "a,\"b");
	io.id = 1;
	ck_assert_int_eq(row_build(&r, &io), 0);
	text = capture(header, &r);
	ck_assert_ptr_nonnull(strstr(text, "io,top,class,cause,issuer,matched,reach,ended_at,op,dev,"
					   "sector,bytes,pid,comm,file,q_ns,c_ns,latency_ns,error,"
					   "nlayers,l0_dev,l0_kind,l0_bios,l0_bytes,l0_end,l0_q_ns,"));
	ck_assert_ptr_nonnull(strstr(text, ",l7_comp_ns,l7_total_ns\n"));
	/* 20 columns, then 13 per layer slot */
	n = 0;
	for (char *p = text; *p; p++)
		n += *p == ',';
	ck_assert_int_eq(n + 1, 20 + 13 * ROWS_CSV_LAYERS);
	free(text);

	text = capture(rows_csv_write, &r);
	n = snprintf(want, sizeof(want),
		     "1,1,top,,,1,disk,,write,253:0,1000,65536,42,\"a,\"\"b\",,1000,2000,1000,0,2,"
		     "253:0,bio,1,65536,,1000,1100,1900,2000,100,800,100,1000,"
		     "8:16,request,2,65536,disk,1100,1200,1900,1900,100,700,0,800");
	for (int l = 2; l < ROWS_CSV_LAYERS; l++)
		n += snprintf(want + n, sizeof(want) - n, ",,,,,,,,,,,,,");
	snprintf(want + n, sizeof(want) - n, "\n");
	ck_assert_str_eq(text, want);
	free(text);

	/* a bio-based leaf (zram): never passed down, so no submission part */
	recs[0].down = recs[0].up = 0;
	io.nrecs = 1;
	io.id = 2;
	ck_assert_int_eq(row_build(&r, &io), 0);
	text = capture(rows_csv_write, &r);
	ck_assert_ptr_nonnull(strstr(text, ",1,253:0,bio,1,65536,,1000,,,2000,,,,1000,"));
	free(text);

	/* the file the page-cache attribution gave it: a path is quoted like any text */
	r.file = "/srv/a,b";
	text = capture(rows_csv_write, &r);
	ck_assert_ptr_nonnull(strstr(text, ",42,\"a,\"\"b\",\"/srv/a,b\",1000,"));
	free(text);
	row_release(&r);
}
END_TEST

/* A path is bytes, not text: JSON still gets valid UTF-8. */
START_TEST(jsonl_file)
{
	struct json_object *obj, *v;
	struct tk_rec recs[3];
	struct row r = { 0 };
	struct tk_io io;
	char *text;

	split_tree(recs, &io, 0, "dd");
	io.id = 1;
	ck_assert_int_eq(row_build(&r, &io), 0);
	r.file = "/srv/caf\xe9";
	text = capture(rows_jsonl_write, &r);
	obj = json_tokener_parse(text);
	ck_assert_ptr_nonnull(obj);
	ck_assert(json_object_object_get_ex(obj, "file", &v));
	ck_assert_str_eq(json_object_get_string(v), "/srv/caf?");
	json_object_put(obj);
	free(text);
	row_release(&r);
}
END_TEST

START_TEST(jsonl_line)
{
	struct json_object *obj, *layers, *l1, *v;
	struct tk_rec recs[3];
	struct row r = { 0 };
	struct tk_io io;
	char *text;

	/* a name that is not UTF-8 must still give valid JSON */
	split_tree(recs, &io, 0, "x\xff\"y");
	recs[0].down = 0;
	io.id = 3;
	ck_assert_int_eq(row_build(&r, &io), 0);
	text = capture(rows_jsonl_write, &r);
	ck_assert_ptr_nonnull(strchr(text, '\n'));
	ck_assert_ptr_eq(strchr(text, '\n'), text + strlen(text) - 1);
	obj = json_tokener_parse(text);
	ck_assert_ptr_nonnull(obj);
	ck_assert(json_object_object_get_ex(obj, "io", &v));
	ck_assert_int_eq(json_object_get_int64(v), 3);
	ck_assert(json_object_object_get_ex(obj, "comm", &v));
	ck_assert_str_eq(json_object_get_string(v), "x?\"y");
	/* no page-cache events: no file */
	ck_assert(json_object_object_get_ex(obj, "file", &v));
	ck_assert_ptr_null(v);
	ck_assert(json_object_object_get_ex(obj, "latency_ns", &v));
	ck_assert_int_eq(json_object_get_int64(v), 1000);
	ck_assert(json_object_object_get_ex(obj, "op", &v));
	ck_assert_str_eq(json_object_get_string(v), "write");
	ck_assert(json_object_object_get_ex(obj, "layers", &layers));
	ck_assert_int_eq(json_object_array_length(layers), 2);
	/* not seen: null, not 0 */
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(layers, 0), "down_ns", &v));
	ck_assert_ptr_null(v);
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(layers, 0), "sub_ns", &v));
	ck_assert_ptr_null(v);
	l1 = json_object_array_get_idx(layers, 1);
	ck_assert(json_object_object_get_ex(l1, "parent", &v));
	ck_assert_str_eq(json_object_get_string(v), "253:0");
	ck_assert(json_object_object_get_ex(l1, "bios", &v));
	ck_assert_int_eq(json_object_get_int(v), 2);
	ck_assert(json_object_object_get_ex(l1, "below_ns", &v));
	ck_assert_int_eq(json_object_get_int64(v), 700);
	json_object_put(obj);
	free(text);
	row_release(&r);
}
END_TEST

/*
 * A caused I/O's row names its class, the I/O it served and the layer that
 * issued it; an I/O that ended at a layer says where (issue 28, 3).
 */
START_TEST(jsonl_class_and_cause)
{
	static const char *const want[][2] = {
		{ "class", "caused" }, { "issuer", "253:0" }, { "reach", "ended" },
		{ "ended_at", "253:0" },
	};
	struct json_object *obj, *layers, *cause, *v;
	struct tk_rec recs[3];
	struct row r = { 0 };
	struct tk_io io;
	char *text;

	split_tree(recs, &io, 0, "kcopyd");
	io.top = false;
	io.cls = TK_IO_CAUSED;
	io.cause = 41;
	io.cause_dev = DM0;
	io.cause_q = 777;
	io.issuer = DM0;
	io.reach = TK_REACH_ENDED;
	io.end_dev = DM0;
	io.matched = false;
	io.nrecs = 1;
	recs[0].end = TK_END_LAYER;
	recs[0].no_q = true;	/* a request the layer made: no submission of 0 */
	io.id = 44;
	ck_assert_int_eq(row_build(&r, &io), 0);
	text = capture(rows_jsonl_write, &r);
	obj = json_tokener_parse(text);
	ck_assert_ptr_nonnull(obj);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_msg(json_object_object_get_ex(obj, want[i][0], &v), "%s", want[i][0]);
		ck_assert_str_eq(json_object_get_string(v), want[i][1]);
	}
	/* the cause: its row's number, device and Q (issue 27's {dev, q_ns}) */
	ck_assert(json_object_object_get_ex(obj, "cause", &cause));
	ck_assert(json_object_object_get_ex(cause, "io", &v));
	ck_assert_int_eq(json_object_get_int64(v), 41);
	ck_assert(json_object_object_get_ex(cause, "dev", &v));
	ck_assert_str_eq(json_object_get_string(v), "253:0");
	ck_assert(json_object_object_get_ex(cause, "q_ns", &v));
	ck_assert_int_eq(json_object_get_int64(v), 777);
	ck_assert(json_object_object_get_ex(obj, "io", &v));
	ck_assert_int_eq(json_object_get_int64(v), 44);
	ck_assert(json_object_object_get_ex(obj, "layers", &layers));
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(layers, 0), "end", &v));
	ck_assert_str_eq(json_object_get_string(v), "ended");
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(layers, 0), "sub_ns", &v));
	ck_assert_ptr_null(v);
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(layers, 0), "total_ns", &v));
	ck_assert_int_eq(json_object_get_int64(v), 1000);
	json_object_put(obj);
	free(text);
	/* a top-level I/O has neither cause nor issuer: null */
	split_tree(recs, &io, 0, "dd");
	io.id = 45;
	ck_assert_int_eq(row_build(&r, &io), 0);
	text = capture(rows_jsonl_write, &r);
	obj = json_tokener_parse(text);
	ck_assert(json_object_object_get_ex(obj, "class", &v));
	ck_assert_str_eq(json_object_get_string(v), "top");
	ck_assert(json_object_object_get_ex(obj, "cause", &v));
	ck_assert_ptr_null(v);
	ck_assert(json_object_object_get_ex(obj, "issuer", &v));
	ck_assert_ptr_null(v);
	ck_assert(json_object_object_get_ex(obj, "reach", &v));
	ck_assert_str_eq(json_object_get_string(v), "disk");
	json_object_put(obj);
	free(text);
	row_release(&r);
}
END_TEST

START_TEST(utf8_cleaning)
{
	char out[16];

	ck_assert_str_eq(utf8_sanitize("kworker/0:1", 16, out, sizeof(out)), "kworker/0:1");
	/* é and ü survive; a lone continuation, a cut sequence, a control do not */
	ck_assert_str_eq(utf8_sanitize("caf\xc3\xa9", 16, out, sizeof(out)), "caf\xc3\xa9");
	ck_assert_str_eq(utf8_sanitize("a\x80" "b", 16, out, sizeof(out)), "a?b");
	ck_assert_str_eq(utf8_sanitize("ab\xc3", 16, out, sizeof(out)), "ab?");
	ck_assert_str_eq(utf8_sanitize("a\tb", 16, out, sizeof(out)), "a?b");
	/* overlong and surrogate forms */
	ck_assert_str_eq(utf8_sanitize("\xc0\xaf", 16, out, sizeof(out)), "??");
	ck_assert_str_eq(utf8_sanitize("\xed\xa0\x80", 16, out, sizeof(out)), "???");
	/* a field of 16 bytes without NUL */
	ck_assert_str_eq(utf8_sanitize("0123456789abcdefXYZ", 16, out, sizeof(out)),
			 "0123456789abcde");
}
END_TEST

/* ---- Perfetto ------------------------------------------------------------ */

struct slice {
	int pid, tid;
	long long ts, end;	/* ns */
	const char *name;
};

/* "12.345" microseconds to nanoseconds, exactly */
static long long ns_of(struct json_object *v)
{
	const char *s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
	unsigned long long us, frac;

	ck_assert_msg(sscanf(s, "%llu.%3llu", &us, &frac) == 2 && strlen(strchr(s, '.')) == 4,
		      "time '%s' is not microseconds with three decimals", s);
	return us * 1000 + frac;
}

static int get_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no '%s'", key);
	return json_object_get_int(v);
}

START_TEST(perfetto_document)
{
	struct json_object *doc, *events, *v, *other;
	struct tk_rec a[3], b[3], c[3];
	struct tk_io ia, ib, ic;
	struct perfetto_out *o;
	struct slice sl[64];
	int nsl = 0, nflows = 0, nnames = 0, nfile = 0;
	long long flow_s_ts = -1;
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	/* a and b overlap; c comes after both */
	split_tree(a, &ia, 0, "dd");
	split_tree(b, &ib, 500, "dd");
	split_tree(c, &ic, 5000, "cat");
	fp = open_memstream(&text, &len);
	o = perfetto_out_alloc(fp, NULL, NULL);
	ck_assert_ptr_nonnull(o);
	perfetto_out_base(o, 1000);
	perfetto_out_io(&ia, o);
	perfetto_out_io(&ib, o);
	/* c's file, as the page-cache attribution names it */
	perfetto_out_io_file(o, &ic, "/srv/f");
	ck_assert_int_eq(perfetto_out_finish(o), 0);
	ck_assert_uint_eq(perfetto_out_stats(o)->ios, 3);
	ck_assert_uint_eq(perfetto_out_stats(o)->slices, 6);
	ck_assert_uint_eq(perfetto_out_stats(o)->flows, 3);
	ck_assert_uint_eq(perfetto_out_stats(o)->devices, 2);
	perfetto_out_free(o);
	fclose(fp);

	doc = json_tokener_parse(text);
	ck_assert_msg(doc != NULL, "not JSON: %s", text);
	ck_assert(json_object_object_get_ex(doc, "otherData", &other));
	ck_assert(json_object_object_get_ex(other, "base_ns", &v));
	ck_assert_int_eq(json_object_get_int64(v), 1000);
	ck_assert(json_object_object_get_ex(doc, "traceEvents", &events));
	for (size_t i = 0; i < json_object_array_length(events); i++) {
		struct json_object *ev = json_object_array_get_idx(events, i);
		const char *ph, *name;

		ck_assert(json_object_object_get_ex(ev, "ph", &v));
		ph = json_object_get_string(v);
		ck_assert(json_object_object_get_ex(ev, "name", &v));
		name = json_object_get_string(v);
		if (!strcmp(ph, "M")) {
			nnames += !strcmp(name, "process_name");
			continue;
		}
		if (!strcmp(ph, "X")) {
			ck_assert_int_lt(nsl, 64);
			sl[nsl].pid = get_int(ev, "pid");
			sl[nsl].tid = get_int(ev, "tid");
			ck_assert(json_object_object_get_ex(ev, "ts", &v));
			sl[nsl].ts = ns_of(v);
			ck_assert(json_object_object_get_ex(ev, "dur", &v));
			sl[nsl].end = sl[nsl].ts + ns_of(v);
			sl[nsl].name = name;
			nsl++;
			if (json_object_object_get_ex(ev, "args", &v) &&
			    json_object_object_get_ex(v, "file", &v)) {
				ck_assert_str_eq(json_object_get_string(v), "/srv/f");
				nfile++;
			}
			continue;
		}
		ck_assert(!strcmp(ph, "s") || !strcmp(ph, "f"));
		ck_assert(json_object_object_get_ex(ev, "ts", &v));
		if (!strcmp(ph, "s")) {
			flow_s_ts = ns_of(v);
			nflows++;
		} else {
			ck_assert_int_eq(ns_of(v), flow_s_ts);
			ck_assert(json_object_object_get_ex(ev, "bp", &v));
			ck_assert_str_eq(json_object_get_string(v), "e");
		}
	}
	ck_assert_int_eq(nnames, 2);
	ck_assert_int_eq(nflows, 3);
	ck_assert_int_eq(nfile, 2);	/* c's two layers, and only them */
	/* relative to the base: I/O a enters dm-0 at 1000 - 1000 */
	ck_assert_int_eq(sl[0].ts, 0);
	ck_assert_int_eq(sl[0].end, 1000);
	/* slices of one thread nest or are apart, never cross */
	for (int i = 0; i < nsl; i++)
		for (int j = 0; j < nsl; j++) {
			if (i == j || sl[i].pid != sl[j].pid || sl[i].tid != sl[j].tid)
				continue;
			ck_assert_msg(sl[j].end <= sl[i].ts || sl[j].ts >= sl[i].end ||
				      (sl[j].ts >= sl[i].ts && sl[j].end <= sl[i].end) ||
				      (sl[i].ts >= sl[j].ts && sl[i].end <= sl[j].end),
				      "%s [%lld, %lld] crosses %s [%lld, %lld] on %d/%d",
				      sl[i].name, sl[i].ts, sl[i].end, sl[j].name, sl[j].ts,
				      sl[j].end, sl[i].pid, sl[i].tid);
		}
	/* a and b overlap at dm-0: two lanes; c after both goes back to lane 1 */
	{
		int lanes[3], k = 0;

		for (int i = 0; i < nsl && k < 3; i++)
			if (sl[i].pid == 1 && !strcmp(sl[i].name, "write"))
				lanes[k++] = sl[i].tid;
		ck_assert_int_eq(k, 3);
		ck_assert_int_eq(lanes[0], 1);
		ck_assert_int_eq(lanes[1], 2);
		ck_assert_int_eq(lanes[2], 1);
	}
	json_object_put(doc);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rows");
	TCase *tc = tcase_create("row");

	tcase_add_test(tc, row_folds_bios_by_device);
	tcase_add_test(tc, utf8_cleaning);
	suite_add_tcase(s, tc);
	tc = tcase_create("csv-jsonl");
	tcase_add_test(tc, csv_line);
	tcase_add_test(tc, jsonl_line);
	tcase_add_test(tc, jsonl_file);
	tcase_add_test(tc, jsonl_class_and_cause);
	suite_add_tcase(s, tc);
	tc = tcase_create("perfetto");
	tcase_add_test(tc, perfetto_document);
	suite_add_tcase(s, tc);
	return check_run(s);
}
