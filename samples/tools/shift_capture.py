#!/usr/bin/env python3
"""shift_capture.py SRC DST SECONDS [--report FILE] - a copy of one collect.sh capture as if the host's clock had run
SECONDS ahead (issue 38: the pair_*_shift37 sample, to test clock-offset estimates between nodes).

Only the stamps written with THIS host's wall clock move; what carries another clock or no wall clock stays:
  moved (per file kind)
    TS lines            `TS EPOCH YYYY-MM-DD HH:MM:SS` of every /proc snapshot, smaps, threads, meminfo-start,
                        PREFIX-slave-status / -master-status / -heartbeat / -stacktrace
    timeline.txt        every epoch and `YYYY-MM-DD HH:MM:SS`, `epoch_minus_CLOCK_MONOTONIC X` (the wall clock minus
                        the monotonic one moves with the wall clock), `prefix YYYY_MM_DD_HH_MM_SS`, `--stop-datetime=`
    system-info.txt     the `### date` section: date(1)'s line, the ISO line, `epoch N`
    iostat-x-t.txt      the header's date, every `YYYY-MM-DDTHH:MM:SS+ZZZZ` line
    vmstat-t.txt        the trailing `YYYY-MM-DD HH:MM:SS` of every sample line
    pidstat-d-t-h.txt   the header's date, the leading `HH:MM:SS` of every sample line
    PREFIX-heartbeat    columns server_epoch, server_now, server_utc (this server's NOW()); the pt-heartbeat row's
                        `ts` only when its server_id is this server's (a source reading its own row)
    PREFIX-mysqladmin   `YYMMDD HH:MM:SS` inside values (Innodb_buffer_pool_load_status `... completed at ...`)
    PREFIX-slave-status MySQL's `*_Timestamp:` fields (`YYMMDD HH:MM:SS`) when present
    binlog-*-decoded    (and relay-log decodes, same format) the `#YYMMDD HH:MM:SS server id N` header and its
                        `created YYMMDD HH:MM:SS`, and `SET TIMESTAMP=N` of that event, only when N is this server's
                        server_id (from mysql-variables.tsv): a replica's binary log keeps the source's time on
                        every replicated event
    perf-*.script.txt   the header's `captured on` (ctime) and `reference time` (its date and TOD epoch)
    file names          the PREFIX stamp `YYYY_MM_DD_HH_MM_SS-` of PREFIX-* files
    paths               `iosift-HOST-YYYYmmdd_HHMMSS` (the collector's directory) wherever it is written
                        (perf's cmdline, perf-*.record.log)
    .gz files           recompressed; the gzip header's MTIME moved too when set
  kept (not this host's wall clock)
    binlog events of another server id (the source's time), row images `###` and `#Q>` text (data: the source's
    NOW(6), heartbeat.py's epochs), pt-heartbeat's `ts` of another server, perf sample times (CLOCK_MONOTONIC),
    mysqladmin counters (Uptime is a duration), mysql-threads-tNNNNs.tsv (seconds since the start)
  cannot
    what the capture would have CHOSEN with another clock: collect.sh -W picks the decoded binlog window by event
    time, so the shifted copy's window still ends where the true clock put it; date(1)'s day name is recomputed.
Writes DST (a new directory, SRC's files renamed where their name carries a stamp) and, with --report, a JSON
summary per file (kind, stamps moved, stamps kept). Exit status 2 on a usage error; never changes SRC.
"""
import argparse
import datetime as dt
import gzip
import json
import os
import re
import sys

SEC = None  # the shift, set in main()
FMT_DT = "%Y-%m-%d %H:%M:%S"


class Count:
    def __init__(self):
        self.moved = 0
        self.kept = 0


def add(d):
    return d + dt.timedelta(seconds=SEC)


def shift_epoch_text(s):
    """`1796439535.838838012` -> the same digits after the point, the whole seconds + SEC."""
    whole, dot, frac = s.partition(".")
    return "%d%s%s" % (int(whole) + SEC, dot, frac)


def sub(pattern, fn, text, c):
    def repl(m):
        c.moved += 1
        return fn(m)
    return re.sub(pattern, repl, text)


def f_datetime(m, fmt=FMT_DT):
    return add(dt.datetime.strptime(m.group(0), fmt)).strftime(fmt)


def f_hms(m):
    """HH:MM:SS of a day, wrapping at midnight."""
    h, mi, s = (int(x) for x in m.group(0).split(":"))
    t = (h * 3600 + mi * 60 + s + SEC) % 86400
    return "%02d:%02d:%02d" % (t // 3600, t // 60 % 60, t % 60)


def f_yymmdd(m, zero=False):
    """binlog / InnoDB `261205  2:58:56` (hour space-padded to two); with zero, MySQL's `*_Timestamp` fields'
    `261205 02:58:56` (zero-padded)."""
    d = add(dt.datetime.strptime(m.group(1) + " " + m.group(2).strip(), "%y%m%d %H:%M:%S"))
    return d.strftime("%y%m%d ") + (("%02d" if zero else "%2d") % d.hour) + d.strftime(":%M:%S")


RE_TS = r"^TS (\d{10}(?:\.\d+)?) (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)"
RE_DT = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"
RE_EPOCH = r"(?<![\d.])1[6-9]\d{8}(?:\.\d+)?(?![\d])"
RE_YYMMDD = r"(\d{6}) ( ?\d{1,2}:\d\d:\d\d)"
RE_DIRSTAMP = r"(iosift-[^/\s]*-)(\d{8}_\d{6})"


def ts_line(line, c):
    m = re.match(RE_TS, line)
    if not m:
        return line
    c.moved += 2
    return "TS %s %s%s" % (shift_epoch_text(m.group(1)), add(dt.datetime.strptime(m.group(2), FMT_DT)).strftime(FMT_DT),
                           line[m.end():])


def dirstamp(text, c):
    return sub(RE_DIRSTAMP, lambda m: m.group(1) + add(dt.datetime.strptime(m.group(2), "%Y%m%d_%H%M%S")).strftime(
        "%Y%m%d_%H%M%S"), text, c)


def do_ts_only(lines, c, ctx):
    out = []
    for line in lines:
        line = ts_line(line, c)
        if ctx.get("kind") == "slave-status":
            line = sub(r"(?<=_Timestamp: )" + RE_YYMMDD, lambda m: f_yymmdd(m, zero=True), line, c)
        out.append(line)
    return out


def do_timeline(lines, c, ctx):
    out = []
    for line in lines:
        line = sub(RE_DT, f_datetime, line, c)
        line = sub(r"(?<=prefix )\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d",
                   lambda m: f_datetime(m, "%Y_%m_%d_%H_%M_%S"), line, c)
        if line.startswith("epoch_minus_CLOCK_MONOTONIC "):
            line = sub(r"(?<=^epoch_minus_CLOCK_MONOTONIC )\d+\.\d+", lambda m: shift_epoch_text(m.group(0)), line, c)
        else:
            line = sub(RE_EPOCH, lambda m: shift_epoch_text(m.group(0)), line, c)
        out.append(line)
    return out


def do_system_info(lines, c, ctx):
    out, section = [], None
    for line in lines:
        if line.startswith("### "):
            section = line[4:].strip()
        elif section == "date":
            if line.startswith("epoch "):
                line = "epoch " + shift_epoch_text(line.split()[1])
                c.moved += 1
            elif re.match(r"\d{4}-\d\d-\d\dT", line):
                line = sub(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", lambda m: f_datetime(m, "%Y-%m-%dT%H:%M:%S"), line, c)
            else:
                line = ctime(line, c)
        out.append(line)
    return out


def ctime(line, c):
    """date(1) / perf's `Sat Dec  5 02:58:56 UTC 2026` or `Sat Dec  5 03:00:27 2026` (zone kept as written)."""
    m = re.search(r"[A-Z][a-z]{2} ([A-Z][a-z]{2}) +(\d{1,2}) (\d\d:\d\d:\d\d)( [A-Z]{2,5})? (\d{4})", line)
    if not m:
        return line
    d = add(dt.datetime.strptime("%s %s %s %s" % (m.group(1), m.group(2), m.group(3), m.group(5)), "%b %d %H:%M:%S %Y"))
    c.moved += 1
    new = d.strftime("%a %b ") + ("%2d" % d.day) + d.strftime(" %H:%M:%S") + (m.group(4) or "") + d.strftime(" %Y")
    return line[:m.start()] + new + line[m.end():]


def sysstat(first_re, sample):
    """A sysstat text's handler: its header's date, then SAMPLE (a line's rewrite) on every other line."""
    def handler(lines, c, ctx):
        return [header_date(line, lines, c, first_re) if i == 0 and line.startswith("Linux ") else sample(line, c)
                for i, line in enumerate(lines)]
    return handler


do_iostat = sysstat(r"^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)", lambda line, c: sub(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", lambda m: f_datetime(m, "%Y-%m-%dT%H:%M:%S"), line, c))


def header_date(line, lines, c, first_re):
    """sysstat's `Linux ... (host) \t2026-12-05 \t_x86_64_`: the date of the first sample after the shift."""
    m = re.search(r"\t(\d{4}-\d\d-\d\d) ", line)
    if not m:
        return line
    t = "00:00:00"
    for other in lines[1:]:
        f = re.match(first_re, other)
        if f:
            t = f.group(f.lastindex)
            break
    d = add(dt.datetime.strptime(m.group(1) + " " + t, FMT_DT))
    c.moved += 1
    return line[:m.start(1)] + d.strftime("%Y-%m-%d") + line[m.end(1):]


def do_vmstat(lines, c, ctx):
    return [sub(RE_DT + "$", f_datetime, line, c) for line in lines]


do_pidstat = sysstat(r"^(\d\d:\d\d:\d\d) ", lambda line, c: sub(r"^\d\d:\d\d:\d\d(?= )", f_hms, line, c))


def do_heartbeat(lines, c, ctx):
    """`server_epoch\tserver_now\tserver_utc\tts\tserver_id\t...` after each TS line."""
    out, cols = [], None
    own = ctx.get("server_id")
    for line in lines:
        if line.startswith("TS "):
            out.append(ts_line(line, c))
            continue
        f = line.split("\t")
        if "server_epoch" in f:
            cols = f
            out.append(line)
            continue
        if cols and len(f) == len(cols):
            for i, name in enumerate(cols):
                mine = name in ("server_epoch", "server_now", "server_utc") or (
                    name == "ts" and "server_id" in cols and f[cols.index("server_id")] == own)
                if not mine or f[i] in ("", "NULL"):
                    if name == "ts":
                        c.kept += 1
                    continue
                if name == "server_epoch":
                    f[i] = shift_epoch_text(f[i])
                else:
                    sep = "T" if "T" in f[i] else " "
                    whole, dot, frac = f[i].partition(".")
                    f[i] = add(dt.datetime.strptime(whole, "%Y-%m-%d" + sep + "%H:%M:%S")).strftime(
                        "%Y-%m-%d" + sep + "%H:%M:%S") + dot + frac
                c.moved += 1
            line = "\t".join(f)
        out.append(line)
    return out


def do_mysqladmin(lines, c, ctx):
    return [sub(r"(?<= at )" + RE_YYMMDD, f_yymmdd, line, c) for line in lines]


def do_binlog(lines, c, ctx):
    own = ctx.get("server_id")
    out, mine = [], False
    for line in lines:
        m = re.match(r"#" + RE_YYMMDD + r" server id (\d+) ", line)
        if m:
            mine = m.group(3) == own
            if mine:
                line = sub(r"^#" + RE_YYMMDD, lambda x: "#" + f_yymmdd(x), line, c)
                line = sub(r"(?<=created )" + RE_YYMMDD, f_yymmdd, line, c)
            else:
                c.kept += 1
        elif line.startswith("SET TIMESTAMP="):
            if mine:
                line = sub(r"(?<=^SET TIMESTAMP=)\d+(?:\.\d+)?", lambda x: shift_epoch_text(x.group(0)), line, c)
            else:
                c.kept += 1
        out.append(line)
    return out


def do_perf_script(lines, c, ctx):
    out, header = [], True
    for line in lines:
        if header and not line.startswith("#"):
            header = False
        if header:
            if line.startswith("# captured on"):
                line = ctime(line, c)
            elif line.startswith("# reference time"):
                line = sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?=\.\d+ =)", f_datetime, line, c)
                line = sub(r"(?<= = )\d+\.\d+(?= \(TOD\))", lambda m: shift_epoch_text(m.group(0)), line, c)
            line = dirstamp(line, c)
        out.append(line)
    return out


def do_paths(lines, c, ctx):
    return [dirstamp(line, c) for line in lines]


def do_copy(lines, c, ctx):
    return lines


KINDS = [  # (file name pattern, kind, handler), first match wins
    (r"timeline\.txt$", "timeline", do_timeline),
    (r"system-info\.txt$", "system-info", do_system_info),
    (r"iostat-x-t\.txt", "iostat", do_iostat),
    (r"vmstat-t\.txt", "vmstat", do_vmstat),
    (r"pidstat-.*\.txt", "pidstat", do_pidstat),
    (r"-heartbeat(\.gz)?$", "heartbeat", do_heartbeat),
    (r"-mysqladmin(\.gz)?$", "mysqladmin", do_mysqladmin),
    (r"-slave-status(\.gz)?$", "slave-status", do_ts_only),
    (r"(binlog|relay).*-decoded\.txt", "binlog", do_binlog),
    (r"perf-.*\.script\.txt", "perf-script", do_perf_script),
    (r"perf-.*\.record\.log$", "paths", do_paths),
    (r"(-diskstats|-meminfo|-procvmstat|-pressure-io|-master-status|-stacktrace)(\.gz)?$", "ts", do_ts_only),
    (r"^(meminfo-start|smaps-|smaps_rollup-|threads-)", "ts", do_ts_only),
    (r"", "unchanged", do_copy),
]
RE_PREFIX = r"^(\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d)-"


def new_name(name):
    m = re.match(RE_PREFIX, name)
    if not m:
        return name
    return add(dt.datetime.strptime(m.group(1), "%Y_%m_%d_%H_%M_%S")).strftime("%Y_%m_%d_%H_%M_%S") + name[m.end(1):]


def server_id(src):
    p = os.path.join(src, "mysql-variables.tsv")
    if os.path.exists(p):
        for line in open(p, errors="replace"):
            f = line.rstrip("\n").split("\t")
            if len(f) == 2 and f[0] == "server_id":
                return f[1]
    return None


def shift_file(src, dst, ctx):
    name = os.path.basename(src)
    kind, fn = next((k, f) for pat, k, f in KINDS if re.search(pat, name))
    gz = name.endswith(".gz")
    c = Count()
    if kind == "unchanged":
        with open(src, "rb") as f, open(dst, "wb") as g:
            g.write(f.read())
        return kind, c
    raw = open(src, "rb").read()
    mtime = int.from_bytes(raw[4:8], "little") if gz else 0
    text = (gzip.decompress(raw) if gz else raw).decode("utf-8", errors="surrogateescape")
    lines = text.split("\n")
    out = "\n".join(fn(lines, c, dict(ctx, kind=kind))).encode("utf-8", errors="surrogateescape")
    if gz:
        with open(dst, "wb") as g, gzip.GzipFile(filename="", mode="wb", fileobj=g, compresslevel=9,
                                                 mtime=mtime + SEC if mtime else 0) as z:
            z.write(out)
    else:
        with open(dst, "wb") as g:
            g.write(out)
    return kind, c


def main():
    global SEC
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("seconds", type=int)
    ap.add_argument("--report")
    a = ap.parse_args()
    SEC = a.seconds
    if os.path.exists(a.dst):
        print("shift_capture.py: %s exists" % a.dst, file=sys.stderr)
        sys.exit(2)
    os.makedirs(a.dst)
    ctx = {"server_id": server_id(a.src)}
    report = {"seconds": SEC, "server_id": ctx["server_id"], "files": {}}
    for name in sorted(os.listdir(a.src)):
        s = os.path.join(a.src, name)
        if not os.path.isfile(s):
            continue
        kind, c = shift_file(s, os.path.join(a.dst, new_name(name)), ctx)
        report["files"][name] = {"to": new_name(name), "kind": kind, "moved": c.moved, "kept": c.kept}
    if a.report:
        with open(a.report, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    print("shifted %d files by %+d s: %d stamps moved, %d kept" % (
        len(report["files"]), SEC, sum(v["moved"] for v in report["files"].values()),
        sum(v["kept"] for v in report["files"].values())))


if __name__ == "__main__":
    main()
