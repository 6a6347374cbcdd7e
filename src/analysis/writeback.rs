//! The kernel's periodic writeback window: dirty pages older than
//! `vm.dirty_expire_centisecs` are written by the flusher, which wakes every
//! `vm.dirty_writeback_centisecs`. One test says whether a period matches it,
//! used by the periodicity choice and by the rules.

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
}
