//! The patterns every text line goes through, whatever its format: keywords given by the
//! user, e-mail addresses, UUIDs, MAC, IPv6 and IPv4 addresses, paths under the chosen
//! roots, the places a hostname is named (`Linux 6.18.44 (vm)`, `Linux vm 6.18.44 ...`,
//! `# hostname : vm`, `"nodename": "vm"`, `hostname<TAB>vm`), and every name learnt from
//! the bundle's own files in the first pass ([`Learnt`]: hosts, users, schemas, tables).

use super::shape::{Kind, Mapper};
use regex::bytes::{Match, Regex};
use std::collections::BTreeMap;

/// Names at least this long learnt in one file are replaced in every file; shorter ones
/// (`vm`, `db`) only where a format names them: too many words would collide.
const MIN_LEARNT: usize = 4;

/// Lines that name the host, the host in group 1:
/// `Linux 6.18.44-fc-v1294 (vm) <TAB>12/05/2026 <TAB>_x86_64_<TAB>(2 CPU)` (sysstat),
/// `Linux vm 6.18.44-fc-v1294 #1 SMP PREEMPT_DYNAMIC @0 x86_64 GNU/Linux` (uname -a),
/// `# hostname : vm` (perf), `"nodename": "vm"` (sadf -j), `hostname<TAB>vm` (variables).
const HOST_SITES: &[&str] = &[
    r"^Linux \S+ \(([^)\s]+)\)",
    r"^Linux ([A-Za-z][^\s]*) \d",
    r"^# hostname : (\S+)",
    r#""nodename":\s*"([^"]+)""#,
    r"^\s*\|?\s*hostname\s*[\t:=|]\s*([A-Za-z0-9][A-Za-z0-9.-]*)",
];

/// Names that say nothing about a customer: never learnt.
const STOP: &[&str] = &[
    "root",
    "mysql",
    "system",
    "event_scheduler",
    "unauthenticated",
    "null",
    "daemon",
    "nobody",
    "none",
    "localhost",
    "information_schema",
    "performance_schema",
    "sys",
];

/// True for a name that says nothing about a customer (`root`, `mysql`, `NULL`, ...).
pub(crate) fn common_name(t: &str) -> bool {
    STOP.contains(&t.to_ascii_lowercase().as_str())
}

/// Names learnt in the first pass, with their kind.
#[derive(Debug, Default)]
pub(crate) struct Learnt {
    words: BTreeMap<Vec<u8>, Kind>,
    /// Every hostname, however short (binary files lose them where they are C strings).
    hosts: std::collections::BTreeSet<Vec<u8>>,
}

impl Learnt {
    /// Learns `word` as `kind` (a name too common or too short to replace everywhere is not).
    pub(crate) fn add(&mut self, kind: Kind, word: &[u8]) {
        let w = trim(word);
        let lower = String::from_utf8_lossy(w).to_ascii_lowercase();
        if kind == Kind::Host && !w.is_empty() && !common_name(&lower) {
            self.hosts.insert(w.to_vec());
        }
        if w.len() < MIN_LEARNT
            || w.len() > 64
            || common_name(&lower)
            || w.iter().all(|c| c.is_ascii_digit() || *c == b'.')
            || !w.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'$'))
            || !w[0].is_ascii_alphanumeric()
        {
            return;
        }
        if kind == Kind::Host
            && let Some(i) = w.iter().position(|&c| c == b'.')
        {
            self.add(Kind::Host, &w[..i]);
        }
        self.words.entry(w.to_vec()).or_insert(kind);
    }

    /// The names learnt (for the summary).
    pub(crate) fn len(&self) -> usize {
        self.words.len()
    }
}

fn trim(w: &[u8]) -> &[u8] {
    let s = w.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(w.len());
    let e = w.iter().rposition(|c| !c.is_ascii_whitespace()).map_or(s, |e| e + 1);
    &w[s..e]
}

/// The compiled generic patterns.
#[derive(Debug)]
pub(crate) struct Generic {
    keywords: Option<Regex>,
    email: Regex,
    uuid: Regex,
    mac: Regex,
    ipv6: Regex,
    ipv4: Regex,
    hosts: Vec<Regex>,
    roots: Vec<memchr::memmem::Finder<'static>>,
    dict: Option<(Regex, BTreeMap<Vec<u8>, Kind>)>,
    hosts_any: Vec<Vec<u8>>,
}

impl Generic {
    /// Patterns for these keywords (case-insensitive, anywhere) and path roots.
    pub(crate) fn new(keywords: &[String], roots: &[String]) -> Generic {
        let re = |s: &str| Regex::new(s).expect("a constant pattern");
        let kws: Vec<String> = keywords.iter().filter(|k| !k.is_empty()).map(|k| regex::escape(k)).collect();
        Generic {
            keywords: (!kws.is_empty()).then(|| re(&format!("(?i){}", kws.join("|")))),
            email: re(r"(?-u:\b)[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?-u:\b)"),
            uuid: re(r"(?i)(?-u:\b)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?-u:\b)"),
            mac: re(r"(?i)(?-u:\b)[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}(?-u:\b)"),
            ipv6: re(r"(?i)[0-9a-f:]*:[0-9a-f]*:[0-9a-f:]*"),
            ipv4: re(r"(?-u:\b)\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?-u:\b)"),
            hosts: HOST_SITES.iter().map(|s| re(s)).collect(),
            roots: roots
                .iter()
                .map(|r| r.trim_end_matches('/').as_bytes().to_vec())
                .filter(|r| r.len() > 1 && r[0] == b'/')
                .map(|r| memchr::memmem::Finder::new(&r).into_owned())
                .collect(),
            dict: None,
            hosts_any: Vec::new(),
        }
    }

    /// Learns the hostnames a line names.
    pub(crate) fn learn_hosts(&self, line: &[u8], learnt: &mut Learnt) {
        if !names_host(line) {
            return;
        }
        for re in &self.hosts {
            if let Some(c) = re.captures(line).and_then(|c| c.get(1)) {
                learnt.add(Kind::Host, c.as_bytes());
            }
        }
    }

    /// Uses the names learnt in the first pass.
    pub(crate) fn set_learnt(&mut self, learnt: &Learnt) {
        self.hosts_any = learnt.hosts.iter().cloned().collect();
        if learnt.words.is_empty() {
            return;
        }
        // Longest first: `db1.corp.com` before `db1`.
        let mut words: Vec<&Vec<u8>> = learnt.words.keys().collect();
        words.sort_by_key(|w| std::cmp::Reverse(w.len()));
        let alt: Vec<String> = words.iter().map(|w| regex::escape(&String::from_utf8_lossy(w))).collect();
        let re = Regex::new(&format!(r"(?-u:\b)(?:{})(?-u:\b)", alt.join("|"))).expect("escaped words");
        self.dict = Some((re, learnt.words.clone()));
    }

    /// Every hostname learnt, however short.
    pub(crate) fn hosts_any(&self) -> &[Vec<u8>] {
        &self.hosts_any
    }

    /// Every generic pattern over one line.
    pub(crate) fn line(&self, line: &[u8], m: &mut Mapper) -> Vec<u8> {
        // Cheap looks first: most lines of a series hold none of these (a debug build
        // runs the regex engine unoptimized).
        let at_least = |b: u8, n: usize| memchr::memchr_iter(b, line).nth(n - 1).is_some();
        let has = |w: &[u8]| memchr::memmem::find(line, w).is_some();
        let mut s = self.names(line, m);
        if names_host(line) || !self.hosts_any.is_empty() && line.iter().any(|&c| c == b'\t' || c == b';') {
            s = self.hosts(&s, m);
        }
        if line.contains(&b'@') {
            s = replace(&self.email, &s, |c| m.email(c.as_bytes()));
        }
        if at_least(b'-', 4) {
            s = replace(&self.uuid, &s, |c| m.uuid(c.as_bytes()));
        }
        if at_least(b':', 5) || at_least(b'-', 5) {
            s = replace(&self.mac, &s, |c| mac(c.as_bytes(), m));
        }
        if at_least(b':', 7) || has(b"::") {
            s = replace(&self.ipv6, &s, |c| ipv6(c.as_bytes(), m));
        }
        if at_least(b'.', 3) {
            s = ipv4_all(&self.ipv4, &s, m);
        }
        if line.contains(&b'/') {
            s = self.paths(&s, m);
        }
        self.dictionary(&s, m)
    }

    /// A member or file name: keywords, addresses, roots and learnt hostnames (not the
    /// learnt users, schemas and tables: file names of the collectors carry words such
    /// as `heartbeat` that a table may be named after).
    pub(crate) fn file_name(&self, name: &str, m: &mut Mapper) -> String {
        let mut s = self.names(name.as_bytes(), m);
        s = replace(&self.uuid, &s, |c| m.uuid(c.as_bytes()));
        s = ipv4_all(&self.ipv4, &s, m);
        s = self.paths(&s, m);
        if let Some((re, words)) = &self.dict {
            s = replace(re, &s, |c| {
                if words.get(c.as_bytes()) == Some(&Kind::Host) {
                    m.host(c.as_bytes())
                } else {
                    String::from_utf8_lossy(c.as_bytes()).into_owned()
                }
            });
        }
        String::from_utf8_lossy(&s).into_owned()
    }

    /// Keywords given by the user.
    fn names(&self, line: &[u8], m: &mut Mapper) -> Vec<u8> {
        match &self.keywords {
            Some(re) => replace(re, line, |c| m.keyword(c.as_bytes())),
            None => line.to_vec(),
        }
    }

    /// A learnt hostname as the first cell of a row (`vm<TAB>1<TAB>2026-12-01 19:14:14 UTC`
    /// of `sadf -p`, `vm;1;...` of `sadf -d`), whatever its length.
    fn first_cell(&self, line: &[u8], m: &mut Mapper) -> Option<Vec<u8>> {
        let end = line.iter().position(|&c| c == b'\t' || c == b';')?;
        let host = self.hosts_any.iter().find(|h| h.as_slice() == &line[..end])?;
        Some([m.host(host).as_bytes(), &line[end..]].concat())
    }

    /// The hostname where a line names it (whatever its length).
    fn hosts(&self, line: &[u8], m: &mut Mapper) -> Vec<u8> {
        if let Some(s) = self.first_cell(line, m) {
            return s;
        }
        let mut s = line.to_vec();
        for re in &self.hosts {
            // A format's own fields may have replaced it already (`"nodename": "host-..."`).
            if let Some(g) =
                re.captures(&s).and_then(|c| c.get(1)).filter(|g| !g.as_bytes().starts_with(b"host-"))
            {
                let (a, b) = (g.start(), g.end());
                let host = m.host(&s[a..b]);
                s.splice(a..b, host.into_bytes());
            }
        }
        s
    }

    /// Learnt names, each in the shape of its kind.
    fn dictionary(&self, line: &[u8], m: &mut Mapper) -> Vec<u8> {
        let Some((re, words)) = &self.dict else { return line.to_vec() };
        replace(re, line, |c| {
            let w = c.as_bytes();
            // Learnt names are hosts, users, schemas or tables ([`Learnt::add`]'s callers).
            let k = words.get(w).copied().unwrap_or(Kind::Column);
            if k == Kind::Host {
                m.host(w)
            } else if k == Kind::User {
                m.user(w)
            } else if k == Kind::Schema || k == Kind::Table {
                m.ident(k, w)
            } else {
                String::from_utf8_lossy(w).into_owned()
            }
        })
    }

    /// Paths under the chosen roots: `/home/alice/x.sql` -> `/scrubbed/p_<tok>/p_<tok>/p_<tok>.sql`.
    fn paths(&self, line: &[u8], m: &mut Mapper) -> Vec<u8> {
        let mut s = line.to_vec();
        for finder in &self.roots {
            let root = finder.needle();
            let mut from = 0;
            while let Some(i) = finder.find(&s[from..]).map(|i| i + from) {
                let end_root = i + root.len();
                let before_ok = i == 0 || !path_char(s[i - 1]);
                let after_ok = end_root == s.len() || s[end_root] == b'/' || !path_char(s[end_root]);
                if !(before_ok && after_ok) {
                    from = end_root;
                    continue;
                }
                let end = s[end_root..].iter().position(|&c| !path_char(c)).map_or(s.len(), |p| p + end_root);
                let mut out = format!("/scrubbed/{}", m.path_component(root));
                for comp in s[end_root..end].split(|&c| c == b'/').filter(|c| !c.is_empty()) {
                    out.push('/');
                    out.push_str(&m.path_component(comp));
                }
                let n = out.len();
                s.splice(i..end, out.into_bytes());
                from = i + n;
            }
        }
        s
    }
}

/// Whether a line may be one of [`HOST_SITES`].
fn names_host(line: &[u8]) -> bool {
    static WORDS: std::sync::LazyLock<[memchr::memmem::Finder<'static>; 3]> =
        std::sync::LazyLock::new(|| {
            [b"Linux ".as_slice(), b"hostname", b"nodename"].map(memchr::memmem::Finder::new)
        });
    WORDS.iter().any(|f| f.find(line).is_some())
}

/// A byte of a path (what ends one: blanks, quotes, separators of lists and fields).
fn path_char(c: u8) -> bool {
    !(c.is_ascii_whitespace() || b"'\"`;,()[]{}<>|=:".contains(&c))
}

/// `re` replaced in `s` by what `f` makes of each match (matches, not capture groups: the
/// regex engine finds them several times faster).
pub(crate) fn replace(re: &Regex, s: &[u8], mut f: impl FnMut(&Match<'_>) -> String) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut at = 0;
    for g in re.find_iter(s) {
        out.extend_from_slice(&s[at..g.start()]);
        out.extend_from_slice(f(&g).as_bytes());
        at = g.end();
    }
    out.extend_from_slice(&s[at..]);
    out
}

fn mac(t: &[u8], m: &mut Mapper) -> String {
    let text = String::from_utf8_lossy(t);
    let sep = if text.contains('-') { '-' } else { ':' };
    let parts: Vec<&str> = text.split([':', '-']).collect();
    let mut o = [0u8; 6];
    for (i, p) in parts.iter().enumerate().take(6) {
        o[i] = u8::from_str_radix(p, 16).unwrap_or(0);
    }
    // Mixed separators are no MAC (`12:34-56:...`).
    if parts.len() != 6 || text.contains(':') && text.contains('-') {
        return text.into_owned();
    }
    m.mac(o, sep, text.chars().any(|c| c.is_ascii_uppercase()))
}

fn ipv6(t: &[u8], m: &mut Mapper) -> String {
    let text = String::from_utf8_lossy(t);
    let colons = text.matches(':').count();
    let plausible =
        colons >= 2 && (text.contains("::") || colons == 7) && text.bytes().any(|c| c.is_ascii_digit());
    match text.parse::<std::net::Ipv6Addr>() {
        Ok(a) if plausible => m.ipv6(a),
        _ => text.into_owned(),
    }
}

/// Every IPv4 address of `s` that is not part of a longer dotted number (`1.2.3.4.5`).
fn ipv4_all(re: &Regex, s: &[u8], m: &mut Mapper) -> Vec<u8> {
    let dotted = |i: Option<usize>, j: Option<usize>| {
        i.and_then(|i| s.get(i)).is_some_and(|&c| c == b'.')
            && j.and_then(|j| s.get(j)).is_some_and(u8::is_ascii_digit)
    };
    replace(re, s, |c| {
        let g = c;
        let longer = dotted(g.start().checked_sub(1), g.start().checked_sub(2))
            || dotted(Some(g.end()), Some(g.end() + 1));
        if longer { String::from_utf8_lossy(g.as_bytes()).into_owned() } else { ipv4(g.as_bytes(), m) }
    })
}

fn ipv4(t: &[u8], m: &mut Mapper) -> String {
    let text = String::from_utf8_lossy(t);
    let parts: Vec<&str> = text.split('.').collect();
    let octets: Vec<u8> =
        parts.iter().filter_map(|p| if p.len() <= 3 { p.parse().ok() } else { None }).collect();
    match octets[..] {
        [a, b, c, d] if parts.len() == 4 => m.ipv4(std::net::Ipv4Addr::new(a, b, c, d)),
        _ => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Key;

    fn run(g: &Generic, line: &str) -> String {
        let mut m = Mapper::new(Key::from_bytes(b"t"), false);
        String::from_utf8(g.line(line.as_bytes(), &mut m)).unwrap()
    }

    #[test]
    fn addresses_are_replaced_and_numbers_kept() {
        let g = Generic::new(&[], &["/home".into()]);
        let out = run(&g, "tcp 0 0 10.1.2.3:3306 192.168.7.9:41234 ESTABLISHED 19:44:46 6.18.44 1.5");
        assert!(!out.contains("10.1.2.3") && !out.contains("192.168.7.9"), "{out}");
        assert!(out.contains(":3306 ") && out.contains("19:44:46 6.18.44 1.5"), "{out}");
        let out =
            run(&g, "link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff inet6 fe80::5054:ff:fe12:3456/64");
        assert!(!out.contains("52:54:00:12:34:56") && !out.contains("fe80::5054"), "{out}");
        assert!(out.contains("ff:ff:ff:ff:ff:ff"), "{out}");
        let out = run(&g, "#0  0x00007f in ib::logger::~logger () at /home/alice/src/x.cc:12");
        assert!(out.contains("ib::logger::~logger") && !out.contains("alice"), "{out}");
        let out =
            run(&g, "server_uuid\t3e11fa47-71ca-11e1-9e33-c80aa9429562 mail bob@corp.example.com /homework");
        assert!(!out.contains("3e11fa47") && !out.contains("bob@") && out.contains("/homework"), "{out}");
    }

    #[test]
    fn hostnames_are_replaced_where_named_and_learnt_ones_everywhere() {
        let mut g = Generic::new(&["Acme".into()], &[]);
        let mut l = Learnt::default();
        let banner = "Linux 6.18.44-fc-v1294 (dbprod7.acme.com) \t12/05/2026 \t_x86_64_\t(2 CPU)";
        g.learn_hosts(banner.as_bytes(), &mut l);
        g.learn_hosts(b"Linux vm 6.18.44-fc-v1294 #1 SMP", &mut l);
        g.set_learnt(&l);
        let out = run(&g, banner);
        assert!(out.starts_with("Linux 6.18.44-fc-v1294 (host-") && !out.contains("dbprod7"), "{out}");
        assert!(!run(&g, "relay log dbprod7-relay-bin.000003").contains("dbprod7"));
        assert!(run(&g, "Linux vm 6.18.44").starts_with("Linux host-"));
        assert!(run(&g, "vm.dirty_ratio = 20").starts_with("vm.dirty_ratio"));
        assert!(!run(&g, "ACME corp").to_lowercase().contains("acme"));
    }
}
