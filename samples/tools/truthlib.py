"""truthlib.py - parsing shared by the ground-truth scripts of the MariaDB samples (mariadb_truth.py, matrix_truth.py).

These read the workload-side files of a capture as independent measurements: the mysqladmin counter blocks, the decoded
binlog window and the perf profile's stacks."""
import collections
import gzip
import re

FSYNC_RE = re.compile(r"\b(fsync|fdatasync|__x64_sys_fsync|__x64_sys_fdatasync|ext4_sync_file|xfs_file_fsync)\b")


def op(path):
    """Open a capture file, gzip'd or not, as text."""
    return gzip.open(path, "rt", errors="replace") if path.endswith(".gz") else open(path, errors="replace")


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
