#!/bin/sh
# Builds the large benchmark inputs (see bench/generate.py for what each file is).
# Usage: bench/generate.sh [OUTDIR] [--mb N] [--binlog-copies N] [--only iostat,pidstat,...]
exec python3 "$(dirname "$0")/generate.py" "$@"
