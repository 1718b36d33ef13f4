# vmstack: the kernel module (Kbuild) and the user-space tools.
#   make            the product: vmstack.ko, and in build/ the tools users
#                   install and libvmstack
#   make tools      those tools, and the test tools and workloads (they
#                   need python3.11-dev and LuaJIT; the check, bench and
#                   demo targets build them)
#   make check      lint, host unit tests, and every guest test in one VM boot
#   make check T=a,b  only the guest tests a and b (host tests still run)
#   make check-guest T=a,b  only the guest tests a and b (every one without
#                   T) in one VM boot, with the kernel log check: no host
#                   test (lint, unit, ASan, Chromium, install, DKMS)
#   make check-debug  the guest suite on a KASAN/lockdep/kmemleak/UBSAN kernel
#                     (built once from linux-source-6.1, cached; see Documentation/testing.md)
#   make check-kernels  the module built (W=1) and the guest suite run on
#                     Debian's cloud, PREEMPT_RT and 6.12 kernels
#                     (L=cloud,rt,6.12 picks lanes)
#   make asan       the recorder and unit tests under ASan+UBSan (build/asan/);
#                   make check runs both (unit tests on the host, a recording
#                   in the guest)
#   make pylayout-table  user/vm/cpython/layout_table.c rewritten from the
#                   pyenv builds' DWARF (CPython's layouts for builds without)
#   make lint       checkpatch, W=1 and sparse on the module
#   make demo       profile the bundled demo in the test VM (build/demo/)
#   make bench      vmstack vs perf in one VM boot, as ratios (build/bench.txt)
#   make install    the tools, libvmstack, its header and the man pages under
#                   PREFIX (/usr/local), staged under DESTDIR if given
#   make modules_install  vmstack.ko into /lib/modules/KVER/extra (DESTDIR:
#                   the kernel's INSTALL_MOD_PATH)
#   make install-dkms  the module's source and dkms.conf in
#                   /usr/src/vmstack-VERSION, for dkms install vmstack/VERSION
KVER ?= $(shell scripts/kver)
KDIR ?= /lib/modules/$(KVER)/build
B := build
# The project's version, one file for the module (Kbuild), the tools'
# --version, DKMS and make install.
VERSION := $(shell cat VERSION)

CC ?= cc
CFLAGS ?= -O2 -g
# The language and warnings hold whatever CFLAGS says (make CFLAGS=... too).
override CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fno-omit-frame-pointer
CPPFLAGS += -Iinclude/uapi -Iuser $(shell pkg-config --cflags libnl-genl-3.0)
LDLIBS_NL := $(shell pkg-config --libs libnl-genl-3.0)
# What CORE_OBJS link with: libdw and libelf (symbols, CFI), zlib (pprof),
# libiberty (demangling; a static library only).
LDLIBS_CORE := -ldw -lelf -lz -liberty

# Pure code (no netlink, no module): shared by the tools and the unit tests.
# One file or folder per VM runtime in user/vm/, one file per output format
# in user/output/;
# user/unwind/ makes the unwind rows (its *upload.c files talk to the module).
CORE_SRCS := user/ring_reader.c user/maps.c user/symtab.c user/file.c user/process.c \
	     user/hash_table.c user/vm_names.c user/vm_sites.c user/stacks.c user/abi.c \
	     user/frame.c user/profile.c user/raw_file.c user/threads.c user/off_cpu.c \
	     user/elf_facts.c user/dwarf_types.c user/util.c user/needed.c \
	     user/debuginfo.c user/lines.c user/demangle.c \
	     $(wildcard user/vm/*.c user/vm/*/*.c) $(wildcard user/output/*.c) \
	     $(filter-out %upload.c,$(wildcard user/unwind/*.c))
# The module's check of ABI 4 VM descriptors: the recorder runs it before
# upload, to name the instruction a refusal is about.
CORE_OBJS := $(CORE_SRCS:user/%.c=$(B)/%.o) $(B)/vm_prog_check.o
# The recorder's own parts: its layers in user/record/ (record.h), the
# unwind rules' upload, and the option table's reader it shares with the
# other tools.
RECORD_OBJS := $(patsubst user/%.c,$(B)/%.o,$(wildcard user/record/*.c)) \
	       $(B)/unwind/upload.o $(B)/unwind/py_trampolines_upload.o $(B)/cli.o
NL_OBJS := $(B)/vmstack_nl.o $(B)/abi.o
UNIT_SRCS := $(wildcard tests/unit/*.c) $(wildcard tests/unit/vm4_shapes/*.c) \
	     tests/tools/pylayout/gen.c
# The module's pure walker (module/walk.h), built for the host's unit tests.
WALK_SRCS := module/unwind_user.c module/vm_walk.c module/uw_rows.c \
	     module/vm_prog.c module/vm_edges.c
WALK_OBJS := $(WALK_SRCS:module/%.c=$(B)/host-module/%.o)
# The Python workloads' extension (vmsext.c) for each pyenv CPython 3.9,
# 3.10, 3.12 and 3.13 the machine has (scripts/setup builds them), against
# that build's headers: build/workloads/py3.X/vmsext.so (".so" is an
# extension suffix of every version), for t_cpython_versions' C -> Py ->
# C -> Py -> C per version; and for Debian's 3.14 and 3.15 from sid
# (scripts/sid-python: /opt/vmstack/python3.1X), against their headers.
PYENV_DIRS := $(wildcard $(foreach v,3.9 3.10 3.12 3.13,/root/.pyenv/versions/$(v).*))
SID_PYTHONS := $(wildcard /opt/vmstack/python3.14 /opt/vmstack/python3.15)
PYENV_VMSEXT := $(foreach d,$(PYENV_DIRS),$(B)/workloads/py$(basename $(notdir $(d)))/vmsext.so) \
		$(foreach d,$(SID_PYTHONS),$(B)/workloads/$(subst python,py,$(notdir $(d)))/vmsext.so)
WORKLOADS := $(patsubst tests/workloads/%.c,$(B)/workloads/%,$(wildcard tests/workloads/*.c)) \
	     $(B)/workloads/calltree-nofp $(B)/workloads/sandwich $(B)/workloads/waiter \
	     $(B)/workloads/tinyvm \
	     $(B)/workloads/cxxtree \
	     $(B)/workloads/libdlspin.so $(B)/workloads/vmsext.cpython-311-x86_64-linux-gnu.so \
	     $(PYENV_VMSEXT) $(foreach v,5.1 5.2 5.3,$(B)/workloads/lua_host$(v))

# What users install (make install): the tools and libvmstack.
INSTALL_TOOLS := vmstack vmstack-record vmstack-report vmstack-flamegraph
PRODUCT := $(INSTALL_TOOLS:%=$(B)/%) $(B)/libvmstack.so $(B)/libvmstack.a
# What only the tests use.
TEST_TOOLS := $(B)/unit-tests $(B)/vmstack-probe $(B)/vmstack-cfi-dump $(B)/vmstack-fake-raw \
	      $(B)/vmstack-attach-time $(B)/vmstack-raw-threads $(B)/vmstack-pylayout-gen $(WORKLOADS)

.PHONY: all module tools asan check check-guest check-debug check-kernels lint demo bench \
	pylayout-table \
	clean install uninstall modules_install install-dkms
all: module $(PRODUCT)

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools: $(PRODUCT) $(TEST_TOOLS)

$(B)/%.o: user/%.c user/*.h user/*/*.h $(wildcard user/*/*/*.h) include/uapi/linux/vmstack.h | $(B)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@
# The recorder checks each VM program as the module will, with its code.
$(B)/record/describe.o: CPPFLAGS += -Imodule
$(B)/record/describe.o: module/vm_prog_check.h

$(B)/cli.o: CPPFLAGS += -DVMSTACK_VERSION='"$(VERSION)"'
$(B)/cli.o: VERSION

# The flame graph's script, as the bytes of a C initializer that svg.c
# includes: one JavaScript file to edit, no reader of it at run time.
$(B)/output/flamegraph.js.inc: user/output/flamegraph.js | $(B)
	@mkdir -p $(dir $@)
	xxd -i <$< >$@.tmp && mv $@.tmp $@

$(B)/output/svg.o: $(B)/output/flamegraph.js.inc
$(B)/output/svg.o: CPPFLAGS += -I$(B)/output

$(B)/vmstack: $(B)/vmstack.o $(B)/cli.o $(B)/util.o $(NL_OBJS)
	$(CC) $(LDFLAGS) $^ $(LDLIBS_NL) -o $@

$(B)/vmstack-record: $(RECORD_OBJS) $(NL_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) $^ $(LDLIBS_NL) $(LDLIBS_CORE) -o $@

$(B)/vmstack-flamegraph: $(B)/flamegraph.o $(B)/cli.o $(CORE_OBJS)
	$(CC) $(LDFLAGS) $^ $(LDLIBS_CORE) -o $@

$(B)/vmstack-report: $(B)/report.o $(B)/cli.o $(CORE_OBJS)
	$(CC) $(LDFLAGS) $^ $(LDLIBS_CORE) -o $@

# libvmstack: a VM registers its descriptor (user/libvmstack.h).
$(B)/libvmstack.so: user/libvmstack.c user/libvmstack.h | $(B)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared -Wl,-soname,libvmstack.so.1 $< -o $@

$(B)/libvmstack.a: user/libvmstack.c user/libvmstack.h | $(B)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $(B)/libvmstack.o
	$(AR) rcs $@ $(B)/libvmstack.o

# A test tool: drives the module directly (tests/tools/probe/, one file per
# concern; its subcommands at the top of vmstack-probe.c).
PROBE_SRCS := $(wildcard tests/tools/probe/*.c)
$(B)/vmstack-probe: $(PROBE_SRCS) tests/tools/probe/probe.h $(NL_OBJS) $(B)/ring_reader.o \
		$(B)/vm_prog_check.o user/*.h module/vm_prog_check.h
	$(CC) $(CPPFLAGS) $(CFLAGS) -Imodule $(PROBE_SRCS) $(NL_OBJS) $(B)/ring_reader.o \
		$(B)/vm_prog_check.o $(LDLIBS_NL) -o $@

$(B)/vmstack-cfi-dump: tests/tools/vmstack-cfi-dump.c $(CORE_OBJS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(CORE_OBJS) $(LDLIBS_CORE) -o $@

# A raw recording of known stacks, written without the module.
$(B)/vmstack-fake-raw: tests/tools/vmstack-fake-raw.c $(CORE_OBJS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(CORE_OBJS) $(LDLIBS_CORE) -o $@

# The bench's clock for attach latency: a launch time, a first sample's.
$(B)/vmstack-attach-time: tests/tools/vmstack-attach-time.c $(CORE_OBJS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(CORE_OBJS) $(LDLIBS_CORE) -o $@

# Each thread's samples in a raw recording (tests against thread CPU clocks).
$(B)/vmstack-raw-threads: tests/tools/vmstack-raw-threads.c $(CORE_OBJS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< $(CORE_OBJS) $(LDLIBS_CORE) -o $@

# CPython's layout table (user/vm/cpython/layout_table.c) from the pyenv
# builds' DWARF: written, never typed; `make pylayout-table` rewrites it.
# The generator links no table (no_table.c): every layout it writes is
# read from DWARF, and a table that no longer builds can be rewritten.
PYLAYOUT_GEN_SRCS := $(wildcard tests/tools/pylayout/*.c)
PYLAYOUT_GEN_OBJS := $(filter-out $(B)/vm/cpython/layout_table.o,$(CORE_OBJS))
$(B)/vmstack-pylayout-gen: $(PYLAYOUT_GEN_SRCS) tests/tools/pylayout/gen.h $(PYLAYOUT_GEN_OBJS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(PYLAYOUT_GEN_SRCS) $(PYLAYOUT_GEN_OBJS) $(LDLIBS_CORE) -o $@

pylayout-table: $(B)/vmstack-pylayout-gen
	$< >user/vm/cpython/layout_table.c.tmp && mv user/vm/cpython/layout_table.c.tmp \
		user/vm/cpython/layout_table.c

$(B)/host-module/%.o: module/%.c module/walk.h module/vm_walk.h module/vm_prog.h module/vm_edges.h \
		module/vm_prog_check.h tests/unit/walk_host.h include/uapi/linux/vmstack.h | $(B)
	@mkdir -p $(B)/host-module
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/unit -c $< -o $@

$(B)/vm_prog_check.o: module/vm_prog_check.c module/vm_prog_check.h \
		include/uapi/linux/vmstack.h | $(B)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# The recorder's ring sizing is pure arithmetic: its policy is tested too.
# A command's start and its hold at the entry point run real programs.
UNIT_RECORD_OBJS := $(B)/record/ring_size.o $(B)/record/command.o $(B)/record/entry_hold.o \
	$(B)/record/vm_cuts.o
$(B)/unit-tests: $(UNIT_SRCS) $(CORE_OBJS) $(UNIT_RECORD_OBJS) $(B)/cli.o $(WALK_OBJS) tests/unit/*.h \
		tests/unit/vm4_shapes/*.h tests/tools/pylayout/gen.h
	$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/unit -Itests/tools -Imodule $(UNIT_SRCS) $(CORE_OBJS) $(UNIT_RECORD_OBJS) \
		$(B)/cli.o $(WALK_OBJS) $(LDLIBS_CORE) -o $@

# Workloads with known call trees: a frame pointer in every function. -O0,
# because GCC 12 drops the frame of a leaf that needs no stack even with
# -mno-omit-leaf-frame-pointer, and -O0 also keeps every call.
$(B)/workloads/%: tests/workloads/%.c Makefile | $(B)
	@mkdir -p $(B)/workloads
	$(CC) -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -pthread $< -o $@

# The same call tree as most users' binaries are built: optimized, no
# frame pointers (only .eh_frame describes the frames).
$(B)/workloads/calltree-nofp: tests/workloads/calltree.c Makefile | $(B)
	@mkdir -p $(B)/workloads
	$(CC) -O2 -g -fomit-frame-pointer -fno-inline -fno-optimize-sibling-calls -fno-ipa-icf $< -o $@

# A C++ program whose functions' demangled names are known (classes,
# overloads, a template, a lambda); -O0 as above.
$(B)/workloads/cxxtree: tests/workloads/cxxtree.cc Makefile | $(B)
	@mkdir -p $(B)/workloads
	$(CXX) -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer $< -o $@

# The library dlchurn loads copies of: no frame pointers, rules only.
$(B)/workloads/libdlspin.so: tests/workloads/dlspin/dlspin.c Makefile | $(B)
	@mkdir -p $(B)/workloads
	$(CC) -O2 -g -fPIC -shared -fomit-frame-pointer $< -o $@

# The CPython 3.11 extension the Python workloads use (Debian's
# python3.11-dev headers; no python3-config needed).
$(B)/workloads/vmsext.cpython-311-x86_64-linux-gnu.so: tests/workloads/python/vmsext.c Makefile | $(B)
	@mkdir -p $(B)/workloads
	$(CC) -shared -fPIC -O2 -g -fno-omit-frame-pointer -I/usr/include/python3.11 $< -o $@

# The extension for a pyenv CPython, or sid's (PYENV_VMSEXT; Debian's
# pyconfig.h is in the multiarch folder under its include root).
$(B)/workloads/py%/vmsext.so: tests/workloads/python/vmsext.c Makefile | $(B)
	@mkdir -p $(@D)
	$(CC) -shared -fPIC -O2 -g -fno-omit-frame-pointer \
		$(addprefix -I,$(firstword $(wildcard /root/.pyenv/versions/$*.*/include/python$* \
			/opt/vmstack/python$*/usr/include/python$*)) \
			$(wildcard /opt/vmstack/python$*/usr/include)) $< -o $@

# The sandwich demo: C embedding LuaJIT (Debian's libluajit-5.1).
$(B)/workloads/sandwich: tests/workloads/sandwich/sandwich.c Makefile | $(B)
	@mkdir -p $(B)/workloads
	$(CC) -O2 -g -fno-omit-frame-pointer -fno-inline $(shell pkg-config --cflags luajit) $< \
		$(shell pkg-config --libs luajit) -o $@

# Where a C host embedding LuaJIT waits (--off-cpu's known 3:1 split).
$(B)/workloads/waiter: tests/workloads/sandwich/waiter.c Makefile | $(B)
	@mkdir -p $(B)/workloads
	$(CC) -O2 -g -fno-omit-frame-pointer -fno-inline $(shell pkg-config --cflags luajit) $< \
		$(shell pkg-config --libs luajit) -o $@

# A C program embedding PUC Lua through each version's shared library
# (Debian's liblua5.X-dev).
$(B)/workloads/lua_host%: tests/workloads/lua_host/lua_host.c Makefile | $(B)
	@mkdir -p $(B)/workloads
	$(CC) -O2 -g -fno-omit-frame-pointer -I/usr/include/lua$* $< -llua$* -o $@

# A custom VM that registers itself through libvmstack.
$(B)/workloads/tinyvm: tests/workloads/tinyvm/tinyvm.c $(B)/libvmstack.a Makefile | $(B)
	@mkdir -p $(B)/workloads
	$(CC) -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -Iuser $< \
		$(B)/libvmstack.a -o $@

$(B):
	mkdir -p $(B)

# What a user installs: PREFIX as packagers expect, DESTDIR to stage.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
# systemd's unit directory for units a package or an admin installs.
SYSTEMDDIR ?= /etc/systemd/system
MAN_PAGES := $(wildcard man/*.[1-8])

# The library under its soname, libvmstack.so.1, which programs linked
# with -lvmstack load; libvmstack.so links to it for the linker. ldconfig
# only for a real install as root (a staged one is the packager's).
install: $(PRODUCT)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)
	install -m 755 $(INSTALL_TOOLS:%=$(B)/%) $(DESTDIR)$(BINDIR)/
	install -m 755 $(B)/libvmstack.so $(DESTDIR)$(LIBDIR)/libvmstack.so.1
	ln -sf libvmstack.so.1 $(DESTDIR)$(LIBDIR)/libvmstack.so
	install -m 644 $(B)/libvmstack.a $(DESTDIR)$(LIBDIR)/
	install -m 644 user/libvmstack.h $(DESTDIR)$(INCLUDEDIR)/
	for p in $(MAN_PAGES); do \
		install -D -m 644 $$p $(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/} || exit 1; \
	done
	install -d $(DESTDIR)$(SYSTEMDDIR)
	for u in vmstack-record@.service vmstack-record.service; do \
		sed 's|@BINDIR@|$(BINDIR)|' contrib/systemd/$$u.in >$(DESTDIR)$(SYSTEMDDIR)/$$u || exit 1; \
	done
	if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

uninstall:
	rm -f $(INSTALL_TOOLS:%=$(DESTDIR)$(BINDIR)/%) $(DESTDIR)$(INCLUDEDIR)/libvmstack.h \
		$(addprefix $(DESTDIR)$(LIBDIR)/,libvmstack.so.1 libvmstack.so libvmstack.a)
	for p in $(MAN_PAGES); do rm -f $(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/}; done
	rm -f $(DESTDIR)$(SYSTEMDDIR)/vmstack-record@.service $(DESTDIR)$(SYSTEMDDIR)/vmstack-record.service

# The kernel's own modules_install, for KDIR. It skips depmod without a
# System.map, which Debian's headers lack: a real install runs it for the
# release the module was built for (its vermagic); a staged one leaves it
# to the package.
modules_install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	if [ -z "$(DESTDIR)" ]; then depmod -a $$(modinfo -F vermagic vmstack.ko | cut -d' ' -f1); fi

# DKMS takes a module's source from /usr/src/NAME-VERSION (whatever the
# PREFIX): Kbuild, VERSION, module/ and the uapi header, and dkms.conf.
DKMS_SOURCE_TREE ?= /usr/src
DKMS_DIR := $(DESTDIR)$(DKMS_SOURCE_TREE)/vmstack-$(VERSION)
install-dkms:
	install -d $(DKMS_DIR)/module $(DKMS_DIR)/include/uapi/linux
	install -m 644 Kbuild VERSION $(DKMS_DIR)/
	install -m 644 module/*.c module/*.h $(DKMS_DIR)/module/
	install -m 644 include/uapi/linux/vmstack.h $(DKMS_DIR)/include/uapi/linux/
	sed 's/@VERSION@/$(VERSION)/' dkms.conf.in >$(DKMS_DIR)/dkms.conf

demo: module tools
	scripts/demo

bench: module tools
	scripts/bench

# The user space under AddressSanitizer and UBSan: any report aborts.
ASAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all
asan:
	$(MAKE) B=$(B)/asan CFLAGS='$(ASAN_CFLAGS)' LDFLAGS='-fsanitize=address,undefined' \
		$(B)/asan/unit-tests $(B)/asan/vmstack-record

check: module tools asan
	tests/run $(or $(T),all)

# The guest needs make asan's recorder only for t_asan_record.
comma := ,
GUEST_ASAN := $(if $(filter all asan_record,$(or $(subst $(comma), ,$(T)),all)),asan)
check-guest: module tools $(GUEST_ASAN)
	tests/run --guest-only $(or $(T),all)

check-debug: tools asan
	scripts/check-debug $(or $(T),all)

# Commas would split $(or)'s arguments: the default list is a variable.
KERNEL_LANES := cloud,rt,6.12
check-kernels: tools asan
	scripts/check-kernels $(or $(T),all) $(or $(L),$(KERNEL_LANES))

lint: | $(B)
	scripts/lint

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(B)
