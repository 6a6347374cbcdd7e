//! Day-first or month-first: a sysstat `%x` date such as `03/11/26` (iostat,
//! pidstat, sar and mpstat banners, iostat's `-t` stamps) is 11 March in
//! C/en_US and 3 November in en_GB. The parser reads it month-first and keeps
//! the other reading (`Banner::date_alt`); here the bundle's other dates settle
//! it: when the day-first reading puts the file among the other files' times and
//! the month-first one does not, the file's dates are read day-first, with a
//! warning. Which files have such a banner is their adapter's word
//! ([`super::Adapter::ambiguous_banner`]).

use super::ParsedFile;
use crate::clock::FileClock;
use chrono::{Datelike, NaiveDate};
use iosift_parsers::{Data, Stamp, common::sysstat::Banner};

/// Two readings farther apart than this from every other file are not "among" them.
const NEAR_S: f64 = 2.0 * 86_400.0;

/// The banner of a file whose dates can be read both ways, if it is one.
fn ambiguous_banner(f: &ParsedFile) -> Option<&Banner> {
    super::of(f.data.as_ref()?).ambiguous_banner().filter(|b| b.date_alt.is_some())
}

/// True when some file of the bundle has a date that reads both ways.
pub(crate) fn any_ambiguous(files: &[ParsedFile]) -> bool {
    files.iter().any(|f| ambiguous_banner(f).is_some())
}

/// How far an instant is from the nearest of the ranges.
fn distance(x: f64, refs: &[(f64, f64)]) -> f64 {
    refs.iter().map(|&(a, b)| (a - x).max(x - b).max(0.0)).fold(f64::INFINITY, f64::min)
}

/// Decides, from a first anchoring of every file, which ambiguous files are day-first;
/// returns their indexes with the warning for each.
pub(crate) fn decide(files: &[ParsedFile], clocks: &[Option<FileClock>]) -> Vec<(usize, String)> {
    let refs: Vec<(f64, f64)> = clocks
        .iter()
        .enumerate()
        .filter(|(i, _)| ambiguous_banner(&files[*i]).is_none())
        .filter_map(|(_, c)| c.as_ref().filter(|c| !c.anchoring.is_inferred()).map(|c| (c.first, c.last)))
        .collect();
    if refs.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let (Some(b), Some(c)) = (ambiguous_banner(f), clocks[i].as_ref()) else { continue };
        let (Some(md), Some(dm)) = (b.date, b.date_alt) else { continue };
        let shift = (dm - md).num_days() as f64 * 86_400.0;
        let (as_read, swapped) = (distance(c.first, &refs), distance(c.first + shift, &refs));
        if swapped <= NEAR_S && as_read > NEAR_S {
            out.push((
                i,
                format!(
                    "{}: its date {} is read day-first, {} (en_GB-like), as the bundle's other dates say; month-first it would be {}",
                    f.name,
                    b.date_text,
                    dm.format("%-d %B %Y"),
                    md.format("%-d %B %Y")
                ),
            ));
        }
    }
    out
}

/// The day-first reading of a date read month-first (`None` when it has none).
fn swap(d: NaiveDate) -> Option<NaiveDate> {
    (d.day() <= 12).then(|| NaiveDate::from_ymd_opt(d.year(), d.day(), d.month())).flatten()
}

/// A `-t` stamp's date read day-first.
pub(crate) fn swap_stamp(stamp: &mut Option<Stamp>) {
    if let Some(Stamp::Local(n)) = stamp
        && let Some(d) = swap(n.date())
    {
        *n = d.and_time(n.time());
    }
}

fn swap_banner(b: &mut Banner) {
    if let Some(d) = b.date.and_then(swap) {
        b.date_alt = b.date;
        b.date = Some(d);
        b.date_form = if b.date_form.ends_with("yyyy") { "dd/mm/yyyy" } else { "dd/mm/yy" };
    }
}

/// Reads every date of file `f` day-first: banners and `-t` stamps (for sar and mpstat,
/// the rows under each banner move with its date). Only a file whose adapter names an
/// ambiguous banner is changed.
pub(crate) fn read_day_first(f: &mut ParsedFile) {
    if ambiguous_banner(f).is_none() {
        return;
    }
    let Some(d) = f.data.as_mut() else { return };
    if let Data::Iostat(io) | Data::IostatJson(io) = d {
        io.banner.iter_mut().for_each(swap_banner);
        io.runs.iter_mut().filter_map(|r| r.banner.as_mut()).for_each(swap_banner);
        for r in &mut io.reports {
            swap_stamp(&mut r.stamp);
        }
        if let Some(dr) = &mut io.drained {
            // Its reports are read again ([`super::replay`]): each is swapped then.
            dr.day_first = true;
            dr.head.iter_mut().chain([&mut dr.first, &mut dr.last]).for_each(swap_stamp);
        }
    } else if let Data::Pidstat(p) | Data::PidstatJson(p) = d {
        p.banner.iter_mut().for_each(swap_banner);
        p.banners.iter_mut().for_each(swap_banner);
    } else if let Data::Sar(s) | Data::Sadf(s) | Data::Mpstat(s) = d {
        sar_day_first(s);
    } else if let Data::SaBinary(x) = d
        && let Some(s) = &mut x.decoded
    {
        sar_day_first(s);
    }
}

/// sar and mpstat: each banner read day-first, and the rows (and restarts) after it moved by
/// as many days as its date moved (a row past midnight keeps its day after the banner's).
fn sar_day_first(s: &mut iosift_parsers::sar::Sar) {
    // (first line of the banner's rows, days its date moved), in line order.
    let mut moved: Vec<(usize, i64)> = Vec::new();
    for (line, b) in &mut s.banners {
        let before = b.date;
        swap_banner(b);
        let days = match (before, b.date) {
            (Some(a), Some(c)) => (c - a).num_days(),
            _ => 0,
        };
        moved.push((*line, days));
    }
    let shift = |line: usize, stamp: &mut Stamp| {
        let days = moved.iter().rev().find(|(l, _)| *l <= line).map_or(0, |(_, d)| *d);
        if let Stamp::Local(n) = stamp
            && days != 0
        {
            *n += chrono::Duration::days(days);
        }
    };
    for r in &mut s.rows {
        shift(r.line, &mut r.stamp);
    }
    for (line, stamp) in &mut s.restarts {
        shift(*line, stamp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sar_banner_read_day_first_moves_its_rows_with_it() {
        let text = b"Linux 6.1.0 (db1) \t03/11/26 \t_x86_64_\t(2 CPU)\n\n23:59:58        CPU     %user     %nice   %system   %iowait    %steal     %idle\n23:59:59        all      1.00      0.00      1.00      0.00      0.00     98.00\n00:00:01        all      1.00      0.00      1.00      0.00      0.00     98.00\n";
        let input = crate::bundle::InputFile {
            name: "sar.txt".into(),
            data: text[..].into(),
            gzipped: false,
            stream: None,
        };
        let mut f = super::super::parse_file(&input);
        assert!(ambiguous_banner(&f).is_some());
        read_day_first(&mut f);
        let Some(Data::Sar(s)) = &f.data else { panic!("not sar") };
        let dates: Vec<String> = s
            .rows
            .iter()
            .map(|r| match r.stamp {
                Stamp::Local(n) => n.to_string(),
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(dates, ["2026-11-03 23:59:59", "2026-11-04 00:00:01"]);
        assert_eq!(s.banners[0].1.date_form, "dd/mm/yy");
    }
}
