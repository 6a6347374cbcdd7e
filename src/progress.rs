//! A progress line for `iosift analyze` on a terminal: the stage (reading,
//! analyzing, writing), the files and bytes read, and the time spent, on
//! standard error. It appears only once the work has lasted [`DELAY`] (a quick
//! run prints nothing extra), never when standard error is not a terminal
//! (pipes, files, CI logs) or with `-q`, and it is cleared before the summary.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long the work must last before the line appears.
pub const DELAY: Duration = Duration::from_secs(2);

/// The progress line (a no-op when disabled).
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    /// Set once the work is done, so that the delayed start does not show a finished line.
    done: Arc<AtomicBool>,
}

impl Progress {
    /// Starts the line on standard error, shown after [`DELAY`] (or `IOSIFT_PROGRESS_DELAY_MS`);
    /// disabled when `quiet` or when standard error is not a terminal.
    pub fn start(quiet: bool) -> Progress {
        let done = Arc::new(AtomicBool::new(false));
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None, done };
        }
        let bar = indicatif::ProgressBar::hidden();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
        );
        let (b, d) = (bar.clone(), done.clone());
        // `IOSIFT_PROGRESS_DELAY_MS` (tests) replaces the delay.
        let delay = std::env::var("IOSIFT_PROGRESS_DELAY_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(DELAY, Duration::from_millis);
        // The line appears only if the work is still going after the delay.
        let _ = std::thread::Builder::new().name("progress".into()).spawn(move || {
            std::thread::sleep(delay);
            if !d.load(Ordering::SeqCst) {
                b.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                b.enable_steady_tick(Duration::from_millis(200));
            }
        });
        Progress { bar: Some(bar), done }
    }

    /// Says what is being done now.
    pub fn stage(&self, what: impl Into<String>) {
        if let Some(b) = &self.bar {
            b.set_message(crate::term::safe(&what.into()).into_owned());
        }
    }

    /// Clears the line (before the summary is printed).
    pub fn finish(&self) {
        self.done.store(true, Ordering::SeqCst);
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

/// `1536 files, 2.5 GB` for the bundle's files (streamed ones by their size on disk).
pub fn read_words(b: &crate::bundle::Bundle) -> String {
    let bytes: u64 = b.files.iter().map(|f| f.stream.as_ref().map_or(f.data.len() as u64, |s| s.len)).sum();
    format!("{} files, {:.1} MiB", b.files.len(), bytes as f64 / crate::verdict::MIB)
}
