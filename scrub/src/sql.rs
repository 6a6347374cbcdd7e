//! A small SQL lexer for scrubbing: string literals become `'s_<tok>'`, numbers as many
//! other digits, hex literals other hex, backquoted and bare names `db_`/`t_`/`c_<tok>`
//! by their role (`a.b` is schema.table; after FROM, JOIN, INTO, UPDATE, TABLE a table;
//! after USE, DATABASE, SCHEMA a schema). Keywords, built-in functions, `@@variables`
//! with the values assigned to them (`SET TIMESTAMP=1796499886`, `SET @@SESSION.GTID_NEXT=
//! '...'`), `@1` row placeholders and comments (`/* INT meta=0 nullable=0 is_null=0 */`)
//! stay. A string or comment left open at the end of a line goes on in the next.
//!
//! ```text
//! ###   @1=760 /* INT meta=0 nullable=0 is_null=0 */
//! INSERT INTO orders (customer_id, amount, status, created, note) VALUES (15387, 448.75e0, 0, NOW(6), 'c53466')
//! ```

use super::generic::Learnt;
use super::shape::{Kind, Mapper};

/// What the lexer replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Literals and names.
    Full,
    /// Only quoted strings and backquoted names (headers, error logs).
    Quoted,
}

/// Words that stay: reserved words, types, built-in functions, statement words.
const KEYWORDS: &str = "ACCESSIBLE ACTION ADD AFTER AGAINST ALL ALTER ANALYZE AND ANY AS ASC ASCII AUTO_INCREMENT AVG \
BEFORE BEGIN BETWEEN BIGINT BINARY BINLOG BIT BLOB BOOL BOOLEAN BOTH BTREE BY CALL CASCADE CASE CAST CHANGE CHAR \
CHARACTER CHARSET CHECK COALESCE COLLATE COLLATION COLUMN COLUMNS COMMENT COMMIT COMMITTED CONCAT CONSTRAINT \
CONVERT COUNT CREATE CROSS CURDATE CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP CURRENT_USER CURTIME \
DATABASE DATABASES DATE DATETIME DATE_ADD DATE_SUB DAY DEC DECIMAL DECLARE DEFAULT DELAYED DELETE DELIMITER DESC \
DESCRIBE DISTINCT DIV DO DOUBLE DROP DUAL DUPLICATE EACH ELSE ELSEIF ENCLOSED END ENGINE ENUM ESCAPED EXISTS EXPLAIN \
FALSE FETCH FIELDS FIRST FLOAT FLUSH FOR FORCE FOREIGN FROM FULL FULLTEXT FUNCTION GLOBAL GRANT GROUP GROUP_CONCAT \
HANDLER HASH HAVING HIGH_PRIORITY HOUR IF IFNULL IGNORE IN INDEX INFILE INNER INNODB INOUT INSERT INT INTEGER \
INTERVAL INTO IS ISOLATION JOIN JSON KEY KEYS KILL LAST LEADING LEFT LENGTH LEVEL LIKE LIMIT LINES LOAD LOCAL \
LOCALTIME LOCALTIMESTAMP LOCK LOCKED LOGS LONGBLOB LONGTEXT LOWER LOW_PRIORITY MAX MEDIUMBLOB MEDIUMINT MEDIUMTEXT \
MIN MINUTE MOD MODE MODIFY MONTH NAMES NATURAL NEXT NO NOT NOWAIT NOW NULL NULLIF NUMERIC OFFSET ON ONLY OPTIMIZE \
OPTION OPTIONALLY OR ORDER OUT OUTER OUTFILE PARTITION PRIMARY PROCEDURE PROCESSLIST PURGE QUICK RAND RANGE READ \
REAL REFERENCES REGEXP RELEASE RENAME REPEATABLE REPLACE REQUIRE RESET RESTRICT RETURN RETURNS REVOKE RIGHT RLIKE \
ROLLBACK ROW ROWS SAVEPOINT SCHEMA SCHEMAS SECOND SELECT SEPARATOR SERIALIZABLE SESSION SET SHARE SHOW SIGNED \
SKIP SLAVE SMALLINT SNAPSHOT SOME SPATIAL SQL SQL_CALC_FOUND_ROWS SQL_NO_CACHE SQL_CACHE START STARTING STATUS \
STRAIGHT_JOIN SUBSTR SUBSTRING SUM SYSDATE TABLE TABLES TEMPORARY TERMINATED TEXT THEN TIME TIMESTAMP TINYBLOB \
TINYINT TINYTEXT TO TRAILING TRANSACTION TRIGGER TRIM TRUE TRUNCATE UNCOMMITTED UNION UNIQUE UNIX_TIMESTAMP \
UNLOCK UNSIGNED UPDATE UPPER USE USING UTC_DATE UTC_TIME UTC_TIMESTAMP UUID VALUE VALUES VARBINARY VARCHAR \
VARIABLES VIEW WAIT WARNINGS WHEN WHERE WHILE WITH WORK WRITE XA XOR YEAR ZEROFILL REPLICA MASTER STOP \
CONSISTENT PSEUDO_SLAVE_MODE PSEUDO_THREAD_ID INSERT_ID LAST_INSERT_ID SQL_MODE AUTOCOMMIT FOREIGN_KEY_CHECKS \
UNIQUE_CHECKS SQL_AUTO_IS_NULL CHARACTER_SET_CLIENT COLLATION_CONNECTION COLLATION_SERVER COLLATION_DATABASE \
LC_TIME_NAMES GTID_NEXT GTID_SEQ_NO GTID_DOMAIN_ID SERVER_ID SKIP_PARALLEL_REPLICATION CHECK_CONSTRAINT_CHECKS \
OLD_COMPLETION_TYPE COMPLETION_TYPE MAX_DELAYED_THREADS ROLLBACK_ON_TIMEOUT";

/// Words whose assigned value stays (`SET TIMESTAMP=1796499886`, `SET INSERT_ID=5`).
const VARS: &[&str] = &[
    "TIMESTAMP",
    "INSERT_ID",
    "LAST_INSERT_ID",
    "PSEUDO_THREAD_ID",
    "SQL_MODE",
    "AUTOCOMMIT",
    "FOREIGN_KEY_CHECKS",
    "UNIQUE_CHECKS",
    "GTID_NEXT",
    "NAMES",
];

/// [`KEYWORDS`] as a set.
static KEYWORD_SET: std::sync::LazyLock<std::collections::HashSet<&'static [u8]>> =
    std::sync::LazyLock::new(|| KEYWORDS.split_ascii_whitespace().map(str::as_bytes).collect());

fn keyword(w: &[u8]) -> bool {
    KEYWORD_SET.contains(w.to_ascii_uppercase().as_slice())
}

fn var(w: &[u8]) -> bool {
    let up = w.to_ascii_uppercase();
    VARS.iter().any(|k| k.as_bytes() == up.as_slice())
}

/// The role the next name takes after a keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    Column,
    Table,
    Schema,
}

/// The last significant token, for roles and kept values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    Other,
    /// A variable or `SET` word whose value stays.
    Var,
    /// `=` after such a variable.
    VarEq,
    /// A schema name, then `.`.
    SchemaDot,
    /// A table name, then `.`.
    TableDot,
}

/// The lexer's state across the lines of one text.
#[derive(Debug, Default)]
pub(crate) struct Sql {
    open: Option<u8>,
    comment: bool,
}

/// One line's lexing context.
struct Cx<'a> {
    m: &'a mut Mapper,
    learn: Option<&'a mut Learnt>,
    mode: Mode,
    next: Next,
    last: Last,
    out: Vec<u8>,
}

impl Sql {
    /// A fresh lexer (a new statement text).
    pub(crate) fn new() -> Sql {
        Sql::default()
    }

    /// Scrubs one line; learns schema and table names into `learn`.
    pub(crate) fn line(
        &mut self,
        line: &[u8],
        mode: Mode,
        m: &mut Mapper,
        learn: Option<&mut Learnt>,
    ) -> Vec<u8> {
        let mut cx =
            Cx { m, learn, mode, next: Next::Column, last: Last::Other, out: Vec::with_capacity(line.len()) };
        let mut i = 0;
        if self.comment {
            i = self.comment_body(line, 0, &mut cx);
        } else if let Some(q) = self.open {
            i = self.string_body(line, 0, q, &mut cx);
        }
        while i < line.len() {
            i = self.token(line, i, &mut cx);
        }
        cx.out
    }

    /// One token from `i`; returns where the next starts.
    fn token(&mut self, s: &[u8], i: usize, cx: &mut Cx<'_>) -> usize {
        let c = s[i];
        let rest = &s[i..];
        if c == b'\'' || c == b'"' {
            cx.out.push(c);
            return self.string_body(s, i + 1, c, cx);
        }
        if c == b'`' {
            return backquoted(s, i, cx);
        }
        if rest.starts_with(b"/*") {
            return self.comment_start(s, i, cx);
        }
        if rest.starts_with(b"--") && rest.get(2).is_none_or(|c| c.is_ascii_whitespace()) {
            cx.out.extend_from_slice(rest);
            return s.len();
        }
        if c == b'@' {
            let n = rest.iter().skip(1).take_while(|&&b| b == b'@').count() + 1;
            let end = i + n + rest[n..].iter().take_while(|&&b| word_byte(b) || b == b'.').count();
            cx.out.extend_from_slice(&s[i..end]);
            cx.last = if n >= 2 { Last::Var } else { Last::Other };
            return end;
        }
        if (c == b'x' || c == b'X' || c == b'b' || c == b'B') && rest.get(1) == Some(&b'\'') {
            return hex_quoted(s, i, cx);
        }
        if rest.starts_with(b"0x") && rest.get(2).is_some_and(|b| b.is_ascii_hexdigit()) {
            let end = i + 2 + rest[2..].iter().take_while(|b| b.is_ascii_hexdigit()).count();
            let t = if cx.mode == Mode::Full { cx.m.hex(&s[i + 2..end]) } else { text(&s[i + 2..end]) };
            cx.out.extend_from_slice(b"0x");
            cx.out.extend_from_slice(t.as_bytes());
            cx.last = Last::Other;
            return end;
        }
        if c.is_ascii_digit()
            || (c == b'.' && rest.get(1).is_some_and(|b| b.is_ascii_digit()) && cx.last != Last::SchemaDot)
        {
            return number(s, i, cx);
        }
        if word_byte(c) {
            return bare_word(s, i, cx);
        }
        cx.out.push(c);
        match c {
            b'=' if cx.last == Last::Var => cx.last = Last::VarEq,
            b'.' => {}
            _ if c.is_ascii_whitespace() => {}
            _ => cx.last = Last::Other,
        }
        i + 1
    }

    /// A string's content from `i` up to its closing quote `q` (or the line's end).
    fn string_body(&mut self, s: &[u8], i: usize, q: u8, cx: &mut Cx<'_>) -> usize {
        let mut j = i;
        let mut closed = false;
        while j < s.len() {
            if s[j] == b'\\' {
                j += 2;
                continue;
            }
            if s[j] == q {
                if s.get(j + 1) == Some(&q) {
                    j += 2;
                    continue;
                }
                closed = true;
                break;
            }
            j += 1;
        }
        let j = j.min(s.len());
        let body = &s[i..j];
        let keep = cx.last == Last::VarEq || body.is_empty() || cx.mode == Mode::Quoted && q == b'"';
        if keep {
            cx.out.extend_from_slice(body);
        } else {
            let t = cx.m.string(body);
            cx.out.extend_from_slice(t.as_bytes());
        }
        if closed {
            cx.out.push(q);
            self.open = None;
            if !keep || cx.last != Last::VarEq {
                cx.last = Last::Other;
            }
            j + 1
        } else {
            self.open = Some(q);
            s.len()
        }
    }

    /// `/*` at `i`: a version comment (`/*!50530`, `/*M!100001`) is SQL; others are kept.
    fn comment_start(&mut self, s: &[u8], i: usize, cx: &mut Cx<'_>) -> usize {
        let rest = &s[i..];
        let bang = if rest[2..].starts_with(b"!") {
            Some(3)
        } else if rest[2..].starts_with(b"M!") {
            Some(4)
        } else {
            None
        };
        if let Some(n) = bang {
            let end = i + n + rest[n..].iter().take_while(|b| b.is_ascii_digit()).count();
            cx.out.extend_from_slice(&s[i..end]);
            return end;
        }
        self.comment_body(s, i, cx)
    }

    /// A comment from `i` to its `*/` (or the line's end), kept as it is.
    fn comment_body(&mut self, s: &[u8], i: usize, cx: &mut Cx<'_>) -> usize {
        let from = if self.comment { i } else { i + 2 };
        match memchr::memmem::find(&s[from.min(s.len())..], b"*/") {
            Some(k) => {
                let end = from + k + 2;
                cx.out.extend_from_slice(&s[i..end]);
                self.comment = false;
                end
            }
            None => {
                cx.out.extend_from_slice(&s[i..]);
                self.comment = true;
                s.len()
            }
        }
    }
}

fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A name by its role: qualified (`a.b`), after a keyword, or a column.
fn name(s: &[u8], end: usize, w: &[u8], cx: &mut Cx<'_>) -> String {
    let dotted = s.get(end) == Some(&b'.') && s.get(end + 1).is_some_and(|&b| word_byte(b) || b == b'`');
    // `bench`.`orders` (both quoted, as servers print them) is schema.table.
    let quoted_pair = dotted && s.get(end + 1) == Some(&b'`') && end > 0 && s[end - 1] == b'`';
    let next = if quoted_pair && cx.next == Next::Column { Next::Table } else { cx.next };
    let kind = if cx.last == Last::SchemaDot {
        Kind::Table
    } else if cx.last == Last::TableDot {
        Kind::Column
    } else {
        match (dotted, next) {
            (true, Next::Schema | Next::Table) => Kind::Schema,
            (true, Next::Column) => Kind::Table,
            (false, Next::Table) => Kind::Table,
            (false, Next::Schema) => Kind::Schema,
            (false, Next::Column) => Kind::Column,
        }
    };
    // `a.b.c`: schema.table.column; `a.b` after FROM: schema.table; `a.b` elsewhere: table.column.
    let system = system_schema(w);
    if let Some(l) = cx.learn.as_deref_mut()
        && matches!(kind, Kind::Schema | Kind::Table)
        && !system
    {
        l.add(kind, w);
    }
    cx.last = if !dotted {
        Last::Other
    } else if kind == Kind::Schema {
        Last::SchemaDot
    } else {
        Last::TableDot
    };
    if kind != Kind::Table || !dotted {
        cx.next = Next::Column;
    }
    if system {
        return text(w);
    }
    cx.m.ident(kind, w)
}

/// Schemas of the server itself (and their tables) say nothing about a customer.
fn system_schema(w: &[u8]) -> bool {
    let l = w.to_ascii_lowercase();
    matches!(l.as_slice(), b"mysql" | b"information_schema" | b"performance_schema" | b"sys")
}

/// A backquoted name at `i`.
fn backquoted(s: &[u8], i: usize, cx: &mut Cx<'_>) -> usize {
    let mut j = i + 1;
    while j < s.len() {
        if s[j] == b'`' {
            if s.get(j + 1) == Some(&b'`') {
                j += 2;
                continue;
            }
            break;
        }
        j += 1;
    }
    let w = &s[i + 1..j.min(s.len())];
    let end = (j + 1).min(s.len());
    let after_system = cx.last == Last::SchemaDot && cx.out.ends_with(b".") && prev_was_system(&cx.out);
    let t = if after_system { text(w) } else { name(s, end, w, cx) };
    cx.out.push(b'`');
    cx.out.extend_from_slice(t.as_bytes());
    if j < s.len() {
        cx.out.push(b'`');
    }
    end
}

/// True when the text before the last `.` is a system schema (`mysql`.`gtid_slave_pos`).
fn prev_was_system(out: &[u8]) -> bool {
    let body = &out[..out.len() - 1];
    let body = body.strip_suffix(b"`").unwrap_or(body);
    let start = body.iter().rposition(|&b| !word_byte(b)).map_or(0, |p| p + 1);
    system_schema(&body[start..])
}

/// `X'4142'` / `b'0101'` at `i`.
fn hex_quoted(s: &[u8], i: usize, cx: &mut Cx<'_>) -> usize {
    let end = s[i + 2..].iter().position(|&b| b == b'\'').map_or(s.len(), |p| i + 2 + p);
    let body = &s[i + 2..end];
    let t = if cx.mode == Mode::Full { cx.m.hex(body) } else { text(body) };
    cx.out.extend_from_slice(&s[i..i + 2]);
    cx.out.extend_from_slice(t.as_bytes());
    if end < s.len() {
        cx.out.push(b'\'');
    }
    cx.last = Last::Other;
    (end + 1).min(s.len())
}

/// A number at `i` (`15387`, `448.75e0`, `-` is an operator).
fn number(s: &[u8], i: usize, cx: &mut Cx<'_>) -> usize {
    let mut j = i;
    while j < s.len() && (s[j].is_ascii_digit() || s[j] == b'.') {
        j += 1;
    }
    if j < s.len() && (s[j] == b'e' || s[j] == b'E') {
        let k = j + 1 + usize::from(s.get(j + 1).is_some_and(|&b| b == b'+' || b == b'-'));
        if s.get(k).is_some_and(|b| b.is_ascii_digit()) {
            j = k + s[k..].iter().take_while(|b| b.is_ascii_digit()).count();
        }
    }
    // A name that starts with digits (`1st_table`) is a name.
    if s.get(j).is_some_and(|&b| word_byte(b)) {
        let end = j + s[j..].iter().take_while(|&&b| word_byte(b)).count();
        let w = &s[i..end];
        if cx.mode == Mode::Full {
            let t = name(s, end, w, cx);
            cx.out.extend_from_slice(t.as_bytes());
        } else {
            cx.out.extend_from_slice(w);
        }
        return end;
    }
    let n = &s[i..j];
    if cx.mode == Mode::Full && cx.last != Last::VarEq {
        let t = cx.m.number(n);
        cx.out.extend_from_slice(t.as_bytes());
    } else {
        cx.out.extend_from_slice(n);
    }
    if cx.last != Last::VarEq {
        cx.last = Last::Other;
    }
    j
}

/// A bare word at `i`: a keyword stays, a name is replaced by its role.
fn bare_word(s: &[u8], i: usize, cx: &mut Cx<'_>) -> usize {
    let end = i + s[i..].iter().take_while(|&&b| word_byte(b)).count();
    let w = &s[i..end];
    let after_system = cx.last == Last::SchemaDot && prev_was_system(&cx.out);
    if cx.mode == Mode::Quoted || after_system && cx.last != Last::TableDot {
        cx.out.extend_from_slice(w);
        if after_system {
            cx.last = Last::Other;
        }
        return end;
    }
    if cx.last != Last::SchemaDot && cx.last != Last::TableDot && keyword(w) {
        cx.out.extend_from_slice(w);
        let up = w.to_ascii_uppercase();
        cx.next = match up.as_slice() {
            b"FROM" | b"JOIN" | b"INTO" | b"UPDATE" | b"TABLE" | b"TABLES" => Next::Table,
            b"USE" | b"DATABASE" | b"SCHEMA" => Next::Schema,
            _ => cx.next,
        };
        cx.last = if var(w) { Last::Var } else { Last::Other };
        return end;
    }
    let t = name(s, end, w, cx);
    cx.out.extend_from_slice(t.as_bytes());
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Key;

    fn lex(lines: &[&str]) -> (Vec<String>, Learnt) {
        let mut m = Mapper::new(Key::from_bytes(b"t"), false);
        let mut l = Learnt::default();
        let mut sql = Sql::new();
        let out = lines
            .iter()
            .map(|x| String::from_utf8(sql.line(x.as_bytes(), Mode::Full, &mut m, Some(&mut l))).unwrap())
            .collect();
        (out, l)
    }

    #[test]
    fn literals_and_names_go_keywords_and_variables_stay() {
        let (o, l) = lex(&[
            "INSERT INTO orders (customer_id, amount, status, created, note) VALUES (15387, 448.75e0, 0, NOW(6), 'c53466')",
        ]);
        let o = &o[0];
        assert!(o.starts_with("INSERT INTO t_") && o.contains("NOW(") && o.contains("VALUES ("), "{o}");
        assert!(
            !o.contains("orders")
                && !o.contains("c53466")
                && !o.contains("15387")
                && !o.contains("customer_id")
        );
        assert!(o.contains("'s_"), "{o}");
        assert_eq!(l.len(), 1);
        let (o, _) = lex(&[
            "SET TIMESTAMP=1796499886/*!*/;",
            "/*M!100001 SET @@session.gtid_seq_no=17*//*!*/;",
            "SET @@SESSION.GTID_NEXT= '3e11fa47-71ca-11e1-9e33-c80aa9429562:10'/*!*/;",
            "###   @1=760 /* INT meta=0 nullable=0 is_null=0 */",
            "UPDATE `bench`.`heartbeat` SET ts = NOW(6) WHERE id = 1",
            "SELECT * FROM mysql.gtid_slave_pos WHERE x = 'a",
            "b' AND y = 271828",
        ]);
        assert_eq!(o[0], "SET TIMESTAMP=1796499886/*!*/;");
        assert_eq!(o[1], "/*M!100001 SET @@session.gtid_seq_no=17*//*!*/;");
        assert!(o[2].contains("'3e11fa47-71ca-11e1-9e33-c80aa9429562:10'"), "{}", o[2]);
        assert!(
            o[3].starts_with("###   @1=")
                && !o[3].contains("760")
                && o[3].ends_with("/* INT meta=0 nullable=0 is_null=0 */")
        );
        assert!(
            o[4].starts_with("UPDATE `db_") && o[4].contains("`.`t_") && !o[4].contains("heartbeat"),
            "{}",
            o[4]
        );
        assert!(
            o[5].contains("mysql.gtid_slave_pos") && o[5].ends_with("'s_") || o[5].contains("= 's_"),
            "{}",
            o[5]
        );
        assert!(o[6].starts_with("s_") && !o[6].contains("271828"), "{}", o[6]);
    }
}
