//! `mysql_variables`: server system variables from `SHOW GLOBAL VARIABLES`
//! (tabular, `\G`, tab-separated batch output, with or without a `###` title
//! line), `mysqladmin variables` and pt-stalk `-variables` files.
//!
//! Real sample (`bundles/s2a_mariadb_durable/mariadb-variables.txt`; `\t` marks a TAB):
//!
//! ```text
//! ### SHOW GLOBAL VARIABLES (selected)
//! binlog_commit_wait_count\t0
//! innodb_flush_log_at_trx_commit\t1
//! sync_binlog\t1
//! ```
//!
//! The other layouts, as the `mysql`/`mariadb` client prints them:
//!
//! ```text
//! +--------------------------------+-------+
//! | Variable_name                  | Value |
//! +--------------------------------+-------+
//! | sync_binlog                    | 1     |
//! *************************** 1. row ***************************
//! Variable_name: sync_binlog
//!         Value: 1
//! ```
//!
//! pt-stalk's `-variables` (`collect_mysql_variables`) writes the query above each
//! result, then more queries of `performance_schema` per-thread tables:
//!
//! ```text
//! SHOW GLOBAL VARIABLES
//!
//! Variable_name\tValue
//! allow_suspicious_udfs\tOFF
//! ...
//! select * from performance_schema.status_by_thread order by thread_id, variable_name;
//!
//! THREAD_ID\tVARIABLE_NAME\tVARIABLE_VALUE
//! 18\tAccess_denied_errors\t0
//! ```
//!
//! Only `SHOW [GLOBAL] VARIABLES` results are read; the per-thread sections
//! are noted once (with their line count) and left out.
//!
//! System variable names are lower case; `SHOW GLOBAL STATUS` names are
//! capitalised (`Binlog_commits`), which is how this format is told apart
//! from `mysqladmin_ext`. pt-stalk `TS` lines are accepted and skipped.

use crate::common::scrub::{Ident, Identifiers};
use crate::common::ts::parse_ts_line;
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// The parsed variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Variables {
    /// `(line, name, value)` in file order (values trimmed, may be empty).
    pub vars: Vec<(usize, String, String)>,
    /// The `### ...` title line, when the file has one.
    pub title: Option<String>,
}

impl Variables {
    /// The value of a variable, by case-insensitive name (`get("SYNC_BINLOG")`).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.iter().find(|(_, n, _)| n.eq_ignore_ascii_case(name)).map(|(_, _, v)| v.as_str())
    }

    /// The value as an integer (`ON`/`OFF` are not numbers: use [`Variables::get`]).
    pub fn get_i64(&self, name: &str) -> Option<i64> {
        crate::common::number::parse_i64(self.get(name)?)
    }
}

/// The cells of a client table row `| a | b |`, trimmed; `None` when the line is not one.
///
/// With `max` cells, the last cell takes the rest of the row (a value may contain `|`).
pub(crate) fn pipe_cells(line: &str, max: usize) -> Option<Vec<&str>> {
    let inner = line.trim_end().strip_prefix('|')?.strip_suffix('|')?;
    let cells: Vec<&str> =
        if max > 0 { inner.splitn(max, '|').collect() } else { inner.split('|').collect() };
    Some(cells.into_iter().map(str::trim).collect())
}

/// True for a client table border `+-----+------+`.
pub(crate) fn is_border(line: &str) -> bool {
    let t = line.trim_end();
    t.starts_with("+-") && t.bytes().all(|b| b == b'+' || b == b'-')
}

/// True for a `\G` row marker `*************************** 1. row ***************************`.
pub(crate) fn is_row_marker(line: &str) -> bool {
    let t = line.trim();
    t.starts_with("***") && t.ends_with("***") && t.contains(". row ")
}

/// True for a `\G` row marker, a table footer or an empty result (`1 row in set (0.00 sec)`,
/// `Empty set`), and the `mysql` client warnings a capture may hold.
pub(crate) fn is_client_noise(line: &str) -> bool {
    let t = line.trim();
    (t.contains(" in set") && t.ends_with("sec)"))
        || t.starts_with("Empty set")
        || t.starts_with("mysql: [Warning]")
        || t.starts_with("mariadb: ")
        || t.starts_with("mysqladmin: [Warning]")
}

/// For a bare query title line (pt-stalk: `SHOW GLOBAL VARIABLES`, `select * from ...;`):
/// whether its result holds global variables.
fn query_title(t: &str) -> Option<bool> {
    let up = t.trim().to_ascii_uppercase();
    if t.contains('\t') || !(up.starts_with("SHOW ") || up.starts_with("SELECT ")) {
        return None;
    }
    Some(
        up.starts_with("SHOW ")
            && up.contains("VARIABLES")
            && !up.contains("SESSION")
            && !up.contains("STATUS"),
    )
}

/// True for a system variable name (`innodb_flush_log_at_trx_commit`).
fn is_var_name(s: &str) -> bool {
    s.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
}

impl Summary for Variables {
    fn records(&self) -> usize {
        self.vars.len()
    }
    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        if let Some(t) = &self.title {
            v.insert("title", t.clone());
        }
        if let Some(ver) = self.get("version") {
            v.insert("version", ver.to_string());
        }
        v
    }
    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        None
    }
}

/// The `mysql_variables` format.
pub struct Fmt;

impl Format for Fmt {
    type Output = Variables;
    const ID: &'static str = "mysql_variables";
    const SAMPLE: &'static str = "innodb_flush_log_at_trx_commit\t1";
    const DESCRIPTION: &'static str =
        "SHOW GLOBAL VARIABLES (tabular, \\G, tab-separated), mysqladmin variables";

    /// Yes on a `### SHOW ... VARIABLES` title, or a `Variable_name` header (or `\G`
    /// field) followed by a lower-case name; Unsure for bare `name<TAB>value` lists.
    const IDENTIFIERS: Identifiers = Identifiers::Fields(&[
        ("hostname", Ident::Host),
        ("report_host", Ident::Host),
        ("report_user", Ident::User),
        ("report_password", Ident::Secret),
        ("wsrep_node_name", Ident::Host),
        ("wsrep_node_address", Ident::Host),
        ("wsrep_node_incoming_address", Ident::Host),
        ("wsrep_cluster_address", Ident::Host),
        ("wsrep_sst_receive_address", Ident::Host),
        ("wsrep_sst_auth", Ident::Secret),
        ("wsrep_cluster_name", Ident::Host),
        ("replicate_do_db", Ident::Schema),
        ("replicate_ignore_db", Ident::Schema),
        ("init_connect", Ident::Sql),
        ("init_slave", Ident::Sql),
        ("init_replica", Ident::Sql),
    ]);
    fn sniff(head: &[u8]) -> Sniff {
        let mut saw_header = false;
        let mut bare = 0;
        if Lines::new(head).filter(|l| l.bytes.starts_with(b"### ")).count() > 1 {
            return Sniff::No; // a file of `###` sections
        }
        for l in Lines::new(head).filter(|l| !l.is_blank()).take(8) {
            let t = l.text();
            let t = t.trim_end();
            if let Some(title) = t.strip_prefix("### ") {
                let up = title.to_ascii_uppercase();
                if up.contains("VARIABLES") && !up.contains("STATUS") {
                    return Sniff::Yes;
                }
                return Sniff::No;
            }
            if let Some(global) = query_title(t) {
                return if global { Sniff::Yes } else { Sniff::No };
            }
            if parse_ts_line(t).is_some() || is_border(t) || is_row_marker(t) {
                continue;
            }
            let (name, value) = if let Some(c) = pipe_cells(t, 2) {
                (c.first().copied().unwrap_or(""), c.get(1).copied().unwrap_or(""))
            } else if let Some((n, v)) = t.split_once('\t') {
                (n, v)
            } else if let Some((n, v)) = t.trim_start().split_once(": ") {
                (n, v)
            } else {
                return Sniff::No;
            };
            if name == "Variable_name" {
                if value != "Value" && !saw_header {
                    // `\G`: `Variable_name: sync_binlog`
                    return if is_var_name(value) { Sniff::Yes } else { Sniff::No };
                }
                saw_header = true;
                continue;
            }
            if name == "Value" {
                continue;
            }
            if !is_var_name(name) || name.contains('.') {
                return Sniff::No;
            }
            if saw_header {
                return Sniff::Yes;
            }
            if !t.contains('\t') {
                return Sniff::No;
            }
            bare += 1;
        }
        if bare > 0 { Sniff::Unsure } else { Sniff::No }
    }

    fn parse(input: &[u8]) -> Parsed<Variables> {
        let mut d = Diags::default();
        let mut out = Variables::default();
        let mut lines = 0;
        let mut pending: Option<(usize, String)> = None; // `\G` name waiting for its value
        // A pt-stalk query section that does not hold global variables: (title line, its text, lines).
        let mut other: Option<(usize, String, usize)> = None;
        let close = |other: &mut Option<(usize, String, usize)>, d: &mut Diags| {
            if let Some((no, q, n)) = other.take()
                && n > 0
            {
                d.note(
                    no,
                    DiagKind::Unsupported,
                    format!("{n} lines of `{q}` not used (not global variables)"),
                );
            }
        };
        for l in Lines::new(input) {
            lines = l.no;
            if l.is_blank() {
                continue;
            }
            let text = l.clean_text();
            let t = text.trim_end();
            if let Some(global) = query_title(t) {
                close(&mut other, &mut d);
                if global {
                    out.title.get_or_insert_with(|| t.trim().to_string());
                } else {
                    other = Some((l.no, t.trim().to_string(), 0));
                }
                continue;
            }
            if let Some((_, _, n)) = other.as_mut() {
                *n += 1;
                continue;
            }
            if let Some(title) = t.strip_prefix("### ") {
                out.title.get_or_insert_with(|| title.trim().to_string());
                continue;
            }
            if parse_ts_line(t).is_some() || is_border(t) || is_row_marker(t) || is_client_noise(t) {
                continue;
            }
            if let Some(c) = pipe_cells(t, 2) {
                match c.as_slice() {
                    ["Variable_name", "Value"] => {}
                    [n, v] if !n.is_empty() => out.vars.push((l.no, (*n).to_string(), (*v).to_string())),
                    _ => d.skip(l.no, DiagKind::FieldCount, t),
                }
                continue;
            }
            // `default_regex_flags\t` (an empty value): split before trimming.
            if let Some((n, v)) = text.split_once('\t') {
                if n == "Variable_name" && v == "Value" {
                    continue;
                }
                if !n.is_empty() && !n.contains(' ') {
                    out.vars.push((l.no, n.to_string(), v.trim().to_string()));
                    continue;
                }
            }
            let tl = t.trim_start();
            if let Some(n) = tl.strip_prefix("Variable_name:") {
                pending = Some((l.no, n.trim().to_string()));
                continue;
            }
            if let Some(v) = tl.strip_prefix("Value:") {
                match pending.take() {
                    Some((no, n)) => out.vars.push((no, n, v.trim().to_string())),
                    None => d.skip(l.no, DiagKind::NoHeader, t),
                }
                continue;
            }
            d.skip(l.no, DiagKind::Malformed, t);
        }
        close(&mut other, &mut d);
        if let Some((no, n)) = pending {
            d.note(no, DiagKind::Truncated, format!("variable {n} has no Value line"));
        }
        d.finish(out, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_layouts() {
        let tab = "+----------------+-------+\n| Variable_name  | Value |\n+----------------+-------+\n\
| sync_binlog    | 1     |\n| init_connect   |       |\n| x_y            | a|b   |\n+----------------+-------+\n3 rows in set (0.00 sec)\n";
        let p = Fmt::parse(tab.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        assert_eq!(p.value.get("SYNC_BINLOG"), Some("1"));
        assert_eq!(p.value.get("init_connect"), Some(""));
        assert_eq!(p.value.get("x_y"), Some("a|b"));
        assert_eq!(Fmt::sniff(tab.as_bytes()), Sniff::Yes);

        let g = "*************************** 1. row ***************************\nVariable_name: sync_binlog\n        Value: 1\n";
        let p = Fmt::parse(g.as_bytes());
        assert_eq!(p.value.vars, vec![(2, "sync_binlog".to_string(), "1".to_string())]);
        assert_eq!(Fmt::sniff(g.as_bytes()), Sniff::Yes);

        let t = "Variable_name\tValue\nsync_binlog\t1\n";
        assert_eq!(Fmt::sniff(t.as_bytes()), Sniff::Yes);
        assert_eq!(Fmt::parse(t.as_bytes()).value.get("sync_binlog"), Some("1"));
    }

    #[test]
    fn pt_stalk_query_titles() {
        let t = "\nSHOW GLOBAL VARIABLES\n\nVariable_name\tValue\nsync_binlog\t1\n\n\
select * from performance_schema.status_by_thread order by thread_id, variable_name; \n\n\
THREAD_ID\tVARIABLE_NAME\tVARIABLE_VALUE\n18\tAccess_denied_errors\t0\n";
        assert_eq!(Fmt::sniff(t.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(t.as_bytes());
        assert_eq!(p.value.vars, vec![(5, "sync_binlog".to_string(), "1".to_string())]);
        assert_eq!(p.value.title.as_deref(), Some("SHOW GLOBAL VARIABLES"));
        assert_eq!(p.skipped_lines, 0);
        assert_eq!(p.diagnostics.len(), 1);
        assert!(p.diagnostics[0].text.starts_with("2 lines of `select"), "{:?}", p.diagnostics);
        assert_eq!(Fmt::sniff(b"SHOW GLOBAL STATUS\n\nVariable_name\tValue\n"), Sniff::No);
    }

    #[test]
    fn status_tables_are_not_variables() {
        let s = "+---------------+-------+\n| Variable_name | Value |\n+---------------+-------+\n| Aborted_clients | 0 |\n";
        assert_eq!(Fmt::sniff(s.as_bytes()), Sniff::No);
        assert_eq!(Fmt::sniff(b"28\tthread/innodb/thread_pool_thread\tBACKGROUND\n"), Sniff::No);
        assert_eq!(Fmt::sniff(b"### uname -a\nLinux vm 6.1 #1 x86_64\n"), Sniff::No);
    }
}
