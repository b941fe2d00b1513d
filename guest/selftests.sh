#!/bin/sh
# The series' ramfs_thp category of the tree's mm selftests, run as mm's
# maintainers run it: run_vmtests.sh -t ramfs_thp.  Its TAP has one result
# per test program; each program's own results are the "# " lines above it.
cd /selftests/mm || { echo "Bail out! no /selftests/mm in the initramfs"; exit 1; }
exec ./run_vmtests.sh -t "${1:-ramfs_thp}"
