//! `mysql_option_file`: a MySQL / MariaDB option file (`my.cnf`).
//!
//! Real sample (`bundles/s2a_mariadb_durable/my.cnf`):
//!
//! ```text
//! [client]
//! socket=/var/lib/mysql-test/mariadb.sock
//!
//! [mariadbd]
//! user=mysql
//! skip-name-resolve
//! log_bin=/var/lib/mysql-test/binlog/mariadb-bin
//! sync_binlog=1
//! innodb_flush_log_at_trx_commit=1
//! innodb_buffer_pool_size=512M
//! ```
//!
//! Syntax (MySQL "Using Option Files"): `[group]` headers, `opt_name=value`
//! or a bare `opt_name` (a boolean set to 1), spaces around `=` allowed,
//! values optionally quoted, `#`/`;` comments (also after a value, preceded
//! by a space), `!include FILE` / `!includedir DIR`. In option names `-` and
//! `_` are the same, and a `loose-` prefix only says "ignore if unknown".

use crate::common::lines::count_lines;
use crate::common::scrub::{Ident, Identifiers};
use crate::common::{DiagKind, Diags, Format, Lines, Parsed, Sniff, Stamp, Summary, Variant};

/// One option line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionLine {
    /// 1-based line number.
    pub line: usize,
    /// The name as written (`skip-name-resolve`).
    pub raw_key: String,
    /// Normalised name: `-` -> `_`, lower case, `loose_` prefix removed (`skip_name_resolve`).
    pub key: String,
    /// The value (quotes removed); `None` for a bare option.
    pub value: Option<String>,
}

/// One `[group]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OptionGroup {
    /// Group name (`mysqld`, `mariadbd`, `client`); empty for options before any header.
    pub name: String,
    /// 1-based line of the header.
    pub line: usize,
    /// Options in order.
    pub options: Vec<OptionLine>,
}

/// A parsed option file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MysqlOptionFile {
    /// Groups in file order (a group may appear more than once).
    pub groups: Vec<OptionGroup>,
    /// `!include` / `!includedir` targets.
    pub includes: Vec<String>,
}

/// Normalises an option name (`Innodb-Flush-Log_at_trx_commit` -> `innodb_flush_log_at_trx_commit`).
pub fn normalize_key(k: &str) -> String {
    let k = k.trim().to_ascii_lowercase().replace('-', "_");
    match k.strip_prefix("loose_") {
        Some(r) => r.to_string(),
        None => k,
    }
}

/// True for the groups the server reads (`mysqld`, `mariadbd`, `server`, `mariadb`,
/// `mysqld-8.0`, `mariadb-10.11`, `galera`).
pub fn is_server_group(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(n.as_str(), "mysqld" | "mariadbd" | "server" | "mariadb" | "galera" | "embedded")
        || n.starts_with("mysqld-")
        || n.starts_with("mariadb-")
        || n.starts_with("mariadbd-")
}

impl MysqlOptionFile {
    /// The value the server would use for an option (`-`/`_` equivalent):
    /// the last occurrence in a server group. A bare option gives `"1"`
    /// (MySQL's `--opt` without value). `None` when not set.
    pub fn get(&self, key: &str) -> Option<&str> {
        let k = normalize_key(key);
        self.groups
            .iter()
            .filter(|g| is_server_group(&g.name))
            .flat_map(|g| g.options.iter())
            .rfind(|o| o.key == k)
            .map(|o| o.value.as_deref().unwrap_or("1"))
    }

    /// The last value of an option in a given group (`get_in("client", "socket")`).
    pub fn get_in(&self, group: &str, key: &str) -> Option<&str> {
        let k = normalize_key(key);
        self.groups
            .iter()
            .filter(|g| g.name.eq_ignore_ascii_case(group))
            .flat_map(|g| g.options.iter())
            .rfind(|o| o.key == k)
            .map(|o| o.value.as_deref().unwrap_or("1"))
    }
}

/// `[mariadbd]` -> `mariadbd`.
fn group_header(t: &str) -> Option<&str> {
    let inner = t.strip_prefix('[')?.strip_suffix(']')?.trim();
    (!inner.is_empty() && inner.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)))
        .then_some(inner)
}

/// Groups that say "this is a MySQL option file" on the first header.
fn known_group(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    is_server_group(&n)
        || [
            "client",
            "mysql",
            "mysqldump",
            "mysqladmin",
            "mysqld_safe",
            "mariadb-client",
            "client-server",
            "client-mariadb",
            "mysqld_multi",
            "xtrabackup",
            "sst",
            "mariabackup",
            "mariadb-dump",
            "mysqlbinlog",
            "mysqlcheck",
            "mysqlimport",
            "mysqlshow",
            "mysqlslap",
            "mysql_upgrade",
            "mariadb-safe",
            "manager",
            "isamchk",
            "myisamchk",
        ]
        .contains(&n.as_str())
}

fn strip_comment(v: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut prev_space = true;
    for (i, c) in v.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if (c == '#' || c == ';') && prev_space => return v.get(..i).unwrap_or(v),
            None => {}
        }
        prev_space = c.is_whitespace();
    }
    v
}

fn unquote(v: &str) -> &str {
    let v = v.trim();
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

/// The reader.
#[derive(Debug, Clone, Copy)]
pub struct Fmt;

impl Format for Fmt {
    type Output = MysqlOptionFile;
    const ID: &'static str = "mysql_option_file";
    const SAMPLE: &'static str = "innodb_flush_log_at_trx_commit=1";
    const DESCRIPTION: &'static str = "MySQL / MariaDB option file (my.cnf): groups and options";

    const IDENTIFIERS: Identifiers = Identifiers::Fields(&[
        ("user", Ident::User),
        ("password", Ident::Secret),
        ("host", Ident::Host),
        ("report_host", Ident::Host),
        ("report_user", Ident::User),
        ("report_password", Ident::Secret),
        ("wsrep_node_name", Ident::Host),
        ("wsrep_node_address", Ident::Host),
        ("wsrep_cluster_address", Ident::Host),
        ("wsrep_sst_auth", Ident::Secret),
        ("wsrep_cluster_name", Ident::Host),
        ("replicate_do_db", Ident::Schema),
        ("replicate_ignore_db", Ident::Schema),
        ("init_connect", Ident::Sql),
    ]);
    fn sniff(head: &[u8]) -> Sniff {
        for l in Lines::new(head).filter(|l| !l.is_blank()) {
            let t = l.text();
            let t = t.trim();
            if t.starts_with('#') || t.starts_with(';') {
                continue;
            }
            if t.starts_with("!include ") || t.starts_with("!includedir ") {
                return Sniff::Yes;
            }
            return match group_header(t) {
                Some(g) if known_group(g) => Sniff::Yes,
                _ => Sniff::No,
            };
        }
        Sniff::No
    }

    fn parse(input: &[u8]) -> Parsed<MysqlOptionFile> {
        let mut out = MysqlOptionFile::default();
        let mut d = Diags::default();
        for (l, text) in Lines::new(input).content() {
            let t = text.trim();
            if t.starts_with('#') || t.starts_with(';') {
                continue;
            }
            if let Some(r) = t
                .strip_prefix("!include")
                .and_then(|r| r.strip_prefix("dir ").or_else(|| r.strip_prefix(' ')))
            {
                out.includes.push(r.trim().to_string());
                continue;
            }
            if let Some(g) = group_header(t) {
                out.groups.push(OptionGroup { name: g.to_string(), line: l.no, options: Vec::new() });
                continue;
            }
            let body = strip_comment(t).trim();
            let (k, v) = match body.split_once('=') {
                Some((k, v)) => (k.trim(), Some(unquote(v).to_string())),
                None => (body, None),
            };
            if k.is_empty() || !k.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)) {
                d.skip(l.no, DiagKind::Malformed, t);
                continue;
            }
            if out.groups.is_empty() {
                out.groups.push(OptionGroup::default());
            }
            if let Some(g) = out.groups.last_mut() {
                g.options.push(OptionLine {
                    line: l.no,
                    raw_key: k.to_string(),
                    key: normalize_key(k),
                    value: v,
                });
            }
        }
        d.finish(out, count_lines(input))
    }
}

impl Summary for MysqlOptionFile {
    fn records(&self) -> usize {
        self.groups.iter().map(|g| g.options.len()).sum()
    }

    fn variant(&self) -> Variant {
        let mut v = Variant::new();
        v.insert("layout", "option file".to_string());
        v.insert("groups", self.groups.iter().map(|g| g.name.as_str()).collect::<Vec<_>>().join(","));
        for k in ["sync_binlog", "innodb_flush_log_at_trx_commit", "innodb_flush_method"] {
            if let Some(x) = self.get(k) {
                v.insert(k, x.to_string());
            }
        }
        v
    }

    fn time_range(&self) -> Option<(Stamp, Stamp)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_get() {
        let s = "# comment\n[client]\nsocket=/tmp/s\n[mysqld]\nloose-innodb-flush-method = \"O_DIRECT\" # fast\nskip-name-resolve\nsync_binlog=0\n[mysqld-8.0]\nsync-binlog=1\n!includedir /etc/mysql/conf.d/\n";
        assert_eq!(Fmt::sniff(s.as_bytes()), Sniff::Yes);
        let p = Fmt::parse(s.as_bytes());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let f = &p.value;
        assert_eq!(f.get("sync_binlog"), Some("1"));
        assert_eq!(f.get("innodb_flush_method"), Some("O_DIRECT"));
        assert_eq!(f.get("skip_name_resolve"), Some("1"));
        assert_eq!(f.get("socket"), None);
        assert_eq!(f.get_in("client", "socket"), Some("/tmp/s"));
        assert_eq!(f.includes, ["/etc/mysql/conf.d/"]);
        assert_eq!(Fmt::sniff(b"[section]\nkey=value\n"), Sniff::No);
        let _ = Fmt::parse(b"[\n=\n\xff=\xfe\n'\n");
    }
}
