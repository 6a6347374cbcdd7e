//! `dstat_text`: the terminal layout of `dstat`, `dool` and `pcp-dstat`
//! (FORMATS.md §4.1), as captured with `dstat ... > file`, `script` or `screen`.
//!
//! Real samples (`corpus/dstat/generated__dstat_t_D.txt`, Debian dstat 0.7.4):
//!
//! ```text
//! ----system---- -dsk/total- --dsk/vda-- --io/total- ---io/vda--
//!      time     | read  writ: read  writ| read  writ: read  writ
//! 29-11 19:34:04|  19M   40M:  19M   40M| 177   541 : 177   541
//! ```
//!
//! and dool 1.3 (`generated__dool_tcdngy.txt`, ANSI colours and box characters even
//! into a file; shown here with the escapes removed):
//!
//! ```text
//! ┄┄┄┄┄system┄┄┄┄┬┄┄total┄cpu┄usage┄┄┬┄dsk/total┄┬┄net/total┄┬┄┄┄paging┄┄┬┄┄┄system┄┄
//!       time     │usr sys idl wai stl│ read  writ│ recv  send│  in   out │ int   csw
//! Nov-29 19:34:13│ 56   9  34   1   0│ 164M  339M│   0     0 │   0     0 │2253  3396
//! ```
//!
//! How it is read: ANSI escapes are stripped, a `\r` keeps only the text after
//! it (interim `--update` redraws), box characters are normalised (`│`→`|`,
//! `┊`→`:`, `┄`→`-`, `┬`/`┼`→space). The title line's tokens give one column
//! span per plugin instance (the title, sub-title and rows are aligned
//! character by character); within each span the sub-title's nicks name the
//! whitespace-separated values. `>` marks truncation by a narrow terminal.
//! Values carry unit suffixes: bytes (`dsk`, `net`, `paging`, memory) are base
//! 1024 (`B k M G T`, dool `B K M G`), counts base 1000; `-` (negative) reads
//! as `None`. The header is reprinted on a terminal: an identical header
//! continues the run, a different one starts a new run. Tool chatter (`You
//! did not select any stats...`, `Terminal width too small...`) is accepted;
//! `* Exception in plugin` lines, their error line and Python warnings or
//! tracebacks (stderr merged in) are reported as
//! [`DiagKind::ToolMessage`](crate::common::DiagKind::ToolMessage).
//!
//! Known limit: with `--bits`, network values are bits (base 1000) but the
//! terminal layout does not say so except by a `b` suffix on small values.

use crate::common::scrub::Identifiers;
use crate::common::{
    DiagKind, Diags, Format, LineSource, Parsed, SliceSource, Sniff, Stamp, lines::strip_ansi,
    number::parse_f64,
};
use crate::dstat_csv::{
    Dstat, Layout as FileLayout, Meta, Row, Run, Unit, collapse_ws, make_column, parse_time_cell,
};
use std::borrow::Cow;

/// The `dstat_text` format (its output type is shared with [`crate::dstat_csv`]).
pub struct Fmt;

impl Format for Fmt {
    type Output = Dstat;
    const ID: &'static str = "dstat_text";
    const SAMPLE: &'static str =
        "29-11 19:34:02| 55   9  35   1   0|  19M   40M|   0     0 |   0     0 |2241  3376";
    const DESCRIPTION: &'static str = "dstat / dool / pcp-dstat terminal output (ANSI colours, box drawing)";

    const IDENTIFIERS: Identifiers = Identifiers::Generic;
    fn sniff(head: &[u8]) -> Sniff {
        // dool/dstat start by disabling line wrap (`ESC[7l`), even into a file.
        let h = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
        if h.starts_with(b"\x1b[7l") {
            return Sniff::Yes;
        }
        let text = String::from_utf8_lossy(h);
        if text.contains('┄') && (text.contains('│') || text.contains('┬')) {
            return Sniff::Yes;
        }
        let lines: Vec<String> = text.lines().map(|l| normalise(l).into_owned()).collect();
        for (i, l) in lines.iter().enumerate() {
            if l.starts_with("You did not select any stats, using") || l.starts_with("* Exception in plugin")
            {
                return Sniff::Yes;
            }
            if is_title(l) {
                let known = [
                    "-system-",
                    "-dsk/",
                    "-net/",
                    "cpu-usage",
                    "-total-usage",
                    "-io/",
                    "-epoch-",
                    "-paging-",
                    "memory-usage",
                    "-load-avg-",
                ]
                .iter()
                .any(|k| l.contains(k));
                // vmstat: `procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----`
                // has no `|` in its sub-title; dstat has one between plugins.
                let Some(sub) = lines.get(i + 1) else { continue };
                let vmstat_like = l.split_whitespace().next().is_some_and(|t| t.trim_matches('-') == "procs");
                if known && sub.contains('|') && !vmstat_like {
                    return if i < 3 { Sniff::Yes } else { Sniff::Unsure };
                }
                if known && !vmstat_like && !is_title(sub) {
                    return Sniff::Unsure;
                }
            }
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<Dstat> {
        parse_text(input)
    }
}

/// How a plugin-instance span is read.
#[derive(Debug, Clone, Copy, PartialEq)]
enum SegKind {
    /// One value per nick, whitespace separated.
    Numeric,
    /// One column: the whole trimmed span (time, epoch, single-nick plugins).
    Single,
    /// One text column (top-* / most-expensive plugins).
    Text,
}

#[derive(Debug, Clone)]
struct Seg {
    start: usize,
    end: usize,
    kind: SegKind,
    first_col: usize,
    ncols: usize,
}

#[derive(Debug, Clone)]
struct Layout {
    key: (String, String),
    segs: Vec<Seg>,
    ncols: usize,
}

/// Strips ANSI escapes, keeps the text after the last `\r`, and normalises dool's box characters.
fn normalise(raw: &str) -> Cow<'_, str> {
    let raw: Cow<str> = if raw.contains('\r') {
        let pick =
            raw.split('\r').rev().find(|p| !strip_ansi(Cow::Borrowed(p)).trim().is_empty()).unwrap_or("");
        Cow::Owned(pick.to_string())
    } else {
        Cow::Borrowed(raw)
    };
    let s = match raw {
        Cow::Borrowed(b) => strip_ansi(Cow::Borrowed(b)),
        Cow::Owned(o) => Cow::Owned(strip_ansi(Cow::Borrowed(o.as_str())).into_owned()),
    };
    if s.is_ascii() {
        return s;
    }
    Cow::Owned(
        s.chars()
            .map(|c| match c {
                '│' | '┃' => '|',
                '┊' | '┆' => ':',
                '┄' | '─' => '-',
                '┬' | '┼' | '┴' => ' ',
                c => c,
            })
            .collect(),
    )
}

fn is_title(line: &str) -> bool {
    let mut any_dash = false;
    let mut n = 0;
    for tok in line.split([' ', '|', '>']).filter(|t| !t.is_empty()) {
        n += 1;
        let ok = tok.chars().all(|c| {
            c.is_alphanumeric()
                || matches!(c, '-' | '/' | '_' | '.' | '#' | '%' | '(' | ')' | '@' | ':' | '+' | '[' | ']')
        });
        if !ok || !tok.chars().any(|c| c.is_alphabetic()) {
            return false;
        }
        if tok.len() >= 3 && (tok.starts_with('-') || tok.ends_with('-')) {
            any_dash = true;
        }
    }
    n > 0 && any_dash
}

/// The plugin name of a title token: `--total-cpu-usage--` -> `total cpu usage`, `-dsk/total-` -> `dsk/total`.
fn group_name(tok: &str) -> String {
    let t = tok.trim_matches('-');
    if t.contains('/') { t.to_string() } else { t.replace('-', " ") }
}

fn is_text_group(g: &str) -> bool {
    let g = g.to_ascii_lowercase();
    g.contains("expensive") || g.starts_with("top")
}

fn build_layout(title: &str, sub: &str, run: &mut Run) -> Layout {
    let tchars: Vec<char> = title.chars().collect();
    let schars: Vec<char> = sub.chars().collect();
    let mut segs = Vec::new();
    let mut i = 0;
    while i < tchars.len() {
        if matches!(tchars.get(i), Some(' ' | '|' | '>')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < tchars.len() && !matches!(tchars.get(i), Some(' ' | '|' | '>')) {
            i += 1;
        }
        let tok: String = tchars.get(start..i).unwrap_or(&[]).iter().collect();
        let subtext: String =
            schars.get(start.min(schars.len())..i.min(schars.len())).unwrap_or(&[]).iter().collect();
        let group = group_name(&tok);
        let nicks: Vec<&str> = subtext.split_whitespace().collect();
        let first_col = run.columns.len();
        let kind = if is_text_group(&group) {
            let mut c = make_column(&group, &collapse_ws(&subtext), false);
            c.unit = Unit::Text;
            run.columns.push(c);
            SegKind::Text
        } else if nicks.len() <= 1 {
            run.columns.push(make_column(&group, nicks.first().copied().unwrap_or(&group), false));
            SegKind::Single
        } else {
            for n in &nicks {
                run.columns.push(make_column(&group, n, false));
            }
            SegKind::Numeric
        };
        let ncols = run.columns.len() - first_col;
        segs.push(Seg { start, end: i, kind, first_col, ncols });
    }
    run.epoch_col = run.columns.iter().position(|c| c.unit == Unit::Epoch);
    run.time_col = run.columns.iter().position(|c| c.unit == Unit::Time);
    Layout { key: (title.trim_end().to_string(), sub.trim_end().to_string()), segs, ncols: run.columns.len() }
}

/// Reads a scaled terminal value: `19M`, `17.5G`, `20.5k`, `455B`, `2612k`, `0`.
fn parse_scaled(tok: &str, unit: Unit) -> Option<f64> {
    let base: f64 = if unit.is_bytes() { 1024.0 } else { 1000.0 };
    let last = tok.chars().last()?;
    let exp = match last {
        'B' | 'b' => 0,
        'k' | 'K' => 1,
        'M' => 2,
        'G' => 3,
        'T' => 4,
        'P' => 5,
        'E' => 6,
        _ => return parse_f64(tok),
    };
    let num = tok.get(..tok.len() - last.len_utf8())?;
    let base = if last == 'b' { 1000.0 } else { base };
    parse_f64(num).map(|v| v * base.powi(exp))
}

fn chars_slice(chars: &[char], s: usize, e: usize) -> String {
    let e = e.min(chars.len());
    let s = s.min(e);
    chars.get(s..e).unwrap_or(&[]).iter().collect()
}

/// Parses one data row against the layout; `None` when the line does not look like a row.
fn parse_row(layout: &Layout, run: &Run, no: usize, line: &str, diags: &mut Diags) -> Option<Row> {
    let chars: Vec<char> = line.chars().collect();
    let mut row = Row { line: no, values: vec![None; layout.ncols], ..Default::default() };
    let mut used = 0usize;
    let mut notes: Vec<(DiagKind, String)> = Vec::new();
    let mut time_stamp = None;
    let mut epoch_stamp = None;
    // The separators must sit where the header put them.
    for w in layout.segs.windows(2) {
        if let [a, _] = w
            && let Some(c) = chars.get(a.end)
            && !matches!(c, '|' | ':' | ' ' | '>')
        {
            return None;
        }
    }
    for seg in &layout.segs {
        let text = chars_slice(&chars, seg.start, seg.end);
        let t = text.trim();
        if t.is_empty() {
            continue;
        }
        match seg.kind {
            SegKind::Text => {
                row.texts.push((seg.first_col, collapse_ws(t)));
                used += 1;
            }
            SegKind::Single => {
                let Some(col) = run.columns.get(seg.first_col) else { continue };
                match col.unit {
                    Unit::Time => {
                        match parse_time_cell(t) {
                            Some(s) => {
                                time_stamp = Some(s);
                                used += 1;
                            }
                            None => notes.push((DiagKind::BadTime, t.to_string())),
                        }
                        row.texts.push((seg.first_col, t.to_string()));
                    }
                    unit @ Unit::BytesPerSec
                    | unit @ Unit::BitsPerSec
                    | unit @ Unit::CountPerSec
                    | unit @ Unit::Percent
                    | unit @ Unit::Bytes
                    | unit @ Unit::Count
                    | unit @ Unit::Text
                    | unit @ Unit::Epoch
                    | unit @ Unit::Millis
                    | unit @ Unit::Other => match parse_scaled(t, unit) {
                        Some(v) => {
                            if let Some(slot) = row.values.get_mut(seg.first_col) {
                                *slot = Some(v);
                            }
                            if unit == Unit::Epoch {
                                epoch_stamp = Some(Stamp::Epoch(v));
                            }
                            used += 1;
                        }
                        None if t == "-" => used += 1,
                        None => {
                            notes.push((DiagKind::BadNumber, format!("{}: {t}", col.key)));
                            row.texts.push((seg.first_col, t.to_string()));
                        }
                    },
                }
            }
            SegKind::Numeric => used += read_numeric(&mut row, seg, t, run, &mut notes),
        }
    }
    if used == 0 {
        // pcp-dstat's empty first row still has the separators.
        let blank = layout.segs.iter().all(|s| chars_slice(&chars, s.start, s.end).trim().is_empty());
        if !(blank && chars.iter().any(|c| *c == '|' || *c == ':')) {
            return None;
        }
    }
    // Beyond the last span: `>` (truncated), ` missed 2 ticks`, `--debug` timings.
    if let Some(last) = layout.segs.last() {
        let tail = chars_slice(&chars, last.end, chars.len());
        let tail = tail.trim().trim_start_matches(['|', '>']).trim();
        if !tail.is_empty() && !tail.starts_with("missed ") && !tail.ends_with("ms") {
            notes.push((DiagKind::Unsupported, format!("trailing text: {tail}")));
        }
    }
    for (k, t) in notes {
        diags.note(no, k, t);
    }
    row.stamp = epoch_stamp.or(time_stamp);
    Some(row)
}

/// The values of a segment of several numeric columns (`t`: its text); how many were read.
fn read_numeric(row: &mut Row, seg: &Seg, t: &str, run: &Run, notes: &mut Vec<(DiagKind, String)>) -> usize {
    let toks: Vec<&str> = t.split_whitespace().collect();
    if toks.len() != seg.ncols {
        notes.push((DiagKind::FieldCount, format!("{} values for {} columns: {t}", toks.len(), seg.ncols)));
        return 0;
    }
    let mut used = 0;
    for (k, tok) in toks.iter().enumerate() {
        let ci = seg.first_col + k;
        let unit = run.columns.get(ci).map_or(Unit::Other, |c| c.unit);
        match parse_scaled(tok, unit) {
            Some(v) => {
                if let Some(slot) = row.values.get_mut(ci) {
                    *slot = Some(v);
                }
                used += 1;
            }
            None if *tok == "-" => used += 1,
            None => notes.push((DiagKind::BadNumber, (*tok).to_string())),
        }
    }
    used
}

fn is_python_noise(l: &str) -> bool {
    l.starts_with("Traceback (most recent call last)")
        || l.contains("Warning: ")
            && l.split(':').nth(1).is_some_and(|n| n.trim().bytes().all(|b| b.is_ascii_digit()))
}

/// `TypeError: '<' not supported ...`, `NameError: name 'types' is not defined`.
fn is_exception_line(l: &str) -> bool {
    l.split_once(": ").is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            && (name.ends_with("Error") || name.ends_with("Exception") || name.ends_with("Warning"))
    })
}

fn parse_text(input: &[u8]) -> Parsed<Dstat> {
    parse_source(&mut SliceSource::new(input))
}

/// Parses terminal dstat/dool output fed line by line (a file streamed from disk: the same
/// result as the whole file's parse).
pub fn parse_source(src: &mut impl LineSource) -> Parsed<Dstat> {
    let mut diags = Diags::default();
    let mut out = Dstat { layout: FileLayout::Text, ..Default::default() };
    let mut layout: Option<Layout> = None;
    let mut pending_title: Option<(usize, String, bool)> = None;
    let mut expect_error = false;
    let mut python = false;
    let mut lines = 0;
    while let Some(sl) = src.next_line() {
        let l = sl.line;
        lines = l.no;
        let raw = l.text();
        let boxed = raw.contains('┄') || raw.contains('│');
        let norm = normalise(&raw);
        let t = norm.trim_end();
        if t.trim().is_empty() {
            continue;
        }
        // Python chatter merged from stderr: warnings, tracebacks and their indented lines.
        if python {
            // Indented source lines, then `TypeError: ...` closes a traceback.
            if t.starts_with(' ') {
                diags.skip(l.no, DiagKind::ToolMessage, t);
                continue;
            }
            python = false;
            if is_exception_line(t) {
                diags.skip(l.no, DiagKind::ToolMessage, t);
                continue;
            }
        }
        if is_python_noise(t) {
            diags.skip(l.no, DiagKind::ToolMessage, t);
            python = true;
            continue;
        }
        if t.starts_with("* Exception in plugin") {
            // dstat: print("\n* Exception in plugin", o.name); print(err)
            diags.skip(l.no, DiagKind::ToolMessage, t);
            expect_error = true;
            continue;
        }
        if let Some((tno, title, tboxed)) = pending_title.take() {
            // `t` is the sub-title line.
            let key = (title.trim_end().to_string(), t.to_string());
            if layout.as_ref().is_some_and(|lay| lay.key == key) {
                continue; // repeated header: same run
            }
            let mut run = Run {
                line: tno,
                meta: Meta { tool: tboxed.then(|| "dool".to_string()), ..Default::default() },
                ..Default::default()
            };
            let lay = build_layout(&title, t, &mut run);
            out.runs.push(run);
            layout = Some(lay);
            continue;
        }
        if is_title(t) {
            pending_title = Some((l.no, t.to_string(), boxed));
            expect_error = false;
            continue;
        }
        let tt = t.trim();
        if tt.starts_with("You did not select any stats")
            || tt.starts_with("Using default plugins:")
            || tt.starts_with("Terminal width too small")
        {
            continue;
        }
        let parsed = match (&layout, out.runs.last()) {
            (Some(lay), Some(run)) if !expect_error => parse_row(lay, run, l.no, t, &mut diags),
            _ => None,
        };
        match parsed {
            Some(mut row) => {
                if let Some(run) = out.runs.last_mut() {
                    row.since_boot = run.rows.is_empty() && row.values.iter().any(Option::is_some);
                    run.rows.push(row);
                }
            }
            None if expect_error => {
                expect_error = false;
                diags.skip(l.no, DiagKind::ToolMessage, t);
            }
            None if layout.is_none() => diags.skip(l.no, DiagKind::NoHeader, t),
            None => diags.skip(l.no, DiagKind::Malformed, t),
        }
    }
    if let Some((no, title, _)) = pending_title {
        diags.skip(no, DiagKind::Truncated, format!("title without sub-title: {title}"));
    }
    diags.finish(out, lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::Format;

    const T_D: &str = "----system---- -dsk/total- --dsk/vda-- --io/total- ---io/vda--
     time     | read  writ: read  writ| read  writ: read  writ
29-11 19:34:04|  19M   40M:  19M   40M| 177   541 : 177   541 
29-11 19:34:05|  64M   68M:  64M   68M| 256  1468 : 256  1468 
";

    #[test]
    fn instances_and_suffixes() {
        let p = parse_text(T_D.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let r = &p.value.runs[0];
        let w = r.column("dsk/vda:writ").unwrap();
        assert_eq!(r.rows[1].get(w), Some(68.0 * 1024.0 * 1024.0));
        let io = r.column("io/vda:writ").unwrap();
        assert_eq!(r.rows[1].get(io), Some(1468.0));
        assert!(r.rows[0].since_boot);
        assert_eq!(r.time_col, Some(0));
        assert_eq!(r.rows[0].text(0), Some("29-11 19:34:04"));
    }

    #[test]
    fn scaled_values() {
        assert_eq!(parse_scaled("20.5k", Unit::CountPerSec), Some(20500.0));
        assert_eq!(parse_scaled("17.5G", Unit::Bytes), Some(17.5 * 1024f64.powi(3)));
        assert_eq!(parse_scaled("455B", Unit::BytesPerSec), Some(455.0));
        assert_eq!(parse_scaled("-", Unit::BytesPerSec), None);
        assert_eq!(parse_scaled("é", Unit::BytesPerSec), None);
    }

    #[test]
    fn garbage_never_panics() {
        for junk in [
            "┄┄a┄┄ ┬\n│x│\n│││\n",
            "----a---- --b--\n\n",
            "----ab---\n x\n€€€€€€€€€€€€€€€\n",
            "\r\r\x1b[",
            "* Exception in plugin\n",
        ] {
            let _ = parse_text(junk.as_bytes());
            let _ = Fmt::sniff(junk.as_bytes());
        }
    }
}
