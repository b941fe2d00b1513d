#!/bin/sh
# fixture: the case lists as guest/workloads.sh spells them
cases='
write
read --pattern random --bs 4K
'
dirs="/mnt/ramfs /mnt/tmpfs"
corrupt_dir=/mnt/ramfs
