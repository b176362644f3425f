/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * array.h - arrays that grow by doubling, one element at a time.
 */
#ifndef BLKSTACK_ARRAY_H
#define BLKSTACK_ARRAY_H

#include <errno.h>
#include <stdlib.h>

/**
 * ARRAY_ROOM - make room for the element at index @len of @arr
 * @arr: the array (a pointer lvalue), NULL before its first element
 * @len: elements in use
 * @cap: elements allocated (an lvalue, updated on growth)
 * @first: elements of the first allocation
 *
 * When @len has reached @cap, @arr is reallocated to twice @cap (or to
 * @first); a size that overflows is refused, not wrapped.
 *
 * Returns 0, or -ENOMEM with @arr and @cap as they were.
 */
#define ARRAY_ROOM(arr, len, cap, first) ({					\
	int array_err_ = 0;							\
										\
	if ((size_t)(len) >= (size_t)(cap)) {					\
		size_t array_cap_ = (cap) ? (size_t)(cap) * 2 : (size_t)(first); \
		__typeof__(arr) array_new_ = NULL;				\
										\
		/* a doubling that wraps, or that @cap cannot hold, is refused */ \
		if (array_cap_ > (size_t)(cap) &&				\
		    (size_t)(__typeof__(cap))array_cap_ == array_cap_)		\
			array_new_ = reallocarray((arr), array_cap_, sizeof(*(arr))); \
		if (array_new_) {						\
			(arr) = array_new_;					\
			(cap) = array_cap_;					\
		} else {							\
			array_err_ = -ENOMEM;					\
		}								\
	}									\
	array_err_;								\
})

#endif /* BLKSTACK_ARRAY_H */
