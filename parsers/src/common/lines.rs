//! Line stepping over a byte buffer with `memchr`: 1-based line numbers,
//! `\n` or `\r\n` endings, lossy UTF-8 and ANSI escape stripping on demand.

use std::borrow::Cow;

/// One input line without its line ending.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// 1-based line number.
    pub no: usize,
    /// The bytes of the line, without `\n` / `\r\n`.
    pub bytes: &'a [u8],
}

impl<'a> Line<'a> {
    /// The line as text: borrowed when valid UTF-8, lossily decoded otherwise.
    pub fn text(&self) -> Cow<'a, str> {
        String::from_utf8_lossy(self.bytes)
    }

    /// The line as text with ANSI escapes removed.
    pub fn clean_text(&self) -> Cow<'a, str> {
        strip_ansi(self.text())
    }

    /// True when the line holds only whitespace.
    pub fn is_blank(&self) -> bool {
        is_blank(self.bytes)
    }
}

/// True when a line holds only whitespace (cheap for the usual non-blank line).
pub fn is_blank(b: &[u8]) -> bool {
    match b.first() {
        None => true,
        Some(c) if !c.is_ascii_whitespace() => false,
        Some(_) => b.iter().all(u8::is_ascii_whitespace),
    }
}

/// Iterator over the lines of a buffer (see [`Line`]).
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    rest: &'a [u8],
    no: usize,
}

impl<'a> Lines<'a> {
    /// Starts at the beginning of `input`.
    pub fn new(input: &'a [u8]) -> Self {
        Lines { rest: input, no: 0 }
    }

    /// The lines of `input` (a part of a file), the first one numbered `first_no`.
    pub fn numbered_from(input: &'a [u8], first_no: usize) -> Self {
        Lines { rest: input, no: first_no.saturating_sub(1) }
    }

    /// True when no bytes are left.
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// The prelude of most text parsers' loops: the lines with content (blank ones
    /// skipped), each with its text, ANSI escapes removed (`for (l, text) in
    /// Lines::new(input).content()`).
    pub fn content(self) -> impl Iterator<Item = (Line<'a>, Cow<'a, str>)> {
        self.filter(|l| !l.is_blank()).map(|l| (l, l.clean_text()))
    }

    /// The line number of the last line returned (0 before the first).
    pub fn line_no(&self) -> usize {
        self.no
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        if self.rest.is_empty() {
            return None;
        }
        self.no += 1;
        let (mut line, rest) = match memchr::memchr(b'\n', self.rest) {
            Some(i) => (&self.rest[..i], &self.rest[i + 1..]),
            None => (self.rest, &self.rest[self.rest.len()..]),
        };
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        self.rest = rest;
        Some(Line { no: self.no, bytes: line })
    }
}

/// One line handed out by a [`LineSource`], with what a parser may need to know
/// about its place in the input without seeing the rest of it.
#[derive(Debug, Clone, Copy)]
pub struct SourceLine<'a> {
    /// The line (number and bytes, without `\n` / `\r\n`).
    pub line: Line<'a>,
    /// The input ends inside this line (it lacks its `\n`: a cut capture).
    pub cut: bool,
    /// The line has content and every byte after it is ASCII whitespace (the last
    /// line with content).
    pub last_content: bool,
}

/// Lines fed one at a time: the whole input in memory ([`SliceSource`]) or the
/// application's fixed-size reads from a file (the parsers do no I/O). A parser
/// written against it reads any input the same way, so a file parsed as it is
/// streamed gives the very same result as the file read whole.
pub trait LineSource {
    /// The next line; its bytes are valid until the next call.
    fn next_line(&mut self) -> Option<SourceLine<'_>>;
    /// Size of the input in bytes when known (a capacity hint only; 0 when unknown).
    fn len_hint(&self) -> usize;
}

/// A [`LineSource`] over bytes in memory (the same lines as [`Lines`]).
#[derive(Debug, Clone)]
pub struct SliceSource<'a> {
    input: &'a [u8],
    pos: usize,
    no: usize,
    /// Index of the first non-whitespace byte at or after `pos` (found lazily).
    content_at: usize,
}

impl<'a> SliceSource<'a> {
    /// Lines of `input`.
    pub fn new(input: &'a [u8]) -> Self {
        SliceSource { input, pos: 0, no: 0, content_at: 0 }
    }

    /// Lines of `input` (a piece of a file cut at a line start), the first one numbered
    /// `first_no` (its `cut` and `last_content` flags are those of the piece).
    pub fn numbered_from(input: &'a [u8], first_no: usize) -> Self {
        SliceSource { input, pos: 0, no: first_no.saturating_sub(1), content_at: 0 }
    }
}

/// Index of the first byte at or after `from` that is not ASCII whitespace (`len` when none).
pub fn next_content(bytes: &[u8], from: usize) -> usize {
    bytes[from.min(bytes.len())..]
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(bytes.len(), |i| from + i)
}

impl LineSource for SliceSource<'_> {
    fn next_line(&mut self) -> Option<SourceLine<'_>> {
        let rest = &self.input[self.pos..];
        if rest.is_empty() {
            return None;
        }
        self.no += 1;
        let (mut line, next, cut) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], self.pos + i + 1, false),
            None => (rest, self.input.len(), true),
        };
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        let has = line.iter().any(|b| !b.is_ascii_whitespace());
        // Amortised linear: the content index only moves forward.
        if self.content_at < next {
            self.content_at = next_content(self.input, next);
        }
        self.pos = next;
        let last_content = has && self.content_at >= self.input.len();
        Some(SourceLine { line: Line { no: self.no, bytes: line }, cut, last_content })
    }

    fn len_hint(&self) -> usize {
        self.input.len()
    }
}

/// Counts lines the way [`Lines`] does (a last line without `\n` counts).
pub fn count_lines(input: &[u8]) -> usize {
    let n = memchr::memchr_iter(b'\n', input).count();
    if input.last().is_some_and(|&b| b != b'\n') { n + 1 } else { n }
}

/// Counts the `\n` bytes of `input`: 32 byte-wide counters the compiler vectorises, summed
/// before they can overflow (255 blocks of 32 bytes).
pub fn newlines(input: &[u8]) -> usize {
    let mut n = 0usize;
    let mut chunks = input.chunks_exact(255 * 32);
    for chunk in &mut chunks {
        let mut acc = [0u8; 32];
        for block in chunk.chunks_exact(32) {
            for (a, &b) in acc.iter_mut().zip(block) {
                *a += u8::from(b == b'\n');
            }
        }
        n += acc.iter().map(|&a| usize::from(a)).sum::<usize>();
    }
    n + chunks.remainder().iter().filter(|&&b| b == b'\n').count()
}

/// Removes ANSI CSI escapes (`ESC [ params letter`) and lone ESC bytes.
///
/// dool writes colours even into files: `\x1b[0;0m 19\x1b[7l\x1b[0;0m`.
pub fn strip_ansi(s: Cow<'_, str>) -> Cow<'_, str> {
    if !s.contains('\x1b') {
        return s;
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                while let Some(&n) = chars.peek() {
                    chars.next();
                    if n.is_ascii_alphabetic() || n == '@' || n == '~' {
                        break;
                    }
                }
            } else if chars.peek().is_some() {
                // ESC + one char (e.g. `ESC (B` charset selection): drop both.
                let n = chars.next();
                if n == Some('(') || n == Some(')') {
                    chars.next();
                }
            }
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_and_last_line() {
        let v: Vec<_> = Lines::new(b"a\r\nb\n\nc").map(|l| (l.no, l.text().into_owned())).collect();
        assert_eq!(v, vec![(1, "a".into()), (2, "b".into()), (3, "".into()), (4, "c".into())]);
        assert_eq!(count_lines(b"a\r\nb\n\nc"), 4);
        assert_eq!(count_lines(b"a\n"), 1);
    }

    #[test]
    fn slice_source_marks_cut_and_last_content_lines() {
        let mut s = SliceSource::new(b"a\r\n \nb\n\n  \n");
        let mut got = Vec::new();
        while let Some(l) = s.next_line() {
            got.push((l.line.no, l.line.text().into_owned(), l.cut, l.last_content));
        }
        assert_eq!(
            got,
            vec![
                (1, "a".into(), false, false),
                (2, " ".into(), false, false),
                (3, "b".into(), false, true),
                (4, "".into(), false, false),
                (5, "  ".into(), false, false)
            ]
        );
        let mut s = SliceSource::new(b"x\ny");
        s.next_line();
        let l = s.next_line().unwrap();
        assert!(l.cut && l.last_content && l.line.no == 2);
    }

    #[test]
    fn newlines_are_counted_across_blocks() {
        let text: Vec<u8> =
            (0..20_000u32).map(|i| if i % 7 == 0 || i % 255 == 3 { b'\n' } else { b'x' }).collect();
        for len in [0, 1, 31, 32, 8159, 8160, 8161, 20_000] {
            assert_eq!(newlines(&text[..len]), memchr::memchr_iter(b'\n', &text[..len]).count(), "{len}");
        }
    }

    #[test]
    fn ansi_is_stripped() {
        let s = strip_ansi(Cow::Borrowed("\x1b[0;0m 19\x1b[7l\x1b[0;0m|x"));
        assert_eq!(s, " 19|x");
    }
}
