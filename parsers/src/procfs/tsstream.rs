//! The streaming counterpart of [`crate::procfs::tsblocks::split`]: lines of a
//! `TS`-framed file are fed one at a time (a [`LineSource`]) and each block is
//! handed to the format's reader as soon as the next `TS` line closes it, so
//! only one block is held:
//!
//! ```text
//! TS 1795981039.666693755 2026-11-29 19:37:19   <- opens block 1
//! MemTotal:       24684084 kB
//! ...
//! TS 1795981040.680128146 2026-11-29 19:37:20   <- closes block 1 (read now), opens block 2
//! ```
//!
//! Only the current pt-stalk layout streams ([`Layout::TsBefore`]: the first
//! line with content is a `TS` line). A file starting with data (an old TS-after
//! bundle, a single snapshot, or a snapshot whose `TS` was cut off) needs the
//! end of the file to tell its layout: its lines are gathered and given back
//! whole, for [`crate::procfs::tsblocks::split`]. Either way the blocks, flags and
//! diagnostics are those of [`crate::procfs::tsblocks::split`] on the whole input.

use crate::common::lines::is_blank;
use crate::common::{DiagKind, Diags, LineSource};
use crate::procfs::tsblocks::{Block, BlockLines, Layout, is_ts_line, read_ts};

/// How a line-fed `TS` file was read.
pub enum Split {
    /// Streamed: every block went to the reader; the split's own diagnostics
    /// (unreadable `TS` lines, a cut last block), the number of lines and the data
    /// lines of the last block (what the next piece of the file compares its last to).
    Streamed { layout: Layout, split_diags: Diags, lines: usize, last_data_lines: Option<usize> },
    /// Not the streamable layout: the whole input, for the slice parser.
    Whole(Vec<u8>),
}

/// The open block: its `TS` line and the lines after it.
struct Open {
    ts: (usize, Vec<u8>),
    body: Vec<u8>,
    data_lines: usize,
}

impl Open {
    fn block(&self, split_diags: &mut Diags) -> Block<'_> {
        let (no, bytes) = (self.ts.0, self.ts.1.as_slice());
        let ts = read_ts(bytes);
        if ts.is_none() {
            split_diags.skip(no, DiagKind::BadTime, String::from_utf8_lossy(bytes));
        }
        Block {
            ts,
            ts_line: Some(no),
            first_line: no,
            lines: BlockLines::numbered_from(&self.body, no + 1),
            data_lines: self.data_lines,
            truncated: false,
            cut_line: None,
        }
    }
}

/// Feeds every block of `src` to `read` (in file order; the last one flagged as
/// [`crate::procfs::tsblocks::split`] flags it), or gives the input back whole.
pub fn split(src: &mut impl LineSource, read: impl FnMut(Block<'_>)) -> Split {
    split_piece(src, None, true, read)
}

/// [`split`] of one piece of a file cut at `TS` lines ([`crate::pieces`]): `prev_data_lines`
/// are the data lines of the block before the piece (none for the file's first piece);
/// only the piece that ends the file (`last`) has its last block checked for a cut.
pub fn split_piece(
    src: &mut impl LineSource,
    mut prev_data_lines: Option<usize>,
    last: bool,
    mut read: impl FnMut(Block<'_>),
) -> Split {
    let mut head: Vec<u8> = Vec::new();
    let mut open: Option<Open> = None;
    let mut split_diags = Diags::default();
    let mut lines = 0;
    let mut cut = false;
    while let Some(sl) = src.next_line() {
        let (no, bytes) = (sl.line.no, sl.line.bytes);
        lines = no;
        cut = sl.cut;
        let ts = is_ts_line(bytes);
        let Some(o) = open.as_mut() else {
            if ts {
                // Blank lines before the first `TS` make no block.
                open = Some(Open { ts: (no, bytes.to_vec()), body: Vec::new(), data_lines: 0 });
                continue;
            }
            head.extend_from_slice(bytes);
            if !sl.cut {
                head.push(b'\n');
            }
            if is_blank(bytes) {
                continue;
            }
            // Data first: the layout needs the whole file.
            while let Some(sl) = src.next_line() {
                head.extend_from_slice(sl.line.bytes);
                if !sl.cut {
                    head.push(b'\n');
                }
            }
            return Split::Whole(head);
        };
        if ts {
            read(o.block(&mut split_diags));
            prev_data_lines = Some(o.data_lines);
            o.ts = (no, bytes.to_vec());
            o.body.clear();
            o.data_lines = 0;
            continue;
        }
        o.body.extend_from_slice(bytes);
        if !sl.cut {
            o.body.push(b'\n');
        }
        if !is_blank(bytes) {
            o.data_lines += 1;
        }
    }
    let Some(o) = open else {
        // Blank lines only (or nothing).
        return Split::Whole(head);
    };
    let mut block = o.block(&mut split_diags);
    // A last block shorter than the one before it, or whose last line lacks its `\n`.
    if last
        && let Some(prev) = prev_data_lines
        && (block.data_lines < prev || (cut && block.data_lines > 0))
    {
        block.truncated = true;
        crate::procfs::tsblocks::note_cut(&mut block, cut, lines, &mut split_diags);
    }
    read(block);
    Split::Streamed { layout: Layout::TsBefore, split_diags, lines, last_data_lines: Some(o.data_lines) }
}
