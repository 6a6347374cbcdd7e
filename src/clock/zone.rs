//! Time-zone names as captures print them: fixed offsets (`+02:00`, `-0700`,
//! `UTC`) and the common abbreviations of `vmstat -t` and dstat `Date:` lines.
//! IANA names (`Europe/Berlin`) are not resolved: their offset depends on the
//! date, so the user is asked for an offset instead.

/// Offset in seconds of a zone abbreviation (`CET` -> 3600); `None` if unknown.
pub fn zone_abbreviation_offset(abbr: &str) -> Option<i32> {
    let h = |x: f64| Some((x * 3600.0) as i32);
    match abbr.trim().to_ascii_uppercase().as_str() {
        "UTC" | "GMT" | "Z" | "UT" | "WET" => h(0.0),
        "BST" | "IST" | "WEST" | "CET" | "MET" => {
            if abbr.eq_ignore_ascii_case("IST") {
                h(5.5)
            } else {
                h(1.0)
            }
        }
        "CEST" | "MEST" | "EET" | "SAST" => h(2.0),
        "EEST" | "MSK" | "TRT" => h(3.0),
        "GST" => h(4.0),
        "PKT" => h(5.0),
        "ICT" | "WIB" => h(7.0),
        "CST" | "AWST" | "HKT" | "SGT" | "PHT" => {
            // CST is ambiguous (China +8, US Central -6); captures from Linux hosts in
            // China print CST for Asia/Shanghai, US hosts print CST in winter only.
            if abbr.eq_ignore_ascii_case("CST") { None } else { h(8.0) }
        }
        "JST" | "KST" => h(9.0),
        "ACST" => h(9.5),
        "AEST" => h(10.0),
        "AEDT" => h(11.0),
        "NZST" => h(12.0),
        "NZDT" => h(13.0),
        "EST" => h(-5.0),
        "EDT" => h(-4.0),
        "CDT" => h(-5.0),
        "MST" => h(-7.0),
        "MDT" => h(-6.0),
        "PST" => h(-8.0),
        "PDT" => h(-7.0),
        "AKST" => h(-9.0),
        "HST" => h(-10.0),
        "BRT" => h(-3.0),
        "ART" => h(-3.0),
        _ => parse_offset(abbr),
    }
}

/// Parses `+02:00`, `-0700`, `+5`, `UTC+2`, `GMT-03:30`.
fn parse_offset(s: &str) -> Option<i32> {
    let s = s.trim();
    let s = s.strip_prefix("UTC").or_else(|| s.strip_prefix("GMT")).unwrap_or(s);
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() || digits.len() > 4 || rest.chars().any(|c| !c.is_ascii_digit() && c != ':') {
        return None;
    }
    let (h, m): (i32, i32) = match digits.len() {
        1 | 2 => (digits.parse().ok()?, 0),
        3 => (digits[..1].parse().ok()?, digits[1..].parse().ok()?),
        _ => (digits[..2].parse().ok()?, digits[2..].parse().ok()?),
    };
    if h > 14 || m >= 60 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60))
}

/// Parses the `--tz` argument: an offset or a known abbreviation.
pub fn parse_tz(s: &str) -> Result<i32, String> {
    zone_abbreviation_offset(s).ok_or_else(|| {
        format!("unknown time zone {s:?}: give an offset such as +02:00 or -0500, or UTC, CET, PST, ...")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets() {
        assert_eq!(parse_tz("+02:00"), Ok(7200));
        assert_eq!(parse_tz("-0530"), Ok(-19800));
        assert_eq!(parse_tz("UTC"), Ok(0));
        assert_eq!(parse_tz("pdt"), Ok(-25200));
        assert!(parse_tz("Europe/Berlin").is_err());
        assert!(parse_tz("+99").is_err());
    }
}
