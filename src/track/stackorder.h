/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stackorder.h - the order every output lists a stack's layers in: the
 * stack's, top first, each layer followed by the layers it sends I/O to.
 */
#ifndef BLKSTACK_STACKORDER_H
#define BLKSTACK_STACKORDER_H

#include <stddef.h>
#include <stdint.h>

/**
 * stack_order - devices in the stack's order, top first
 * @devs: the devices, @n of them, without duplicates
 * @parents: for each, the device above it (the one that sent it the most
 *	     I/O, st_layer.parent), 0 or a device not in @devs for a top
 * @n: how many
 * @order: set to the @n indexes into @devs, in the stack's order
 *
 * Each top, then depth first the devices under it; tops, and the devices
 * under one device, by device number (md's members, a stripe's legs). A
 * device whose parents go round in a circle (a recorded stack that is not
 * one) comes after the others, by device number, then what is under it.
 *
 * Returns 0, or -ENOMEM (then @order is the devices as given).
 */
int stack_order(const uint32_t *devs, const uint32_t *parents, size_t n, size_t *order);

#endif /* BLKSTACK_STACKORDER_H */
