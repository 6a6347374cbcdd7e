//! Number and time formatting shared by the charts, the HTML page and the
//! terminal summary. Times are shown in the display zone (`--display-tz`, UTC by
//! default); nothing reads the wall clock.

use crate::clock::DisplayZone;

/// `YYYY-MM-DD HH:MM:SS` of an epoch second in the display zone; `?` when out of range.
pub(super) fn full(z: &DisplayZone, epoch: i64) -> String {
    z.format(epoch, "%Y-%m-%d %H:%M:%S")
}

/// An RFC 3339 instant of findings.json shown in the display zone with its offset
/// (`2026-11-29 19:38:03 +01:00`); the text as given when it is not RFC 3339.
pub(super) fn instant(z: &DisplayZone, rfc3339: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(rfc3339) {
        Ok(d) if z.is_utc() => format!("{} UTC", full(z, d.timestamp())),
        Ok(d) => format!("{} {}", full(z, d.timestamp()), z.offset_text(d.timestamp())),
        Err(_) => rfc3339.to_string(),
    }
}

/// A number with about three significant digits (`0.93`, `14.2`, `1400`).
pub(super) fn num(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    let s = if a == 0.0 {
        "0".to_string()
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.01 {
        format!("{v:.2}")
    } else {
        format!("{v:.1e}")
    };
    // Trim "14.0" to "14" and "0.50" to "0.5" for axis labels.
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Bytes in binary units (`512 B`, `4.0 KiB`, `150 MiB`, `1.2 GiB`).
pub(super) fn bytes_h(b: f64) -> String {
    if !b.is_finite() {
        return "-".into();
    }
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b;
    let mut u = 0;
    while v.abs() >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    let unit = UNITS.get(u).copied().unwrap_or("B");
    if u == 0 || v.abs() >= 100.0 { format!("{v:.0} {unit}") } else { format!("{v:.1} {unit}") }
}

/// A JSON value for a table cell: numbers shortened, null as "unknown".
pub(super) fn json_cell(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => "unknown".into(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.to_string(),
            (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
            (None, Some(f)) => {
                if f.abs() >= 1000.0 {
                    format!("{f:.0}")
                } else {
                    format!("{f:.3}").trim_end_matches('0').trim_end_matches('.').to_string()
                }
            }
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

/// A finding's headline number in words: the metric its rule declares, by its unit (bytes in
/// binary units, as the findings' summaries write them).
pub fn headline(f: &crate::model::Finding) -> Option<String> {
    use crate::verdict::Unit;
    let (key, label) = crate::rules::spec(f.rule)?.headline?;
    let m = f.metrics.get(key)?;
    let x = m.value.as_f64().filter(|x| x.is_finite())?;
    let v = match m.unit {
        Unit::Bytes => crate::rules::evidence::mib(x),
        Unit::BytesPerSecond => format!("{}/s", crate::rules::evidence::mib(x)),
        Unit::Seconds => format!("{x:.1} s"),
        Unit::Milliseconds => format!("{x:.1} ms"),
        Unit::PerSecond => format!("{x:.0}/s"),
        Unit::MegabytesPerSecond => format!("{}/s", crate::rules::evidence::mib(x * 1e6)),
        Unit::Percent => format!("{x:.0} %"),
        Unit::Ratio => format!("{x:.1}x"),
        Unit::EpochSeconds
        | Unit::SecondsPerSecond
        | Unit::KiB
        | Unit::Fraction
        | Unit::Count
        | Unit::ThreadId
        | Unit::Setting
        | Unit::Text
        | Unit::Flag
        | Unit::List => format!("{x}"),
    };
    Some(format!("{label} {v}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let utc = DisplayZone::default();
        assert_eq!(full(&utc, 1_700_000_000), "2023-11-14 22:13:20");
        assert_eq!(full(&utc, 0), "1970-01-01 00:00:00");
        assert_eq!(full(&utc, i64::MAX), "?");
        let berlin = DisplayZone {
            rule: crate::clock::ZoneRule::Iana(chrono_tz::Europe::Berlin),
            label: "Europe/Berlin".into(),
        };
        assert_eq!(instant(&berlin, "2026-11-29T18:38:03Z"), "2026-11-29 19:38:03 +01:00");
        assert_eq!(instant(&berlin, "2026-07-01T10:00:00Z"), "2026-07-01 12:00:00 +02:00");
        assert_eq!(instant(&utc, "2026-11-29T18:38:03Z"), "2026-11-29 18:38:03 UTC");
        assert_eq!(num(14.0), "14");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(1400.4), "1400");
        assert_eq!(num(f64::NAN), "-");
        assert_eq!(bytes_h(4096.0), "4.0 KiB");
        assert_eq!(bytes_h(150.0 * 1048576.0), "150 MiB");
        assert_eq!(bytes_h(100.0), "100 B");
        assert_eq!(json_cell(&serde_json::json!(31.2)), "31.2");
        assert_eq!(json_cell(&serde_json::json!(null)), "unknown");
        assert_eq!(json_cell(&serde_json::json!(0.93333)), "0.933");
    }
}
