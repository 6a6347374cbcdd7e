//! The value a `pidstat` capture parses to (text or JSON): tables of rows of one
//! process or thread each. A leaf of the family: the parser (`super`), its budget and
//! the JSON reader all build these.

use crate::common::Stamp;
use crate::common::sysstat::Banner;
use crate::common::time::DateLine;

/// A parsed pidstat file (one or several concatenated runs).
#[derive(Debug, Clone, Default)]
pub struct Pidstat {
    /// The banner of the first run (`Linux 6.18.44-fc-v669 (vm) \t11/29/26 \t_x86_64_\t(2 CPU)`).
    pub banner: Option<Banner>,
    /// Every banner seen (more than one when runs were concatenated); [`Row::run`] indexes it.
    pub banners: Vec<Banner>,
    /// The interval rows (and since-boot rows), in file order.
    pub rows: Vec<Row>,
    /// The rows of the `Average:` blocks (any translation), in file order.
    pub averages: Vec<Row>,
    /// The column headers seen, in order; [`Row::table`] indexes it. A `-h` header printed
    /// again just as before (every report reprints it) is the table already listed.
    pub tables: Vec<Table>,
    /// Layout facts for `inspect` (see [`Summary::variant`]).
    pub layout: Layout,
    /// `date` lines between runs (`2025-10-23 13:55:24` of a loop `date; pidstat ... 1800`).
    pub date_lines: Vec<DateLine>,
    /// Reports merged to stay within a memory budget ([`parse_source_within`]): each kept
    /// report stands for up to this many printed ones (0: none merged).
    pub merged: u32,
    /// 1-based line of the first report merged, when any.
    pub merged_from_line: Option<usize>,
    /// The rows were taken from the parse as they were read ([`super::drained`]): `rows`
    /// is empty and this is the file's summary of them.
    pub drained: Option<Drained>,
}

/// What a drained parse keeps of the rows taken from it: the whole file's summary
/// ([`super::drained`]).
#[derive(Debug, Clone, Default)]
pub struct Drained {
    /// Interval rows read.
    pub rows: usize,
    /// Some row has a `kB_wr/s` value.
    pub any_wr: bool,
    /// Some row is a since-boot row.
    pub since_boot: bool,
    /// The first and last stamps of the rows (repaired).
    pub first: Option<Stamp>,
    /// See `first`.
    pub last: Option<Stamp>,
    /// The stamps the run's series repaired: (index of the sample in file order, stamp given).
    pub repaired: Vec<(usize, Stamp)>,
    /// Where the rows seen so far are in their samples.
    pub(crate) samples: Samples,
    /// The samples' stamps as read, in file order, until the parse finishes.
    pub(crate) log: crate::common::stamp_log::StampLog,
}

/// The samples of rows read in file order (a sample: the rows of one run and one time in a
/// row, one report of a table), to tell the sample of each row read again.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    /// Samples started so far.
    pub(crate) count: usize,
    /// The run and stamp (as read) of the last row.
    pub(crate) tail: Option<(usize, Option<Stamp>)>,
}

/// One column header line (`19:52:40      UID       PID   kB_rd/s …  Command`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    /// 1-based line number of the header (its first printing, for a repeated `-h` header).
    pub line: usize,
    /// The time printed in the header (the previous sample), `None` for `-h` and average headers.
    pub stamp: Option<Stamp>,
    /// True for the header of an `Average:` block.
    pub average: bool,
    /// The activity columns between the ID columns and `Command`, as printed (`kB_rd/s`, `%usr`, ...).
    pub columns: std::sync::Arc<[String]>,
}

/// How the file was printed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// `-h`: one line per task with all activities.
    pub one_line: bool,
    /// `-t`: `TGID TID` columns.
    pub threads: bool,
    /// `-U`: user names instead of UIDs.
    pub user_names: bool,
    /// Time form of the rows: `hh:mm:ss`, `12h`, `cjk`, `korean`, `epoch`.
    pub time_form: Option<&'static str>,
    /// A decimal comma was seen.
    pub decimal_comma: bool,
    /// `--human` suffixes were seen.
    pub human: bool,
    /// ANSI colour escapes were seen.
    pub ansi: bool,
    /// The `-d` table has `iodelay` (sysstat >= 10.2.1).
    pub iodelay: Option<bool>,
    /// The average label as printed (`Average:`, `Durchschn.:`, ...).
    pub average_label: Option<String>,
}

/// One task line of a table (or of an average block).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1-based line number.
    pub line: usize,
    /// The sample time ([`Stamp::TimeOfDay`] or [`Stamp::Epoch`]); `None` for average rows.
    pub stamp: Option<Stamp>,
    /// The time of the table header = the previous sample (interval start); `None` with `-h`.
    pub prev_stamp: Option<Stamp>,
    /// True when the header and row times are equal: values since the task started (no interval).
    pub since_boot: bool,
    /// Index of the run (banner) the row belongs to.
    pub run: usize,
    /// Index into [`Pidstat::tables`] of the header the row follows.
    pub table: usize,
    /// UID (without `-U`).
    pub uid: Option<u32>,
    /// User name (`-U`).
    pub user: Option<String>,
    /// PID without `-t`; with `-t` the TGID, filled in for `- TID` thread rows from the
    /// process row above them.
    pub tgid: Option<u32>,
    /// Thread id (`-t`); `None` for a process row and without `-t`.
    pub tid: Option<u32>,
    /// Command (without the `|__` / `(leader)__` prefix); the full command line with `-l`.
    pub command: std::sync::Arc<str>,
    /// The leader name of a `(leader)__name` thread row (TGID not displayed).
    pub leader: Option<std::sync::Arc<str>>,
    /// `kB_rd/s`, `kB_wr/s`, `kB_ccwr/s`, `iodelay`: read with [`Row::kb_rd_s`],
    /// [`Row::kb_wr_s`], [`Row::kb_ccwr_s`], [`Row::iodelay`].
    pub io: IoValues,
    /// The scheduling policy of `-R` (`NORMAL`, `FIFO`, ...).
    pub policy: Option<String>,
    /// The other activity columns by their header name (`%usr`, `minflt/s`, `RSS`, `cswch/s`, ...).
    pub other: Vec<(String, f64)>,
}

/// The `-d` values of a row, NaN where not printed (or `-1.00`, an unreadable
/// `/proc/PID/io`): 32 bytes instead of the 64 of four `Option<f64>`, in a row that a long
/// capture keeps millions of and the memory budget moves when it merges.
#[derive(Clone, Copy)]
pub struct IoValues(pub [f64; 4]);

impl IoValues {
    /// Index of `kB_rd/s`.
    pub const KB_RD_S: usize = 0;
    /// Index of `kB_wr/s`.
    pub const KB_WR_S: usize = 1;
    /// Index of `kB_ccwr/s`.
    pub const KB_CCWR_S: usize = 2;
    /// Index of `iodelay`.
    pub const IODELAY: usize = 3;
    /// None printed.
    pub const NONE: IoValues = IoValues([f64::NAN; 4]);

    /// The value at an index (`None`: not printed).
    pub fn get(&self, i: usize) -> Option<f64> {
        self.0.get(i).copied().filter(|x| !x.is_nan())
    }

    /// The values as options, in index order.
    pub fn options(&self) -> [Option<f64>; 4] {
        [0, 1, 2, 3].map(|i| self.get(i))
    }
}

impl Default for IoValues {
    fn default() -> Self {
        Self::NONE
    }
}

impl PartialEq for IoValues {
    /// Equal when the same values are printed.
    fn eq(&self, other: &Self) -> bool {
        self.options() == other.options()
    }
}

impl std::fmt::Debug for IoValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.options().fmt(f)
    }
}

/// A rate of `-d` as stored: `-1.00` (unreadable `/proc/PID/io`) is missing, not zero
/// (shared with `pidstat_json`).
pub(crate) fn io_rate(v: f64) -> f64 {
    if v < 0.0 { f64::NAN } else { v }
}

impl Row {
    /// `kB_rd/s`; `None` when absent or `-1.00` (unreadable `/proc/PID/io`).
    pub fn kb_rd_s(&self) -> Option<f64> {
        self.io.get(IoValues::KB_RD_S)
    }

    /// `kB_wr/s`; `None` when absent or `-1.00`.
    pub fn kb_wr_s(&self) -> Option<f64> {
        self.io.get(IoValues::KB_WR_S)
    }

    /// `kB_ccwr/s`; `None` when absent or `-1.00`.
    pub fn kb_ccwr_s(&self) -> Option<f64> {
        self.io.get(IoValues::KB_CCWR_S)
    }

    /// `iodelay` (clock ticks of block-I/O delay in the interval); `None` when absent.
    pub fn iodelay(&self) -> Option<f64> {
        self.io.get(IoValues::IODELAY)
    }

    /// True for a thread row of `-t` (a TID is given).
    pub fn is_thread(&self) -> bool {
        self.tid.is_some()
    }

    /// An activity value by its header name (`kB_wr/s`, `%CPU`, `RSS`, ...).
    pub fn get(&self, name: &str) -> Option<f64> {
        match name {
            "kB_rd/s" => self.kb_rd_s(),
            "kB_wr/s" => self.kb_wr_s(),
            "kB_ccwr/s" => self.kb_ccwr_s(),
            "iodelay" => self.iodelay(),
            _ => self.other.iter().find(|(n, _)| n == name).map(|(_, v)| *v),
        }
    }
}
