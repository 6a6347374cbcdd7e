//! The shapes tokens take, so that every format stays parseable and the analysis keeps
//! working: a hostname becomes `host-<tok>`, an IPv4 address one in 240.0.0.0/4 (reserved),
//! an IPv6 address one in fd00::/8, a MAC a locally administered one, a UUID a UUID, a
//! schema `db_<tok>`, a table `t_<tok>`, a column `c_<tok>`, a user `user_<tok>`, a SQL
//! string `s_<tok>`, a number as many other digits. Loopback, unspecified and broadcast
//! addresses and `localhost` say nothing about the customer and are kept.
//!
//! The [`Mapper`] counts replacements by kind and, when asked (`--keep-map`), remembers
//! each original next to its token (never numbers nor secrets).

use super::key::Key;
use std::collections::BTreeMap;
use std::net::{Ipv4Addr, Ipv6Addr};

/// What a replaced value was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A host name (first label).
    Host,
    /// A domain (the labels after the first).
    Domain,
    /// An IPv4 address.
    Ipv4,
    /// An IPv6 address.
    Ipv6,
    /// A MAC address.
    Mac,
    /// A UUID (server_uuid, GTID source, file-system UUID).
    Uuid,
    /// A schema name.
    Schema,
    /// A table name.
    Table,
    /// A column (or other SQL) name.
    Column,
    /// A database or system account.
    User,
    /// A SQL string literal.
    Str,
    /// A SQL number.
    Num,
    /// A path component under a chosen root.
    Path,
    /// A keyword given with `--keyword`.
    Keyword,
    /// An e-mail address.
    Email,
    /// A password.
    Secret,
}

impl Kind {
    /// Every kind, in summary order.
    pub const ALL: [Kind; 16] = [
        Kind::Host,
        Kind::Domain,
        Kind::Ipv4,
        Kind::Ipv6,
        Kind::Mac,
        Kind::Uuid,
        Kind::Schema,
        Kind::Table,
        Kind::Column,
        Kind::User,
        Kind::Str,
        Kind::Num,
        Kind::Path,
        Kind::Keyword,
        Kind::Email,
        Kind::Secret,
    ];

    /// Its name in the summary and the map (and the token function's namespace).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Host => "host",
            Kind::Domain => "domain",
            Kind::Ipv4 => "ipv4",
            Kind::Ipv6 => "ipv6",
            Kind::Mac => "mac",
            Kind::Uuid => "uuid",
            Kind::Schema => "schema",
            Kind::Table => "table",
            Kind::Column => "column",
            Kind::User => "user",
            Kind::Str => "string",
            Kind::Num => "number",
            Kind::Path => "path",
            Kind::Keyword => "keyword",
            Kind::Email => "email",
            Kind::Secret => "secret",
        }
    }

    /// The namespace of the token function: schema, table and column names share one, so
    /// a name gets the same hex whatever role it is seen in.
    fn space(self) -> &'static str {
        match self {
            Kind::Schema | Kind::Table | Kind::Column => "ident",
            Kind::Host
            | Kind::Domain
            | Kind::Ipv4
            | Kind::Ipv6
            | Kind::Mac
            | Kind::Uuid
            | Kind::User
            | Kind::Str
            | Kind::Num
            | Kind::Path
            | Kind::Keyword
            | Kind::Email
            | Kind::Secret => self.name(),
        }
    }

    fn index(self) -> usize {
        Kind::ALL.iter().position(|k| *k == self).unwrap_or(0)
    }
}

/// Hex digits of a name token.
const TOK: usize = 8;

/// Makes tokens; counts and (optionally) remembers them.
#[derive(Debug)]
pub struct Mapper {
    key: Key,
    counts: [u64; 16],
    map: Option<BTreeMap<&'static str, BTreeMap<String, String>>>,
    /// Name tokens made lately, by kind (names repeat: a column in every row): at most
    /// [`CACHE`] in all.
    cache: Vec<std::collections::HashMap<Vec<u8>, String>>,
    /// Entries in `cache`.
    cached: usize,
    /// Makes no tokens (the first pass, whose output is thrown away): no HMAC is computed.
    dry: bool,
}

/// Entries of the token cache (emptied when full: memory stays bounded).
const CACHE: usize = 1 << 16;

impl Mapper {
    /// A mapper under `key`; `keep` remembers originals for `--keep-map`.
    pub fn new(key: Key, keep: bool) -> Mapper {
        Mapper {
            key,
            counts: [0; 16],
            map: keep.then(BTreeMap::new),
            cache: vec![Default::default(); Kind::ALL.len()],
            cached: 0,
            dry: false,
        }
    }

    /// A mapper whose tokens are never used (a pass that only learns names): every
    /// replacement is made of a digest of zeros, and nothing is hashed.
    pub(crate) fn dry(key: Key) -> Mapper {
        Mapper { dry: true, ..Mapper::new(key, false) }
    }

    /// Replacements made, by kind.
    pub fn counts(&self) -> Vec<(Kind, u64)> {
        Kind::ALL.iter().map(|k| (*k, self.counts[k.index()])).filter(|(_, n)| *n > 0).collect()
    }

    /// The reverse map (kind -> original -> token), when kept.
    pub fn map(&self) -> Option<&BTreeMap<&'static str, BTreeMap<String, String>>> {
        self.map.as_ref()
    }

    fn digest(&self, kind: Kind, v: &[u8]) -> [u8; 32] {
        if self.dry {
            return [0; 32];
        }
        self.key.digest(kind.space(), v)
    }

    fn note(&mut self, kind: Kind, orig: &[u8], token: &str) {
        self.counts[kind.index()] += 1;
        if matches!(kind, Kind::Num | Kind::Secret) {
            return;
        }
        if let Some(m) = &mut self.map {
            m.entry(kind.name())
                .or_default()
                .insert(String::from_utf8_lossy(orig).into_owned(), token.to_string());
        }
    }

    /// `prefix` + the name token of `v` (`db_1a2b3c4d`).
    fn named(&mut self, kind: Kind, prefix: &str, v: &[u8]) -> String {
        self.named_as(kind, prefix, v, v)
    }

    /// [`Mapper::named`] of `v`, remembered as `shown` (a name as written, `v` lower case).
    fn named_as(&mut self, kind: Kind, prefix: &str, v: &[u8], shown: &[u8]) -> String {
        if self.dry {
            return prefix.to_string();
        }
        let t = match self.cache[kind.index()].get(v) {
            Some(t) => t.clone(),
            None => {
                if self.cached >= CACHE {
                    self.cache.iter_mut().for_each(|c| c.clear());
                    self.cached = 0;
                }
                let t = format!("{prefix}{}", self.key.token(kind.space(), v, TOK));
                self.cache[kind.index()].insert(v.to_vec(), t.clone());
                self.cached += 1;
                t
            }
        };
        self.note(kind, shown, &t);
        t
    }

    /// A hostname or FQDN: `host-<tok>` / `host-<tok>.dom-<tok>.invalid`; `localhost` kept.
    pub fn host(&mut self, name: &[u8]) -> String {
        let lower = name.to_ascii_lowercase();
        if lower.is_empty() || lower == b"localhost" || lower.starts_with(b"localhost.") {
            return String::from_utf8_lossy(name).into_owned();
        }
        match lower.iter().position(|&c| c == b'.') {
            Some(i) => {
                let h = self.named_as(Kind::Host, "host-", &lower[..i], &name[..i]);
                let d = self.named_as(Kind::Domain, "dom-", &lower[i + 1..], &name[i + 1..]);
                let t = format!("{h}.{d}.invalid");
                self.note(Kind::Host, name, &t);
                t
            }
            None => self.named_as(Kind::Host, "host-", &lower, name),
        }
    }

    /// An IPv4 address: loopback, unspecified, broadcast and netmasks kept; others map
    /// into 240.0.0.0/4 (reserved, never routed).
    pub fn ipv4(&mut self, a: Ipv4Addr) -> String {
        let o = a.octets();
        if a.is_loopback() || a.is_unspecified() || o[0] == 255 {
            return a.to_string();
        }
        let d = self.digest(Kind::Ipv4, &o);
        let t = Ipv4Addr::new(240 + d[0] % 15, d[1], d[2], d[3].max(1)).to_string();
        self.note(Kind::Ipv4, a.to_string().as_bytes(), &t);
        t
    }

    /// An IPv6 address: `::1` and `::` kept; others map into fd00::/8 (unique local).
    pub fn ipv6(&mut self, a: Ipv6Addr) -> String {
        if a.is_loopback() || a.is_unspecified() {
            return a.to_string();
        }
        let d = self.digest(Kind::Ipv6, &a.octets());
        let mut b = [0u8; 16];
        b[0] = 0xfd;
        b[1..].copy_from_slice(&d[..15]);
        let t = Ipv6Addr::from(b).to_string();
        self.note(Kind::Ipv6, a.to_string().as_bytes(), &t);
        t
    }

    /// A MAC address (six octets, separator `sep`, upper case when `upper`): a locally
    /// administered unicast one; all-zero and broadcast kept.
    pub fn mac(&mut self, o: [u8; 6], sep: char, upper: bool) -> String {
        let show = |o: &[u8]| {
            let s: Vec<String> =
                o.iter().map(|x| if upper { format!("{x:02X}") } else { format!("{x:02x}") }).collect();
            s.join(&sep.to_string())
        };
        if o == [0; 6] || o == [0xff; 6] {
            return show(&o);
        }
        let d = self.digest(Kind::Mac, &o);
        let mut m = [0u8; 6];
        m[0] = 0x02;
        m[1..].copy_from_slice(&d[..5]);
        let t = show(&m);
        self.note(Kind::Mac, show(&o).as_bytes(), &t);
        t
    }

    /// A UUID (any case): another, version-4-shaped, lower case.
    pub fn uuid(&mut self, u: &[u8]) -> String {
        let lower = u.to_ascii_lowercase();
        let d = self.digest(Kind::Uuid, &lower);
        let h = super::key::hex(&d[..16]);
        let t = format!("{}-{}-4{}-a{}-{}", &h[0..8], &h[8..12], &h[13..16], &h[17..20], &h[20..32]);
        self.note(Kind::Uuid, &lower, &t);
        t
    }

    /// A schema, table or column name.
    pub fn ident(&mut self, kind: Kind, name: &[u8]) -> String {
        let prefix = if kind == Kind::Schema {
            "db_"
        } else if kind == Kind::Table {
            "t_"
        } else {
            "c_"
        };
        self.named(kind, prefix, name)
    }

    /// A user name.
    pub fn user(&mut self, name: &[u8]) -> String {
        self.named(Kind::User, "user_", name)
    }

    /// A SQL string literal's content.
    pub fn string(&mut self, s: &[u8]) -> String {
        self.named(Kind::Str, "s_", s)
    }

    /// A secret (password): replaced whole, never remembered.
    pub fn secret(&mut self, s: &[u8]) -> String {
        self.named(Kind::Secret, "secret_", s)
    }

    /// A keyword given by the user.
    pub fn keyword(&mut self, w: &[u8]) -> String {
        self.named(Kind::Keyword, "kw_", &w.to_ascii_lowercase())
    }

    /// An e-mail address.
    pub fn email(&mut self, e: &[u8]) -> String {
        let u = self.named(Kind::Email, "user_", &e.to_ascii_lowercase());
        format!("{u}@example.invalid")
    }

    /// A path component under a chosen root: `p_<tok>` keeping a short extension.
    pub fn path_component(&mut self, c: &[u8]) -> String {
        let ext = c
            .iter()
            .rposition(|&b| b == b'.')
            .filter(|&i| i > 0 && c.len() - i <= 6 && c[i + 1..].iter().all(|b| b.is_ascii_alphanumeric()));
        let t = self.named(Kind::Path, "p_", c);
        match ext {
            Some(i) => format!("{t}{}", String::from_utf8_lossy(&c[i..])),
            None => t,
        }
    }

    /// Hex digits replaced by as many others (`X'4142'`, `0x4142` literals).
    pub fn hex(&mut self, h: &[u8]) -> String {
        let d = self.digest(Kind::Num, h);
        let full = super::key::hex(&d).repeat(h.len() / 64 + 1);
        let t = full[..h.len()].to_string();
        self.note(Kind::Num, h, &t);
        t
    }

    /// The digits of a number replaced by as many others (same width; no leading zero
    /// where there was none).
    pub fn number(&mut self, n: &[u8]) -> String {
        let d = self.digest(Kind::Num, n);
        let mut k = 0;
        let out: String = n
            .iter()
            .map(|&c| {
                if !c.is_ascii_digit() {
                    return c as char;
                }
                let mut v = d[k % 32] % 10;
                if k == 0 && c != b'0' && v == 0 && n.len() > 1 {
                    v = 1 + d[1] % 9;
                }
                k += 1;
                (b'0' + v) as char
            })
            .collect();
        self.note(Kind::Num, n, &out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m() -> Mapper {
        Mapper::new(Key::from_bytes(b"test"), true)
    }

    #[test]
    fn shapes_parse_as_what_they_replace() {
        let mut m = m();
        let ip: Ipv4Addr = m.ipv4(Ipv4Addr::new(10, 1, 2, 3)).parse().unwrap();
        assert!(ip.octets()[0] >= 240);
        assert_eq!(m.ipv4(Ipv4Addr::new(127, 0, 0, 1)), "127.0.0.1");
        let ip6: Ipv6Addr = m.ipv6("2001:db8::5".parse().unwrap()).parse().unwrap();
        assert_eq!(ip6.octets()[0], 0xfd);
        let mac = m.mac([0x52, 0x54, 0, 0x12, 0x34, 0x56], ':', false);
        assert!(mac.starts_with("02:"), "{mac}");
        let u = m.uuid(b"3E11FA47-71CA-11E1-9E33-C80AA9429562");
        assert_eq!(u.len(), 36);
        assert_eq!(u.as_bytes()[14], b'4');
        assert_eq!(m.number(b"15387").len(), 5);
        assert_eq!(m.number(b"448.75e0").len(), 8);
        assert!(m.host(b"db1.corp.example.com").ends_with(".invalid"));
        assert_eq!(m.host(b"localhost"), "localhost");
        assert_eq!(m.path_component(b"sbtest1.ibd").len(), "p_12345678.ibd".len());
    }

    #[test]
    fn schema_and_table_share_the_hex_and_the_map_keeps_no_numbers() {
        let mut m = m();
        let s = m.ident(Kind::Schema, b"bench");
        let t = m.ident(Kind::Table, b"bench");
        assert_eq!(s[3..], t[2..]);
        m.number(b"42");
        m.secret(b"hunter2");
        let map = m.map().unwrap();
        assert!(!map.contains_key("number") && !map.contains_key("secret"));
        assert_eq!(map["schema"]["bench"], s);
    }
}
