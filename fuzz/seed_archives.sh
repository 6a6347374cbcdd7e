#!/bin/sh
# Seeds for the archive fuzz targets (`bundle`, `archive_streams`): small real
# captures packed in every kind iosift reads, written to fuzz/corpus/<target>/
# (git-ignored), each behind the selector byte its target reads first.
# Needs tar, gzip, zstd, xz, bzip2 and zip; a missing tool skips its seeds.
#
#   fuzz/seed_archives.sh && cd fuzz && cargo +nightly fuzz run bundle -- -max_total_time=600
set -eu
cd "$(dirname "$0")"
src=../samples/replica_sql_bound/capture
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/cap" corpus/bundle corpus/archive_streams
head -c 3000 "$src/vmstat-t.txt" > "$work/cap/vmstat-t.txt"
head -c 3000 "$src/iostat-x-t.txt" > "$work/cap/iostat-x-t.txt"
printf 'a line\n' > "$work/cap/a.txt"
have() { command -v "$1" > /dev/null 2>&1; }

# seed TARGET SELECTOR NAME FILE: the selector byte (octal), then the file.
seed() {
    { printf "\\$2"; cat "$4"; } > "corpus/$1/$3"
}

(cd "$work" && tar cf c.tar cap && tar --format=v7 -cf c-v7.tar cap)
seed bundle 000 tar "$work/c.tar"
seed bundle 000 tar-v7 "$work/c-v7.tar"
# Selectors of the bundle target: tar zip gz tar.gz zst tar.zst xz tar.xz bz2 tar.bz2 (0..9);
# of archive_streams: gz zst xz bz2 (0..3).
if have gzip; then
    gzip -c "$work/c.tar" > "$work/c.tar.gz"
    gzip -c "$work/cap/vmstat-t.txt" > "$work/v.gz"
    seed bundle 003 tar.gz "$work/c.tar.gz"
    seed bundle 002 gz "$work/v.gz"
    seed archive_streams 000 gz "$work/v.gz"
    seed archive_streams 000 tar.gz "$work/c.tar.gz"
fi
if have zstd; then
    zstd -q -c "$work/c.tar" > "$work/c.tar.zst"
    zstd -q -c "$work/cap/vmstat-t.txt" > "$work/v.zst"
    seed bundle 005 tar.zst "$work/c.tar.zst"
    seed bundle 004 zst "$work/v.zst"
    seed archive_streams 001 zst "$work/v.zst"
    seed archive_streams 001 tar.zst "$work/c.tar.zst"
fi
if have xz; then
    xz -1 -c "$work/c.tar" > "$work/c.tar.xz"
    xz -1 -c "$work/cap/vmstat-t.txt" > "$work/v.xz"
    # Two streams, and several blocks with their sizes in the headers.
    cat "$work/v.xz" "$work/v.xz" > "$work/two.xz"
    xz -1 -c --block-size=1000 "$work/cap/vmstat-t.txt" > "$work/blocks.xz"
    seed bundle 007 tar.xz "$work/c.tar.xz"
    seed bundle 006 xz "$work/v.xz"
    seed archive_streams 002 xz "$work/v.xz"
    seed archive_streams 002 two.xz "$work/two.xz"
    seed archive_streams 002 blocks.xz "$work/blocks.xz"
    seed archive_streams 002 tar.xz "$work/c.tar.xz"
fi
if have bzip2; then
    bzip2 -c "$work/c.tar" > "$work/c.tar.bz2"
    bzip2 -c "$work/cap/vmstat-t.txt" > "$work/v.bz2"
    seed bundle 011 tar.bz2 "$work/c.tar.bz2"
    seed bundle 010 bz2 "$work/v.bz2"
    seed archive_streams 003 bz2 "$work/v.bz2"
fi
if have zip; then
    (cd "$work" && zip -q -r deflate.zip cap && zip -q -r -Z store stored.zip cap)
    (cd "$work" && zip -q -r -Z bzip2 bzip2.zip cap 2> /dev/null || true)
    seed bundle 001 deflate.zip "$work/deflate.zip"
    seed bundle 001 stored.zip "$work/stored.zip"
    [ -f "$work/bzip2.zip" ] && seed bundle 001 bzip2.zip "$work/bzip2.zip"
    # A zip inside a tar inside gzip: nesting.
    if have gzip; then
        (cd "$work" && tar cf nested.tar deflate.zip && gzip -c nested.tar > nested.tar.gz)
        seed bundle 003 nested.tar.gz "$work/nested.tar.gz"
    fi
fi
if have python3; then
    # A name twice (the zip crate keeps one; iosift reads both) and an LZMA member.
    python3 - "$work" << 'PY'
import sys, warnings, zipfile
warnings.simplefilter("ignore")
d = sys.argv[1]
with zipfile.ZipFile(d + "/twice.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("cap/a.txt", "first copy\n")
    z.writestr("cap/a.txt", "second copy\n")
with zipfile.ZipFile(d + "/lzma.zip", "w", zipfile.ZIP_LZMA) as z:
    z.write(d + "/cap/vmstat-t.txt", "cap/vmstat-t.txt")
PY
    seed bundle 001 twice.zip "$work/twice.zip"
    seed bundle 001 lzma.zip "$work/lzma.zip"
fi
ls corpus/bundle corpus/archive_streams | wc -l
