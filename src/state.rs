//! Database and host state for the report, from the snapshot files of a
//! capture (pt-stalk's `-innodbstatus1/2`, `-processlist`, `-top`, `-ps`,
//! `-netstat`): InnoDB history list length, pending flushes, redo not yet
//! flushed, dirty pages; what the connections were doing; the database
//! server's process (the one listening on the capture's `port`) and its CPU.

use crate::pipeline::Pipeline;
use crate::source::{self, State};
use std::collections::BTreeMap;

/// One fact of the state table.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StateFact {
    /// What it is (`InnoDB history list length`).
    pub what: String,
    /// The value, as text with its unit.
    pub value: String,
    /// The input file.
    pub file: String,
    /// Its line, when one line holds it.
    pub line: Option<usize>,
}

fn fact(what: impl Into<String>, value: impl Into<String>, file: &str, line: Option<usize>) -> StateFact {
    StateFact { what: what.into(), value: value.into(), file: file.to_string(), line }
}

/// The database server's pid: the process listening on the `port` variable (netstat -antp).
fn server_pid(p: &Pipeline) -> Option<(u32, String, String)> {
    let port: u16 = p.ctx.variable("port")?.value.trim().parse().ok()?;
    p.files.iter().find_map(|f| match source::state(f) {
        Some(State::Netstat(n)) => {
            let who = n.listener(port)?;
            let pid = who.split('/').next()?.parse().ok()?;
            Some((pid, format!("{who} listening on port {port}"), f.name.clone()))
        }
        _ => None,
    })
}

/// Every state fact the capture holds.
pub(crate) fn gather(p: &Pipeline) -> Vec<StateFact> {
    let mut out = Vec::new();
    let server = server_pid(p);
    if let Some((_, who, file)) = &server {
        out.push(fact("database server process", who.clone(), file, None));
    }
    for f in &p.files {
        match source::state(f) {
            Some(State::Innodb(s)) => {
                for m in &s.monitors {
                    let at = m.stamp.map(|s| format!(" at {}", s.display())).unwrap_or_default();
                    let line = Some(m.line);
                    if let Some(h) = m.history_list_length() {
                        out.push(fact(
                            format!("InnoDB history list length{at}"),
                            format!("{h:.0}"),
                            &f.name,
                            line,
                        ));
                    }
                    if let Some(v) = m.get("Pending flushes (fsync)") {
                        out.push(fact(
                            format!("InnoDB pending flushes (fsync){at}"),
                            format!("{v:.0}"),
                            &f.name,
                            line,
                        ));
                    }
                    if let (Some(lsn), Some(flushed)) = (m.log_sequence_number(), m.get("Log flushed up to"))
                    {
                        out.push(fact(
                            format!("redo written but not yet flushed{at}"),
                            format!("{:.0} bytes", lsn - flushed),
                            &f.name,
                            line,
                        ));
                    }
                    if let Some(d) = m.modified_db_pages() {
                        out.push(fact(
                            format!("InnoDB modified (dirty) pages{at}"),
                            format!("{d:.0}"),
                            &f.name,
                            line,
                        ));
                    }
                }
            }
            Some(State::Processlist(pl)) if !pl.processes.is_empty() => {
                let snaps = pl.snapshots.max(1);
                let mut states: BTreeMap<String, usize> = BTreeMap::new();
                for q in pl.active() {
                    *states.entry(q.state.clone().unwrap_or_else(|| "(none)".into())).or_default() += 1;
                }
                let active = pl.active().count();
                let mut ranked: Vec<(String, usize)> = states.into_iter().collect();
                ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                let top: Vec<String> = ranked
                    .iter()
                    .take(4)
                    .map(|(s, n)| format!("{s} {:.0} %", 100.0 * *n as f64 / active.max(1) as f64))
                    .collect();
                out.push(fact(
                    format!("connections ({snaps} processlist snapshots)"),
                    format!(
                        "{:.1} per snapshot, {:.1} running a statement; states: {}",
                        pl.processes.len() as f64 / snaps as f64,
                        active as f64 / snaps as f64,
                        if top.is_empty() { "-".to_string() } else { top.join(", ") }
                    ),
                    &f.name,
                    None,
                ));
            }
            Some(State::Top(t)) if t.iterations.len() > 1 => {
                let d_max = t.iterations.iter().map(|i| i.d_state()).max().unwrap_or(0);
                out.push(fact("processes in D state (top), max", d_max.to_string(), &f.name, None));
                // Mean %CPU per database server pid, over the iterations after the first.
                let mut cpu: BTreeMap<u32, (f64, usize)> = BTreeMap::new();
                for it in &t.iterations[1..] {
                    for q in it.procs.iter().filter(|q| matches!(q.command.as_str(), "mariadbd" | "mysqld")) {
                        let e = cpu.entry(q.pid).or_default();
                        e.0 += q.cpu_pct.unwrap_or(0.0);
                        e.1 += 1;
                    }
                }
                for (pid, (sum, n)) in cpu {
                    let ours = server.as_ref().is_some_and(|(s, _, _)| *s == pid);
                    let what = if ours {
                        format!("CPU of the database server (pid {pid}), mean")
                    } else {
                        format!("CPU of another mariadbd/mysqld (pid {pid}), mean")
                    };
                    out.push(fact(what, format!("{:.0} % of one core", sum / n as f64), &f.name, None));
                }
            }
            _ => {}
        }
    }
    out
}
