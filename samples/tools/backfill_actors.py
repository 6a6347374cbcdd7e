#!/usr/bin/env python3
"""backfill_actors.py [--check] - add the issue-34 actor fields to the truth.json of the samples made before it.

For every existing real sample whose workload is known (samples/mx_*, mh_*, mmap_*, buffered_copy, psi_fsync_copy,
mariadb_*, replica_*, pt_stalk_mariadb) this adds (contract: ../../docs or the lead's contract34.md):
  writers    the comms that dirtied (buffered) or submitted (direct) the data of the case's main write episodes;
  issuers    [{"class", "comm"}]: who issued those episodes' block writes and why;
  witnesses  {"perf", "trace", "pidstat", "meminfo", "iostat"}: which witnesses the capture/ directory holds;
  actors_source  where the writers/issuers come from (the case's own truth.json / README statements, quoted briefly).
Nothing else changes: expectations, "half" (including "heldout") and every measured field stay; `period_s` is kept
where truth.json already has one (the mmap cases' measured burst period) and not invented elsewhere.
The classes follow what each case's truth.json and README already establish (the writeback_start reasons its trace
recorded, the throttling measured from dd's wchan, the durability settings); where a case's README does not establish
the issuer (relaxed MariaDB without a measured burst, the relaxed replicas) only `writers` is added.
A loop device's worker that re-issues the upper device's writes (stacked_reissue) is never listed as an issuer of the
main episodes: the issuer is whoever issued them on the upper device.
--check: print what would change, write nothing.  Re-running is idempotent."""
import glob
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
KW = "kworker"


def iss(*pairs):
    return [{"class": c, "comm": m} for c, m in pairs]


# case -> (writers, issuers or None, source); the generic rules below cover the rest
OVERRIDES = {
    "buffered_copy": (["dd"], iss(("writeback_age", KW)),
                      "truth.json: background_threshold_reached false, every writeback_start after dd started reason=periodic"),
    "psi_fsync_copy": (["dd"], iss(("application_flush", "dd"), ("direct_io", "dd")),
                       "truth.json workload: dd conv=fsync (dd's own fsync issues the buffered copy), then dd oflag=direct"),
    "mh_ext4_copy_expire3000_ddirect": (["dd"], iss(("writeback_age", KW), ("writeback_background", KW)),
                                        "conclusion: ~360 MiB by reason=background as Dirty crossed the threshold at dd's exit, "
                                        "the bulk ~2.14 GiB 43 s later by the flusher (trace: periodic 80, background 17)"),
    "mx_ext4_loop_copy_expire1500": (["dd"], iss(("writeback_age", KW)),
                                     "conclusion: absorbed below the background threshold, written by the flusher from 15 s "
                                     "(dirty_expire 1500) after the dirtying"),
    "mx_xfs_loop_copy_expire4500": (["dd"], iss(("writeback_age", KW), ("writeback_background", KW)),
                                    "conclusion: the bulk 1,070 MB 47 s after dd started (dirty_expire 4500 + wake-up), "
                                    "~250 MB early by reason=background (the new device's share)"),
    "mh_ext4_loop_copy_expire4500_noperf": (["dd"], iss(("writeback_age", KW)),
                                            "conclusion: ~1.45 GB in one second 57 s after dd began (dirty_expire 4500 + "
                                            "wake-ups); no trace in the capture"),
    "mx_xfs_loop_copy_noperf": (["dd"], iss(("writeback_background", KW), ("writeback_age", KW)),
                                "conclusion and loop0's diskstats: ~290 MB every 5-6 s while dd ran (the device's share of "
                                "the background threshold), ~0.93 GB 33 s after dd started (dirty_expire 3000); no trace"),
    "mariadb_fsync_durable": (["mariadbd"], iss(("application_flush", "mariadbd")),
                              "truth.json: sync_binlog=1, innodb_flush_log_at_trx_commit=1, fsync_bound"),
    "pt_stalk_mariadb": (["mariadbd"], iss(("application_flush", "mariadbd")),
                         "README: sync_binlog=1 and trx_commit=1, fsync_bound_small_transactions expected"),
    "mariadb_relaxed": (["mariadbd"], None,
                        "truth.json: sync_binlog=0, trx_commit=2; README: no periodic writeback bursts (issuer not established)"),
    "replica_io_bound": (["mariadbd"], iss(("application_flush", "mariadbd")),
                         "truth.json: the replica with sync_binlog=1, trx_commit=1, sync_relay_log=1 (a flush per event)"),
    "replica_sql_bound": (["mariadbd"], None, "truth.json: relaxed replica, bound by its SQL thread (issuer not established)"),
    "replica_keeps_up": (["mariadbd"], None, "truth.json: relaxed replica keeping up (issuer not established)"),
}
SKIP = {"sar_mariadb", "ext4_dioread_nolock_derived", "ext4_dioread_nolock_derived_fixed_kernel"}


def witnesses(cap):
    def has(*pats):
        return any(glob.glob(os.path.join(cap, p)) for p in pats)
    return {"perf": has("perf-profile.script.txt*"), "trace": has("perf-trace.script.txt*"),
            "pidstat": has("pidstat-d-t-h.txt*", "*pidstat*"), "meminfo": has("*meminfo*"), "iostat": has("iostat-x-t.txt*", "*-iostat*")}


def actors(name, t):
    if name in OVERRIDES:
        return OVERRIDES[name]
    sc = t.get("scenario", {})
    work = sc.get("work") or ("mmap" if name.startswith("mmap_") else None)
    if work == "mmap":
        w = t.get("writer") if isinstance(t.get("writer"), dict) else {}
        names = w.get("thread_names") or t.get("writer_thread_names")
        return (names, iss(("writeback_age", KW)),
                "mmap_store threads dirty the mapping, never msync/fsync; the file's bursts are the flusher's "
                "(writeback_start reasons %s)" % (t.get("writeback_start_reasons") or "not in the capture"))
    if work == "copy":
        if t.get("throttled"):
            return (["dd"], iss(("writer_throttled", "dd"), ("writeback_background", KW)),
                    "truth.json: throttled true (dd's wchan in balance_dirty_pages), dirty_bytes=%s" % sc.get("dirty_bytes"))
        if int(sc.get("dirty_bytes", 0)) > 0:
            return (["dd"], iss(("writeback_background", KW)),
                    "truth.json: dirty_bytes=%s (background at half), not throttled: background writeback keeps pace" % sc["dirty_bytes"])
    if work == "db":
        if sc.get("durable") == "1":
            return (["mariadbd"], iss(("application_flush", "mariadbd")),
                    "truth.json: sync_binlog=1, innodb_flush_log_at_trx_commit=1 (fsync per group commit)")
        return (["mariadbd"], iss(("writeback_age", KW)),
                "truth.json conclusion: sync_binlog=0, trx_commit=2; the buffered binlog is flushed in periodic writeback "
                "bursts ~31 s apart (the redo log is O_DIRECT per commit: a steady stream, not the bursts)")
    return None


def main():
    check = "--check" in sys.argv
    done, left = [], []
    for path in sorted(glob.glob(os.path.join(ROOT, "*", "truth.json"))):
        name = os.path.basename(os.path.dirname(path))
        if name.startswith("ix_") or name in SKIP:
            continue
        t = json.load(open(path))
        a = actors(name, t)
        if a is None:
            left.append(name)
            continue
        writers, issuers, source = a
        new = dict(t)
        new["writers"] = writers
        if issuers is not None:
            new["issuers"] = issuers
        new["witnesses"] = witnesses(os.path.join(os.path.dirname(path), "capture"))
        new["actors_source"] = "backfilled by tools/backfill_actors.py from " + source
        assert all(new[k] == t[k] for k in t if k not in ("writers", "issuers", "witnesses", "actors_source")), name
        if new != t:
            done.append("%s: writers %s, issuers %s, witnesses %s" % (
                name, writers, [(i["class"], i["comm"]) for i in issuers] if issuers else "-",
                "".join(k[0] if v else "-" for k, v in new["witnesses"].items())))
            if not check:
                nl = "\n" if open(path).read().endswith("\n") else ""  # keep the file's own last line ending
                open(path, "w").write(json.dumps(new, indent=1) + nl)
    print("\n".join(done))
    if left:
        print("not backfilled (workload not known): " + ", ".join(left))


if __name__ == "__main__":
    main()
