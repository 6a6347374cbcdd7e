//! pt-stalk's `TS`-framed series (`meminfo`, `procvmstat`, `diskstats`) cut at their `TS`
//! lines and parsed in pieces on several threads ([`crate::pieces`]). Each piece's blocks
//! are read with no budget; the merge offers the snapshots to the file's one
//! [`Thinning`] in file order, and the last piece is read with the merged state, so the
//! result is the streamed parse ([`crate::procfs::tsstream`]) of the whole file:
//!
//! ```text
//! TS 1795981039.666693755 2026-11-29 19:37:19   <- a piece may start here
//! MemTotal:       24684084 kB
//! ```

use crate::common::{Diags, LineSource, Parsed, SliceSource};
use crate::pieces::Pieces;
use crate::procfs::ts_budget::{Snapshot, Thinning};
use crate::procfs::tsblocks::{Block, Layout, is_ts_line};
use crate::procfs::tsstream::{Split, split_piece};

/// One `TS`-framed format: how its blocks become snapshots of its value.
pub trait TsFormat: Sync {
    /// The parsed file.
    type Value: Send;
    /// One snapshot of it.
    type Snap: Snapshot + Send;
    /// What a reader keeps between blocks (meminfo's keys).
    type Scratch: Default;
    /// A value without snapshots.
    fn empty(&self) -> Self::Value;
    /// Its snapshots.
    fn snapshots(v: &mut Self::Value) -> &mut Vec<Self::Snap>;
    /// Reads one block into `out` through `thin`; `whole`: `out` holds every block before
    /// this one (the piece starts the file, or the merged pieces before it). False when the
    /// block cannot be read without the blocks before its piece.
    fn read(
        &self,
        block: Block<'_>,
        out: &mut Self::Value,
        scratch: &mut Self::Scratch,
        diags: &mut Diags,
        thin: &mut Thinning,
        whole: bool,
    ) -> bool;
    /// Sets the layout and thinning of a finished value.
    fn set(v: &mut Self::Value, layout: Layout, thinned: u32);
    /// Places the snapshots whose `TS` line could not be read.
    fn place(v: &mut Self::Value, diags: &mut Diags);
    /// The whole-file parse (a file that does not start with a `TS` line).
    fn whole(&self, input: &[u8]) -> Parsed<Self::Value>;
}

/// What one piece parsed to.
pub struct TsPart<S> {
    snapshots: Vec<S>,
    split_diags: Diags,
    diags: Diags,
    last_data_lines: Option<usize>,
}

/// The merge of a `TS` series' pieces (and its streamed parse: [`TsPieces::finish`] alone).
pub struct TsPieces<F: TsFormat> {
    format: F,
    value: F::Value,
    scratch: F::Scratch,
    diags: Diags,
    split_diags: Diags,
    thin: Thinning,
    prev_data_lines: Option<usize>,
}

impl<F: TsFormat> TsPieces<F> {
    /// A parse of `format` keeping its snapshots within `budget` bytes (0: no limit).
    pub fn new(format: F, budget: usize) -> Self {
        TsPieces {
            value: format.empty(),
            format,
            scratch: F::Scratch::default(),
            diags: Diags::default(),
            split_diags: Diags::default(),
            thin: Thinning::new(budget),
            prev_data_lines: None,
        }
    }
}

impl<F: TsFormat> Pieces for TsPieces<F>
where
    F::Value: Sync,
    F::Scratch: Sync,
{
    type Part = TsPart<F::Snap>;
    type Output = F::Value;

    fn is_boundary(&self, line: &[u8]) -> bool {
        is_ts_line(line)
    }

    fn part(&self, bytes: &[u8], first_no: usize, first: bool) -> Option<TsPart<F::Snap>> {
        let mut src = SliceSource::numbered_from(bytes, first_no);
        let mut value = self.format.empty();
        let (mut scratch, mut diags, mut thin) = (F::Scratch::default(), Diags::default(), Thinning::new(0));
        let mut alone = true;
        let split = split_piece(&mut src, None, false, |b| {
            alone &= self.format.read(b, &mut value, &mut scratch, &mut diags, &mut thin, first);
        });
        match split {
            Split::Streamed { split_diags, last_data_lines, .. } if alone => Some(TsPart {
                snapshots: std::mem::take(F::snapshots(&mut value)),
                split_diags,
                diags,
                last_data_lines,
            }),
            // Blank lines before the file's first `TS` line make no block.
            Split::Whole(head) if first && crate::common::lines::is_blank(&head) => Some(TsPart {
                snapshots: Vec::new(),
                split_diags: Diags::default(),
                diags: Diags::default(),
                last_data_lines: None,
            }),
            _ => None,
        }
    }

    fn merge(&mut self, part: TsPart<F::Snap>) -> bool {
        for s in part.snapshots {
            self.thin.push(F::snapshots(&mut self.value), s);
        }
        self.split_diags.append(part.split_diags);
        self.diags.append(part.diags);
        self.prev_data_lines = part.last_data_lines.or(self.prev_data_lines);
        true
    }

    fn finish(mut self, rest: &mut impl LineSource) -> Parsed<F::Value> {
        let (format, value, scratch, diags, thin) =
            (&self.format, &mut self.value, &mut self.scratch, &mut self.diags, &mut self.thin);
        let split = split_piece(rest, self.prev_data_lines, true, |b| {
            // `value` holds every block before this one: read as in one piece.
            format.read(b, value, scratch, diags, thin, true);
        });
        let (layout, tail_diags, lines) = match split {
            Split::Whole(input) => return self.format.whole(&input),
            Split::Streamed { layout, split_diags, lines, .. } => (layout, split_diags, lines),
        };
        let mut split_diags = self.split_diags;
        split_diags.append(tail_diags);
        F::set(&mut self.value, layout, if self.thin.stride > 1 { self.thin.stride } else { 0 });
        self.thin.note(&mut self.diags);
        split_diags.append(self.diags);
        F::place(&mut self.value, &mut split_diags);
        split_diags.finish(self.value, lines)
    }
}
