#!/usr/bin/env python3
"""cache_mixed.py FILE FRACTION SEED - leave FILE's page cache in a MIX of folio sizes ("readahead after a cache drop").

fdatasync, POSIX_FADV_DONTNEED (the file's cache is dropped, as when another tenant drops caches), then under
POSIX_FADV_RANDOM one 4 KiB pread at a random page of a random FRACTION of the file's 2 MiB regions (a random reader:
order-0 folios), then POSIX_FADV_NORMAL and a sequential read of the whole file (readahead fills the untouched regions
with large folios, up to 2 MiB, and the touched ones with smaller folios around the cached page).
Prints what it did; samples/tools/folio_probe prints the resulting folio histogram."""
import os
import random
import sys

path, frac, seed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
fd = os.open(path, os.O_RDONLY)
size = os.fstat(fd).st_size
os.fdatasync(fd)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
rnd = random.Random(seed)
regions = size // (2 << 20)
touched = sorted(rnd.sample(range(regions), int(regions * frac)))
for r in touched:
    os.pread(fd, 4096, r * (2 << 20) + rnd.randrange(512) * 4096)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_NORMAL)
n = 0
while True:
    b = os.read(fd, 1 << 20)
    if not b:
        break
    n += len(b)
print("cache_mixed %s: fadvise DONTNEED, 4 KiB preads under FADV_RANDOM into %d of %d 2 MiB regions (seed %d), "
      "then a sequential read of %d bytes with normal readahead" % (path, len(touched), regions, seed, n))
