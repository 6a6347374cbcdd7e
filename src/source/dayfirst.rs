//! Day-first or month-first: a sysstat `%x` date such as `03/11/26` (iostat,
//! pidstat banners and `-t` stamps) is 11 March in C/en_US and 3 November in
//! en_GB. The parser reads it month-first and keeps the other reading
//! (`Banner::date_alt`); here the bundle's other dates settle it: when the
//! day-first reading puts the file among the other files' times and the
//! month-first one does not, the file's dates are read day-first, with a warning.

use super::{FileClock, ParsedFile};
use chrono::{Datelike, NaiveDate};
use iosift_parsers::{Data, Stamp, common::sysstat::Banner};

/// Two readings farther apart than this from every other file are not "among" them.
const NEAR_S: f64 = 2.0 * 86_400.0;

/// The banner of a file whose dates can be read both ways, if it is one.
fn ambiguous_banner(f: &ParsedFile) -> Option<&Banner> {
    let b = match f.data.as_ref()? {
        Data::Iostat(io) | Data::IostatJson(io) => io.banner.as_ref()?,
        Data::Pidstat(p) | Data::PidstatJson(p) => p.banner.as_ref()?,
        _ => return None,
    };
    b.date_alt.is_some().then_some(b)
}

/// True when some file of the bundle has a date that reads both ways.
pub fn any_ambiguous(files: &[ParsedFile]) -> bool {
    files.iter().any(|f| ambiguous_banner(f).is_some())
}

/// How far an instant is from the nearest of the ranges.
fn distance(x: f64, refs: &[(f64, f64)]) -> f64 {
    refs.iter().map(|&(a, b)| (a - x).max(x - b).max(0.0)).fold(f64::INFINITY, f64::min)
}

/// Decides, from a first anchoring of every file, which ambiguous files are day-first;
/// returns their indexes with the warning for each.
pub fn decide(files: &[ParsedFile], clocks: &[Option<FileClock>]) -> Vec<(usize, String)> {
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

fn swap_banner(b: &mut Banner) {
    if let Some(d) = b.date.and_then(swap) {
        b.date_alt = b.date;
        b.date = Some(d);
        b.date_form = if b.date_form.ends_with("yyyy") { "dd/mm/yyyy" } else { "dd/mm/yy" };
    }
}

/// Reads every date of file `f` day-first: banners and `-t` stamps.
pub fn read_day_first(f: &mut ParsedFile) {
    match f.data.as_mut() {
        Some(Data::Iostat(io) | Data::IostatJson(io)) => {
            io.banner.iter_mut().for_each(swap_banner);
            io.runs.iter_mut().filter_map(|r| r.banner.as_mut()).for_each(swap_banner);
            for r in &mut io.reports {
                if let Some(Stamp::Local(n)) = &mut r.stamp
                    && let Some(d) = swap(n.date())
                {
                    *n = d.and_time(n.time());
                }
            }
        }
        Some(Data::Pidstat(p) | Data::PidstatJson(p)) => {
            p.banner.iter_mut().for_each(swap_banner);
            p.banners.iter_mut().for_each(swap_banner);
        }
        _ => {}
    }
}
