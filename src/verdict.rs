//! The typed vocabulary a rule's verdict speaks to the report (issue 34):
//! who dirtied or submitted the data (writers), who issued the block writes
//! and why (issuers, one [`IssuerClass`] each), which thread bounds a lag
//! (bound), each with the witness it was measured from, or marked "not
//! measured" with the witness that was missing. The page's Who rows are
//! rendered from these, never from rule ids or metric key names.
//!
//! The issuer classes are those of `../shared/EVIDENCE.md` section 2; their ids
//! (`application_flush`, ...) are part of findings.json and never renamed.

use serde::Serialize;

/// Why a block write was issued, and by whom in kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IssuerClass {
    /// fsync, fdatasync, msync(MS_SYNC), sync_file_range, O_SYNC in the application's own thread.
    ApplicationFlush,
    /// The flusher writing inodes dirtied longer than `dirty_expire_centisecs` ago (`reason=periodic`).
    WritebackAge,
    /// The flusher writing because Dirty passed the background threshold (`reason=background`).
    WritebackBackground,
    /// The writer held in `balance_dirty_pages`, its rate the device's.
    WriterThrottled,
    /// O_DIRECT submission by the writer itself: Dirty does not move.
    DirectIo,
    /// jbd2 / XFS log commits.
    Journal,
    /// sync / syncfs by another process.
    SyncOther,
    /// kswapd or direct reclaim writing dirty pages (`reason=vmscan`).
    Reclaim,
    /// A loop, dm or md worker re-issuing an upper device's writes: never a dirtier.
    StackedReissue,
}

impl IssuerClass {
    /// Every class, in the order of EVIDENCE.md.
    pub const ALL: [IssuerClass; 9] = [
        IssuerClass::WritebackAge,
        IssuerClass::WritebackBackground,
        IssuerClass::WriterThrottled,
        IssuerClass::ApplicationFlush,
        IssuerClass::DirectIo,
        IssuerClass::Journal,
        IssuerClass::SyncOther,
        IssuerClass::Reclaim,
        IssuerClass::StackedReissue,
    ];

    /// The stable id (`application_flush`).
    pub fn id(self) -> &'static str {
        match self {
            IssuerClass::ApplicationFlush => "application_flush",
            IssuerClass::WritebackAge => "writeback_age",
            IssuerClass::WritebackBackground => "writeback_background",
            IssuerClass::WriterThrottled => "writer_throttled",
            IssuerClass::DirectIo => "direct_io",
            IssuerClass::Journal => "journal",
            IssuerClass::SyncOther => "sync_other",
            IssuerClass::Reclaim => "reclaim",
            IssuerClass::StackedReissue => "stacked_reissue",
        }
    }

    /// The class from its id.
    pub fn from_id(id: &str) -> Option<IssuerClass> {
        IssuerClass::ALL.into_iter().find(|c| c.id() == id)
    }

    /// In words, for the page.
    pub fn words(self) -> &'static str {
        match self {
            IssuerClass::ApplicationFlush => "the application's own flush (fsync / msync / sync_file_range)",
            IssuerClass::WritebackAge => {
                "periodic writeback of pages older than dirty_expire (kernel flusher)"
            }
            IssuerClass::WritebackBackground => {
                "background writeback over the dirty background threshold (kernel flusher)"
            }
            IssuerClass::WriterThrottled => "the writer itself, throttled in balance_dirty_pages",
            IssuerClass::DirectIo => "direct I/O submitted by the writer",
            IssuerClass::Journal => "file-system journal commits",
            IssuerClass::SyncOther => "sync / syncfs by another process",
            IssuerClass::Reclaim => "memory reclaim writing dirty pages",
            IssuerClass::StackedReissue => {
                "a stacked device (loop / dm / md) re-issuing the writes of the device above"
            }
        }
    }

    /// True for the classes whose data was dirtied in the page cache first.
    pub fn buffered(self) -> bool {
        !matches!(self, IssuerClass::DirectIo | IssuerClass::Journal | IssuerClass::StackedReissue)
    }
}

/// What an actor did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Dirtied the pages (buffered) or submitted the data (direct).
    Writer,
    /// Issued the block writes, for the reason of its class.
    Issuer(IssuerClass),
    /// The thread a lag or a commit rate is bound by.
    Bound,
}

/// One actor of a verdict, with its witness.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Actor {
    /// `writer`, an issuer class id, or `bound`.
    #[serde(serialize_with = "role_id")]
    pub class: Role,
    /// The thread or process name as the witness prints it (None when not measured).
    pub comm: Option<String>,
    /// Its thread id, when the witness gives one.
    pub tid: Option<u32>,
    /// Its share of what the witness counted (bytes, samples, requests), 0..1.
    pub share: Option<f64>,
    /// The witness (`pidstat -d`, `perf`, `trace`, `meminfo`, ...).
    pub source: &'static str,
    /// False when the witness that would name it is missing.
    pub measured: bool,
    /// A short explanation (`not measured: no perf samples in the capture`, the runner-up, ...).
    pub note: Option<String>,
}

fn role_id<S: serde::Serializer>(r: &Role, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match r {
        Role::Writer => "writer",
        Role::Issuer(c) => c.id(),
        Role::Bound => "bound",
    })
}

impl Actor {
    /// A measured actor.
    pub fn measured(
        class: Role,
        comm: &str,
        tid: Option<u32>,
        share: Option<f64>,
        source: &'static str,
    ) -> Actor {
        Actor { class, comm: Some(comm.to_string()), tid, share, source, measured: true, note: None }
    }

    /// An actor whose class the capture shows without naming the thread.
    pub fn unnamed(class: Role, source: &'static str, note: impl Into<String>) -> Actor {
        Actor { class, comm: None, tid: None, share: None, source, measured: true, note: Some(note.into()) }
    }

    /// An actor the capture could not measure: `why` names the missing witness.
    pub fn not_measured(class: Role, why: impl Into<String>) -> Actor {
        Actor {
            class,
            comm: None,
            tid: None,
            share: None,
            source: "",
            measured: false,
            note: Some(format!("not measured: {}", why.into())),
        }
    }

    /// With a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Actor {
        self.note = Some(note.into());
        self
    }

    /// The issuer class, for an issuer.
    pub fn issuer_class(&self) -> Option<IssuerClass> {
        match self.class {
            Role::Issuer(c) => Some(c),
            _ => None,
        }
    }
}

/// Who took part in what a finding explains.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Actors {
    /// Who dirtied or submitted the data, most first.
    pub writers: Vec<Actor>,
    /// Who issued the block writes and why, best-supported first.
    pub issuers: Vec<Actor>,
    /// The thread a lag or a rate is bound by.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bound: Vec<Actor>,
}

/// The declaration of a rule to the report: its title and the charts that show it best.
#[derive(Debug, Clone, Copy)]
pub struct RuleSpec {
    /// Rule id of DESIGN.md.
    pub id: &'static str,
    /// Title on the page.
    pub title: &'static str,
    /// The report's chart names, best first; the device writes are the fallback.
    pub key_charts: &'static [&'static str],
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_ids_round_trip_and_serialize_as_in_the_contract() {
        for c in IssuerClass::ALL {
            assert_eq!(IssuerClass::from_id(c.id()), Some(c));
            assert_eq!(serde_json::to_value(c).unwrap(), serde_json::Value::from(c.id()));
        }
        let a = Actor::not_measured(Role::Issuer(IssuerClass::ApplicationFlush), "no perf samples");
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["class"], "application_flush");
        assert_eq!(v["measured"], false);
        assert_eq!(v["note"], "not measured: no perf samples");
        let w = serde_json::to_value(Actor::measured(Role::Writer, "dd", Some(7), Some(0.9), "pidstat -d"))
            .unwrap();
        assert_eq!(w["class"], "writer");
        assert_eq!(w["comm"], "dd");
    }
}
