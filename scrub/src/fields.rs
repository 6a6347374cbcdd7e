//! Named fields a format declares as identifiers ([`iosift_parsers::common::scrub::Ident`]),
//! in every layout the MySQL and procps tools print them:
//!
//! ```text
//!     User: bench                                  (\G; `Info:` SQL goes on in the next lines)
//! hostname<TAB>vm                                       (key TAB value)
//! | hostname | vm |                                (tabular key/value)
//! user = bench                                     (option file)
//! {"table": "sbtest.sbtest5", ...}                 (JSON)
//! THREAD_ID<TAB>NAME<TAB>...<TAB>PROCESSLIST_USER<TAB>...      (a header row: its columns by name)
//! UID        PID  PPID  C    SZ   RSS PSR STIME TTY          TIME CMD   (ps, top: blank-separated)
//! ```

use super::generic::{Learnt, common_name};
use super::shape::{Kind, Mapper};
use super::sql::{Mode, Sql};
use iosift_parsers::common::scrub::Ident;
use regex::bytes::Regex;
use std::sync::LazyLock;

/// `    User: bench` (the key in group 1, the value in group 2).
static VERTICAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*([A-Za-z_][A-Za-z0-9_]*): ?(.*)$").unwrap());
/// `"key": "value"`.
static JSON: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""([A-Za-z_][A-Za-z0-9_]*)"\s*:\s*"((?:[^"\\]|\\.)*)""#).unwrap());
/// `key = value`.
static ASSIGN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(.*?)\s*$").unwrap());

/// How a table's cells are separated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sep {
    Tab,
    Pipe,
    Semicolon,
    Blank,
}

/// The field scrubber of one file.
#[derive(Debug)]
pub(crate) struct Fields {
    spec: &'static [(&'static str, Ident)],
    header: Option<(Sep, Vec<Option<Ident>>)>,
    /// SQL of a `\G` field going on in the next lines.
    cont: Option<Sql>,
}

impl Fields {
    /// A scrubber of these fields.
    pub(crate) fn new(spec: &'static [(&'static str, Ident)]) -> Fields {
        Fields { spec, header: None, cont: None }
    }

    fn ident(&self, key: &[u8]) -> Option<Ident> {
        let k = String::from_utf8_lossy(key);
        let k = k.trim().trim_start_matches("# ");
        self.spec.iter().find(|(n, _)| n.eq_ignore_ascii_case(k)).map(|(_, i)| *i)
    }

    /// One line.
    pub(crate) fn line(&mut self, line: &[u8], m: &mut Mapper, mut learn: Option<&mut Learnt>) -> Vec<u8> {
        if let Some(c) = VERTICAL.captures(line) {
            let (k, v) = (c.get(1).unwrap(), c.get(2).unwrap());
            self.cont = None;
            if let Some(id) = self.ident(k.as_bytes()) {
                let mut out = line[..v.start()].to_vec();
                if id == Ident::Sql {
                    let mut sql = Sql::new();
                    out.extend(sql.line(v.as_bytes(), Mode::Full, m, learn));
                    self.cont = Some(sql);
                } else {
                    out.extend(value(id, v.as_bytes(), m, learn).into_bytes());
                }
                return out;
            }
            if !line.contains(&b'\t') && !line.trim_ascii_start().starts_with(b"|") {
                return line.to_vec();
            }
        }
        if let Some(sql) = &mut self.cont {
            if line.starts_with(b"*****") {
                self.cont = None;
                return line.to_vec();
            }
            return sql.line(line, Mode::Full, m, learn);
        }
        if memchr::memmem::find(line, b"\":").is_some() {
            let spec = self.spec;
            let find = |k: &[u8]| {
                let k = String::from_utf8_lossy(k);
                spec.iter().find(|(n, _)| n.eq_ignore_ascii_case(&k)).map(|(_, i)| *i)
            };
            return replace_groups(&JSON, line, |k, v| {
                find(k).map(|id| value(id, v, m, learn.as_deref_mut()))
            });
        }
        if let Some(c) = ASSIGN.captures(line)
            && let Some(id) = self.ident(&c[1])
        {
            let v = c.get(2).unwrap();
            let mut out = line[..v.start()].to_vec();
            out.extend(value(id, v.as_bytes(), m, learn).into_bytes());
            out.extend_from_slice(&line[v.end()..]);
            return out;
        }
        self.table(line, m, learn)
    }

    /// A row of a table (or a key/value pair in one).
    fn table(&mut self, line: &[u8], m: &mut Mapper, mut learn: Option<&mut Learnt>) -> Vec<u8> {
        let sep = if line.contains(&b'\t') {
            Sep::Tab
        } else if line.trim_ascii_start().starts_with(b"|") {
            Sep::Pipe
        } else if line.contains(&b';') {
            Sep::Semicolon
        } else {
            Sep::Blank
        };
        let cells = cells(line, sep);
        if cells.is_empty() {
            // A blank line ends a blank-separated table (top prints its summary after one).
            if self.header.as_ref().is_some_and(|(s, _)| *s == Sep::Blank) {
                self.header = None;
            }
            return line.to_vec();
        }
        let idents: Vec<Option<Ident>> = cells.iter().map(|&(a, b)| self.ident(&line[a..b])).collect();
        if cells.len() == 2 && sep != Sep::Blank && idents[0].is_some() {
            let (id, (a, b)) = (idents[0].unwrap_or(Ident::Host), cells[1]);
            return splice(line, &[(a, b, value(id, &line[a..b], m, learn))]);
        }
        if idents.iter().any(Option::is_some) {
            self.header = Some((sep, idents));
            return line.to_vec();
        }
        let Some((hsep, cols)) = &self.header else { return line.to_vec() };
        if *hsep != sep {
            return line.to_vec();
        }
        let mut edits = Vec::new();
        for (i, &(a, b)) in cells.iter().enumerate() {
            // The last blank-separated column (ps CMD) holds blanks itself: never a name.
            let last_blank = sep == Sep::Blank && i + 1 == cols.len();
            if let Some(Some(id)) = cols.get(i)
                && !last_blank
            {
                edits.push((a, b, value(*id, &line[a..b], m, learn.as_deref_mut())));
            }
        }
        splice(line, &edits)
    }
}

/// The cells of a row as byte ranges (trimmed).
fn cells(line: &[u8], sep: Sep) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let is_sep = |c: u8| match sep {
        Sep::Tab => c == b'\t',
        Sep::Pipe => c == b'|',
        Sep::Semicolon => c == b';',
        Sep::Blank => c == b' ' || c == b'\t',
    };
    for i in 0..=line.len() {
        if i == line.len() || is_sep(line[i]) {
            let (mut a, mut b) = (start, i);
            while a < b && line[a].is_ascii_whitespace() {
                a += 1;
            }
            while b > a && line[b - 1].is_ascii_whitespace() {
                b -= 1;
            }
            let empty_edge = a == b && (sep == Sep::Blank || sep == Sep::Pipe);
            if !empty_edge {
                out.push((a, b));
            }
            start = i + 1;
        }
    }
    out
}

/// `line` with the ranges replaced (ranges in order, not overlapping).
fn splice(line: &[u8], edits: &[(usize, usize, String)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len());
    let mut at = 0;
    for (a, b, t) in edits {
        out.extend_from_slice(&line[at..*a]);
        out.extend_from_slice(t.as_bytes());
        at = *b;
    }
    out.extend_from_slice(&line[at..]);
    out
}

/// Every match of `re` whose group 2 `f` replaces (given group 1 and 2).
fn replace_groups(re: &Regex, line: &[u8], mut f: impl FnMut(&[u8], &[u8]) -> Option<String>) -> Vec<u8> {
    let mut edits = Vec::new();
    for c in re.captures_iter(line) {
        let (k, v) = (c.get(1).unwrap(), c.get(2).unwrap());
        if let Some(t) = f(k.as_bytes(), v.as_bytes()) {
            edits.push((v.start(), v.end(), t));
        }
    }
    splice(line, &edits)
}

/// A field's value in the shape of its kind (lists and `host:port` taken apart).
pub(crate) fn value(id: Ident, v: &[u8], m: &mut Mapper, mut learn: Option<&mut Learnt>) -> String {
    let text = String::from_utf8_lossy(v).into_owned();
    let t = text.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("NULL") || t == "%" || t == "-" {
        return text;
    }
    match id {
        Ident::Sql => String::from_utf8_lossy(&Sql::new().line(v, Mode::Full, m, learn)).into_owned(),
        Ident::Secret => m.secret(v),
        Ident::User => {
            if common_name(t) || t.contains(' ') || t.bytes().all(|c| c.is_ascii_digit()) {
                return text;
            }
            if let Some(l) = learn {
                l.add(Kind::User, t.as_bytes());
            }
            m.user(t.as_bytes())
        }
        Ident::Host | Ident::Schema | Ident::Table => {
            // `gcomm://a,b`, `db1:3306`, `a.b` lists: each piece in its shape.
            let mut out = String::new();
            let mut piece = String::new();
            let flush =
                |piece: &mut String, out: &mut String, m: &mut Mapper, learn: &mut Option<&mut Learnt>| {
                    out.push_str(&one(id, piece, m, learn.as_deref_mut()));
                    piece.clear();
                };
            let (scheme, rest) = match text.find("://") {
                Some(i) => text.split_at(i + 3),
                None => ("", text.as_str()),
            };
            out.push_str(scheme);
            for ch in rest.chars() {
                let splits = ch == ','
                    || ch.is_whitespace()
                    || id == Ident::Host && ch == ':'
                    || id == Ident::Table && ch == '.';
                if splits {
                    flush(&mut piece, &mut out, m, &mut learn);
                    out.push(ch);
                } else {
                    piece.push(ch);
                }
            }
            flush(&mut piece, &mut out, m, &mut learn);
            out
        }
    }
}

/// One host, schema or table name.
fn one(id: Ident, p: &str, m: &mut Mapper, learn: Option<&mut Learnt>) -> String {
    let plain = !p.is_empty() && p.bytes().all(|c| c.is_ascii_alphanumeric() || b"_-.$".contains(&c));
    let number = p.bytes().all(|c| c.is_ascii_digit() || c == b'.');
    if !plain || number || common_name(p) {
        return p.to_string();
    }
    let kind = match id {
        Ident::Host => Kind::Host,
        Ident::Schema => Kind::Schema,
        Ident::Table => Kind::Table,
        Ident::User | Ident::Sql | Ident::Secret => Kind::User,
    };
    if let Some(l) = learn {
        l.add(kind, p.as_bytes());
    }
    if kind == Kind::Host { m.host(p.as_bytes()) } else { m.ident(kind, p.as_bytes()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Key;

    fn run(spec: &'static [(&'static str, Ident)], lines: &[&str]) -> Vec<String> {
        let mut m = Mapper::new(Key::from_bytes(b"t"), false);
        let mut f = Fields::new(spec);
        lines.iter().map(|l| String::from_utf8(f.line(l.as_bytes(), &mut m, None)).unwrap()).collect()
    }

    const PL: &[(&str, Ident)] = &[
        ("User", Ident::User),
        ("Host", Ident::Host),
        ("db", Ident::Schema),
        ("Info", Ident::Sql),
        ("USER", Ident::User),
    ];

    #[test]
    fn every_layout_of_a_field() {
        let o = run(
            PL,
            &[
                "    User: bench",
                "    Host: appsrv1:41234",
                "      db: shop",
                "    Info: SELECT 'x' FROM t",
                "WHERE a = 271828",
                " Command: Query",
            ],
        );
        assert!(o[0].starts_with("    User: user_"), "{o:?}");
        assert!(o[1].starts_with("    Host: host-") && o[1].ends_with(":41234"), "{o:?}");
        assert!(o[2].starts_with("      db: db_"));
        assert!(!o[3].contains("'x'") && !o[4].contains("271828") && o[5] == " Command: Query", "{o:?}");
        let o = run(PL, &["Id\tUser\tHost\tdb", "8\tbench\tlocalhost\tshop"]);
        assert!(o[1].starts_with("8\tuser_") && o[1].contains("\tlocalhost\tdb_"), "{o:?}");
        let o = run(PL, &["  PID USER      PR  NI", " 9098 alice     20   0"]);
        assert!(o[1].starts_with(" 9098 user_"), "{o:?}");
        let o = run(PL, &[r#"{"User": "alice", "n": 3}"#, "user = alice", "root 1 0"]);
        assert!(o[0].contains("\"user_") && o[0].contains("\"n\": 3"), "{o:?}");
        assert!(o[1].starts_with("user = user_"), "{o:?}");
    }
}
