#!/usr/bin/env python3
"""sar_truth.py CASE_DIR - truth.json of the sar_mariadb sample, read from capture/sar_C.txt (sar's own text):
the sample count and times, the values the tests quote, and the Average: rows sar printed per activity."""
import json
import os
import sys

case = sys.argv[1]
lines = open(os.path.join(case, "capture/sar_C.txt")).read().splitlines()


def average_after(header_part):
    for i, l in enumerate(lines):
        if header_part in l:
            hdr = l.split()[1:]
            for m in lines[i + 1:]:
                if m.startswith("Average:"):
                    return dict(zip(hdr, m.split()[1:]))
    return None


truth = {
    "case": "sar_mariadb",
    "source": "capture/sar_C.txt (LC_ALL=C sar -b -B -d -p -q -r ALL -u ALL -W -n DEV -f sa.bin), sysstat 12.6.1",
    "sadc": "sadc -S XALL 1 120: 120 records, 119 one-second samples per activity",
    "samples_per_activity": 119,
    "first_sample_utc": "2026-12-01T19:14:14Z",
    "last_sample_utc": "2026-12-01T19:16:12Z",
    "quoted": {"vda wkB/s at 19:14:14": 34916.0, "pgpgout/s at 19:14:15": 50460.0, "bwrtn/s at 19:14:16": 102288.0,
               "kbdirty at 19:14:16": 131536, "cpu all %usr at 19:14:14": 81.41},
    "averages_printed_by_sar": {"cpu_all": average_after(" CPU      %usr"), "paging": average_after("pgpgin/s"),
                                "io": average_after("     tps      rtps"), "memory": average_after("kbmemfree"),
                                "queue": average_after("runq-sz")},
    "expect_fire": [],
    "note": "the same 119 samples in every rendering (sar text in C, de_DE, ja_JP, en_US; sadf -d, -p, -j; "
            "the sa file through sadf -j)",
}
json.dump(truth, open(os.path.join(case, "truth.json"), "w"), indent=1)
