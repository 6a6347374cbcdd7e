//! `pidstat` text reports (sysstat 9.x … 12.7.x), any locale, FORMATS.md §2.
//!
//! A real sample (`pidstat -d -t -h 1 30`, sysstat 12.6.1, bundle s1; `⇥` = TAB):
//!
//! ```text
//! Linux 6.18.44-fc-v669 (vm) ⇥11/29/26 ⇥_x86_64_⇥(2 CPU)
//!
//! # Time        UID      TGID       TID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command
//! 19:37:31        0     15545         -      0.00   3996.00      0.00       0  gcache_sim
//! 19:37:31        0         -     15574      0.00   1996.00      0.00       0  |__gcache-w0
//! ```
//!
//! and the default layout (`LC_ALL=de_DE.UTF-8 pidstat -d 1 30`, bundle s4), where the
//! header carries the **previous** sample time and the rows the current one:
//!
//! ```text
//! 19:52:40      UID       PID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command
//! 19:52:41        0      1658      0,00    650,51      0,00       0  rustc
//!
//! Durchschn.:     0     31837     46,32   2453,24    813,04       0  cargo
//! ```
//!
//! What the parser handles:
//! * every activity table (`-d -u -r -s -w -v -R -T CHILD`), several per interval, or all
//!   activities in one line with `-h` (old `#      Time` + right-aligned epoch, new `# Time`);
//! * the ID columns `UID`/`USER` then `PID` or `TGID TID` (`-t`: process rows `TGID -`,
//!   thread rows `- TID` with `|__name`, `TGID TID` with `(leader)__name` when the leader
//!   was not shown);
//! * times `12:53:20`, `07:33:00 PM`, `19時33分02秒`, `20시 56분 11초`, epoch (`-H`), and the
//!   translated `Average:` labels (`Durchschn.:`, `Moyenne :`, `平均値:`, …);
//! * decimal comma, `--human` suffixes, ANSI colours (`S_COLORS=always`), CRLF,
//!   concatenated runs (a new banner), a truncated last line, `-1.00` for unreadable
//!   `/proc/PID/io` (kept as `None`), commands with spaces (`-l`, `|__dconf worker`);
//! * `date` lines between appended runs (`2025-10-23 13:55:24`, kept in [`Pidstat::date_lines`]).
//!
//! Rows of different tables are not merged: a `-u -d` capture gives one [`Row`] per task per
//! table; [`Row::table`] tells which header a row belongs to.

use crate::common::names::Names;
use crate::common::scrub::Identifiers;
use crate::common::sysstat::{average_label_len, parse_banner, parse_time_of_day};
use crate::common::time::{hms, parse_date_line};
use crate::common::{
    DiagKind, Diags, Format, LineSource, Parsed, SliceSource, Sniff, SourceLine, Stamp, Summary, Variant,
    lines::strip_ansi,
};
use std::borrow::Cow;

pub mod budget;
pub mod drained;
pub mod json;
pub mod pieces;
mod types;

pub(crate) use types::io_rate;
pub use types::{Drained, IoValues, Layout, Pidstat, Row, Samples, Table};

/// What a header column maps to.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Col {
    KbRd,
    KbWr,
    KbCcwr,
    Iodelay,
    Policy,
    Other(usize),
}

/// The header currently in force.
#[derive(Debug, Clone, Default)]
struct Current {
    table: usize,
    prev: Option<Stamp>,
    user: bool,
    threads: bool,
    cols: Vec<Col>,
    names: Vec<String>,
    command: bool,
}

/// ASCII-whitespace token offsets of `s` into `out` (start, end).
fn split_ws(s: &str, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let start = i;
        while i < b.len() && b[i] != b' ' && b[i] != b'\t' {
            i += 1;
        }
        out.push((start, i));
    }
}

const POW10: [f64; 10] = [1.0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/// The shapes pidstat prints almost always (`3996.00`, `0,00`, `-1.00`, `12`), read
/// without `str::parse`: at most 15 digits and 9 decimals, so `mantissa / 10^k` is one
/// correctly rounded division and equals what `str::parse::<f64>` returns. `None` means
/// "not this shape" (the caller falls back to the general path), never "not a number".
#[inline]
fn fast_num(b: &[u8]) -> Option<f64> {
    let (neg, digits) = match b.first()? {
        b'-' => (true, b.get(1..)?),
        _ => (false, b),
    };
    let mut mant: u64 = 0;
    let mut dot = usize::MAX;
    for (k, &c) in digits.iter().enumerate() {
        let d = c.wrapping_sub(b'0');
        if d < 10 {
            mant = mant.wrapping_mul(10).wrapping_add(u64::from(d));
        } else if (c == b'.' || c == b',') && dot == usize::MAX {
            dot = k;
        } else {
            return None;
        }
    }
    let (nd, f) = match dot {
        usize::MAX => (digits.len(), 0),
        d => (digits.len() - 1, digits.len() - 1 - d),
    };
    if nd == 0 || nd > 15 || f >= POW10.len() {
        return None;
    }
    let v = mant as f64 / POW10[f];
    Some(if neg { -v } else { v })
}

/// A float as sysstat prints it: `12.34`, `12,34`, `-1.00`, `--human` `2,2M` / `0.0B` / `8.9%`.
pub(crate) fn num(tok: &str) -> Option<f64> {
    if let Some(v) = fast_num(tok.as_bytes()) {
        return Some(v);
    }
    let b = tok.as_bytes();
    match b.first()? {
        b'0'..=b'9' | b'-' | b'+' | b'.' => {}
        _ => return None,
    }
    if let Ok(v) = tok.parse::<f64>() {
        return v.is_finite().then_some(v);
    }
    let (body, mult) = match b.last()? {
        b'%' | b'B' => (&tok[..tok.len() - 1], 1.0),
        b'k' | b'K' => (&tok[..tok.len() - 1], 1024.0),
        b'M' => (&tok[..tok.len() - 1], 1048576.0),
        b'G' => (&tok[..tok.len() - 1], 1073741824.0),
        b'T' => (&tok[..tok.len() - 1], 1099511627776.0),
        b'P' => (&tok[..tok.len() - 1], 1125899906842624.0),
        _ => (tok, 1.0),
    };
    let v = match body.parse::<f64>() {
        Ok(v) => v,
        Err(_) => comma(body)?,
    };
    let v = v * mult;
    v.is_finite().then_some(v)
}

/// Parses `12,34` (one decimal comma) without allocating.
fn comma(tok: &str) -> Option<f64> {
    let b = tok.as_bytes();
    if b.len() > 48 || b.iter().filter(|&&c| c == b',').count() != 1 || b.contains(&b'.') {
        return None;
    }
    let mut buf = [0u8; 48];
    for (d, s) in buf.iter_mut().zip(b) {
        *d = if *s == b',' { b'.' } else { *s };
    }
    let s = std::str::from_utf8(buf.get(..b.len())?).ok()?;
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Length of a leading average label: the known translations, plus labels with a
/// non-ASCII space before the colon (fr_FR glibc-era `.po`: `Moyenne\u{202f}:`, a narrow
/// no-break space, seen in `fr_FR_d.txt`).
fn avg_len(text: &str) -> Option<usize> {
    if let Some(n) = average_label_len(text) {
        return Some(n);
    }
    let colon = text.find(':')?;
    let label = text.get(..colon)?;
    if colon == 0 || colon > 48 || !label.chars().next()?.is_alphabetic() {
        return None;
    }
    label.chars().all(|c| c.is_alphabetic() || c == '.' || c == '-' || c.is_whitespace()).then_some(colon + 1)
}

/// The time at the start of a row or header, and how many tokens it used.
fn lead_time(toks: &[&str]) -> Option<(Stamp, usize, &'static str)> {
    let first = *toks.first()?;
    if first.len() >= 9 && first.len() <= 12 && first.bytes().all(|b| b.is_ascii_digit()) {
        return first.parse::<f64>().ok().map(|v| (Stamp::Epoch(v), 1, "epoch"));
    }
    // Fast path: `19:37:31` (optionally `PM`), no allocation.
    let b = first.as_bytes();
    if b.len() == 8 && b[2] == b':' && b[5] == b':' {
        let d = |i: usize| -> Option<u32> {
            let (x, y) = (b[i], b[i + 1]);
            (x.is_ascii_digit() && y.is_ascii_digit()).then(|| u32::from(x - b'0') * 10 + u32::from(y - b'0'))
        };
        let (h, m, s) = (d(0)?, d(3)?, d(6)?);
        let ampm = toks.get(1).and_then(|t| {
            if t.eq_ignore_ascii_case("PM") {
                Some(12)
            } else if t.eq_ignore_ascii_case("AM") {
                Some(0)
            } else {
                None
            }
        });
        return match ampm {
            Some(add) => hms(h % 12 + add, m, s, 0).map(|t| (Stamp::TimeOfDay(t), 2, "12h")),
            None => hms(h, m, s, 0).map(|t| (Stamp::TimeOfDay(t), 1, "hh:mm:ss")),
        };
    }
    let (t, used) = parse_time_of_day(toks)?;
    let form = if first.contains('시') {
        "korean"
    } else if first.contains('時') || first.contains('时') {
        "cjk"
    } else if used == 2 {
        "12h"
    } else {
        "hh:mm:ss"
    };
    Some((Stamp::TimeOfDay(t), used, form))
}

fn col_of(name: &str, names: &mut Vec<String>) -> Col {
    match name {
        "kB_rd/s" => Col::KbRd,
        "kB_wr/s" => Col::KbWr,
        "kB_ccwr/s" => Col::KbCcwr,
        "iodelay" => Col::Iodelay,
        "policy" => Col::Policy,
        _ => {
            names.push(name.to_string());
            Col::Other(names.len() - 1)
        }
    }
}

/// Tries a header line; returns the new header state.
fn header(text: &str, toks: &[&str], line: usize, out: &mut Pidstat, diags: &mut Diags) -> Option<Current> {
    let id = toks.iter().position(|t| *t == "UID" || *t == "USER")?;
    let next = *toks.get(id + 1)?;
    let threads = match next {
        "PID" => false,
        "TGID" if toks.get(id + 2) == Some(&"TID") => true,
        _ => return None,
    };
    let prefix = &toks[..id];
    let mut stamp = None;
    let mut average = false;
    let mut one_line = false;
    if prefix.first() == Some(&"#") {
        one_line = true;
        if prefix.len() != 2 {
            return None;
        }
    } else if let Some(len) = avg_len(text) {
        let label = text.get(..len).unwrap_or("").trim();
        if out.layout.average_label.is_none() {
            out.layout.average_label = Some(label.to_string());
        }
        average = true;
    } else {
        match lead_time(prefix) {
            Some((s, used, _)) if used == prefix.len() => stamp = Some(s),
            _ => {
                diags.note(line, DiagKind::BadTime, text);
                if !prefix.is_empty() {
                    return None;
                }
            }
        }
    }
    let start = id + if threads { 3 } else { 2 };
    let rest = toks.get(start..).unwrap_or(&[]);
    let command = rest.last() == Some(&"Command");
    let acts = if command { &rest[..rest.len() - 1] } else { rest };
    // `-h` reprints one header per report (`# Time UID TGID TID kB_rd/s ... Command`): the
    // same header again is the same table, not one more (two million reports of a 2 GB file
    // held 250 MB of identical column lists).
    let repeat = stamp.is_none()
        && !average
        && out.tables.last().is_some_and(|t| {
            t.stamp.is_none() && !t.average && t.columns.iter().map(String::as_str).eq(acts.iter().copied())
        });
    let mut cur = Current {
        table: out.tables.len() - usize::from(repeat),
        prev: stamp,
        user: toks[id] == "USER",
        threads,
        cols: Vec::with_capacity(acts.len()),
        names: Vec::new(),
        command,
    };
    for a in acts {
        let c = col_of(a, &mut cur.names);
        cur.cols.push(c);
    }
    if acts.contains(&"kB_rd/s") {
        let has = acts.contains(&"iodelay");
        out.layout.iodelay = Some(out.layout.iodelay.unwrap_or(false) || has);
    }
    out.layout.one_line |= one_line;
    out.layout.threads |= threads;
    out.layout.user_names |= cur.user;
    if !repeat {
        // Each report of `pidstat -d 1` prints its header with its own time: the column
        // list is shared with the last table that has the same one.
        let same = |t: &&Table| t.columns.iter().map(String::as_str).eq(acts.iter().copied());
        let columns = match out.tables.iter().rev().take(8).find(same) {
            Some(t) => t.columns.clone(),
            None => acts.iter().map(|s| s.to_string()).collect(),
        };
        out.tables.push(Table { line, stamp, average, columns });
    }
    Some(cur)
}

/// Parses a task row under `cur`.
#[allow(clippy::too_many_arguments)]
fn row(
    text: &str,
    offs: &[(usize, usize)],
    line: usize,
    cur: &Current,
    last_tgid: &mut Option<u32>,
    run: usize,
    layout: &mut Layout,
    is_last: bool,
    diags: &mut Diags,
    names: &mut Names,
) -> Option<(Row, bool)> {
    let Some((stamp, mut i, average)) = row_lead(text, offs, layout) else {
        diags.skip(line, DiagKind::BadTime, text);
        return None;
    };
    let need = 1 + if cur.threads { 2 } else { 1 } + cur.cols.len() + usize::from(cur.command);
    if offs.len() < i + need {
        let kind = if is_last { DiagKind::Truncated } else { DiagKind::FieldCount };
        diags.skip(line, kind, text);
        return None;
    }
    let mut r = Row {
        line,
        stamp,
        prev_stamp: if average { None } else { cur.prev },
        since_boot: false,
        run,
        table: cur.table,
        uid: None,
        user: None,
        tgid: None,
        tid: None,
        command: std::sync::Arc::from(""),
        leader: None,
        io: IoValues::NONE,
        policy: None,
        other: Vec::new(),
    };
    r.since_boot = !average && stamp.is_some() && stamp == cur.prev;
    let tok = |i: usize| offs.get(i).and_then(|&(a, b)| text.get(a..b)).unwrap_or("");
    let read = row_ids(&mut r, tok, &mut i, cur, last_tgid)
        .and_then(|()| row_values(&mut r, tok, &mut i, cur, layout));
    if let Err(kind) = read {
        diags.skip(line, kind, text);
        return None;
    }
    if cur.command {
        let start = offs.get(i).map(|&(a, _)| a).unwrap_or(text.len());
        let cmd = text.get(start..).unwrap_or("").trim();
        (r.command, r.leader) = command_of(cmd, r.tid.is_some() && r.tgid.is_some(), names);
    } else if i < offs.len() {
        diags.note(line, DiagKind::FieldCount, text);
    }
    Some((r, average))
}

/// The leading time of a row (and the tokens it takes), or the label of an average
/// (`Moyenne :` is two tokens): (stamp, tokens, is an average). `None`: neither.
fn row_lead(
    text: &str,
    offs: &[(usize, usize)],
    layout: &mut Layout,
) -> Option<(Option<Stamp>, usize, bool)> {
    let mut first3: [&str; 3] = [""; 3];
    for (i, slot) in first3.iter_mut().enumerate() {
        *slot = offs.get(i).and_then(|&(a, b)| text.get(a..b)).unwrap_or("");
    }
    let n3 = offs.len().min(3);
    if let Some((s, used, form)) = lead_time(&first3[..n3]) {
        layout.time_form.get_or_insert(form);
        return Some((Some(s), used, false));
    }
    let len = avg_len(text)?;
    // Skip the tokens that make up the label (`Moyenne :` is two).
    let k = offs.iter().take_while(|&&(a, _)| a < len).count();
    if layout.average_label.is_none() {
        layout.average_label = text.get(..len).map(|s| s.trim().to_string());
    }
    Some((None, k, true))
}

/// The `UID`/`USER`, `TGID` and (with `-t`) `TID` of a row from token `*i` on.
fn row_ids<'t>(
    r: &mut Row,
    tok: impl Fn(usize) -> &'t str,
    i: &mut usize,
    cur: &Current,
    last_tgid: &mut Option<u32>,
) -> Result<(), DiagKind> {
    let id = tok(*i);
    if cur.user {
        r.user = Some(id.to_string());
    } else {
        r.uid = Some(id.parse::<u32>().map_err(|_| DiagKind::BadNumber)?);
    }
    *i += 1;
    let idnum = |t: &str| -> Result<Option<u32>, DiagKind> {
        if t == "-" { Ok(None) } else { t.parse::<u32>().map(Some).map_err(|_| DiagKind::BadNumber) }
    };
    let pid = idnum(tok(*i))?;
    *i += 1;
    if !cur.threads {
        r.tgid = Some(pid.ok_or(DiagKind::BadNumber)?);
        return Ok(());
    }
    let tid = idnum(tok(*i))?;
    *i += 1;
    match (pid, tid) {
        (Some(p), None) => {
            *last_tgid = Some(p);
            r.tgid = Some(p);
        }
        (None, Some(t)) => {
            r.tgid = *last_tgid;
            r.tid = Some(t);
        }
        (Some(p), Some(t)) => {
            r.tgid = Some(p);
            r.tid = Some(t);
        }
        (None, None) => return Err(DiagKind::Malformed),
    }
    Ok(())
}

/// The activity values of a row from token `*i` on.
fn row_values<'t>(
    r: &mut Row,
    tok: impl Fn(usize) -> &'t str,
    i: &mut usize,
    cur: &Current,
    layout: &mut Layout,
) -> Result<(), DiagKind> {
    for c in &cur.cols {
        let t = tok(*i);
        *i += 1;
        if *c == Col::Policy {
            r.policy = Some(t.to_string());
            continue;
        }
        // `Average:  0  12447  0.41 … 0.83  -  thrload`: the CPU of an average is unknown.
        if t == "-" {
            continue;
        }
        let v = num(t).ok_or(DiagKind::BadNumber)?;
        if !layout.decimal_comma && t.contains(',') {
            layout.decimal_comma = true;
        }
        if !layout.human && t.ends_with(|c: char| c.is_ascii_alphabetic() || c == '%') {
            layout.human = true;
        }
        put_value(r, c, v, cur);
    }
    Ok(())
}

/// Stores the value of column `c` in a row (`-1.00` = /proc/PID/io unreadable: missing, not zero).
fn put_value(r: &mut Row, c: &Col, v: f64, cur: &Current) {
    match c {
        Col::KbRd => r.io.0[IoValues::KB_RD_S] = io_rate(v),
        Col::KbWr => r.io.0[IoValues::KB_WR_S] = io_rate(v),
        Col::KbCcwr => r.io.0[IoValues::KB_CCWR_S] = io_rate(v),
        Col::Iodelay => r.io.0[IoValues::IODELAY] = v,
        Col::Other(k) => r.other.push((cur.names.get(*k).cloned().unwrap_or_default(), v)),
        Col::Policy => {}
    }
}

/// The command of a row and its thread group leader: `|__name` is a thread of the task
/// above, `(leader)__name` a thread (`threaded`: the row has a TGID and a TID).
fn command_of(
    cmd: &str,
    threaded: bool,
    names: &mut Names,
) -> (std::sync::Arc<str>, Option<std::sync::Arc<str>>) {
    if let Some(name) = cmd.strip_prefix("|__") {
        (names.get(name), None)
    } else if threaded
        && cmd.starts_with('(')
        && let Some(close) = cmd.find(")__")
    {
        let leader = names.get(&cmd[1..close]);
        (names.get(&cmd[close + 3..]), Some(leader))
    } else {
        (names.get(cmd), None)
    }
}

/// Reads the common row shape in one pass: `19:37:31  0  15545  -  0.00  3996.00  0.00  0  gcache_sim`
/// (`HH:MM:SS`, numeric UID, numeric or `-` ids, plain numbers, then the command).
///
/// Gives exactly the [`Row`] that [`row`] gives for such a line and `None` for anything
/// else (12-hour and CJK times, `-U` names, `--human` suffixes, `policy`, averages, short
/// or long lines, a `UID`/`USER` word where a header could be): those take the general path,
/// which also writes the diagnostics.
#[allow(clippy::too_many_arguments)]
fn row_fused(
    text: &str,
    line: usize,
    cur: &Current,
    last_tgid: &mut Option<u32>,
    run: usize,
    layout: &mut Layout,
    rows: &mut Vec<Row>,
    names: &mut Names,
) -> Option<()> {
    if cur.user || cur.cols.contains(&Col::Policy) {
        return None;
    }
    let mut t = FusedToks { b: text.as_bytes(), i: 0 };
    // `19:37:31`
    let stamp = fused_time(t.next_tok()?)?;
    let uid = fused_id(t.next_tok()?)?;
    let pid = fused_dash_or_id(t.next_tok()?)?;
    let (tgid, tid, new_last) = if cur.threads {
        match (pid, fused_dash_or_id(t.next_tok()?)?) {
            (Some(p), None) => (Some(p), None, Some(p)),
            (None, Some(t)) => (*last_tgid, Some(t), *last_tgid),
            (Some(p), Some(t)) => (Some(p), Some(t), *last_tgid),
            (None, None) => return None,
        }
    } else {
        (Some(pid?), None, *last_tgid)
    };
    let mut io = IoValues::NONE;
    let mut other = Vec::new();
    let mut comma = false;
    for c in &cur.cols {
        let tok = t.next_tok()?;
        if tok == b"-" {
            continue;
        }
        let v = fast_num(tok)?;
        comma |= tok.contains(&b',');
        match c {
            Col::KbRd => io.0[IoValues::KB_RD_S] = io_rate(v),
            Col::KbWr => io.0[IoValues::KB_WR_S] = io_rate(v),
            Col::KbCcwr => io.0[IoValues::KB_CCWR_S] = io_rate(v),
            Col::Iodelay => io.0[IoValues::IODELAY] = v,
            Col::Other(k) => other.push((cur.names.get(*k).cloned().unwrap_or_default(), v)),
            Col::Policy => return None,
        }
    }
    let (command, leader) = fused_command(&mut t, text, cur, tid.is_some() && tgid.is_some(), names)?;
    layout.time_form.get_or_insert("hh:mm:ss");
    layout.decimal_comma |= comma;
    *last_tgid = new_last;
    // Built in place in the vector (a row is ~290 bytes: no extra copy through the stack).
    rows.push(Row {
        line,
        stamp: Some(stamp),
        prev_stamp: cur.prev,
        since_boot: Some(stamp) == cur.prev,
        run,
        table: cur.table,
        uid: Some(uid),
        user: None,
        tgid,
        tid,
        command,
        leader,
        io,
        policy: None,
        other,
    });
    Some(())
}

/// The blank-separated tokens of a line for [`row_fused`].
struct FusedToks<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> FusedToks<'a> {
    fn ws(c: u8) -> bool {
        c == b' ' || c == b'\t'
    }

    /// Moves past blanks; false at the end of the line.
    fn skip_ws(&mut self) -> bool {
        while self.i < self.b.len() && Self::ws(self.b[self.i]) {
            self.i += 1;
        }
        self.i < self.b.len()
    }

    /// The next token; `None` at the end of the line.
    fn next_tok(&mut self) -> Option<&'a [u8]> {
        if !self.skip_ws() {
            return None;
        }
        let s = self.i;
        while self.i < self.b.len() && !Self::ws(self.b[self.i]) {
            self.i += 1;
        }
        self.b.get(s..self.i)
    }
}

/// `19:37:31` as a time of day.
fn fused_time(t: &[u8]) -> Option<Stamp> {
    if t.len() != 8 || t[2] != b':' || t[5] != b':' {
        return None;
    }
    let d = |k: usize| -> Option<u32> {
        let (x, y) = (t[k], t[k + 1]);
        (x.is_ascii_digit() && y.is_ascii_digit()).then(|| u32::from(x - b'0') * 10 + u32::from(y - b'0'))
    };
    Some(Stamp::TimeOfDay(hms(d(0)?, d(3)?, d(6)?, 0)?))
}

/// A plain decimal id of at most 9 digits.
fn fused_id(t: &[u8]) -> Option<u32> {
    if t.is_empty() || t.len() > 9 || !t.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(t.iter().fold(0u32, |a, &c| a * 10 + u32::from(c - b'0')))
}

/// An id or `-` (none).
fn fused_dash_or_id(t: &[u8]) -> Option<Option<u32>> {
    if t == b"-" { Some(None) } else { fused_id(t).map(Some) }
}

/// The command at the end of a fused row (and its thread group leader), or the check that
/// nothing follows the values when the table has no command column.
fn fused_command(
    t: &mut FusedToks<'_>,
    text: &str,
    cur: &Current,
    threaded: bool,
    names: &mut Names,
) -> Option<(std::sync::Arc<str>, Option<std::sync::Arc<str>>)> {
    if !cur.command {
        return if t.next_tok().is_some() { None } else { Some((names.get(""), None)) };
    }
    // The command starts at the next token and runs to the end of the line.
    if !t.skip_ws() {
        return None;
    }
    let cmd = text.get(t.i..)?.trim();
    // A `UID`/`USER` word among the first five tokens sends the line to the header check.
    let ntok = 3 + usize::from(cur.threads) + cur.cols.len();
    if ntok < 5
        && cmd.split([' ', '\t']).filter(|w| !w.is_empty()).take(5 - ntok).any(|w| w == "UID" || w == "USER")
    {
        return None;
    }
    Some(command_of(cmd, threaded, names))
}

/// Parses pidstat text output.
pub fn parse(input: &[u8]) -> Parsed<Pidstat> {
    parse_impl(input, true)
}

/// Parses pidstat text fed line by line (a file streamed by the application in
/// fixed-size reads gives the same result as [`parse`] of the whole file).
pub fn parse_source(src: &mut impl LineSource) -> Parsed<Pidstat> {
    parse_source_impl(src, true, 0)
}

/// [`parse_source`] keeping the interval rows within about `budget` bytes of memory
/// (0: no limit): past it, consecutive reports are merged two to one, then four to
/// one, ... ([`crate::pidstat::budget`]); [`Pidstat::merged`] says by how much.
pub fn parse_source_within(src: &mut impl LineSource, budget: usize) -> Parsed<Pidstat> {
    parse_source_impl(src, true, budget)
}

/// [`parse`], with the one-pass row reader on or off (off only in tests, to prove both agree).
fn parse_impl(input: &[u8], fused: bool) -> Parsed<Pidstat> {
    parse_source_impl(&mut SliceSource::new(input), fused, 0)
}

/// [`parse_source`], with the one-pass row reader on or off.
fn parse_source_impl(src: &mut impl LineSource, fused: bool, budget: usize) -> Parsed<Pidstat> {
    let mut r = Reader::new(budget, src.len_hint(), fused);
    while let Some(sl) = src.next_line() {
        // The last line with content: a short row there is a truncated capture, not a bad line.
        r.feed(&sl, sl.last_content);
    }
    r.finish(budget)
}

/// The state of reading a `pidstat` file line by line.
struct Reader {
    out: Pidstat,
    diags: Diags,
    /// The table header in force.
    cur: Option<Current>,
    last_tgid: Option<u32>,
    offs: Vec<(usize, usize)>,
    keeper: budget::Keeper,
    names: Names,
    /// Rows of the open table are read in one pass first.
    fused: bool,
    /// Number of the last line read.
    lines: usize,
    /// Rows and averages read before the first banner (a piece's rows before it belong to
    /// the run of the pieces before: [`pieces`]).
    before_banner: Option<(usize, usize)>,
    /// Rows are taken from `out.rows` as they are read (no budget then): what the file's
    /// summary needs of them ([`drained`]).
    drain: Option<Box<Drained>>,
    /// The file is read again after a drained parse: its stamps are not repaired here.
    replay: bool,
}

impl Reader {
    /// A reader keeping its rows within `budget` bytes (0: no limit), of an input of about
    /// `len_hint` bytes.
    fn new(budget: usize, len_hint: usize, fused: bool) -> Self {
        let mut r = Reader {
            out: Pidstat::default(),
            diags: Diags::default(),
            cur: None,
            last_tgid: None,
            offs: Vec::with_capacity(32),
            keeper: budget::Keeper::new(budget),
            names: Names::default(),
            fused,
            lines: 0,
            before_banner: None,
            drain: None,
            replay: false,
        };
        // ~90 bytes per task line in real captures: avoid regrowing a Vec of large rows.
        let most = if budget > 0 { budget / std::mem::size_of::<Row>() } else { usize::MAX };
        r.out.rows.reserve((len_hint / 90).min(most));
        r
    }

    /// Reads one line of the source (`last_content`: no content follows it in the file).
    fn feed(&mut self, sl: &SourceLine<'_>, last_content: bool) {
        let no = sl.line.no;
        self.lines = no;
        // Valid UTF-8 (every real capture) is borrowed as is; only a damaged line is copied.
        let raw: Cow<'_, str> = match std::str::from_utf8(sl.line.bytes) {
            Ok(t) => Cow::Borrowed(t),
            Err(_) => String::from_utf8_lossy(sl.line.bytes),
        };
        let line: Cow<str> = if raw.contains('\x1b') {
            self.out.layout.ansi = true;
            strip_ansi(raw)
        } else {
            raw
        };
        self.read_line(&line, no, last_content);
    }

    /// Reads one line (ANSI escapes removed).
    fn read_line(&mut self, l: &str, no: usize, is_last_content: bool) {
        // Hot path: a plain row of the open table, read in one pass without splitting first.
        if self.fused
            && let Some(c) = &self.cur
            && row_fused(
                l,
                no,
                c,
                &mut self.last_tgid,
                self.out.banners.len().saturating_sub(1),
                &mut self.out.layout,
                &mut self.out.rows,
                &mut self.names,
            )
            .is_some()
        {
            self.pushed();
            return;
        }
        split_ws(l, &mut self.offs);
        if self.offs.is_empty() {
            return;
        }
        let first = l.get(self.offs[0].0..self.offs[0].1).unwrap_or("");
        let fb = first.as_bytes().first().copied().unwrap_or(b' ');
        // `2025-10-23 13:55:24` written by `date` between appended runs.
        if self.offs.len() <= 7
            && let Some(d) = parse_date_line(l, no)
        {
            self.out.date_lines.push(d);
            return;
        }
        // Fast path: a row (starts with a digit and we have a header).
        if fb.is_ascii_digit()
            && self.cur.is_some()
            && !self.offs.iter().take(5).any(|&(a, b)| matches!(l.get(a..b), Some("UID") | Some("USER")))
        {
            self.read_row(l, no, is_last_content);
            return;
        }
        let toks: Vec<&str> = self.offs.iter().map(|&(a, b)| l.get(a..b).unwrap_or("")).collect();
        if let Some(h) = header(l, &toks, no, &mut self.out, &mut self.diags) {
            self.cur = Some(h);
            self.last_tgid = None;
            return;
        }
        if fb.is_ascii_alphabetic()
            && let Some(b) = parse_banner(l)
        {
            if self.out.banner.is_none() {
                self.out.banner = Some(b.clone());
            }
            if self.out.banners.is_empty() {
                self.before_banner = Some((self.out.rows.len(), self.out.averages.len()));
            }
            self.out.banners.push(b);
            self.cur = None;
            return;
        }
        match self.cur {
            Some(_) => self.read_row(l, no, is_last_content),
            None => self.diags.skip(no, DiagKind::NoHeader, l),
        }
    }

    /// A row of the open table, split into `self.offs`: a task or an average.
    fn read_row(&mut self, l: &str, no: usize, is_last_content: bool) {
        let Some(c) = &self.cur else { return };
        if let Some((r, avg)) = row(
            l,
            &self.offs,
            no,
            c,
            &mut self.last_tgid,
            self.out.banners.len().saturating_sub(1),
            &mut self.out.layout,
            is_last_content,
            &mut self.diags,
            &mut self.names,
        ) {
            if avg {
                self.out.averages.push(r)
            } else {
                self.out.rows.push(r);
                self.pushed();
            }
        }
    }

    /// The row just pushed, offered to the budget and noted by a drained parse.
    fn pushed(&mut self) {
        self.keeper.pushed(&mut self.out.rows);
        if let Some(d) = &mut self.drain
            && let Some(r) = self.out.rows.last()
        {
            d.see(r);
        }
    }

    /// The value read, its diagnostics, the merge note under a budget.
    fn finish(self, budget: usize) -> Parsed<Pidstat> {
        let (mut out, mut diags, keeper, lines) = (self.out, self.diags, self.keeper, self.lines);
        let (drain, replay) = (self.drain, self.replay);
        if keeper.factor > 1 {
            // Halving merges in place: give back the room the merged reports left (touched
            // pages otherwise stay resident through the analysis).
            out.rows.shrink_to_fit();
            out.merged = keeper.factor;
            out.merged_from_line = keeper.first_merged_line;
            diags.note(
                keeper.first_merged_line.unwrap_or(1),
                DiagKind::Unsupported,
                crate::common::sysstat::merged_note(keeper.factor, budget),
            );
        }
        match drain {
            // The rows not taken yet are the file's last: dropped as the others were.
            Some(mut d) => {
                d.repair(&mut diags);
                out.rows = Vec::new();
                out.drained = Some(*d);
            }
            // Read again: the first read's repairs are the application's to apply.
            None if replay => {}
            None => place_by_series(&mut out.rows, &mut diags),
        }
        diags.finish(out, lines)
    }
}

/// Rows of one sample time in a row (one report of a table).
struct Sample {
    first: usize,
    len: usize,
    run: usize,
    line: usize,
    stamp: Option<Stamp>,
}

/// Places the rows whose time breaks its run's series ([`crate::common::series`]): the
/// samples are the runs of rows with one time, so one garbled row among those of its
/// report is placed with them (a time of day that jumps back would roll the rest of the
/// file to the next day).
fn place_by_series(rows: &mut [Row], diags: &mut Diags) {
    let mut samples: Vec<Sample> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        match samples.last_mut() {
            Some(s) if s.run == r.run && s.stamp == r.stamp => s.len += 1,
            _ => samples.push(Sample { first: i, len: 1, run: r.run, line: r.line, stamp: r.stamp }),
        }
    }
    crate::common::series::repair_runs(&mut samples, |s| s.run, |s| &mut s.stamp, |s| s.line, diags);
    for s in &samples {
        if s.stamp != rows[s.first].stamp {
            for r in &mut rows[s.first..s.first + s.len] {
                r.stamp = s.stamp;
            }
        }
    }
}

impl Summary for Pidstat {
    fn records(&self) -> usize {
        self.drained.as_ref().map_or(self.rows.len(), |d| d.rows) + self.averages.len()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        let l = &self.layout;
        v.insert("layout", if l.one_line { "one-line (-h)" } else { "tables" }.to_string());
        v.insert("ids", if l.threads { "TGID/TID (-t)" } else { "PID" }.to_string());
        v.insert("user", if l.user_names { "names (-U)" } else { "uid" }.to_string());
        if let Some(t) = l.time_form {
            v.insert("time", t.to_string());
        }
        v.insert("decimal", if l.decimal_comma { "comma" } else { "point" }.to_string());
        if l.human {
            v.insert("human", "yes".to_string());
        }
        if l.ansi {
            v.insert("ansi", "yes".to_string());
        }
        if let Some(io) = l.iodelay {
            v.insert("iodelay", if io { "yes" } else { "no (sysstat < 10.2.1)" }.to_string());
        }
        if let Some(a) = &l.average_label {
            v.insert("average_label", a.clone());
        }
        if self.merged > 1 {
            v.insert("reports_merged", crate::common::sysstat::merged_variant(self.merged));
        }
        let mut acts: Vec<&str> = Vec::new();
        for t in &self.tables {
            for c in t.columns.iter() {
                let a = activity_of(c);
                if !acts.contains(&a) {
                    acts.push(a);
                }
            }
        }
        if !acts.is_empty() {
            v.insert("activities", acts.join(","));
        }
        if let Some(b) = &self.banner {
            v.insert("host", b.nodename.clone());
            v.insert("date", b.date_text.clone());
            v.insert("date_form", b.date_form.to_string());
        }
        if self.banners.len() > 1 {
            v.insert("runs", self.banners.len().to_string());
        }
        if !self.date_lines.is_empty() {
            v.insert("date_lines", self.date_lines.len().to_string());
        }
        if self.drained.as_ref().map_or_else(|| self.rows.iter().any(|r| r.since_boot), |d| d.since_boot) {
            v.insert("since_boot", "yes".to_string());
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        if let Some(d) = &self.drained {
            return Some((d.first?, d.last?));
        }
        let first = self.rows.iter().find_map(|r| r.stamp)?;
        let last = self.rows.iter().rev().find_map(|r| r.stamp)?;
        Some((first, last))
    }
}

/// The pidstat option a column comes from (`-d`, `-u`, ...).
fn activity_of(col: &str) -> &'static str {
    match col {
        "kB_rd/s" | "kB_wr/s" | "kB_ccwr/s" | "iodelay" => "-d",
        "%usr" | "%system" | "%guest" | "%wait" | "%CPU" | "CPU" => "-u",
        "minflt/s" | "majflt/s" | "VSZ" | "RSS" | "%MEM" => "-r",
        "StkSize" | "StkRef" => "-s",
        "cswch/s" | "nvcswch/s" => "-w",
        "threads" | "fd-nr" => "-v",
        "prio" | "policy" => "-R",
        "usr-ms" | "system-ms" | "guest-ms" | "minflt-nr" | "majflt-nr" => "-T CHILD",
        _ => "other",
    }
}

/// The `pidstat` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Pidstat;
    const ID: &'static str = "pidstat";
    const SAMPLE: &'static str =
        "19:37:31        0         -     15574      0.00   1996.00      0.00       0  |__gcache-w0";
    const DESCRIPTION: &'static str =
        "sysstat pidstat text reports (-d, -u, -r, -t, -h, -H, -l, -U; any locale)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        let text = String::from_utf8_lossy(head);
        let mut banner = false;
        for l in text.lines().take(12) {
            let l = strip_ansi(Cow::Borrowed(l));
            let toks: Vec<&str> = l.split_whitespace().collect();
            // pidstat puts a time (or `#      Time`) before `UID`; `ps -ef` starts with `UID PID PPID`.
            if let Some(id) = toks.iter().position(|t| *t == "UID" || *t == "USER")
                && id > 0
                && matches!(toks.get(id + 1), Some(&"PID") | Some(&"TGID"))
            {
                return Sniff::Yes;
            }
            if !banner && parse_banner(&l).is_some() {
                banner = true;
            }
        }
        if banner { Sniff::Unsure } else { Sniff::No }
    }

    fn parse(input: &[u8]) -> Parsed<Pidstat> {
        parse(input)
    }
}

#[cfg(test)]
#[path = "../../tests/support/shared.rs"]
mod support;

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass row reader gives exactly what the general path gives, on every real
    /// pidstat text capture of the repository's samples and, when the shared folder is
    /// there, of the shared bundles and corpus (all locales and layouts).
    #[test]
    fn fused_rows_equal_general_path() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
        let mut files = Vec::new();
        fn push_pidstat(files: &mut Vec<std::path::PathBuf>, dir: &std::path::Path) {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with("pidstat") && (name.ends_with(".txt") || name.ends_with(".txt.gz")) {
                    files.push(e.path());
                }
            }
        }
        for e in std::fs::read_dir(format!("{root}/samples")).into_iter().flatten().flatten() {
            push_pidstat(&mut files, &e.path().join("capture"));
        }
        let samples = files.len();
        assert!(samples >= 5, "samples/*/capture/pidstat*: {files:?}");
        let shared = super::support::root();
        if shared.is_dir() {
            for dir in [
                "bundles/s1_mmap_writeback",
                "bundles/s2a_mariadb_durable",
                "bundles/s3_buffered_dd",
                "bundles/s4_locale_variants",
            ] {
                push_pidstat(&mut files, &shared.join(dir));
            }
            for d in std::fs::read_dir(shared.join("corpus")).into_iter().flatten().flatten() {
                for e in std::fs::read_dir(d.path()).into_iter().flatten().flatten() {
                    if e.file_name().to_string_lossy().contains("pidstat") && e.path().is_file() {
                        files.push(e.path());
                    }
                }
            }
            assert!(files.len() >= samples + 10, "{files:?}");
        } else {
            super::support::skip("shared folder not found: only the samples' pidstat files compared");
        }
        let mut fused_rows = 0usize;
        for f in &files {
            let raw = std::fs::read(f).unwrap();
            let data = crate::common::decode::maybe_gunzip(&raw, 1 << 30).unwrap();
            let (a, b) = (parse_impl(&data, true), parse_impl(&data, false));
            assert_eq!(a.value.rows, b.value.rows, "{}", f.display());
            assert_eq!(a.value.averages, b.value.averages, "{}", f.display());
            assert_eq!(a.value.layout, b.value.layout, "{}", f.display());
            assert_eq!(a.diagnostics, b.diagnostics, "{}", f.display());
            assert_eq!(a.skipped_lines, b.skipped_lines, "{}", f.display());
            fused_rows += a.value.rows.len();
        }
        assert!(fused_rows > 10_000);
    }

    fn tod(h: u32, m: u32, s: u32) -> Option<Stamp> {
        Some(Stamp::TimeOfDay(chrono::NaiveTime::from_hms_opt(h, m, s).unwrap()))
    }

    #[test]
    fn default_layout_prev_and_current_time() {
        let p = parse(
            b"Linux 6.18.44-fc-v669 (vm) \t29.11.2026 \t_x86_64_\t(2 CPU)\n\n\
19:52:40      UID       PID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command\n\
19:52:41        0      1658      0,00    650,51      0,00       0  rustc\n\n\
Durchschn.:     0     31837     46,32   2453,24    813,04       0  cargo\n",
        );
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let r = &p.value.rows[0];
        assert_eq!(r.stamp, tod(19, 52, 41));
        assert_eq!(r.prev_stamp, tod(19, 52, 40));
        assert_eq!(r.tgid, Some(1658));
        assert_eq!(r.kb_wr_s(), Some(650.51));
        let a = &p.value.averages[0];
        assert_eq!((&*a.command, a.kb_ccwr_s(), a.stamp), ("cargo", Some(813.04), None));
        assert_eq!(p.value.layout.average_label.as_deref(), Some("Durchschn.:"));
    }

    #[test]
    fn threads_ampm_spaces_and_unreadable() {
        let p = parse(
            b"07:52:39 PM   UID      TGID       TID   kB_rd/s   kB_wr/s kB_ccwr/s iodelay  Command\n\
07:52:40 PM     0      1658         -      0.00     15.24      0.00       0  rustc\n\
07:52:40 PM     0         -      2011     -1.00     -1.00     -1.00       0  |__lto cgu.01\n\
07:52:40 PM     0     10171     10171      0.00    588.00      0.00       0  (dd)__dd\n",
        );
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let v = &p.value.rows;
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].stamp, tod(19, 52, 40));
        assert!(!v[0].is_thread());
        assert_eq!((v[1].tgid, v[1].tid, &*v[1].command), (Some(1658), Some(2011), "lto cgu.01"));
        assert_eq!(v[1].kb_wr_s(), None);
        assert_eq!((v[2].leader.as_deref(), &*v[2].command), (Some("dd"), "dd"));
    }

    #[test]
    fn numbers() {
        assert_eq!(num("2,2M"), Some(2.2 * 1048576.0));
        assert_eq!(num("0,0B"), Some(0.0));
        assert_eq!(num("12,5"), Some(12.5));
        assert_eq!(num("-1.00"), Some(-1.0));
        assert_eq!(num("NORMAL"), None);
        assert_eq!(num("-inf"), None);
    }

    #[test]
    fn garbage_never_panics() {
        for s in [
            &b"UID PID\n1 2 3\n"[..],
            b"# Time UID TGID TID\n1 - - x\n",
            b"\xff\xfe UID PID Command\n12:00:00 0 1 a\n",
        ] {
            let _ = parse(s);
        }
    }
}
