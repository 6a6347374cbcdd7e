#!/usr/bin/env python3
"""tiny_trx.py - closed-loop load of tiny autocommit transactions (pymysql over a unix socket).

Each of N connections loops until the deadline, without think time:
  65 %  INSERT one row into bench.orders            (kind ins)
  25 %  UPDATE one bench.accounts row by primary key (kind upd)
  10 %  BEGIN; UPDATE accounts; INSERT audit; COMMIT (kind two)
With --payload N the INSERTs (kind ins) go to bench.orders_big with a text column of N bytes (a compressible
pattern), so that the average binlog transaction is a few kB instead of ~340 B (the table is created if missing).
Ground truth written by the driver itself:
  OUT.persec.csv  epoch_second,kind,commits,lat_p50_us,lat_p99_us,lat_max_us  (per second and kind)
  OUT.json        connection ids and client TIDs, start/end epoch, totals, TPS, latency percentiles
usage: tiny_trx.py --socket S --threads 4 --duration 60 --out PREFIX [--payload BYTES]
"""
import argparse
import collections
import json
import os
import random
import threading
import time

import pymysql

ap = argparse.ArgumentParser()
ap.add_argument("--socket", required=True)
ap.add_argument("--threads", type=int, default=4)
ap.add_argument("--duration", type=float, default=60)
ap.add_argument("--out", required=True)
ap.add_argument("--payload", type=int, default=0, help="bytes of text per INSERT (0: the small orders row)")
args = ap.parse_args()

lat = [collections.defaultdict(list) for _ in range(args.threads)]  # (second, kind) -> [us]
info = {"pid": os.getpid(), "threads": args.threads, "duration_s": args.duration, "payload_bytes": args.payload,
        "connections": []}
if args.payload:
    c0 = pymysql.connect(unix_socket=args.socket, user="bench", password="benchpw", database="bench", autocommit=True)
    c0.cursor().execute("CREATE TABLE IF NOT EXISTS orders_big (id BIGINT AUTO_INCREMENT PRIMARY KEY, customer_id INT NOT NULL, "
                        "amount DECIMAL(10,2) NOT NULL, created DATETIME(6) NOT NULL, body TEXT NOT NULL) ENGINE=InnoDB")
    c0.close()
WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ".split()
ready = threading.Barrier(args.threads + 1)
go = {"deadline": 0.0}


def run(n):
    rnd = random.Random(1000 + n)
    conn = pymysql.connect(unix_socket=args.socket, user="bench", password="benchpw", database="bench", autocommit=True)
    cur = conn.cursor()
    cur.execute("SELECT CONNECTION_ID()")
    info["connections"].append({"driver_thread": n, "connection_id": cur.fetchone()[0], "client_tid": threading.get_native_id()})
    ready.wait()
    mine = lat[n]
    while True:
        start = time.time()
        if start >= go["deadline"]:
            break
        p = rnd.random()
        if p < 0.65 and args.payload:
            kind = "ins"
            body = " ".join(rnd.choice(WORDS) for _ in range(args.payload // 5))[: args.payload].ljust(args.payload, ".")
            cur.execute("INSERT INTO orders_big (customer_id, amount, created, body) VALUES (%s, %s, NOW(6), %s)",
                        (rnd.randrange(1, 100000), rnd.randrange(100, 99999) / 100, body))
        elif p < 0.65:
            kind = "ins"
            cur.execute("INSERT INTO orders (customer_id, amount, status, created, note) VALUES (%s, %s, %s, NOW(6), %s)",
                        (rnd.randrange(1, 100000), rnd.randrange(100, 99999) / 100, rnd.randrange(4), "c%05d" % rnd.randrange(100000)))
        elif p < 0.90:
            kind = "upd"
            cur.execute("UPDATE accounts SET balance = balance + %s, updated = NOW(6) WHERE id = %s", (rnd.randrange(-9, 10), rnd.randrange(1, 1001)))
        else:
            kind = "two"
            acct, delta = rnd.randrange(1, 1001), rnd.randrange(-9, 10)
            conn.begin()
            cur.execute("UPDATE accounts SET balance = balance + %s, updated = NOW(6) WHERE id = %s", (delta, acct))
            cur.execute("INSERT INTO audit (account_id, delta, ts) VALUES (%s, %s, NOW(6))", (acct, delta))
            conn.commit()
        end = time.time()
        mine[(int(end), kind)].append(int((end - start) * 1e6))
    conn.close()


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0


workers = [threading.Thread(target=run, args=(n,), name="trx%d" % n) for n in range(args.threads)]
go["deadline"] = time.time() + 3600
for w in workers:
    w.start()
time.sleep(0.3)
go["deadline"] = time.time() + args.duration
info["start_epoch"] = time.time()
ready.wait()
for w in workers:
    w.join()
info["end_epoch"] = time.time()

merged = collections.defaultdict(list)
for per in lat:
    for key, v in per.items():
        merged[key].extend(v)
all_lat = [x for v in merged.values() for x in v]
by_kind = collections.Counter()
with open(args.out + ".persec.csv", "w") as f:
    f.write("epoch_second,kind,commits,lat_p50_us,lat_p99_us,lat_max_us\n")
    for (sec, kind) in sorted(merged):
        v = merged[(sec, kind)]
        by_kind[kind] += len(v)
        f.write("%d,%s,%d,%d,%d,%d\n" % (sec, kind, len(v), pct(v, 0.5), pct(v, 0.99), max(v)))
info["transactions"] = len(all_lat)
info["transactions_by_kind"] = dict(by_kind)
info["tps"] = len(all_lat) / args.duration
info["latency_us"] = {"p50": pct(all_lat, 0.5), "p99": pct(all_lat, 0.99), "max": max(all_lat) if all_lat else 0}
with open(args.out + ".json", "w") as f:
    json.dump(info, f, indent=1)
print(json.dumps({"transactions": info["transactions"], "tps": round(info["tps"], 1), "latency_us": info["latency_us"]}))
