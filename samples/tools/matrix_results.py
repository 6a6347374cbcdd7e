#!/usr/bin/env python3
"""matrix_results.py IOSIFT_BINARY [OUT_DIR] - run `iosift analyze` on every matrix case (samples/mx_*/capture) and print
a markdown table of the current result against truth.json (expected fire / quiet, actual fired / passed / skipped /
absent), per half, and the summary line of every finding that fired (to check the device and writer it names).
OUT_DIR (default /tmp/iosift_matrix) receives one report directory per case."""
import json
import os
import subprocess
import sys

binary = sys.argv[1]
out = sys.argv[2] if len(sys.argv) > 2 else "/tmp/iosift_matrix"
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
cases = sorted(d for d in os.listdir(root) if d.startswith("mx_") and os.path.exists(os.path.join(root, d, "truth.json")))
rows, fired_lines, tally = [], [], {}
for c in cases:
    t = json.load(open(os.path.join(root, c, "truth.json")))
    o = os.path.join(out, c)
    subprocess.run([binary, "analyze", os.path.join(root, c, "capture"), "-o", o], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    try:
        f = json.load(open(os.path.join(o, "findings.json")))
    except (OSError, ValueError) as e:
        rows.append("| %s | %s | (analyze failed: %s) | | | |" % (c, t.get("half"), e))
        continue
    got = {x["rule"]: "fired" for x in f["findings"]}
    for x in f["checked"]:
        got.setdefault(x["rule"], x["outcome"])
    for x in f["findings"]:
        fired_lines.append("- `%s` %s: %s" % (c, x["rule"], x.get("summary", "").replace("\n", " ")[:400]))
    for want, ids in (("fire", t["expect_fire"]), ("quiet", t["expect_not_fire"])):
        for r in ids:
            a = got.get(r, "absent")
            ok = (a == "fired") == (want == "fire")
            h = tally.setdefault(t.get("half"), [0, 0])
            h[0] += ok
            h[1] += 1
            rows.append("| %s | %s | %s | %s | %s | %s |" % (c, t.get("half"), r, want, a, "ok" if ok else "**MISS**"))
print("| case | half | rule | expected | actual | result |")
print("|---|---|---|---|---|---|")
print("\n".join(rows))
print()
for h, (ok, n) in sorted(tally.items()):
    print("- %s half: %d of %d expectations hold" % (h, ok, n))
print()
print("Findings that fired:")
print("\n".join(fired_lines))
