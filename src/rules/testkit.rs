//! Small hand-built inputs for the rules' unit tests (no capture files).

use crate::table::Cell;

use super::inputs::{Cells, Series};
use super::{Available, Outcome, RULES};
use crate::analysis::bursts::Burst;
use crate::analysis::periodicity::PeriodicityView;
use crate::model::Finding;
use crate::pipeline::{ParsedFile, Sourced, ThreadTotal};
use iosift_parsers::mounts::{Mount, Origin};

/// Epoch second of row 0 of every test series (2023-11-14T22:13:20Z).
pub(super) const T0: i64 = 1_700_000_000;

/// Values as a series' cells.
pub(super) fn vals(v: &[f64]) -> Vec<Cell> {
    v.iter().map(|x| Cell::some(*x)).collect()
}

/// The series of column `name` read from `test.txt`, without input lines (the column is
/// leaked: a test's few series live as long as the test).
pub(super) fn series<'a>(name: &str, values: &'a [Cell]) -> Series<'a> {
    let col = crate::table::Col::parse(name).unwrap_or_else(|| panic!("{name} is no column"));
    Series::new(Box::leak(Box::new(col)), values, "test.txt", T0, Cells::none())
}

/// The episode of burst `b` on vda, its issuer `class` measured in `comm` (also its
/// writer), costly or not.
pub(super) fn episode(
    b: &Burst,
    class: crate::verdict::IssuerClass,
    comm: &str,
    costly: bool,
) -> crate::analysis::episodes::Episode {
    use crate::verdict::{Actor, Role};
    crate::analysis::episodes::Episode {
        device: "vda".into(),
        start: b.start,
        end: b.end,
        start_epoch: 0,
        end_epoch: 0,
        bytes: b.total,
        peak: b.peak_value,
        issuer: crate::analysis::episodes::Attribution {
            class: Some(class),
            score: 3.0,
            issuer: Actor::measured(Role::Issuer(class), comm, Some(77), Some(1.0), "perf"),
            evidence: vec![],
            runner_up: None,
        },
        writers: vec![Actor::measured(Role::Writer, comm, Some(77), Some(1.0), "pidstat -d")],
        harm: crate::analysis::harm::Harm {
            costly,
            words: if costly { "write await 80 ms".into() } else { "no measured cost".into() },
            ..Default::default()
        },
        reissue_of: None,
    }
}

/// A one-second burst at `at`.
pub(super) fn burst(at: usize, peak_value: f64, total: f64) -> Burst {
    Burst { start: at, end: at, peak: at, peak_value, total }
}

/// A periodicity view of `bursts` with a period and its confidence.
pub(super) fn view(bursts: Vec<Burst>, period: Option<f64>, confidence: Option<f64>) -> PeriodicityView {
    let vda = crate::table::Col::Dev("vda".into(), crate::table::columns::DevMetric::WBytesS);
    PeriodicityView { bursts, period_s: period, confidence, ..PeriodicityView::of(vda) }
}

/// A context value read from line 3 of `ctx.txt`.
pub(super) fn sourced<T>(value: T) -> Sourced<T> {
    Sourced { value, file: "ctx.txt".into(), line: 3 }
}

/// A mount `source on target type fstype (options)`.
pub(super) fn mount(source: &str, target: &str, fstype: &str, options: &str) -> Sourced<Mount> {
    sourced(Mount {
        line: 3,
        source: source.into(),
        target: target.into(),
        fstype: fstype.into(),
        options: options.split(',').map(String::from).collect(),
        origin: Origin::Mount,
        extra: Vec::new(),
    })
}

/// A pidstat thread total.
pub(super) fn thread(comm: &str, category: &'static str, bytes: f64) -> ThreadTotal {
    ThreadTotal { comm: comm.into(), category, bytes, tgid: None }
}

/// An input file with its text (for quotes).
pub(super) fn file(name: &str, text: &str) -> ParsedFile {
    ParsedFile {
        name: name.into(),
        base: name.into(),
        format: None,
        data: None,
        lines: text.lines().count(),
        skipped_lines: 0,
        diagnostics: Vec::new(),
        variant: Default::default(),
        records: 0,
        raw: text.as_bytes().into(),
        stream: None,
    }
}

/// The finding of a rule that must fire.
pub(super) fn fired(o: Outcome) -> Finding {
    match o {
        Outcome::Fire(f) => *f,
        other => panic!("expected the rule to fire, got {other:?}"),
    }
}

/// The reason of a rule that must pass.
pub(super) fn passed(o: Outcome) -> String {
    match o {
        Outcome::Pass(r) => r,
        other => panic!("expected the rule to pass, got {other:?}"),
    }
}

/// The skip reasons (as findings.json prints them) of rule `id` on `a`.
pub(super) fn skipped(id: &str, a: &Available<'_>) -> Vec<String> {
    let (_, eval) = RULES.iter().find(|(r, _)| *r == id).expect("a listed rule");
    match eval(a) {
        Outcome::Skip(m) => m.iter().map(ToString::to_string).collect(),
        other => panic!("expected {id} to skip, got {other:?}"),
    }
}

/// The evidence of a rule input cites its file and line ([`Series::evidence`]).
mod tests {
    use super::*;
    use crate::pipeline::LineIndex;
    use crate::table::columns::Col;

    #[test]
    fn a_cell_cites_its_input_line_under_the_column_header() {
        let files = [file(
            "iostat.txt",
            "Linux 6.1.0 (db1)\n\nDevice            w/s     wkB/s\nvda              5.00   2048.00\n",
        )];
        let col = Col::Dev("vda".into(), crate::table::columns::DevMetric::WBytesS);
        let mut lines = LineIndex::new();
        lines.insert(&col, T0 + 5, 3, 9);
        lines.insert(&col, T0 + 1, 0, 7);
        // A later line for the same second wins; out of order until finished.
        lines.insert(&col, T0 + 1, 0, 4);
        lines.finish();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines.get(&col, T0 + 5), Some((3, 9)));
        assert_eq!(lines.get(&col, T0 + 2), None);
        let v = vals(&[0.0, 2048.0 * 1024.0, 0.0, 0.0, 0.0, 0.0]);
        let s = Series::new(&col, &v, "iostat.txt", T0, Cells::new(&lines, &files));
        let e = s.evidence(1, "wkB/s", 2048.0);
        assert_eq!((e.file.as_str(), e.lines), ("iostat.txt", Some([4, 4])));
        assert_eq!(
            e.quote.as_deref(),
            Some("Device            w/s     wkB/s\nvda              5.00   2048.00")
        );
        // A rate stamped at the end of its second is found one second later.
        assert_eq!(s.evidence(0, "wkB/s", 0.0).lines, Some([4, 4]));
        // No line known (or a file index out of range): the column's source, without a line.
        for row in [2, 4] {
            let e = s.evidence(row, "wkB/s", 0.0);
            assert_eq!((e.file.as_str(), e.lines, e.quote), ("iostat.txt", None, None));
        }
    }
}
