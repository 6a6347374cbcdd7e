//! The kernel's periodic writeback window: dirty pages older than
//! `vm.dirty_expire_centisecs` are written by the flusher, which wakes every
//! `vm.dirty_writeback_centisecs`; and the tunables a period found in the
//! series is tested against once it is found ([`Tunables::classify`]): the
//! flusher's interval, the writeback window, the ext4 journal's commit interval,
//! or none of them (an application's own timer).

use iosift_parsers::mounts::Mount;

/// The writeback tunables of the capture (or the kernel defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WritebackWindow {
    /// `dirty_expire_centisecs` in seconds.
    pub expire_s: f64,
    /// `dirty_writeback_centisecs` in seconds (the flusher's wake-up interval).
    pub interval_s: f64,
    /// True when both tunables were in the capture (else the defaults filled in).
    pub from_capture: bool,
}

impl Default for WritebackWindow {
    /// The kernel defaults: 30 s expiry, 5 s wake-up.
    fn default() -> Self {
        WritebackWindow { expire_s: 30.0, interval_s: 5.0, from_capture: false }
    }
}

impl WritebackWindow {
    /// From the sysctl values in centiseconds (the defaults for a missing one).
    pub fn from_centisecs(expire: Option<f64>, writeback: Option<f64>) -> Self {
        WritebackWindow {
            expire_s: expire.unwrap_or(3000.0) / 100.0,
            interval_s: writeback.unwrap_or(500.0) / 100.0,
            from_capture: expire.is_some() && writeback.is_some(),
        }
    }

    /// The longest a dirty page waits: expiry plus one wake-up interval, seconds.
    pub fn seconds(&self) -> f64 {
        self.expire_s + self.interval_s
    }

    /// True when a period of `period_s` is the writeback's: within 20 % + 2 s
    /// of the window, or within 3 s of the expiry alone (a flusher waking right
    /// after pages expire writes them every `expire` seconds).
    pub fn matches(&self, period_s: f64) -> bool {
        let w = self.seconds();
        (period_s - w).abs() <= 0.2 * w + 2.0 || (period_s - self.expire_s).abs() <= 3.0
    }

    /// The longest period [`Self::matches`] accepts, seconds.
    pub fn longest_match(&self) -> f64 {
        let w = self.seconds();
        (w + 0.2 * w + 2.0).max(self.expire_s + 3.0)
    }

    /// True when a period of `period_s` is the flusher's wake-up interval itself (within
    /// 20 % and at least 1 s): steady dirtying is written back at every wake-up, the pages
    /// that expired since the last one.
    pub fn is_flusher_cadence(&self, period_s: f64) -> bool {
        (period_s - self.interval_s).abs() <= (0.2 * self.interval_s).max(1.0)
    }
}

/// The ext4 journal's commit interval when no `commit=` option says otherwise, seconds.
pub(crate) const EXT4_DEFAULT_COMMIT_S: f64 = 5.0;

/// Which kernel interval a period found in the series matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PeriodMatch {
    /// The flusher's wake-up interval (`dirty_writeback_centisecs`): steady dirtying
    /// written at every wake-up.
    FlusherInterval,
    /// The writeback window (`dirty_expire_centisecs + dirty_writeback_centisecs`, or the
    /// expiry alone): pages written when they expire.
    WritebackWindow,
    /// The journal's commit interval (ext4 `commit=`, 5 s by default).
    JournalCommit,
    /// None of the kernel's intervals: the period is the application's own (a timer).
    None,
}

impl PeriodMatch {
    /// Words for the report: "the flusher's wake-up interval", ...
    pub fn label(self) -> &'static str {
        match self {
            PeriodMatch::FlusherInterval => "the flusher's wake-up interval",
            PeriodMatch::WritebackWindow => "the writeback window",
            PeriodMatch::JournalCommit => "the journal's commit interval",
            PeriodMatch::None => "no kernel interval (an application's timer)",
        }
    }
}

/// The kernel intervals a period is tested against: the writeback tunables and the
/// journal commit interval of the device's file system.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Tunables {
    /// The writeback tunables.
    pub window: WritebackWindow,
    /// The journal's commit interval, seconds, and whether the capture's mount table gave
    /// it (the device's ext4 mount, `commit=` or the default it implies); `None` when the
    /// device's file system has no such interval (XFS, a raw device).
    pub journal_commit: Option<(f64, bool)>,
}

impl Tunables {
    /// The tunables of device `dev` (`vda`, `loop0`): its ext4 mount's `commit=`
    /// (`/dev/vda / ext4 rw,relatime,commit=15 0 0`, or `/proc/fs/ext4/vda/options:commit=15`),
    /// the 5 s default when the mount says nothing or is not in the capture; no interval
    /// when the device holds another file system.
    pub(crate) fn for_device(
        window: WritebackWindow,
        mounts: &[crate::source::Sourced<Mount>],
        dev: &str,
    ) -> Self {
        let on_dev = |m: &&crate::source::Sourced<Mount>| {
            let d = m.value.source.strip_prefix("/dev/").unwrap_or(&m.value.source);
            d == dev || d.strip_prefix(dev).is_some_and(is_partition_suffix)
        };
        let mine: Vec<&Mount> = mounts.iter().filter(on_dev).map(|m| &m.value).collect();
        let ext4: Vec<&Mount> = mine.iter().copied().filter(|m| m.fstype == "ext4").collect();
        let journal_commit = if mine.is_empty() {
            Some((EXT4_DEFAULT_COMMIT_S, false))
        } else if ext4.is_empty() {
            None
        } else {
            // The last `commit=` listed wins; `commit=0` means the default.
            let set = ext4
                .iter()
                .flat_map(|m| m.options.iter())
                .filter_map(|o| o.strip_prefix("commit=")?.trim().parse::<f64>().ok())
                .next_back()
                .filter(|v| *v > 0.0);
            Some((set.unwrap_or(EXT4_DEFAULT_COMMIT_S), true))
        };
        Tunables { window, journal_commit }
    }

    /// Every kernel interval `period_s` matches, nearest first (relative distance; on a tie
    /// the writeback window, then the flusher interval, then the journal); `[None]` when it
    /// matches none. The writeback window by [`WritebackWindow::matches`], the flusher's
    /// interval by [`WritebackWindow::is_flusher_cadence`], the journal's within 20 % (at
    /// least 1 s).
    pub(crate) fn classify(&self, period_s: f64) -> Vec<PeriodMatch> {
        let w = self.window;
        let mut hits: Vec<(f64, PeriodMatch)> = Vec::new();
        if w.matches(period_s) {
            let d = ((period_s - w.seconds()).abs() / w.seconds())
                .min((period_s - w.expire_s).abs() / w.expire_s);
            hits.push((d, PeriodMatch::WritebackWindow));
        }
        if w.is_flusher_cadence(period_s) {
            hits.push(((period_s - w.interval_s).abs() / w.interval_s, PeriodMatch::FlusherInterval));
        }
        if let Some((c, _)) = self.journal_commit
            && (period_s - c).abs() <= (0.2 * c).max(1.0)
        {
            hits.push(((period_s - c).abs() / c, PeriodMatch::JournalCommit));
        }
        // Stable: equal distances keep the order above.
        hits.sort_by(|a, b| a.0.total_cmp(&b.0));
        if hits.is_empty() { vec![PeriodMatch::None] } else { hits.into_iter().map(|h| h.1).collect() }
    }
}

/// `1`, `p1`: what follows a disk's name in its partitions' (`vda1`, `nvme0n1p1`).
fn is_partition_suffix(rest: &str) -> bool {
    let digits = rest.strip_prefix('p').unwrap_or(rest);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_capture_values() {
        let d = WritebackWindow::from_centisecs(None, None);
        assert_eq!((d.seconds(), d.from_capture), (35.0, false));
        let half = WritebackWindow::from_centisecs(Some(1500.0), None);
        assert_eq!((half.seconds(), half.from_capture), (20.0, false));
        let both = WritebackWindow::from_centisecs(Some(4500.0), Some(500.0));
        assert_eq!((both.seconds(), both.from_capture), (50.0, true));
    }

    #[test]
    fn match_edges() {
        // Window 20 s (expire 15 s): 20 +- 6 s, or 15 +- 3 s.
        let w = WritebackWindow::from_centisecs(Some(1500.0), Some(500.0));
        assert!(w.matches(26.0) && !w.matches(26.01));
        assert!(w.matches(14.0) && w.matches(12.0) && !w.matches(11.99));
        // Window 35 s: 35 +- 9 s covers the expiry band.
        let d = WritebackWindow::default();
        assert!(d.matches(44.0) && !d.matches(44.01) && d.matches(26.0) && !d.matches(25.99));
    }

    #[test]
    fn flusher_cadence_edges() {
        let d = WritebackWindow::default();
        assert!(d.is_flusher_cadence(4.0) && d.is_flusher_cadence(6.0));
        assert!(!d.is_flusher_cadence(3.99) && !d.is_flusher_cadence(6.01));
        let slow = WritebackWindow::from_centisecs(Some(3000.0), Some(1000.0));
        assert!(slow.is_flusher_cadence(12.0) && !slow.is_flusher_cadence(12.01));
    }

    fn mount(source: &str, fstype: &str, options: &str) -> crate::source::Sourced<Mount> {
        crate::source::Sourced {
            value: Mount {
                line: 1,
                source: source.into(),
                target: "/data".into(),
                fstype: fstype.into(),
                options: options.split(',').map(String::from).collect(),
                origin: iosift_parsers::mounts::Origin::Mount,
                extra: Vec::new(),
            },
            file: "proc-mounts.txt".into(),
            line: 1,
        }
    }

    /// `/dev/vda1 /data ext4 rw,relatime,commit=15 0 0`: 15 s on vda (its partition) and
    /// vda1; the default 5 s when the ext4 mount says nothing; none on XFS; the default,
    /// not from the capture, without a mount.
    #[test]
    fn journal_commit_from_the_mount_table() {
        let w = WritebackWindow::default();
        let m = [mount("/dev/vda1", "ext4", "rw,relatime,commit=15")];
        assert_eq!(Tunables::for_device(w, &m, "vda").journal_commit, Some((15.0, true)));
        assert_eq!(Tunables::for_device(w, &m, "vda1").journal_commit, Some((15.0, true)));
        assert_eq!(Tunables::for_device(w, &m, "vdb").journal_commit, Some((5.0, false)));
        let m = [mount("/dev/nvme0n1p2", "ext4", "rw,commit=0")];
        assert_eq!(Tunables::for_device(w, &m, "nvme0n1").journal_commit, Some((5.0, true)));
        let m = [mount("/dev/loop0", "xfs", "rw,relatime")];
        assert_eq!(Tunables::for_device(w, &m, "loop0").journal_commit, None);
        assert_eq!(Tunables::for_device(w, &m, "loop01").journal_commit, Some((5.0, false)));
    }

    /// The kernel intervals a period matches, nearest first; `None` for a timer of its own.
    #[test]
    fn classify_at_the_edges() {
        let t = Tunables { window: WritebackWindow::default(), journal_commit: Some((15.0, true)) };
        // Window 35 s: 26..44 s; the expiry 30 +- 3 s; the flusher 5 +- 1 s; the journal 15 +- 3 s.
        assert_eq!(t.classify(12.0), [PeriodMatch::JournalCommit]);
        assert_eq!(t.classify(11.99), [PeriodMatch::None]);
        assert_eq!(t.classify(36.0), [PeriodMatch::WritebackWindow]);
        assert_eq!(t.classify(44.01), [PeriodMatch::None]);
        assert_eq!(t.classify(6.0), [PeriodMatch::FlusherInterval]);
        assert_eq!(t.classify(6.01), [PeriodMatch::None]);
        let d = Tunables { window: WritebackWindow::default(), journal_commit: Some((5.0, false)) };
        assert_eq!(d.classify(5.0), [PeriodMatch::FlusherInterval, PeriodMatch::JournalCommit]);
        // A journal committing every 30 s is nearer a 30 s period than the 35 s window.
        let j = Tunables { window: WritebackWindow::default(), journal_commit: Some((30.0, true)) };
        assert_eq!(j.classify(30.0), [PeriodMatch::WritebackWindow, PeriodMatch::JournalCommit]);
        assert_eq!(j.classify(33.0), [PeriodMatch::WritebackWindow, PeriodMatch::JournalCommit]);
    }
}
