# SPDX-License-Identifier: GPL-2.0-or-later
#
# The libFuzzer harnesses, built with clang over blkstack's own sources
# (instrumented for coverage, AddressSanitizer and UndefinedBehaviorSanitizer).
# Run by tests/fuzz/run.sh (make fuzz, and the replay of make check), not by
# automake: the sources are compiled again with another compiler and flags.
#
#   make -f fuzz.mk SRCDIR=<top_srcdir> BUILDDIR=<top_builddir> OUT=<dir>

CLANG ?= clang
HARNESSES = pagewalk tracefile decode markers opt http webconfig

PKGS = libtracecmd libtracefs libtraceevent mount smartcols json-c devmapper libzstd zlib \
	yaml-0.1 libxcrypt gnutls \
	$(shell pkg-config --exists libmicrohttpd && echo libmicrohttpd) \
	$(shell pkg-config --exists libdeflate && echo libdeflate)
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS := $(shell pkg-config --libs $(PKGS))

SAN = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
CFLAGS = -std=gnu11 -g -O1 -pthread $(SAN) -include $(BUILDDIR)/config.h -I$(BUILDDIR) -I$(SRCDIR)/src \
	$(PKG_CFLAGS) -DFIXTURES_DIR='"$(SRCDIR)/tests/fixtures"'

LIB_SRCS := $(filter-out $(SRCDIR)/src/cmd/main.c,$(wildcard $(SRCDIR)/src/*/*.c))
LIB_OBJS := $(patsubst $(SRCDIR)/src/%.c,$(OUT)/obj/%.o,$(LIB_SRCS))
HEADERS := $(wildcard $(SRCDIR)/src/*/*.h)

all: $(addprefix $(OUT)/fuzz_,$(HARNESSES))

$(OUT)/obj/%.o: $(SRCDIR)/src/%.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(OUT)/libblkstack-fuzz.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(OUT)/fuzz_%: $(SRCDIR)/tests/fuzz/fuzz_%.c $(OUT)/libblkstack-fuzz.a $(HEADERS)
	$(CLANG) $(CFLAGS) -fsanitize=fuzzer $< $(OUT)/libblkstack-fuzz.a $(PKG_LIBS) -lm -lpthread -o $@

.PHONY: all
