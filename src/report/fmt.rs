//! Number and time formatting shared by the charts, the HTML page and the
//! terminal summary. Times are always UTC; nothing reads the wall clock.

use chrono::DateTime;

/// `HH:MM:SS` (UTC) of an epoch second; `?` when out of range.
pub fn utc_hms(epoch: i64) -> String {
    DateTime::from_timestamp(epoch, 0).map(|t| t.format("%H:%M:%S").to_string()).unwrap_or_else(|| "?".into())
}

/// `YYYY-MM-DD` (UTC) of an epoch second.
pub fn utc_ymd(epoch: i64) -> String {
    DateTime::from_timestamp(epoch, 0).map(|t| t.format("%Y-%m-%d").to_string()).unwrap_or_else(|| "?".into())
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) of an epoch second.
pub fn utc_full(epoch: i64) -> String {
    DateTime::from_timestamp(epoch, 0)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|| "?".into())
}

/// A number with about three significant digits (`0.93`, `14.2`, `1400`).
pub fn num(v: f64) -> String {
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
pub fn bytes_h(b: f64) -> String {
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
pub fn json_cell(v: &serde_json::Value) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(utc_hms(1_700_000_000), "22:13:20");
        assert_eq!(utc_full(0), "1970-01-01 00:00:00");
        assert_eq!(utc_hms(i64::MAX), "?");
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
