//! What each format's lines hold that identifies a customer (issue 39): every format
//! declares it in its [`crate::common::Format`] impl (`const IDENTIFIERS`), so a new format
//! does not compile until it says. The application's scrubber (`iosift scrub`) reads the
//! declaration from the registry ([`crate::FormatInfo::identifiers`]); the generic text
//! patterns (addresses, UUIDs, the bundle's hostnames, keywords) run over every file anyway.

/// What a field holds, for the scrubber.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ident {
    /// A host name or FQDN, maybe with `:port` (`Host: localhost:41234`), or a list of them.
    Host,
    /// A database account (`User: bench`).
    User,
    /// A schema (database) name (`db: bench`).
    Schema,
    /// A table name, maybe qualified (`sbtest.sbtest5`).
    Table,
    /// SQL text (`Info: INSERT INTO orders ... VALUES (15387, 'c53466')`).
    Sql,
    /// A secret (a password of an option file): replaced whole.
    Secret,
}

/// Which lines of a SQL-bearing format hold statements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlLines {
    /// mysqlbinlog output: `###` rows, `#Q>` / `# ` Rows_query texts and statements are SQL;
    /// event headers (`#261205 19:44:46 server id 1 end_log_pos 2105 ... Table_map: `bench`.`heartbeat``)
    /// keep their numbers and lose only their quoted names.
    Binlog,
    /// `SHOW ENGINE INNODB STATUS`: the statement after each `MySQL thread id ...` line, the
    /// host and user of that line, quoted names of lock lines, record hex dumps.
    InnodbStatus,
    /// Only quoted strings and backquoted names (error logs: `Access denied for user 'x'@'h'`).
    Quoted,
}

/// A format's identifiers.
#[derive(Debug, Clone, Copy)]
pub enum Identifiers {
    /// Nothing beyond what the generic text patterns find (series of numbers, device
    /// names, kernel and tool versions, thread names).
    Generic,
    /// Named fields hold identifiers: `Key: value` (`\G`), `key<TAB>value`, `| key | value |`,
    /// `key = value`, `"key": "value"`, or a table whose header row names the column.
    Fields(&'static [(&'static str, Ident)]),
    /// SQL text in the lines [`SqlLines`] says.
    Sql(SqlLines),
    /// A binary file: only same-length replacements of names learnt elsewhere in the bundle.
    Binary,
}
