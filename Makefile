# THP page cache for ramfs: build the packaged kernel (thp-series/base) with thp-series/,
# boot it in QEMU, run the probes and workloads.  See README.md.

CACHE   ?= $(HOME)/.cache/thp-pagecache
OUT     ?= $(CURDIR)/out
KERNEL  ?= patched
# The debug kernel first: its guest runs longest (scripts/test-all.sh).
KERNELS ?= $(KERNEL)-debug $(KERNEL)
export THP_CACHE := $(CACHE)
export THP_OUT := $(OUT)

SRC     := $(CACHE)/linux
S       := $(CURDIR)/scripts
VARIANT := $(KERNEL)$(if $(DEBUG),-debug)

# thp-series/base names the Debian source package the series applies to.
DEB_PKGS := $(shell cat thp-series/base) qemu-system-x86 busybox-static linux-perf fio gcc make \
	flex bison bc libelf-dev libssl-dev cpio quilt git ccache numactl python3 \
	python3-matplotlib python3-numpy xz-utils kmod rsync gcc-multilib stress-ng python3-ply python3-git \
	liburcu-dev
DEPS_STAMP := $(OUT)/.deps
PY := /usr/bin/python3
comma := ,
space := $(subst ,, )

.PHONY: all deps tree kernel kernels progs initramfs shell test test-fast stress export \
	check-series check-bisect boot-i386 thpmaps bench bench-table bench-icount bench-untar bench-insns bench-profile \
	clean distclean help

all: kernel initramfs

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

# make test runs whole: -i, -n, -q or -t (from the command line or MAKEFLAGS
# in the environment) would let it end well without its tests passing.
SHORTFLAGS := $(if $(filter -%,$(firstword $(MAKEFLAGS))),,$(firstword $(MAKEFLAGS)))
ifneq ($(filter test,$(MAKECMDGOALS)),)
ifneq ($(strip $(foreach f,i n q t,$(findstring $(f),$(SHORTFLAGS)))),)
$(error PARTIAL: make -$(SHORTFLAGS) test: -i, -n, -q and -t are refused)
endif
endif

## Variables (environment or make's command line).  make test refuses, with
## PARTIAL:, any that narrows it, and any THP_* variable not listed here:
##   THP_TESTS="a b"     only these suites of guest/tests.list (narrows)
##   THP_REQUIRE=0       a skip passes on the patched kernel (narrows)
##   THP_IMAGE=PATH      boot that bzImage, its .release beside it (narrows)
##   THP_TEST_TIMEOUT_S  each guest program's time limit (300 s; doubled on debug)
##   THP_CHECK_FROM=N    check-series: build from patch N on
##   THP_CHECK_ARCHES    check-series: "x86_64 i386-highmem" (default), or fewer
##   THP_CHECK_ENDS      check-series: "x86_64-noshmem x86_64-nothp" (default), or fewer
##   KERNELS="patched-debug patched"  the kernels make test boots (fewer narrows)
##   THP_GUEST_MB        guest memory in MiB (4096; make test's debug guest 3072)
##   CACHE=DIR OUT=DIR   kernel trees and builds; our outputs

## deps         install the Debian packages the project needs (apt-get)
deps: $(DEPS_STAMP)
$(DEPS_STAMP): Makefile thp-series/base
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	fi
	@mkdir -p $(OUT) && touch $@

## tree         extract linux-source into $(CACHE) and apply thp-series/series
tree: deps
	@$(S)/tree.sh

## kernel       build the kernel (KERNEL=patched|stock, DEBUG=1 for debug.config)
kernel: tree
	@$(S)/kernel.sh $(VARIANT)

kernels: tree
	@$(S)/kernel.sh stock && $(S)/kernel.sh patched

## progs        build the static C workloads and probes
progs: tree
	@$(MAKE) -s -C workloads OUT=$(OUT)/bin
	@$(MAKE) -s -C sysfs-probes OUT=$(OUT)/bin KSRC=$(SRC)

## initramfs    busybox, our programs, guest/ scripts, fio, numactl, perf, stress-ng
initramfs: progs
	@$(S)/initramfs.sh

## shell        boot KERNEL into an interactive shell (exit powers off), with python3,
##              numpy and the tree's tools/mm/thpmaps in an overlay
shell: kernel initramfs
	@ov=$$($(S)/thpmaps.sh overlay) && THP_OVERLAY=$$ov $(S)/guest.sh \
		$$($(S)/kernel.sh $(VARIANT)) $(OUT)/shell shell

## thpmaps      the same overlay, scripted: a ramfs file's folios by size as thpmaps
##              shows them, beside smaps' FilePmdMapped (out/thpmaps/thpmaps.txt)
thpmaps: kernel initramfs
	@$(S)/thpmaps.sh run $(VARIANT)

## test         the host-side suites (beside the first build) and every test on the
##              debug kernel and on the patched kernel; count lines for kernel and
##              harness checks, the total last
test:
	@$(S)/partial.sh test kernels="$(KERNELS)"
	@$(MAKE) -s tree initramfs
	@$(S)/test-all.sh $(KERNELS)

## test-fast    the same on KERNELS (default: the patched kernel alone; PARTIAL);
##              e.g. KERNELS=patched-debug, or KERNELS=stock or patched-off (the option
##              built out) with THP_REQUIRE=1, where the feature probes must fail
test-fast: KERNELS = $(KERNEL)
test-fast: tree initramfs
	@$(S)/partial.sh dev "make test-fast on $(KERNELS)"
	@$(S)/test-all.sh $(KERNELS)

## bench        measurements, WHAT= one of (default table):
##                table   one boot, 256 MiB, 5 reps, interleaved (out/bench), then the
##                        same cases under -icount at 64 MiB (out/bench-counts)
##                icount  the gate (make bench-icount): -icount, 4 KiB and 1 MiB I/O, stock
##                        ramfs and tmpfs against patched ramfs under never (a mount
##                        without huge=) and deny, and tmpfs huge=never: 1% at most
##                insns   instructions per call by kernel function under -icount with
##                        a TCG plugin, ramfs huge against 4K (WL= with --passes N,
##                        PER= the syscall, MOUNTS=; default random 4 KiB pread)
##                profile perf profile of WL= (default 4 KiB writes) on ramfs huge/4K
##                        and tmpfs huge; ICOUNT=1 for -icount
WHAT ?= table
bench: initramfs
	@case "$(WHAT)" in table|icount|insns|profile) ;; \
	*) echo "bench: WHAT=$(WHAT): not one of table, icount, insns, profile" >&2; exit 2 ;; esac
	@$(MAKE) -s bench-$(WHAT)

bench-table: kernel initramfs
	@$(BENCH_RUN); bad=""; export THP_GUEST_IDLE_S=$${THP_GUEST_IDLE_S:-600}; \
	run "wall-clock" $(S)/bench.sh bench $(OUT)/bench $(VARIANT) thp.size_mb=$${SIZE_MB:-256}; \
	run "icount" env THP_ICOUNT=1 $(S)/bench.sh counts $(OUT)/bench-counts $(VARIANT) thp.size_mb=64; \
	[ -z "$$bad" ] || { echo "$@: FAILED:$$bad" >&2; exit 1; }

# Both kernels run the same cases in the same order.  Stock has no
# policy: both its ramfs runs are ramfs as it is (ramfs-4K), the baseline
# of both patched ramfs configurations (analysis/gate.py).
bench-icount: initramfs
	@$(MAKE) -s kernel KERNEL=stock && $(MAKE) -s kernel KERNEL=patched
	@$(BENCH_RUN); bad=""; export THP_ICOUNT=1 \
		THP_BENCH_TIMEOUT_S=$${THP_BENCH_TIMEOUT_S:-1800} THP_GUEST_IDLE_S=$${THP_GUEST_IDLE_S:-300}; \
	for k in stock patched; do \
		run "$$k icount" $(S)/bench.sh icount $(OUT)/icount-$$k $$k thp.size_mb=16 \
			thp.configs=ramfs-never,ramfs-4k,tmpfs; \
	done; \
	$(PY) analysis/gate.py $(OUT)/icount-stock/results.jsonl \
		$(OUT)/icount-patched/results.jsonl || bad="$$bad gate"; \
	[ -z "$$bad" ] || { echo "$@: FAILED:$$bad" >&2; exit 1; }

# run NAME CMD...: one benchmark boot.  A failure or hang is named and
# remembered in $bad, and the next boot still runs, so a target prints all
# it has before it fails.  Exit 3 and 4 are guest.sh's hang and death.
BENCH_RUN = run() { what=$$1; shift; "$$@" && return 0; rc=$$?; \
	case $$rc in 3) why="hung (time limit)" ;; 4) why="guest died before the end" ;; \
	*) why="failed runs or no report" ;; esac; \
	echo "$@: the $$what run failed: $$why (exit $$rc)" >&2; bad="$$bad $$what"; }

## bench-untar  the real-world case: a ~100 MiB kernel-source tar unpacked and read back on
##              ramfs (no huge=, within_size, deny) and tmpfs, time and pages; then
##              ramfs and tmpfs huge=always in a 1 GiB memcg (out/untar/report.md)
bench-untar: kernel initramfs
	@$(S)/untar.sh $(VARIANT)

## stress       long fsx run: 4 files in parallel, 250k ops each (>= 1M ops)
stress: kernel initramfs
	@$(S)/partial.sh dev "make stress runs the long fsx suite alone"
	@THP_TESTS=stress THP_TEST_TIMEOUT_S=$${THP_TEST_TIMEOUT_S:-7200} $(S)/test.sh $(VARIANT)

bench-profile: kernel initramfs
	@$(S)/partial.sh dev "make bench WHAT=profile runs the profile suite alone"
	@THP_TESTS=profile $(if $(ICOUNT),THP_ICOUNT=1) $(S)/test.sh $(VARIANT) \
		$(if $(WL),thp.profile=$(subst $(space),$(comma),$(WL))) >/dev/null || true
	@grep '^# ' $(OUT)/profile-$(VARIANT)/console.log | grep -v '^# Totals'

bench-insns: kernel initramfs
	@$(if $(WL),THP_INSNS_WL="$(WL)") $(if $(PER),THP_INSNS_PER=$(PER)) \
		$(if $(MOUNTS),THP_INSNS_MOUNTS="$(MOUNTS)") $(S)/insns.sh $(VARIANT)

## tables       write RESULTS.md and cover.txt's result tables from out/ (bench,
##              bench-counts, icount-*, insns, test-patched); fails on missing or stale data
.PHONY: tables
tables:
	@$(PY) analysis/tables.py --out $(OUT) --results RESULTS.md thp-series/cover.txt

## export       regenerate thp-series/*.patch and series from the tree's commits
export:
	@$(S)/export.sh

## check-series checkpatch --strict every patch (each remaining warning named in its
##              commit message) and build after each one, x86_64 and i386 HIGHMEM64G
## check-bisect the same as check-series
check-series check-bisect: tree
	@$(S)/check-series.sh

## boot-i386    build the 32-bit HIGHMEM64G (PAE) patched kernel and run probe-verify in
##              qemu-system-i386; KERNEL=stock boots the stock tree
boot-i386: tree
	@$(S)/boot-i386.sh $(KERNEL)-i386

## clean        remove our build outputs ($(OUT))
clean:
	@$(MAKE) -s -C workloads clean OUT=$(OUT)/bin || true
	@$(MAKE) -s -C sysfs-probes clean OUT=$(OUT)/bin || true
	rm -rf $(OUT)

## distclean    also remove the kernel tree, builds and images in $(CACHE)
distclean: clean
	rm -rf $(CACHE)
