//! Capture text made safe for a terminal (issue 17): file and member names,
//! problems, warnings and parsed values come from the capture, and a control
//! character (an escape sequence that recolours or clears the screen) or a
//! bidirectional override (`U+202E`, which makes `txt.exe` read `exe.txt`)
//! would reach the user's terminal as it is. Here they become visible escapes.
//! The report, diff and batch pages and the charts use the same rules
//! ([`safe_doc`], [`one_line`]): a browser would apply the override too.

use std::borrow::Cow;

/// True for characters that reorder or hide text: bidirectional embeddings,
/// overrides and isolates, and the zero-width marks.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `s` with every control character but newline and tab, and every bidirectional
/// control, written as a visible escape (`\x1b`, `\u{202e}`).
pub fn safe(s: &str) -> Cow<'_, str> {
    escaped(s, true)
}

/// [`safe`] for text that must stay on one line (a file or member name, a label): a
/// newline or tab is written `\n`, `\t` too, so a name cannot start a line of its own.
pub fn one_line(s: &str) -> Cow<'_, str> {
    escaped(s, false)
}

/// `s` with its control characters (but newline and tab when `lines`) and
/// bidirectional controls written as visible escapes.
fn escaped(s: &str, lines: bool) -> Cow<'_, str> {
    let bad = |c: char| (c.is_control() && !(lines && (c == '\n' || c == '\t'))) || is_bidi(c);
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            _ if !bad(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            _ if c.is_control() && (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            _ => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// [`safe`] of a whole document the program wrote (an HTML page, an SVG): every
/// control (but newline and tab) and bidirectional character in it came from the
/// capture, through a text or an attribute, and is written as a visible escape, so
/// the page shows what the terminal shows. `doc` is returned as it is when clean.
pub fn safe_doc(doc: String) -> String {
    match safe(&doc) {
        Cow::Borrowed(_) => doc,
        Cow::Owned(o) => o,
    }
}

/// JSON text for a terminal: serde_json already escapes control characters; the
/// bidirectional controls become `\u202e` escapes (the same JSON value).
pub fn safe_json(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_bidi) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars().map(|c| if is_bidi(c) { format!("\\u{:04x}", c as u32) } else { c.to_string() }).collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_overrides_are_escaped() {
        assert_eq!(safe("plain\tline\n"), "plain\tline\n");
        assert_eq!(safe("a\u{202e}txt.exe"), "a\\u{202e}txt.exe");
        assert_eq!(safe("\x1b[2Jred\x07"), "\\x1b[2Jred\\x07");
        assert_eq!(safe("\u{9b}x"), "\\x9bx");
        assert_eq!(one_line("x\nFORGED:\tiostat\u{202e}\r"), "x\\nFORGED:\\tiostat\\u{202e}\\x0d");
        let j = serde_json::to_string(&"a\u{202e}b\x1b").unwrap();
        let v: String = serde_json::from_str(&safe_json(&j)).unwrap();
        assert_eq!(v, "a\u{202e}b\x1b", "the same JSON value");
        assert!(!safe_json(&j).contains('\u{202e}'));
    }
}
