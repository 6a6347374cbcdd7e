//! One large file parsed on several threads: the application cuts the file at lines
//! where a record starts ([`Pieces::is_boundary`]: a `TS` line of a pt-stalk series,
//! an iostat `-t` stamp), parses the pieces on every core ([`Pieces::part`], no shared
//! state), adds their parts in file order ([`Pieces::merge`]) and parses the last piece
//! with what the others left ([`Pieces::finish`]). The result is the one-thread parse of
//! the whole file, byte for byte:
//!
//! ```text
//! TS 1795981039.666693755 2026-11-29 19:37:19   <- piece 1 (the file's first: `first`)
//! MemTotal:       24684084 kB
//! ...
//! TS 1795981051.707421399 2026-11-29 19:37:31   <- piece 2, parsed beside piece 1
//! ...
//! TS 1795990000.000000000 2026-11-29 22:06:40   <- the last piece: finish()
//! ```
//!
//! A piece the format cannot read on its own (a file that does not start with its
//! boundary, a line whose meaning depends on what came before) makes [`Pieces::part`] or
//! [`Pieces::merge`] answer `None`/`false`: the application then parses the whole file
//! on one thread.

use crate::common::{LineSource, Parsed};

/// A format whose files can be cut at record boundaries and parsed in pieces.
pub trait Pieces: Sync {
    /// What one piece parses to.
    type Part: Send;
    /// The parse of the whole file.
    type Output;
    /// True when a piece may start at this line (a record boundary the parser finds on its own).
    fn is_boundary(&self, line: &[u8]) -> bool;
    /// Parses one piece: whole lines (each with its `\n`), the first numbered `first_no`;
    /// `first` when it starts the file. `None` when the piece cannot be read on its own.
    fn part(&self, bytes: &[u8], first_no: usize, first: bool) -> Option<Self::Part>;
    /// Adds the part of the next piece (file order). False when the file must be parsed whole.
    fn merge(&mut self, part: Self::Part) -> bool;
    /// Parses the rest of the file (the last piece, starting at a boundary or the file's
    /// start when nothing was merged) and finishes.
    fn finish(self, rest: &mut impl LineSource) -> Parsed<Self::Output>;
}
