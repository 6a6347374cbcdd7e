//! The values of one `iostat` device row and of one `avg-cpu:` block, stored compactly:
//! `f64` with NaN where the report has no such column (264 bytes a device row instead of
//! the 528 of 33 `Option<f64>`; a long capture keeps millions of rows, see
//! [`crate::iostat::budget`]). Each column is read with the method named after it
//! (`m.w_s()`), which gives `None` for a column not printed. A value printed as `nan` reads
//! as not printed.

/// A metric of [`DeviceMetrics`] (crate-internal: shared with `iostat_json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Tps,
    RS,
    WS,
    DS,
    FS,
    RrqmS,
    WrqmS,
    DrqmS,
    RqmS,
    RrqmPct,
    WrqmPct,
    DrqmPct,
    RBytesS,
    WBytesS,
    DBytesS,
    BytesS,
    WdBytesS,
    RAwait,
    WAwait,
    DAwait,
    FAwait,
    Await,
    AquSz,
    RReq,
    WReq,
    DReq,
    Req,
    Util,
    Svctm,
    ReadBytes,
    WrittenBytes,
    DiscardedBytes,
    WdBytes,
}

impl Field {
    pub(super) fn bit(self) -> u64 {
        1u64 << (self as u32)
    }
}

/// A column of the `avg-cpu:` block (crate-internal: [`CpuAvg`] stores by it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum CpuCol {
    User,
    Nice,
    System,
    Iowait,
    Steal,
    Idle,
    Other,
}

/// Device values, normalised: rates per second, sizes in bytes, times in ms.
///
/// Serialises as an object with one member per column (`null` when not printed), the
/// member names being the method names.
#[derive(Clone, Copy)]
pub struct DeviceMetrics {
    v: [f64; COLUMNS],
}

/// Columns a row can hold (one per [`Field`]).
const COLUMNS: usize = 33;

impl Default for DeviceMetrics {
    /// No column printed.
    fn default() -> Self {
        Self { v: [f64::NAN; COLUMNS] }
    }
}

impl DeviceMetrics {
    /// The value of a column (`None`: not printed).
    #[inline]
    pub(crate) fn get(&self, f: Field) -> Option<f64> {
        let x = self.v[f as usize];
        (!x.is_nan()).then_some(x)
    }

    /// Stores a column's value (`None` or NaN: not printed).
    #[inline]
    pub(crate) fn put(&mut self, f: Field, v: Option<f64>) {
        self.v[f as usize] = v.unwrap_or(f64::NAN);
    }

    /// Takes every column `src` printed (a `--pretty` sub-table row of the same device).
    #[inline]
    pub(crate) fn take_printed(&mut self, src: &Self) {
        for (d, &s) in self.v.iter_mut().zip(&src.v) {
            if !s.is_nan() {
                *d = s;
            }
        }
    }

    /// Column by column from two rows: `f(field, a's value, b's value)`.
    pub(crate) fn combine(
        a: &Self,
        b: &Self,
        f: impl Fn(Field, Option<f64>, Option<f64>) -> Option<f64>,
    ) -> Self {
        let mut out = Self::default();
        for &(_, field) in &NAMES {
            out.put(field, f(field, a.get(field), b.get(field)));
        }
        out
    }
}

/// Accessors named after the columns, and the names for `Debug` and `Serialize`.
macro_rules! columns {
    ($($(#[doc = $doc:literal])* $name:ident: $field:ident,)*) => {
        impl DeviceMetrics {
            $(
                $(#[doc = $doc])*
                #[inline]
                pub fn $name(&self) -> Option<f64> {
                    self.get(Field::$field)
                }
            )*
        }

        /// Member names, in [`Field`] order.
        const NAMES: [(&str, Field); COLUMNS] = [$((stringify!($name), Field::$field),)*];
    };
}

columns! {
    /// `tps` (basic and `-s` reports).
    tps: Tps,
    /// `r/s`.
    r_s: RS,
    /// `w/s`.
    w_s: WS,
    /// `d/s` (discards, ≥ 12.1.2).
    d_s: DS,
    /// `f/s` (flushes, ≥ 12.3.1).
    f_s: FS,
    /// `rrqm/s`.
    rrqm_s: RrqmS,
    /// `wrqm/s`.
    wrqm_s: WrqmS,
    /// `drqm/s`.
    drqm_s: DrqmS,
    /// `rqm/s` (`-x -s`).
    rqm_s: RqmS,
    /// `%rrqm`.
    rrqm_pct: RrqmPct,
    /// `%wrqm`.
    wrqm_pct: WrqmPct,
    /// `%drqm`.
    drqm_pct: DrqmPct,
    /// Read bytes/s (`rkB/s`, `rMB/s`, `rsec/s`, `kB_read/s`, `Blk_read/s`, ...).
    r_bytes_s: RBytesS,
    /// Written bytes/s (`wkB/s`, `kB_wrtn/s`, ...).
    w_bytes_s: WBytesS,
    /// Discarded bytes/s (`dkB/s`, `kB_dscd/s`).
    d_bytes_s: DBytesS,
    /// Read + written bytes/s (`kB/s` of `-x -s`).
    bytes_s: BytesS,
    /// Written + discarded bytes/s (`kB_w+d/s` of `-s`).
    wd_bytes_s: WdBytesS,
    /// `r_await` (ms).
    r_await_ms: RAwait,
    /// `w_await` (ms).
    w_await_ms: WAwait,
    /// `d_await` (ms).
    d_await_ms: DAwait,
    /// `f_await` (ms).
    f_await_ms: FAwait,
    /// `await` (ms; r+w combined, ≤ 11.5.6 and `-x -s`).
    await_ms: Await,
    /// `aqu-sz` / `avgqu-sz`.
    aqu_sz: AquSz,
    /// `rareq-sz` in bytes.
    r_req_bytes: RReq,
    /// `wareq-sz` in bytes.
    w_req_bytes: WReq,
    /// `dareq-sz` in bytes.
    d_req_bytes: DReq,
    /// `avgrq-sz` (sectors, ≤ 11.5.6) / `areq-sz` (kB, `-x -s`) in bytes.
    req_bytes: Req,
    /// `%util`.
    util_pct: Util,
    /// `svctm` (ms; gone in 12.1.2).
    svctm_ms: Svctm,
    /// `kB_read` / `Blk_read` / `MB_read` in bytes (since boot in a since-boot report, else per interval).
    read_bytes: ReadBytes,
    /// `kB_wrtn` in bytes.
    written_bytes: WrittenBytes,
    /// `kB_dscd` in bytes.
    discarded_bytes: DiscardedBytes,
    /// `kB_w+d` in bytes (`-s`).
    wd_bytes: WdBytes,
}

impl PartialEq for DeviceMetrics {
    /// Equal when the same columns are printed with the same values.
    fn eq(&self, other: &Self) -> bool {
        NAMES.iter().all(|&(_, f)| self.get(f) == other.get(f))
    }
}

impl std::fmt::Debug for DeviceMetrics {
    /// The printed columns only.
    fn fmt(&self, fm: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = fm.debug_struct("DeviceMetrics");
        for &(name, f) in &NAMES {
            if let Some(x) = self.get(f) {
                s.field(name, &x);
            }
        }
        s.finish()
    }
}

impl serde::Serialize for DeviceMetrics {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = ser.serialize_struct("DeviceMetrics", COLUMNS)?;
        for &(name, f) in &NAMES {
            s.serialize_field(name, &self.get(f))?;
        }
        s.end()
    }
}

/// The `avg-cpu:` block, in percent: six `f64` with NaN for a column not printed (48 bytes,
/// was 96 as `Option<f64>`s), read with the method named after the column.
///
/// Serialises as `{"user": …, "nice": …, "system": …, "iowait": …, "steal": …, "idle": …}`
/// (`null` when not printed).
#[derive(Clone, Copy)]
pub struct CpuAvg {
    v: [f64; 6],
}

/// The column names, in storage order.
const CPU_NAMES: [&str; 6] = ["user", "nice", "system", "iowait", "steal", "idle"];

impl Default for CpuAvg {
    /// No column printed.
    fn default() -> Self {
        Self { v: [f64::NAN; 6] }
    }
}

impl CpuAvg {
    /// From the six values in the order `%user %nice %system %iowait %steal %idle`.
    pub fn from_options(v: [Option<f64>; 6]) -> Self {
        Self { v: v.map(|x| x.unwrap_or(f64::NAN)) }
    }

    /// The six values in the order of [`CpuAvg::from_options`].
    pub fn options(&self) -> [Option<f64>; 6] {
        self.v.map(|x| (!x.is_nan()).then_some(x))
    }

    /// Stores a column's value (a column outside the six is ignored).
    pub(crate) fn put(&mut self, c: CpuCol, x: f64) {
        let i = match c {
            CpuCol::User => 0,
            CpuCol::Nice => 1,
            CpuCol::System => 2,
            CpuCol::Iowait => 3,
            CpuCol::Steal => 4,
            CpuCol::Idle => 5,
            CpuCol::Other => return,
        };
        self.v[i] = x;
    }

    fn at(&self, i: usize) -> Option<f64> {
        let x = self.v[i];
        (!x.is_nan()).then_some(x)
    }

    /// `%user`.
    pub fn user(&self) -> Option<f64> {
        self.at(0)
    }

    /// `%nice`.
    pub fn nice(&self) -> Option<f64> {
        self.at(1)
    }

    /// `%system` (`%sys` in sysstat 5).
    pub fn system(&self) -> Option<f64> {
        self.at(2)
    }

    /// `%iowait`.
    pub fn iowait(&self) -> Option<f64> {
        self.at(3)
    }

    /// `%steal` (absent before 6.0.2).
    pub fn steal(&self) -> Option<f64> {
        self.at(4)
    }

    /// `%idle`.
    pub fn idle(&self) -> Option<f64> {
        self.at(5)
    }
}

impl PartialEq for CpuAvg {
    /// Equal when the same columns are printed with the same values.
    fn eq(&self, other: &Self) -> bool {
        self.options() == other.options()
    }
}

impl std::fmt::Debug for CpuAvg {
    /// The printed columns only.
    fn fmt(&self, fm: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut s = fm.debug_struct("CpuAvg");
        for (name, x) in CPU_NAMES.iter().zip(self.options()) {
            if let Some(x) = x {
                s.field(name, &x);
            }
        }
        s.finish()
    }
}

impl serde::Serialize for CpuAvg {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = ser.serialize_struct("CpuAvg", CPU_NAMES.len())?;
        for (name, x) in CPU_NAMES.iter().zip(self.options()) {
            s.serialize_field(name, &x)?;
        }
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_field_order() {
        for (i, &(_, f)) in NAMES.iter().enumerate() {
            assert_eq!(f as usize, i);
        }
    }

    #[test]
    fn unprinted_and_nan_read_as_none_and_serialise_as_null() {
        let mut m = DeviceMetrics::default();
        m.put(Field::WS, Some(12.5));
        m.put(Field::RS, Some(f64::NAN));
        assert_eq!(m.w_s(), Some(12.5));
        assert_eq!(m.r_s(), None);
        assert_eq!(m.util_pct(), None);
        let j = serde_json::to_value(m).unwrap();
        assert_eq!(j["w_s"], 12.5);
        assert!(j["r_s"].is_null() && j["wd_bytes"].is_null());
        assert_eq!(j.as_object().unwrap().len(), COLUMNS);
        assert_eq!(format!("{m:?}"), "DeviceMetrics { w_s: 12.5 }");
    }

    #[test]
    fn cpu_columns_read_back_and_serialise_by_name() {
        let mut c = CpuAvg::default();
        c.put(CpuCol::Iowait, 1.01);
        c.put(CpuCol::Other, 5.0);
        assert_eq!((c.iowait(), c.user(), c.idle()), (Some(1.01), None, None));
        assert_eq!(c, CpuAvg::from_options([None, None, None, Some(1.01), None, None]));
        let j = serde_json::to_value(c).unwrap();
        assert_eq!(j["iowait"], 1.01);
        assert!(j["user"].is_null() && j.as_object().unwrap().len() == 6);
        assert_eq!(format!("{c:?}"), "CpuAvg { iowait: 1.01 }");
    }
}
