/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * layermatch.h - which layer of one recording's stack is which layer of
 * another's (blkstack diff): by name where a layer has one that travels
 * (a dm name, an md array's name), else by the place it fills in the
 * layer above it, so that the same stack built on another machine, with
 * other disk names and device numbers, matches layer for layer.
 */
#ifndef BLKSTACK_LAYERMATCH_H
#define BLKSTACK_LAYERMATCH_H

#include <stddef.h>
#include <stdint.h>

#include "track/topo-record.h"

/**
 * layer_role - what @dev is in the stack @rec describes, as a key that
 * the same layer of the same stack has on another machine
 * @rec: the stack, or NULL
 * @dev: the device
 * @buf: where to write the key, @len bytes
 *
 * "dm NAME" for a dm device (its dm name); "md NAME" for an md array;
 * for a device with a holder, the holder's key and the place it fills
 * there: "dm bsk-stripe/1" (the second device the stripe's table names,
 * or of its lower devices by number when no table is recorded); for a
 * disk under such a partition, the partition's and "/disk"; any other
 * device by its kernel name, "name sda"; and "dev MAJ:MIN" for a device
 * @rec does not describe.
 *
 * Returns @buf.
 */
const char *layer_role(const struct topo_record *rec, uint32_t dev, char *buf, size_t len);

/**
 * struct layer_pair - a layer matched across two recordings
 * @a: its device in the first, 0 when the first has no such layer
 * @b: in the second, 0 likewise
 * @by_role: matched by layer_role(), not by device number
 */
struct layer_pair {
	uint32_t a, b;
	bool by_role;
};

/**
 * layer_match - pair the layers of two recordings
 * @ra, @rb: their stacks (NULL when unknown)
 * @a, @b: their layers' devices, @na and @nb of them
 * @out: set to the pairs, at most @na + @nb: first every layer of @a in
 *	 its order (with its match in @b, or none), then the layers of @b
 *	 that matched none; free() it
 * @n: set to how many
 *
 * Layers with the same layer_role() are paired first, then, of those left
 * on both sides, layers with the same device number (a recording whose
 * stack is unknown, compared on the machine that made it).
 *
 * Returns 0 or -ENOMEM.
 */
int layer_match(const struct topo_record *ra, const uint32_t *a, size_t na,
		const struct topo_record *rb, const uint32_t *b, size_t nb,
		struct layer_pair **out, size_t *n);

#endif /* BLKSTACK_LAYERMATCH_H */
