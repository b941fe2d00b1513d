#!/bin/sh
# make thpmaps (scripts/thpmaps.sh run): one ramfs file with folios of three
# sizes, mapped shared and read through, as the tree's tools/mm/thpmaps
# shows the mapping, beside the mapping's smaps lines (FilePmdMapped).
# thpmaps needs python3 and numpy, from the overlay only that script adds.
. /guest/lib.sh
command -v python3 >/dev/null || { echo "thpmaps: SKIP no python3 (scripts/thpmaps.sh adds it)"; exit 4; }
D=/mnt/thpmaps
F=$D/file
mkdir -p $D
mount -t ramfs -o huge=always ramfs $D || exit 1
# 4 MiB in one write(2) under always: two PMD-sized folios.  Then, under
# never, four 64 KiB writes after it (folios sized by the write) and one of
# 4 KiB.  Back to always, so that the mapping is PMD-aligned.
dd if=/dev/urandom of=$F bs=4M count=1 2>/dev/null
mount -o remount,huge=never $D
dd if=/dev/urandom of=$F bs=64K count=4 seek=64 conv=notrunc 2>/dev/null
dd if=/dev/urandom of=$F bs=4K count=1 seek=1088 conv=notrunc 2>/dev/null
mount -o remount,huge=always $D
echo "thpmaps: $F, $(stat -c %s $F) bytes, mapped shared and read through"
python3 - "$F" <<'EOF'
import mmap, os, subprocess, sys

path = sys.argv[1]
size = os.path.getsize(path)
with open(path, "rb") as f:
    m = mmap.mmap(f.fileno(), size, mmap.MAP_SHARED, mmap.PROT_READ)
sum(m[i] for i in range(0, size, 4096))
# smaps' own view of the mapping first, then thpmaps': one writer at a time.
with open("/proc/self/smaps") as f:
    keep = False
    for line in f:
        w = line.split()
        if "-" in w[0] and ":" not in w[0]:
            keep = line.rstrip().endswith(path)
        elif not keep or w[0] not in ("Size:", "Rss:", "FilePmdMapped:"):
            continue
        if keep:
            print("smaps:", line.rstrip())
# thpmaps on this process: its header and the file's mapping.
r = subprocess.run(["python3", "/usr/bin/thpmaps", "--pid", str(os.getpid()), "--inc-smaps"],
                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
keep = True
for line in r.stdout.splitlines():
    if ": " in line and "-" in line.split()[1]:
        keep = line.rstrip().endswith(path)
    if keep:
        print("thpmaps:", line)
print("thpmaps: ok" if r.returncode == 0 else f"thpmaps: exit {r.returncode}")
EOF
umount $D
