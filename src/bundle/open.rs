//! Opening inputs without ever blocking. Every file is opened `O_NONBLOCK` (a FIFO put
//! in a file's place after its folder was listed does not hang the open) and checked with
//! `fstat` on the opened handle; devices and sockets are refused before any open (opening
//! some devices has effects). Files without a size (`/proc`, `/sys`, tracefs) and pipes
//! named on the command line are read by a helper thread under deadlines, into a buffer
//! grown with `try_reserve`: a read that would block (`trace_pipe`, a FIFO nobody writes to)
//! or never ends is a problem for that file, and so is an allocation that fails.

use std::fs::{File, FileType, Metadata};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long a read of a special file or pipe may wait.
#[derive(Debug, Clone, Copy)]
pub(super) struct Deadline {
    /// Longest wait for the next bytes.
    pub idle: Duration,
    /// Longest whole read (`None`: as long as bytes keep coming, up to the size limit).
    pub total: Option<Duration>,
}

/// Files whose size is 0 on paper (`/proc`, `/sys`): the kernel makes their text at once,
/// so a read that waits, or goes on for half a minute, is a live stream (`trace_pipe`).
pub(super) const SIZELESS: Deadline =
    Deadline { idle: Duration::from_secs(5), total: Some(Duration::from_secs(30)) };

/// Pipes named on the command line (`<(zcat x)`, `/dev/stdin`): the program writing them may
/// be slow to start, but a minute without a byte is a pipe nobody writes to.
pub(super) const PIPE: Deadline = Deadline { idle: Duration::from_secs(60), total: None };

/// Bytes asked for per read of a special file or pipe.
const CHUNK: usize = 64 << 10;

/// Why a special file or pipe was not read.
#[derive(Debug)]
pub(super) enum SpecialError {
    /// A read would block or took too long (the text says which).
    WouldBlock(String),
    /// More bytes than the limit given.
    TooLarge,
    /// A buffer of this many bytes could not be allocated.
    OutOfMemory(usize),
    /// The read failed.
    Io(io::Error),
}

impl std::fmt::Display for SpecialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpecialError::WouldBlock(why) => write!(f, "would block: not read ({why})"),
            SpecialError::TooLarge => f.write_str("larger than the limit"),
            SpecialError::OutOfMemory(n) => write!(f, "out of memory: {n} bytes could not be allocated"),
            SpecialError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Why a path could not be opened.
#[derive(Debug)]
pub(super) enum OpenError {
    /// A device or socket: never opened.
    Special(FileType),
    /// The open or `fstat` failed.
    Io(io::Error),
}

/// What a file that is not a regular file or folder is, in words.
pub(super) fn kind(ft: &FileType) -> &'static str {
    if ft.is_fifo() {
        "a named pipe (FIFO)"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Devices and sockets: never opened, let alone read.
fn is_device(ft: &FileType) -> bool {
    ft.is_char_device() || ft.is_block_device() || ft.is_socket()
}

/// Opens `p` for reading without blocking (`O_NONBLOCK`, `O_NOCTTY`) and returns the
/// handle with what `fstat` says of it (links followed). A device or socket is refused
/// before it is opened.
pub(super) fn open(p: &Path) -> Result<(File, Metadata), OpenError> {
    let before = std::fs::metadata(p).map_err(OpenError::Io)?;
    if is_device(&before.file_type()) {
        return Err(OpenError::Special(before.file_type()));
    }
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(p)
        .map_err(OpenError::Io)?;
    let meta = f.metadata().map_err(OpenError::Io)?;
    Ok((f, meta))
}

/// Opens a file that must still be a regular file (a streamed file read again at parse
/// time: it may have been replaced by a FIFO since); its reads then block as usual.
pub fn open_regular(p: &Path) -> io::Result<File> {
    match open(p) {
        Ok((f, meta)) if meta.is_file() => {
            set_blocking(&f)?;
            Ok(f)
        }
        Ok((_, meta)) => {
            Err(io::Error::other(format!("{}, no longer a regular file", kind(&meta.file_type()))))
        }
        Err(OpenError::Special(ft)) => {
            Err(io::Error::other(format!("{}, no longer a regular file", kind(&ft))))
        }
        Err(OpenError::Io(e)) => Err(e),
    }
}

/// Clears `O_NONBLOCK` (a regular file of known size is read as usual).
pub(super) fn set_blocking(f: &File) -> io::Result<()> {
    let fd = f.as_raw_fd();
    // SAFETY: fcntl F_GETFL/F_SETFL on a descriptor owned by `f` for the whole call; no
    // memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Waits until `f` can be read (data, or the writer gone) for at most `idle`.
/// False when the time ran out.
fn wait_readable(f: &File, idle: Duration) -> io::Result<bool> {
    let ms = i32::try_from(idle.as_millis()).unwrap_or(i32::MAX);
    let mut pfd = libc::pollfd { fd: f.as_raw_fd(), events: libc::POLLIN, revents: 0 };
    loop {
        // SAFETY: `pfd` is one valid pollfd for the duration of the call, and nfds is 1.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        match n {
            0 => return Ok(false),
            n if n > 0 => return Ok(true),
            _ => {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

/// What the reading thread sends.
enum Msg {
    Data(Vec<u8>),
    End,
    Blocked(String),
    Failed(io::Error),
}

/// Reads `f` (opened `O_NONBLOCK`) to its end and sends the chunks; stops when the
/// receiver is gone. A regular file that answers "would block" is a live stream; a pipe
/// is waited on for `idle` at most before each read.
fn pump(mut f: File, tx: mpsc::SyncSender<Msg>, idle: Duration, regular: bool) {
    loop {
        if !regular {
            match wait_readable(&f, idle) {
                Ok(true) => {}
                Ok(false) => {
                    let _ = tx.send(Msg::Blocked(format!("no data for {} s", idle.as_secs_f64())));
                    return;
                }
                Err(e) => {
                    let _ = tx.send(Msg::Failed(e));
                    return;
                }
            }
        }
        let mut chunk = vec![0u8; CHUNK];
        match f.read(&mut chunk) {
            Ok(0) => {
                let _ = tx.send(Msg::End);
                return;
            }
            Ok(k) => {
                chunk.truncate(k);
                if tx.send(Msg::Data(chunk)).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock && !regular => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let _ = tx.send(Msg::Blocked(
                    "a live stream such as trace_pipe: reading it waits for events".into(),
                ));
                return;
            }
            Err(e) => {
                let _ = tx.send(Msg::Failed(e));
                return;
            }
        }
    }
}

/// Reads a file without a size (`regular`: `/proc`, `/sys`) or a pipe, opened
/// `O_NONBLOCK`, up to `limit` bytes, within `deadline`. A read that blocks in the kernel
/// leaves its thread behind (it ends with the process); the caller goes on.
pub(super) fn read_special(
    f: File,
    limit: u64,
    deadline: Deadline,
    regular: bool,
) -> Result<Vec<u8>, SpecialError> {
    let (tx, rx) = mpsc::sync_channel::<Msg>(4);
    let idle = deadline.idle;
    std::thread::Builder::new()
        .name("iosift-read".into())
        .spawn(move || pump(f, tx, idle, regular))
        .map_err(SpecialError::Io)?;
    let start = Instant::now();
    let past_total = || {
        let total = deadline.total.filter(|t| start.elapsed() >= *t)?;
        Some(SpecialError::WouldBlock(format!(
            "still sending after {} s: a live stream",
            total.as_secs_f64()
        )))
    };
    let mut out: Vec<u8> = Vec::new();
    loop {
        if let Some(e) = past_total() {
            return Err(e);
        }
        // The thread's own wait for a pipe ends first; this one catches a read stuck in the kernel.
        let mut wait = idle + Duration::from_secs(1);
        if let Some(total) = deadline.total {
            wait = wait.min(total.saturating_sub(start.elapsed()));
        }
        match rx.recv_timeout(wait) {
            Ok(Msg::Data(chunk)) => {
                if (out.len() + chunk.len()) as u64 > limit {
                    return Err(SpecialError::TooLarge);
                }
                out.try_reserve(chunk.len())
                    .map_err(|_| SpecialError::OutOfMemory(out.len() + chunk.len()))?;
                out.extend_from_slice(&chunk);
            }
            Ok(Msg::End) => return Ok(out),
            Ok(Msg::Blocked(why)) => return Err(SpecialError::WouldBlock(why)),
            Ok(Msg::Failed(e)) => return Err(SpecialError::Io(e)),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                return Err(past_total().unwrap_or_else(|| {
                    SpecialError::WouldBlock(format!("a read did not return within {} s", wait.as_secs_f64()))
                }));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(SpecialError::Io(io::Error::other("the reading thread ended")));
            }
        }
    }
}

/// Reads a small text file named by an option (`--taxonomy`): a regular file or a pipe,
/// at most `max` bytes, UTF-8. Anything else, or more, is an error saying so.
pub fn read_option_file(p: &Path, max: u64) -> io::Result<String> {
    let (f, meta) = match open(p) {
        Ok(x) => x,
        Err(OpenError::Io(e)) => return Err(e),
        Err(OpenError::Special(ft)) => return Err(not_a_file(&ft)),
    };
    let too_big = || io::Error::other(format!("larger than {max} bytes: not read (is it the right file?)"));
    let special = |f, deadline, regular| {
        read_special(f, max, deadline, regular).map_err(|e| match e {
            SpecialError::TooLarge => too_big(),
            SpecialError::Io(e) => e,
            e @ SpecialError::WouldBlock(_) | e @ SpecialError::OutOfMemory(_) => {
                io::Error::other(e.to_string())
            }
        })
    };
    let ft = meta.file_type();
    let bytes = if meta.is_file() && meta.len() > 0 {
        if meta.len() > max {
            return Err(too_big());
        }
        set_blocking(&f)?;
        let mut buf = Vec::new();
        f.take(max + 1).read_to_end(&mut buf)?;
        if buf.len() as u64 > max {
            return Err(too_big());
        }
        buf
    } else if meta.is_file() {
        special(f, SIZELESS, true)?
    } else if ft.is_fifo() {
        special(f, PIPE, false)?
    } else {
        return Err(not_a_file(&ft));
    };
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// The error for an option's file that is a device, socket or folder.
fn not_a_file(ft: &FileType) -> io::Error {
    let what = if ft.is_dir() { "a folder" } else { kind(ft) };
    io::Error::other(format!("{what}: not read (give a regular file or a pipe)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fifo(dir: &Path) -> std::path::PathBuf {
        let p = dir.join("fifo");
        assert!(std::process::Command::new("mkfifo").arg(&p).status().unwrap().success());
        p
    }

    const SHORT: Deadline = Deadline { idle: Duration::from_millis(200), total: None };

    #[test]
    fn a_fifo_nobody_writes_to_is_not_waited_on_forever() {
        let tmp = tempfile::tempdir().unwrap();
        let p = fifo(tmp.path());
        let (f, meta) = open(&p).unwrap();
        assert!(meta.file_type().is_fifo());
        match read_special(f, 1 << 20, SHORT, false) {
            Err(SpecialError::WouldBlock(why)) => assert_eq!(why, "no data for 0.2 s"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_live_stream_is_not_read() {
        // A sizeless file that answers "would block" (trace_pipe with no event): a FIFO with
        // a writer that writes nothing answers the same.
        let tmp = tempfile::tempdir().unwrap();
        let p = fifo(tmp.path());
        let (f, _) = open(&p).unwrap();
        let writer = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        match read_special(f, 1 << 20, SIZELESS, true) {
            Err(e @ SpecialError::WouldBlock(_)) => assert_eq!(
                e.to_string(),
                "would block: not read (a live stream such as trace_pipe: reading it waits for events)"
            ),
            other => panic!("{other:?}"),
        }
        // One that never stops sending is cut at the whole read's deadline.
        let (f, _) = open(&p).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let chatter = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut w = writer;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = std::io::Write::write_all(&mut w, b"event\n");
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        };
        let deadline = Deadline { idle: Duration::from_secs(5), total: Some(Duration::from_millis(300)) };
        let got = read_special(f, 1 << 20, deadline, false);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        chatter.join().unwrap();
        match got {
            Err(e @ SpecialError::WouldBlock(_)) => {
                assert_eq!(e.to_string(), "would block: not read (still sending after 0.3 s: a live stream)")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_fifo_is_read_to_its_end_and_within_the_limit() {
        let tmp = tempfile::tempdir().unwrap();
        let p = fifo(tmp.path());
        let (f, _) = open(&p).unwrap();
        // The writer opens after the reader (as `producer > fifo` started after iosift).
        let w = p.clone();
        let writer = std::thread::spawn(move || std::fs::write(w, vec![b'x'; 200_000]).unwrap());
        let got = read_special(f, 1 << 20, Deadline { idle: Duration::from_secs(20), total: None }, false);
        writer.join().unwrap();
        assert_eq!(got.unwrap().len(), 200_000);
        let (f, _) = open(&p).unwrap();
        let w = p.clone();
        let writer = std::thread::spawn(move || {
            let _ = std::fs::write(w, vec![b'x'; 200_000]);
        });
        let got = read_special(f, 100_000, Deadline { idle: Duration::from_secs(20), total: None }, false);
        assert!(matches!(got, Err(SpecialError::TooLarge)), "{got:?}");
        writer.join().unwrap();
    }

    #[test]
    fn sizeless_proc_files_are_read() {
        let (f, meta) = open(Path::new("/proc/self/status")).unwrap();
        assert_eq!(meta.len(), 0);
        let text = read_special(f, 1 << 20, SIZELESS, true).unwrap();
        assert!(text.starts_with(b"Name:"), "{}", String::from_utf8_lossy(&text));
    }

    #[test]
    fn devices_are_refused_before_they_are_opened() {
        match open(Path::new("/dev/zero")) {
            Err(OpenError::Special(ft)) => assert_eq!(kind(&ft), "a character device"),
            other => panic!("{other:?}"),
        }
        let e = read_option_file(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "a character device: not read (give a regular file or a pipe)");
        let e = read_option_file(Path::new("/proc"), 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "a folder: not read (give a regular file or a pipe)");
    }

    #[test]
    fn an_option_file_is_read_up_to_its_cap() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("t.toml");
        std::fs::write(&p, "[comm]\nmysqld = \"mysql\"\n").unwrap();
        assert_eq!(read_option_file(&p, 1 << 20).unwrap(), "[comm]\nmysqld = \"mysql\"\n");
        let e = read_option_file(&p, 10).unwrap_err();
        assert_eq!(e.to_string(), "larger than 10 bytes: not read (is it the right file?)");
        // A sizeless file past the cap (/proc/self/maps holds kilobytes).
        let e = read_option_file(Path::new("/proc/self/maps"), 100).unwrap_err();
        assert_eq!(e.to_string(), "larger than 100 bytes: not read (is it the right file?)");
    }
}
