//! `samples/pair_link_shaped_shift37/capture/replica` is `pair_link_shaped/capture/replica` as if the replica's clock
//! had run 37 s ahead (`samples/tools/shift_capture.py`). Per file, with a stamp scanner of its own: the same lines,
//! each line the same once its stamps are taken out, and every stamp moved by exactly +37 s, except the stamps that
//! carry another clock (the source's binlog events and row images, pt-heartbeat's `ts`), which stay; and the
//! primary's capture is untouched.

use super::{samples, text};
use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use std::path::Path;

const SHIFT: i64 = 37;

/// One stamp found in a line: its value in seconds (a time of day: seconds since midnight) and whether it is a time
/// of day only (compared modulo a day).
#[derive(Debug, Clone, Copy)]
struct Stamp {
    secs: i64,
    day_only: bool,
}

fn digits(b: &[u8], i: usize, n: usize) -> Option<i64> {
    let s = b.get(i..i + n)?;
    s.iter().all(u8::is_ascii_digit).then(|| std::str::from_utf8(s).unwrap().parse().unwrap())
}

fn civil(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> Option<i64> {
    let date = NaiveDate::from_ymd_opt(y as i32, mo as u32, d as u32)?;
    let t = NaiveTime::from_hms_opt(h as u32, mi as u32, s as u32)?;
    Some(NaiveDateTime::new(date, t).and_utc().timestamp())
}

/// A stamp starting at byte `i` (not preceded by a letter or digit): its length and value. Forms:
/// `2026-12-06 03:01:43` / `2026-12-06T03:01:43`, `2026_12_06_03_01_43`, `20261206_030143`, binlog's
/// `261206  3:01:43`, a time of day `03:01:43`, an epoch `1796526103` (2023-2030).
fn stamp_at(b: &[u8], i: usize) -> Option<(usize, Stamp)> {
    let sep = |j: usize, c: &[u8]| b.get(j).is_some_and(|x| c.contains(x));
    let full = |len, v: Option<i64>| v.map(|secs| (len, Stamp { secs, day_only: false }));
    let hms = |j: usize| Some((digits(b, j, 2)?, digits(b, j + 3, 2)?, digits(b, j + 6, 2)?));
    if let (Some(y), Some(mo), Some(d)) = (digits(b, i, 4), digits(b, i + 5, 2), digits(b, i + 8, 2)) {
        let dashed = sep(i + 4, b"-")
            && sep(i + 7, b"-")
            && sep(i + 10, b" T")
            && sep(i + 13, b":")
            && sep(i + 16, b":");
        if dashed || (0..5).all(|k| sep(i + 4 + 3 * k, b"_")) {
            let (h, mi, s) = hms(i + 11)?;
            return full(19, civil(y, mo, d, h, mi, s));
        }
    }
    if let (Some(ymd), Some(t)) = (digits(b, i, 8), digits(b, i + 9, 6))
        && sep(i + 8, b"_")
    {
        return full(15, civil(ymd / 10000, ymd / 100 % 100, ymd % 100, t / 10000, t / 100 % 100, t % 100));
    }
    if let Some(ymd) = digits(b, i, 6).filter(|_| sep(i + 6, b" ")) {
        let mut j = i + 7;
        while sep(j, b" ") {
            j += 1;
        }
        // the hour space-padded to two: `261206  3:01:43`
        let hl = if sep(j + 1, b":") { 1 } else { 2 };
        if let (Some(h), Some(mi), Some(s)) =
            (digits(b, j, hl), digits(b, j + hl + 1, 2), digits(b, j + hl + 4, 2))
            && sep(j + hl, b":")
            && sep(j + hl + 3, b":")
        {
            return full(j + hl + 6 - i, civil(2000 + ymd / 10000, ymd / 100 % 100, ymd % 100, h, mi, s));
        }
    }
    if let Some((h, mi, s)) = hms(i)
        && sep(i + 2, b":")
        && sep(i + 5, b":")
        && !b.get(i + 8).is_some_and(u8::is_ascii_digit)
    {
        return Some((8, Stamp { secs: h * 3600 + mi * 60 + s, day_only: true }));
    }
    let e = digits(b, i, 10).filter(|e| (1_670_000_000..1_900_000_000).contains(e))?;
    let bounded = !(b.get(i + 10).is_some_and(u8::is_ascii_digit) || i > 0 && b[i - 1] == b'.');
    bounded.then_some((10, Stamp { secs: e, day_only: false }))
}

/// A line's stamps and its skeleton (the line with each stamp replaced by `\u{1}`).
fn scan(line: &str) -> (String, Vec<Stamp>) {
    let b = line.as_bytes();
    let (mut skel, mut stamps, mut i, mut from) = (Vec::new(), Vec::new(), 0, 0);
    while i < b.len() {
        let boundary = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if boundary
            && b[i].is_ascii_digit()
            && let Some((len, st)) = stamp_at(b, i)
        {
            skel.extend_from_slice(&b[from..i]);
            skel.push(1);
            stamps.push(st);
            i += len;
            from = i;
            continue;
        }
        i += 1;
    }
    skel.extend_from_slice(&b[from..]);
    (String::from_utf8_lossy(&skel).into_owned(), stamps)
}

/// Whether a stamp that did not move is one of another clock's: binlog events of another server id and row images,
/// the pt-heartbeat row's `ts` (`2026-12-06T03:01:43.000760`, the 4th column).
fn other_clock(file: &str, line: &str, foreign_event: bool, k: usize) -> bool {
    if file.contains("-decoded.txt") {
        return foreign_event || line.starts_with("###") || line.starts_with("#Q>");
    }
    file.contains("-heartbeat")
        && !line.starts_with("TS ")
        && line.split('\t').nth(3).is_some_and(|c| c.contains('T'))
        && k == 3
}

/// Compares one file and its shifted copy; returns how many stamps moved and how many stayed.
fn compare(file: &str, own_server_id: &str, a: &str, b: &str) -> (usize, usize) {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    assert_eq!(la.len(), lb.len(), "{file}: line count");
    let (mut moved, mut kept, mut foreign) = (0, 0, false);
    for (n, (x, y)) in la.iter().zip(&lb).enumerate() {
        if let Some(id) = x.split(" server id ").nth(1).filter(|_| x.starts_with('#')) {
            foreign = id.split(' ').next() != Some(own_server_id);
        }
        let ((sx, tx), (sy, ty)) = (scan(x), scan(y));
        assert_eq!(sx, sy, "{file}:{}: only stamps may change:\n{x}\n{y}", n + 1);
        for (k, (p, q)) in tx.iter().zip(&ty).enumerate() {
            let d = if p.day_only { (q.secs - p.secs).rem_euclid(86_400) } else { q.secs - p.secs };
            if d == SHIFT {
                moved += 1;
            } else {
                assert!(
                    d == 0 && other_clock(file, x, foreign, k),
                    "{file}:{}: stamp {k} moved by {d} s, not {SHIFT} (and is not another clock's):\n{x}\n{y}",
                    n + 1
                );
                kept += 1;
            }
        }
    }
    (moved, kept)
}

/// The shifted name of a `2026_12_06_03_01_43-...` file.
fn shifted_name(name: &str) -> String {
    let (head, rest) = name.split_at(name.len().min(19));
    match NaiveDateTime::parse_from_str(head, "%Y_%m_%d_%H_%M_%S") {
        Ok(t) => format!("{}{rest}", (t + chrono::Duration::seconds(SHIFT)).format("%Y_%m_%d_%H_%M_%S")),
        Err(_) => name.to_string(),
    }
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn the_shifted_copy_moves_every_stamp_of_the_replica_by_37_s_and_nothing_else() {
    let (orig, copy) =
        (samples().join("pair_link_shaped/capture"), samples().join("pair_link_shaped_shift37/capture"));
    let (ra, rb) = (orig.join("replica"), copy.join("replica"));
    let mut want: Vec<String> = files(&ra).iter().map(|n| shifted_name(n)).collect();
    want.sort();
    assert_eq!(want, files(&rb), "the copy has the same files, PREFIX-* renamed by +{SHIFT} s");
    let vars = text(&ra.join("mysql-variables.tsv"));
    let own = vars.lines().find_map(|l| l.strip_prefix("server_id\t")).expect("server_id").to_string();
    let (mut moved, mut kept) = (0, 0);
    for name in files(&ra) {
        let (m, k) = compare(&name, &own, &text(&ra.join(&name)), &text(&rb.join(shifted_name(&name))));
        let stamped = [
            "-diskstats",
            "-slave-status",
            "-heartbeat",
            "timeline",
            "iostat",
            "vmstat",
            "pidstat",
            "system-info",
        ];
        if stamped.iter().any(|s| name.contains(s)) {
            assert!(m > 0, "{name}: no stamp moved");
        }
        moved += m;
        kept += k;
    }
    assert!(moved > 1000 && kept > 0, "stamps moved {moved}, kept {kept}");
    for name in files(&orig.join("primary")) {
        let (a, b) = (
            std::fs::read(orig.join("primary").join(&name)).unwrap(),
            std::fs::read(copy.join("primary").join(&name)),
        );
        assert_eq!(Some(a), b.ok(), "primary/{name} is the original's");
    }
}

#[test]
fn the_scanner_reads_each_form() {
    let (skel, st) =
        scan("TS 1796526103.692916306 2026-12-06 03:01:43 #261206  3:01:43 server id 1 at 03:01:43");
    assert_eq!(skel, "TS \u{1}.692916306 \u{1} #\u{1} server id 1 at \u{1}");
    assert_eq!(st.len(), 4);
    assert_eq!(st[0].secs, st[1].secs);
    assert_eq!(st[1].secs, st[2].secs);
    assert_eq!(st[3].secs, 3 * 3600 + 60 + 43);
    let (skel, st) =
        scan("ffffffff81bcf81c 13122.159749: iosift-vm-20261206_030143/x 2026_12_06_03_01_43-meminfo");
    assert_eq!(skel, "ffffffff81bcf81c 13122.159749: iosift-vm-\u{1}/x \u{1}-meminfo");
    assert_eq!(st[0].secs, st[1].secs);
}

/// The formats the real samples do not exercise (hand-written in `tests/fixtures/shift_capture`): this server's own
/// binlog and relay-log events move (across midnight too) and the source's stay, MySQL's zero-padded
/// `Last_IO_Error_Timestamp` moves in its own layout, a pt-heartbeat row of this server moves whole.
#[test]
fn the_tool_moves_own_events_and_keeps_the_sources_in_hand_written_formats() {
    let python = std::path::Path::new("/usr/bin/python3");
    if !python.exists() {
        crate::common::support::skip("/usr/bin/python3 not found: shift_capture.py not run");
        return;
    }
    let fixture = samples().join("../tests/fixtures/shift_capture");
    let out = tempfile::tempdir().unwrap();
    let dst = out.path().join("shifted");
    let run = std::process::Command::new(python)
        .arg(samples().join("tools/shift_capture.py"))
        .args([fixture.as_os_str(), dst.as_os_str(), "37".as_ref()])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let want = [
        ("2026_12_06_03_01_43-heartbeat", 6, 0),
        ("2026_12_06_03_01_43-slave-status", 3, 0),
        ("README.md", 0, 0),
        ("binlog-replica-bin.000009-decoded.txt", 6, 9),
        ("mysql-variables.tsv", 0, 0),
        ("replica-relay-bin.000003-decoded.txt", 2, 3),
    ];
    assert_eq!(files(&fixture), want.iter().map(|w| w.0.to_string()).collect::<Vec<_>>());
    for (name, moved, kept) in want {
        let got = compare(name, "2", &text(&fixture.join(name)), &text(&dst.join(shifted_name(name))));
        assert_eq!(got, (moved, kept), "{name}: stamps (moved, kept)");
    }
    let binlog = text(&dst.join("binlog-replica-bin.000009-decoded.txt"));
    assert!(
        binlog.contains("#261207  0:00:17 server id 2 ") && binlog.contains("created 261207  0:00:17 at"),
        "{binlog}"
    );
    assert!(
        binlog.contains("#261206 10:00:23 server id 2 ")
            && binlog.contains("SET TIMESTAMP=1796551223.123456/*!*/;")
    );
    let status = text(&dst.join("2026_12_06_03_02_20-slave-status"));
    assert!(status.contains("Last_IO_Error_Timestamp: 261206 10:00:36\n"), "{status}");
}
