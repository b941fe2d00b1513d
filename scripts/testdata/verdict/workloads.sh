#!/bin/sh
# fixture: where guest/workloads.sh runs its cases (the cases: cases.txt)
dirs="/mnt/ramfs /mnt/tmpfs"
corrupt_dir=/mnt/ramfs
