// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * amp.c - the amplification table: per layer, the bios and bytes it moved
 * for top-level I/O and for I/O it or a layer above issued itself, and
 * their ratio to the top-level I/O's own.
 */
#include <errno.h>
#include <inttypes.h>

#include "output/amp.h"
#include "output/row.h"

int out_amp_text(FILE *fp, const struct amp *a, report_name_fn name, void *ctx)
{
	char buf[64];

	fprintf(fp, "\nAmplification: per top-level I/O (%" PRIu64 " I/Os, %" PRIu64 " bytes), "
		    "what each layer moved, for it (served) and on its own (issued)\n",
		a->top_ios, a->top_bytes);
	fprintf(fp, "%-12s %-8s %10s %10s %14s %14s %8s %8s\n", "LAYER", "KIND", "IOS", "ISSUED",
		"BYTES", "ISSUED-B", "IO-AMP", "BYTE-AMP");
	for (size_t i = 0; i < a->nlayers; i++) {
		const struct amp_layer *l = &a->layers[i];
		const char *n = name ? name(l->dev, buf, sizeof(buf), ctx) : NULL;

		if (!n) {
			snprintf(buf, sizeof(buf), "%u:%u", KDEV_MAJOR(l->dev), KDEV_MINOR(l->dev));
			n = buf;
		}
		fprintf(fp, "%-12s %-8s %10" PRIu64 " %10" PRIu64 " %14" PRIu64 " %14" PRIu64
			" %8.3f %8.3f\n", n, row_kind_name(l->kind), l->serve_ios, l->own_ios,
			l->serve_bytes, l->own_bytes, amp_ios(a, l), amp_bytes(a, l));
	}
	return ferror(fp) ? -EIO : 0;
}

json_object *out_amp_json(const struct amp *a)
{
	json_object *o = json_object_new_object(), *layers = json_object_new_array();

	json_object_object_add(o, "top_level_ios", json_object_new_uint64(a->top_ios));
	json_object_object_add(o, "top_level_bytes", json_object_new_uint64(a->top_bytes));
	for (size_t i = 0; i < a->nlayers; i++) {
		const struct amp_layer *l = &a->layers[i];
		json_object *j = json_object_new_object();
		char mm[32];

		snprintf(mm, sizeof(mm), "%u:%u", KDEV_MAJOR(l->dev), KDEV_MINOR(l->dev));
		json_object_object_add(j, "dev", json_object_new_string(mm));
		json_object_object_add(j, "kind", json_object_new_string(row_kind_name(l->kind)));
		json_object_object_add(j, "served_ios", json_object_new_uint64(l->serve_ios));
		json_object_object_add(j, "served_bytes", json_object_new_uint64(l->serve_bytes));
		json_object_object_add(j, "issued_ios", json_object_new_uint64(l->own_ios));
		json_object_object_add(j, "issued_bytes", json_object_new_uint64(l->own_bytes));
		json_object_object_add(j, "io_amplification", json_object_new_double(amp_ios(a, l)));
		json_object_object_add(j, "byte_amplification",
				       json_object_new_double(amp_bytes(a, l)));
		json_object_array_add(layers, j);
	}
	json_object_object_add(o, "layers", layers);
	return o;
}
