//! Numbers as the capture tools print them: a decimal point or a locale
//! decimal comma (`48,29`), optional `--human` suffixes, and no thousands
//! separators. Overflows and NaN are rejected, never wrapped.

/// Parses a float that may use a decimal comma (`"9,25"`) or point (`"9.25"`).
///
/// Returns `None` for empty text, garbage, NaN and infinities.
pub fn parse_f64(tok: &str) -> Option<f64> {
    let t = tok.trim();
    if t.is_empty() || t.len() > 40 {
        return None;
    }
    let v = if t.contains(',') {
        if t.matches(',').count() != 1 || t.contains('.') {
            return None;
        }
        t.replacen(',', ".", 1).parse::<f64>().ok()?
    } else {
        t.parse::<f64>().ok()?
    };
    if !v.is_finite() {
        return None;
    }
    // Reject forms Rust accepts but tools never print ("inf" is caught above; "1e5" is fine).
    let first = t.as_bytes()[0];
    if !(first.is_ascii_digit() || first == b'-' || first == b'+' || first == b'.') {
        return None;
    }
    Some(v)
}

/// Parses an unsigned integer; `None` on garbage or overflow.
pub fn parse_u64(tok: &str) -> Option<u64> {
    let t = tok.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// Parses an `i64`; `None` on garbage or overflow.
pub fn parse_i64(tok: &str) -> Option<i64> {
    let t = tok.trim();
    let digits = t.strip_prefix('-').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// Parses a sysstat `--human` value (`7,8M`, `59.5k`, `1.5G`, `8,9%`, `0.0B`)
/// into a plain number (base 1024 for k/M/G/T/P, `%` dropped). Plain numbers pass through.
pub fn parse_human(tok: &str) -> Option<f64> {
    let t = tok.trim();
    let (num, mult) = match t.as_bytes().last()? {
        b'%' | b'B' => (&t[..t.len() - 1], 1.0),
        b'k' | b'K' => (&t[..t.len() - 1], 1024.0),
        b'M' => (&t[..t.len() - 1], 1024.0 * 1024.0),
        b'G' => (&t[..t.len() - 1], 1024f64.powi(3)),
        b'T' => (&t[..t.len() - 1], 1024f64.powi(4)),
        b'P' => (&t[..t.len() - 1], 1024f64.powi(5)),
        _ => (t, 1.0),
    };
    parse_f64(num).map(|v| v * mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_comma_and_point() {
        assert_eq!(parse_f64("48,29"), Some(48.29));
        assert_eq!(parse_f64("48.29"), Some(48.29));
        assert_eq!(parse_f64("-1.00"), Some(-1.0));
        assert_eq!(parse_f64("1,2,3"), None);
        assert_eq!(parse_f64("NaN"), None);
        assert_eq!(parse_f64("inf"), None);
        assert_eq!(parse_f64(""), None);
        assert_eq!(parse_f64("1e999"), None);
    }

    #[test]
    fn integers_reject_overflow() {
        assert_eq!(parse_u64("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64("18446744073709551616"), None);
        assert_eq!(parse_i64("-5"), Some(-5));
        assert_eq!(parse_u64("-5"), None);
    }

    #[test]
    fn human_suffixes() {
        assert_eq!(parse_human("7,8M"), Some(7.8 * 1024.0 * 1024.0));
        assert_eq!(parse_human("8,9%"), Some(8.9));
        assert_eq!(parse_human("12"), Some(12.0));
    }
}
