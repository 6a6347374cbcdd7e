#!/bin/sh
# gz_big.sh DIR: gzip -9 every file over 200 KB in DIR (the analyzer reads .gz transparently)
set -eu
find "$1" -type f -size +200k ! -name '*.gz' -exec gzip -9 {} \;
