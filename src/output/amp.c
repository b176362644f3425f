// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * amp.c - the amplification table: per layer, the bios and bytes it moved
 * for top-level I/O and for I/O it or a layer above issued itself, and
 * their ratio to the top-level I/O's own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "output/amp.h"
#include "output/report-time.h"
#include "output/row.h"

/* @a's layers in the stack's order: indexes, or NULL when out of memory */
static size_t *amp_order(const struct report *r, const struct amp *a)
{
	uint32_t *devs = malloc((a->nlayers ? a->nlayers : 1) * sizeof(*devs));
	size_t *order = malloc((a->nlayers ? a->nlayers : 1) * sizeof(*order));

	if (devs && order) {
		for (size_t i = 0; i < a->nlayers; i++)
			devs[i] = a->layers[i].dev;
		report_devs_order(r, devs, a->nlayers, order);
	} else {
		free(order);
		order = NULL;
	}
	free(devs);
	return order;
}

int out_amp_text(FILE *fp, const struct report *r)
{
	const struct amp *a = r->amp;
	size_t *order = amp_order(r, a);
	int width = 12;
	char buf[64];

	if (!order)
		return -ENOMEM;
	/* as wide as the longest label */
	for (size_t i = 0; i < a->nlayers; i++) {
		int w = (int)strlen(report_dev_label(r, a->layers[i].dev, buf, sizeof(buf)));

		if (w > width)
			width = w;
	}
	fprintf(fp, "\nAmplification: per top-level I/O (%" PRIu64 " I/Os, %" PRIu64 " bytes), "
		    "what each layer moved, for it (served) and on its own (issued)\n",
		a->top_ios, a->top_bytes);
	fprintf(fp, "%-*s %-8s %10s %10s %14s %14s %8s %8s\n", width, "LAYER", "KIND", "IOS",
		"ISSUED", "BYTES", "ISSUED-B", "IO-AMP", "BYTE-AMP");
	for (size_t k = 0; k < a->nlayers; k++) {
		const struct amp_layer *l = &a->layers[order[k]];

		fprintf(fp, "%-*s %-8s %10" PRIu64 " %10" PRIu64 " %14" PRIu64 " %14" PRIu64
			" %8.3f %8.3f\n", width, report_dev_label(r, l->dev, buf, sizeof(buf)),
			row_kind_name(l->kind), l->serve_ios, l->own_ios, l->serve_bytes,
			l->own_bytes, amp_ios(a, l), amp_bytes(a, l));
	}
	free(order);
	return ferror(fp) ? -EIO : 0;
}

json_object *out_amp_json(const struct report *r)
{
	const struct amp *a = r->amp;
	json_object *o = json_object_new_object(), *layers = json_object_new_array();
	size_t *order = amp_order(r, a);

	json_object_object_add(o, "top_level_ios", json_object_new_uint64(a->top_ios));
	json_object_object_add(o, "top_level_bytes", json_object_new_uint64(a->top_bytes));
	for (size_t k = 0; order && k < a->nlayers; k++) {
		const struct amp_layer *l = &a->layers[order[k]];
		json_object *j = json_object_new_object();

		report_json_dev(j, "dev", r, l->dev);
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
	free(order);
	json_object_object_add(o, "layers", layers);
	return o;
}
