//! The main data device: the one with the most bytes written over the
//! capture (iostat -x, else /proc/diskstats snapshots).

use crate::table::Timeline;
use crate::table::columns::{Col, DevMetric, DsMetric};

/// The main device and the timeline column of its write bytes/s.
#[derive(Debug, Clone, PartialEq)]
pub struct MainDevice {
    /// Device name (`vda`, `nvme0n1`).
    pub name: String,
    /// Its write bytes/s column (`dev.<name>.w_bytes_s`, else `ds.<name>.w_bytes_s`).
    pub writes: Col,
}

/// The most written device: iostat's columns first, /proc/diskstats' when iostat has none.
pub fn main_device(tl: &Timeline) -> Option<MainDevice> {
    let best = |want: fn(&Col) -> bool| {
        tl.typed()
            .filter(|(c, _)| want(c))
            .map(|(c, s)| (c, s.values.iter().flatten().sum::<f64>()))
            .filter(|(_, t)| *t > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))
    };
    let (writes, _) = best(|c| matches!(c, Col::Dev(_, DevMetric::WBytesS)))
        .or_else(|| best(|c| matches!(c, Col::Ds(_, DsMetric::WBytesS))))?;
    Some(MainDevice { name: writes.entity()?, writes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tl(cols: &[(&str, &[f64])]) -> Timeline {
        let mut t = Timeline::new(0.0, 3.0);
        for (name, vals) in cols {
            for (i, v) in vals.iter().enumerate() {
                t.set_gauge(name, "B/s", "test", i as f64, *v);
            }
        }
        t
    }

    #[test]
    fn most_written_iostat_device_wins_over_diskstats() {
        let t = tl(&[
            ("dev.vda.w_bytes_s", &[1.0, 2.0]),
            ("dev.vdb.w_bytes_s", &[5.0]),
            ("ds.vdc.w_bytes_s", &[9.0]),
        ]);
        let d = main_device(&t).unwrap();
        assert_eq!((d.name.as_str(), d.writes.name()), ("vdb", "dev.vdb.w_bytes_s".to_string()));
        let t = tl(&[("dev.vda.w_bytes_s", &[0.0]), ("ds.vdc.w_bytes_s", &[9.0])]);
        assert_eq!(main_device(&t).unwrap().writes.name(), "ds.vdc.w_bytes_s");
        assert_eq!(main_device(&tl(&[("dev.vda.w_bytes_s", &[0.0])])), None);
    }
}
