"""truthlib.py - parsing shared by the ground-truth scripts of the MariaDB samples (mariadb_truth.py, matrix_truth.py).

These read the workload-side files of a capture as independent measurements: the mysqladmin counter blocks, the decoded
binlog window and the perf profile's stacks; and the sample builder's own process snapshots (foreign activity)."""
import collections
import gzip
import re

FSYNC_RE = re.compile(r"\b(fsync|fdatasync|__x64_sys_fsync|__x64_sys_fdatasync|ext4_sync_file|xfs_file_fsync)\b")


def op(path):
    """Open a capture file, gzip'd or not, as text."""
    return gzip.open(path, "rt", errors="replace") if path.endswith(".gz") else open(path, errors="replace")


def slope(points):
    """Least-squares slope of [(x, y)], None for fewer than two points or one x."""
    n = len(points)
    if n < 2:
        return None
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    return sum((p[0] - mx) * (p[1] - my) for p in points) / sxx if sxx > 0 else None


def source_time(snapshots, file, pos):
    """When a source's binary log reached FILE:POS: snapshots [(epoch, file, pos)] of its SHOW MASTER STATUS in time
    order, interpolated between the two around POS; None when it never got there."""
    prev = None
    for e, f, p in snapshots:
        if f == file and p >= pos:
            if prev is None or prev[1] != file or p == prev[2]:
                return e
            return prev[0] + (e - prev[0]) * (pos - prev[2]) / (p - prev[2])
        prev = (e, f, p)
    return None


def mysqladmin_delta(path):
    """`mysqladmin ext -i1` blocks of `| name | value |` -> a function giving last - first of a counter (None if absent)."""
    blocks, cur = [], {}
    for line in op(path):
        m = re.match(r"\|\s*(\w+)\s*\|\s*(\S*)\s*\|", line)
        if m:
            if m.group(1) == "Variable_name":
                if cur:
                    blocks.append(cur)
                cur = {}
            else:
                cur[m.group(1)] = m.group(2)
    if cur:
        blocks.append(cur)

    def delta(k):
        try:
            return int(blocks[-1][k]) - int(blocks[0][k])
        except (KeyError, ValueError, IndexError):
            return None
    return delta


def binlog_transactions(paths):
    """Decoded binlog files (`mariadb-binlog -vv`) -> (bytes of every transaction from its GTID event to the end of its
    last event, transactions per header second, distinct commit ids)."""
    trx_bytes, per_sec, cids = [], collections.Counter(), set()
    hdr_re = re.compile(r"^#(\d{6})\s+(\d{1,2}:\d\d:\d\d) server id \d+\s+end_log_pos (\d+)\s.*?\t(\w+)(.*)$")
    for path in paths:
        start = last_end = at = None
        for line in op(path):
            if line.startswith("# at "):
                at = int(line[5:])
                continue
            m = hdr_re.match(line)
            if not m:
                continue
            end, kind, rest = int(m.group(3)), m.group(4), m.group(5)
            if kind == "GTID":
                if start is not None and last_end is not None:
                    trx_bytes.append(last_end - start)
                start = at
                per_sec[m.group(1) + " " + m.group(2)] += 1
                c = re.search(r"cid=(\d+)", rest)
                if c:
                    cids.add(c.group(1))
            last_end = end
        if start is not None and last_end is not None:
            trx_bytes.append(last_end - start)
    return trx_bytes, per_sec, cids


def perf_fsync_share(path, comm="mariadbd"):
    """perf script of the profile -> (samples of COMM, samples of COMM with fsync/fdatasync on the stack)."""
    samples = fs = 0
    in_comm, stack = False, []
    for line in op(path):
        if line.startswith("#"):
            continue
        if not line.strip():
            if in_comm:
                samples += 1
                fs += any(FSYNC_RE.search(s) for s in stack)
            in_comm, stack = False, []
        elif not line.startswith("\t"):
            in_comm = bool(line.split()) and line.split()[0] == comm
        else:
            stack.append(line)
    return samples, fs


def ps_foreign(path):
    """truth/ps-snapshots.txt (`ps -eLo pid,tid,pcpu,comm` every 10 s) -> (Counter of commands seen at >= 5 % CPU, by
    number of snapshots; set of MariaDB/MySQL server command lines seen)."""
    top, servers = collections.Counter(), set()
    for line in open(path):
        p = line.split()
        if len(p) >= 4 and p[0].isdigit() and p[1].isdigit():
            try:
                if float(p[2]) >= 5:
                    top[re.sub(r"[-/:].*", "", " ".join(p[3:]))] += 1
            except ValueError:
                pass
        elif len(p) >= 3 and p[1] in ("mariadbd", "mysqld") and "--defaults-file" in line:
            servers.add(" ".join(p[2:]))
    return top, servers


def perf_stack_marks(path, marks):
    """perf script of the profile -> {comm: Counter(samples=N, MARK=samples with MARK on the stack)} for every comm.
    A mark is a whole function name: `balance_dirty_pages` does not match `balance_dirty_pages_ratelimited_flags`."""
    out = collections.defaultdict(collections.Counter)
    rx = {m: re.compile(r"\s%s\+0x" % re.escape(m)) for m in marks}
    comm, stack = None, []
    for line in op(path):
        if line.startswith("#"):
            continue
        if not line.strip():
            if comm is not None:
                out[comm]["samples"] += 1
                for m in marks:
                    out[comm][m] += any(rx[m].search(s) for s in stack)
            comm, stack = None, []
        elif not line.startswith("\t"):
            m = re.match(r"^\s*(.+?)\s+\d+/\d+\s", line)
            comm = m.group(1) if m else None
        else:
            stack.append(line)
    return out


def readme_tail(t, tr, shared):
    """The last sections of a case README (matrix_readme.py, ix_readme.py): the foreign activity seen in
    truth/ps-snapshots.txt (SHARED: the sentence on the VM's other tenants), the hand-written conclusion and the
    expectations of truth.json."""
    top, servers = ps_foreign(tr + "ps-snapshots.txt")
    out = ["", "## Foreign activity (truth/ps-snapshots.txt)",
           "- Processes >= 5 %% CPU in the 10 s snapshots (count of snapshots): %s." % ", ".join("`%s` %d" % kv for kv in top.most_common(10))]
    others = sorted(s for s in servers if "iosift_mx" not in s)
    if others:
        out.append("- Other helpers' MariaDB servers running during the capture (not this case's): %s." % ", ".join("`%s`" % s for s in others))
    out.append("- " + shared)
    out += ["- %s" % n for n in t.get("foreign_notes", [])]
    out += ["", "## What a correct analysis concludes", t.get("conclusion", ""), "",
            "Expected (truth.json): fire %s; not fire %s." % (", ".join("`%s`" % x for x in t["expect_fire"]) or "nothing",
                                                            ", ".join("`%s`" % x for x in t["expect_not_fire"]))]
    return out
