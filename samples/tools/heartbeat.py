#!/usr/bin/env python3
"""heartbeat.py - independent replication lag ground truth (the pt-heartbeat idea, written for this project).

A writer on the primary stamps bench.heartbeat (id 1) with its own wall clock every --every seconds; a reader on the
replica reads the row back every second. Primary and replica run on the same host, so one clock: the lag of the
replica at a reading is  now - epoch_in_the_replica's_row  (minus up to --every of stamping granularity).
Writes OUT.csv: epoch,lag_s,stamped_epoch   and OUT.json: writer stamps, reader readings, first and last lag of this
run's stamps (a reading of the row as an earlier run left it is kept in the CSV, not in OUT.json; replication_truth.py
fits the slope).
usage: heartbeat.py --primary-socket P --replica-socket R --duration 80 --out PREFIX [--every 0.25]
"""
import argparse
import json
import threading
import time

import pymysql

ap = argparse.ArgumentParser()
ap.add_argument("--primary-socket", required=True)
ap.add_argument("--replica-socket", required=True)
ap.add_argument("--duration", type=float, default=80)
ap.add_argument("--every", type=float, default=0.25)
ap.add_argument("--out", required=True)
args = ap.parse_args()

deadline = time.time() + args.duration
stamps = {"n": 0, "first": None}


def writer():
    c = pymysql.connect(unix_socket=args.primary_socket, user="bench", password="benchpw", database="bench", autocommit=True)
    cur = c.cursor()
    while time.time() < deadline:
        now = time.time()
        cur.execute("UPDATE heartbeat SET ts = NOW(6), epoch = %s WHERE id = 1", (now,))
        stamps["n"] += 1
        if stamps["first"] is None:
            stamps["first"] = now
        time.sleep(args.every)
    c.close()


readings = []
w = threading.Thread(target=writer, name="hb-writer")
w.start()
r = pymysql.connect(unix_socket=args.replica_socket, user="bench", password="benchpw", database="bench", autocommit=True)
cur = r.cursor()
nxt = time.time()
while time.time() < deadline:
    cur.execute("SELECT epoch FROM heartbeat WHERE id = 1")
    seen = float(cur.fetchone()[0])
    now = time.time()
    readings.append((now, now - seen, seen))
    nxt += 1.0
    time.sleep(max(0.0, nxt - time.time()))
w.join()


with open(args.out + ".csv", "w") as f:
    f.write("epoch,lag_s,stamped_epoch\n")
    for e, lag, seen in readings:
        f.write("%.3f,%.3f,%.3f\n" % (e, lag, seen))
# Readings of a stamp older than this run's first one (the row as the setup left it) say nothing of this run.
valid = [(e, l) for e, l, seen in readings if stamps["first"] is not None and seen >= stamps["first"] - 1e-3]
info = {"every_s": args.every, "writer_stamps": stamps["n"], "writer_first_epoch": stamps["first"],
        "readings": len(readings), "valid_readings": len(valid),
        "lag_first_s": round(valid[0][1], 3) if valid else None,
        "lag_last_s": round(valid[-1][1], 3) if valid else None}
with open(args.out + ".json", "w") as f:
    json.dump(info, f, indent=1)
print(json.dumps(info))
