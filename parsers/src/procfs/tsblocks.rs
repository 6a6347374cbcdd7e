//! pt-stalk `TS`-framed snapshot files, split into blocks.
//!
//! pt-stalk's snapshot collectors (`-meminfo`, `-procvmstat`, `-diskstats`, ...)
//! run `date +"TS %s.%N %F %T"` and then `cat /proc/<file>` in a loop
//! (`percona/percona-toolkit@8d0f14c1:bin/pt-stalk:collect_system_data_loop`):
//!
//! ```text
//! TS 1795981039.666693755 2026-11-29 19:37:19
//! MemTotal:       24684084 kB
//! MemFree:        19440712 kB
//! ...
//! TS 1795981040.680128146 2026-11-29 19:37:20
//! MemTotal:       24684084 kB
//! ```
//!
//! Layouts handled (see [`Layout`]):
//! * **TS before** each block (current pt-stalk, and every `TS` form:
//!   `TS 1281367519`, `TS 1283888686.311660000`,
//!   `TS 1344561790.012145298 2012-08-09 21:23:10`, and the ISO-`T` form of old
//!   pt-diskstats samples `TS 1327510177.628000 2012-01-25T10:49:37`);
//! * **TS after** each block (old bundles: the snapshot first, then its `TS`
//!   line); data after the last `TS` of such a file is a block without time;
//! * a **single** snapshot without any `TS` line.
//!
//! A last block cut short (collector killed: fewer lines than the block before
//! it, or a `TS` line with nothing after it) is kept and flagged
//! [`Block::truncated`], with a [`DiagKind::Truncated`] note.

use crate::common::ts::{TsLine, parse_ts_line};
use crate::common::{DiagKind, Diags, Lines};
use chrono::NaiveDateTime;

/// Where the `TS` lines sit relative to the snapshots they stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// No `TS` line at all: one snapshot.
    Single,
    /// `TS` line first, then the snapshot (current pt-stalk).
    TsBefore,
    /// Snapshot first, then its `TS` line (old bundles).
    TsAfter,
}

impl Layout {
    /// Short name for `Summary::variant`.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::Single => "single",
            Layout::TsBefore => "ts_before",
            Layout::TsAfter => "ts_after",
        }
    }
}

/// The lines of one block, with their 1-based numbers in the whole input.
///
/// Cheap to clone; iterating does not allocate. `TS` lines are never part of it.
pub type BlockLines<'a> = Lines<'a>;

/// One snapshot of a `TS`-framed (or unframed) file.
#[derive(Debug, Clone)]
pub struct Block<'a> {
    /// The `TS` line stamping this block (`None` for an unframed snapshot, a
    /// block after the last `TS` of a TS-after file, or an unreadable `TS` line).
    pub ts: Option<TsLine>,
    /// 1-based line number of that `TS` line.
    pub ts_line: Option<usize>,
    /// 1-based line number of the first line of the block (of the `TS` line in
    /// the TS-before layout, so that it is the "first line of the snapshot").
    pub first_line: usize,
    /// The data lines (blank lines included, `TS` lines excluded).
    pub lines: BlockLines<'a>,
    /// Number of non-blank data lines.
    pub data_lines: usize,
    /// The block was cut short at the end of the file.
    pub truncated: bool,
    /// Line number of a last line that lacks its `\n` in a truncated block: it
    /// may be cut in the middle, parsers should not trust it.
    pub cut_line: Option<usize>,
}

/// A file split into blocks.
#[derive(Debug, Clone)]
pub struct Blocks<'a> {
    /// Where the `TS` lines are.
    pub layout: Layout,
    /// The blocks in file order.
    pub blocks: Vec<Block<'a>>,
}

impl<'a> IntoIterator for Blocks<'a> {
    type Item = Block<'a>;
    type IntoIter = std::vec::IntoIter<Block<'a>>;
    fn into_iter(self) -> Self::IntoIter {
        self.blocks.into_iter()
    }
}

/// The first line of a head that is neither blank nor a `TS` line (what a
/// snapshot file's sniffer looks at: `Filesystem ...`, `           CPU0       CPU1`).
pub fn first_data_line(head: &[u8]) -> Option<String> {
    crate::common::Lines::new(head)
        .find(|l| !l.is_blank() && !is_ts_line(l.bytes))
        .map(|l| l.text().into_owned())
}

/// The first and last `TS` epochs of a file's snapshots, as stamps.
pub fn epoch_range(
    epochs: impl Iterator<Item = Option<f64>>,
) -> Option<(crate::common::Stamp, crate::common::Stamp)> {
    let e: Vec<f64> = epochs.flatten().collect();
    Some((crate::common::Stamp::Epoch(*e.first()?), crate::common::Stamp::Epoch(*e.last()?)))
}

/// True when a line is meant to be a `TS` framing line (readable or not).
pub fn is_ts_line(bytes: &[u8]) -> bool {
    bytes.starts_with(b"TS ") || bytes == b"TS"
}

/// Reads a `TS` line: [`parse_ts_line`] plus the ISO `T` form seen in old
/// pt-diskstats samples (`TS 1327510177.628000 2012-01-25T10:49:37`).
pub fn read_ts(bytes: &[u8]) -> Option<TsLine> {
    let text = std::str::from_utf8(bytes).ok()?;
    if let Some(t) = parse_ts_line(text) {
        return Some(t);
    }
    // `TS <epoch> <YYYY-MM-DD>T<HH:MM:SS>`
    let mut it = text.strip_prefix("TS ")?.split_whitespace();
    let e = it.next()?;
    let dt = it.next()?;
    if it.next().is_some() || e.is_empty() || e.len() > 24 {
        return None;
    }
    if !e.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let epoch: f64 = e.parse().ok()?;
    let local = NaiveDateTime::parse_from_str(dt, "%Y-%m-%dT%H:%M:%S").ok()?;
    Some(TsLine { epoch, local: Some(local) })
}

struct Raw<'a> {
    ts_line: Option<(usize, &'a [u8])>,
    start_no: usize,
    body: &'a [u8],
    data_lines: usize,
}

/// Splits `input` into blocks. Unreadable `TS` lines still separate blocks and
/// get a [`DiagKind::BadTime`] diagnostic (counted as skipped); a cut-short
/// last block gets a [`DiagKind::Truncated`] note.
pub fn split<'a>(input: &'a [u8], diags: &mut Diags) -> Blocks<'a> {
    let cut = cut_at_ts(input);
    let layout = match (cut.first_ts_no, cut.first_data_no) {
        (None, _) => Layout::Single,
        // Data before the first TS: the old TS-after layout when the file ends
        // with a TS line, or when that leading data is a whole block (not the
        // tail of a snapshot whose TS was cut off the head of the file).
        (Some(t), Some(d))
            if d < t
                && (cut.last_nonblank_is_ts
                    || cut.pieces.len() < 2
                    || cut.pieces[0].data_lines >= cut.pieces[1].data_lines) =>
        {
            Layout::TsAfter
        }
        _ => Layout::TsBefore,
    };
    let mut blocks = match layout {
        Layout::Single => cut.pieces.into_iter().map(|p| make_block(None, None, p.start_no, p)).collect(),
        Layout::TsBefore => blocks_ts_before(cut.pieces, diags),
        Layout::TsAfter => blocks_ts_after(cut.pieces, diags),
    };
    mark_last_cut(&mut blocks, layout, input, cut.lines, diags);
    Blocks { layout, blocks }
}

/// The input cut at its `TS` lines, in one pass.
struct Cut<'a> {
    /// (TS, body) pieces: the body after each TS line, the first without one.
    pieces: Vec<Raw<'a>>,
    first_ts_no: Option<usize>,
    first_data_no: Option<usize>,
    last_nonblank_is_ts: bool,
    /// Lines of the input.
    lines: usize,
}

fn cut_at_ts(input: &[u8]) -> Cut<'_> {
    let mut cut = Cut {
        pieces: Vec::new(),
        first_ts_no: None,
        first_data_no: None,
        last_nonblank_is_ts: false,
        lines: 0,
    };
    let mut pos = 0usize;
    let mut no = 0usize;
    let mut body_start = 0usize;
    let mut body_no = 1usize;
    let mut data_lines = 0usize;
    let mut pending_ts = None;
    while pos < input.len() {
        no += 1;
        let end = memchr::memchr(b'\n', &input[pos..]).map_or(input.len(), |i| pos + i);
        let next = (end + 1).min(input.len());
        let mut line = &input[pos..end];
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        if is_ts_line(line) {
            cut.first_ts_no.get_or_insert(no);
            cut.last_nonblank_is_ts = true;
            cut.pieces.push(Raw {
                ts_line: pending_ts.take(),
                start_no: body_no,
                body: &input[body_start..pos],
                data_lines,
            });
            pending_ts = Some((no, line));
            body_start = next;
            body_no = no + 1;
            data_lines = 0;
        } else if !crate::common::lines::is_blank(line) {
            cut.first_data_no.get_or_insert(no);
            cut.last_nonblank_is_ts = false;
            data_lines += 1;
        }
        pos = next;
    }
    cut.pieces.push(Raw {
        ts_line: pending_ts.take(),
        start_no: body_no,
        body: &input[body_start.min(input.len())..],
        data_lines,
    });
    cut.lines = no;
    cut
}

/// The time of a TS line, with a diagnostic when it does not read.
fn read_ts_noted(ts: Option<(usize, &[u8])>, diags: &mut Diags) -> Option<TsLine> {
    let (n, bytes) = ts?;
    let t = read_ts(bytes);
    if t.is_none() {
        diags.skip(n, DiagKind::BadTime, String::from_utf8_lossy(bytes));
    }
    t
}

/// [`Layout::TsBefore`]: each body is stamped by the TS line above it.
fn blocks_ts_before<'a>(pieces: Vec<Raw<'a>>, diags: &mut Diags) -> Vec<Block<'a>> {
    let mut blocks = Vec::with_capacity(pieces.len());
    for p in pieces {
        if p.ts_line.is_none() && p.data_lines == 0 {
            continue; // nothing before the first TS
        }
        let ts_no = p.ts_line.map(|(n, _)| n);
        let ts = read_ts_noted(p.ts_line, diags);
        let first = ts_no.unwrap_or(p.start_no);
        blocks.push(make_block(ts, ts_no, first, p));
    }
    blocks
}

/// [`Layout::TsAfter`]: piece[i] holds TS(i-1) then body(i); body(i) is stamped by TS(i).
fn blocks_ts_after<'a>(pieces: Vec<Raw<'a>>, diags: &mut Diags) -> Vec<Block<'a>> {
    let mut blocks = Vec::with_capacity(pieces.len());
    let n = pieces.len();
    let mut it = pieces.into_iter().peekable();
    let mut idx = 0usize;
    while let Some(mut p) = it.next() {
        idx += 1;
        let closing = it.peek().and_then(|q| q.ts_line);
        p.ts_line = None;
        if closing.is_none() && idx == n && p.data_lines == 0 {
            break;
        }
        let ts_no = closing.map(|(n, _)| n);
        let ts = read_ts_noted(closing, diags);
        let mut b = make_block(ts, ts_no, p.start_no, p);
        if closing.is_none() {
            // Data after the last TS: the collector stopped before stamping it.
            b.truncated = true;
        }
        blocks.push(b);
    }
    blocks
}

/// A last block shorter than the one before it, or whose last line lacks
/// its `\n`, was cut short: flagged and noted.
fn mark_last_cut(blocks: &mut [Block<'_>], layout: Layout, input: &[u8], lines: usize, diags: &mut Diags) {
    let len = blocks.len();
    let no_newline = input.last().is_some_and(|&b| b != b'\n');
    if len >= 2 && layout != Layout::Single {
        let prev = blocks[len - 2].data_lines;
        if let Some(last) = blocks.last_mut()
            && (last.data_lines < prev || (no_newline && last.data_lines > 0))
        {
            last.truncated = true;
        }
    }
    if let Some(last) = blocks.last_mut()
        && last.truncated
    {
        note_cut(last, no_newline, lines, diags);
    }
}

/// A truncated last block: its last line is cut when the input lacks its final `\n`
/// (`lines`: the number of lines of the input), and a note says so.
pub(crate) fn note_cut(last: &mut Block<'_>, no_newline: bool, lines: usize, diags: &mut Diags) {
    if no_newline {
        last.cut_line = Some(lines);
    }
    let at = last.lines.clone().last().map_or(last.first_line, |l| l.no);
    diags.note(
        at,
        DiagKind::Truncated,
        format!("last snapshot (line {}) is cut short: {} line(s)", last.first_line, last.data_lines),
    );
}

fn make_block<'a>(ts: Option<TsLine>, ts_line: Option<usize>, first_line: usize, p: Raw<'a>) -> Block<'a> {
    Block {
        ts,
        ts_line,
        first_line,
        lines: BlockLines::numbered_from(p.body, p.start_no),
        data_lines: p.data_lines,
        truncated: false,
        cut_line: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(b: &Block<'_>) -> Vec<(usize, String)> {
        b.lines.clone().map(|l| (l.no, l.text().into_owned())).collect()
    }

    #[test]
    fn ts_before_with_dates() {
        let input = b"TS 1795981039.666693755 2026-11-29 19:37:19\nA: 1 kB\nB: 2 kB\nTS 1795981040.5 2026-11-29 19:37:20\nA: 3 kB\nB: 4 kB\n";
        let mut d = Diags::default();
        let s = split(input, &mut d);
        assert_eq!(s.layout, Layout::TsBefore);
        assert_eq!(s.blocks.len(), 2);
        assert_eq!(s.blocks[0].ts_line, Some(1));
        assert_eq!(s.blocks[0].first_line, 1);
        assert_eq!(texts(&s.blocks[1]), vec![(5, "A: 3 kB".into()), (6, "B: 4 kB".into())]);
        assert!((s.blocks[1].ts.unwrap().epoch - 1795981040.5).abs() < 1e-6);
        assert!(d.list.is_empty());
    }

    #[test]
    fn ts_after_and_untimed_tail() {
        let input = b"a 1\nb 2\nTS 100\na 3\nb 4\nTS 101\na 5\n";
        let mut d = Diags::default();
        let s = split(input, &mut d);
        assert_eq!(s.layout, Layout::TsAfter);
        assert_eq!(s.blocks.len(), 3);
        assert_eq!(s.blocks[0].ts.unwrap().epoch, 100.0);
        assert_eq!(s.blocks[0].ts_line, Some(3));
        assert_eq!(texts(&s.blocks[1])[0], (4, "a 3".into()));
        assert_eq!(s.blocks[1].ts.unwrap().epoch, 101.0);
        assert!(s.blocks[2].ts.is_none() && s.blocks[2].truncated);
        assert_eq!(d.list.len(), 1);
        assert_eq!(d.list[0].kind, DiagKind::Truncated);
    }

    #[test]
    fn ts_after_complete_is_not_truncated() {
        let mut d = Diags::default();
        let s = split(b"a 1\nTS 100\na 2\nTS 101\n", &mut d);
        assert_eq!(s.layout, Layout::TsAfter);
        assert_eq!(s.blocks.len(), 2);
        assert!(!s.blocks[1].truncated);
        assert!(d.list.is_empty());
    }

    #[test]
    fn single_and_iso_t_and_truncation() {
        let mut d = Diags::default();
        let s = split(b"a 1\nb 2\n", &mut d);
        assert_eq!(s.layout, Layout::Single);
        assert_eq!(s.blocks.len(), 1);
        assert!(s.blocks[0].ts.is_none());

        let s =
            split(b"TS 1327510177.628000 2012-01-25T10:49:37\na 1\nb 2\nTS 1327510178\na 3\nb 4\n", &mut d);
        assert!(s.blocks[0].ts.unwrap().local.is_some());
        assert!(!s.blocks[1].truncated);

        let s = split(b"TS 1\na 1\nb 2\nTS 2\na 3\nb", &mut d);
        assert!(s.blocks[1].truncated);
        assert_eq!(s.blocks[1].cut_line, Some(6));

        let s = split(b"TS 1\na 1\nTS 2\n", &mut d);
        assert_eq!(s.blocks.len(), 2);
        assert!(s.blocks[1].truncated);
    }

    #[test]
    fn bad_ts_is_reported() {
        let mut d = Diags::default();
        let s = split(b"TS 1\na 1\nTS xyz\na 2\n", &mut d);
        assert_eq!(s.blocks.len(), 2);
        assert!(s.blocks[1].ts.is_none());
        assert_eq!(s.blocks[1].ts_line, Some(3));
        assert_eq!(d.list[0].kind, DiagKind::BadTime);
        assert_eq!(d.skipped, 1);
    }
}
