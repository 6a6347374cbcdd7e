//! `sadf -dh`: every activity of one sample on one line ("horizontally"). The
//! header names each activity's columns once; an activity with items (CPU,
//! devices, interfaces) ends with `[...]` and repeats once per item on the
//! data lines, without a count.
//!
//! Real sample (`samples/sar_mariadb/capture/sadf_dh_P_ALL.csv`, sysstat 12.6.1,
//! `sadf -dh sa.bin -- -u ALL -P ALL -b -B -d -p -q -r ALL -W -n DEV`; long lines cut):
//!
//! ```text
//! # hostname;interval;timestamp;CPU;%usr;%nice;%sys;...;%gnice;%idle[...];pswpin/s;pswpout/s;pgpgin/s;...;blocked;DEV;tps;rkB/s;...;%util[...];IFACE;rxpck/s;...;%ifutil[...]
//! vm;1;2026-12-01 19:14:14 UTC;-1;81.41;0.00;17.09;...;0.00;0;91.92;...;0.00;1;71.00;...;0.00;0.00;0.00;...;0;loop0;0.00;...;vda;7514.00;0.00;34916.00;...;29.20;lo;0.00;...;eth0;0.00;...;0.00
//! ```
//!
//! A line is split by finding how many items each repeating activity has: the
//! counts must add up to the line's width, and each item's first field must
//! look like an item of its activity (a CPU number for `CPU`, a name for `DEV`
//! and `IFACE`, every other field a number). Two adjacent activities of names
//! with the same width (`DEV` then `IFACE`, nine columns each) can split in
//! several ways; the split whose names look most like block devices and
//! network interfaces respectively is taken, and a line where two splits tie
//! is skipped with a diagnostic.

use crate::common::number::parse_f64;
use crate::sar::{Activity, Sar, Table, identify};

/// One activity of a horizontal header.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Group {
    /// Index of the activity's table in [`Sar::tables`].
    pub table: usize,
    /// Fields per repetition (the item field included), or the fixed width.
    pub width: usize,
    /// Whether the activity has items (and so repeats).
    pub items: bool,
    /// The activity (for telling its item names).
    pub activity: Activity,
}

/// Whether a header has `[...]` groups: `sadf -dh`.
pub(super) fn is_horizontal(columns: &[&str]) -> bool {
    columns.iter().any(|c| c.ends_with("[...]"))
}

/// An item column name: `CPU`, `DEV`, `IFACE`, `INTR`, `TTY`, `FILESYSTEM`, `IN`, ...
fn is_item_column(name: &str) -> bool {
    name.len() >= 2 && name.bytes().all(|b| b.is_ascii_uppercase())
}

/// Splits the header's columns (after `hostname;interval;timestamp`) into activities and adds their tables.
pub(super) fn groups(columns: &[&str], out: &mut Sar) -> Vec<Group> {
    let mut groups = Vec::new();
    let mut item: Option<&str> = None;
    let mut cur: Vec<String> = Vec::new();
    let mut close = |item: &mut Option<&str>, cur: &mut Vec<String>, groups: &mut Vec<Group>| {
        if cur.is_empty() && item.is_none() {
            return;
        }
        let columns = std::mem::take(cur);
        let it = item.take();
        let activity = identify(it, &columns);
        let width = columns.len() + usize::from(it.is_some());
        let table = out.table_index(Table { activity, item: it.map(str::to_string), columns });
        groups.push(Group { table, width, items: it.is_some(), activity });
    };
    for c in columns {
        let (name, repeats) = match c.strip_suffix("[...]") {
            Some(n) => (n, true),
            None => (*c, false),
        };
        if is_item_column(name) {
            close(&mut item, &mut cur, &mut groups);
            item = Some(name);
        } else {
            // A run of activities without items: a new one starts at its first column (`pgpgin/s`, `tps`).
            if item.is_none() && !cur.is_empty() && identify(None, &[name.to_string()]) != Activity::Other {
                close(&mut item, &mut cur, &mut groups);
            }
            cur.push(name.to_string());
        }
        if repeats {
            close(&mut item, &mut cur, &mut groups);
        }
    }
    close(&mut item, &mut cur, &mut groups);
    groups
}

/// Whether a field can be the item of a repetition of an activity: a CPU number (`-1` is all) or a name.
fn item_like(activity: Activity, field: &str) -> bool {
    match activity {
        Activity::Cpu | Activity::Irq | Activity::Power => {
            field == "all" || field.strip_prefix('-').unwrap_or(field).bytes().all(|b| b.is_ascii_digit())
        }
        Activity::Pcsw
        | Activity::Swapping
        | Activity::Paging
        | Activity::Io
        | Activity::Memory
        | Activity::MemoryPages
        | Activity::SwapSpace
        | Activity::Hugepages
        | Activity::Ktables
        | Activity::Queue
        | Activity::Tty
        | Activity::Disk
        | Activity::NetDev
        | Activity::NetEdev
        | Activity::Network
        | Activity::Filesystem
        | Activity::Psi
        | Activity::Other => !field.is_empty() && parse_f64(field).is_none(),
    }
}

/// Network interface names as the kernel and udev give them (`lo`, `eth0`, `enp0s3`, `wlan0`, `docker0`, ...).
fn interface_like(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "lo", "eth", "en", "wl", "ww", "ib", "bond", "br", "docker", "veth", "virbr", "ifb", "tun", "tap",
        "vlan", "team", "wg", "vxlan", "flannel", "cni", "cali", "gre", "sit", "ip6", "dummy", "bridge",
        "vnet", "macvlan",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p)) && !name.starts_with("loop")
}

/// How well a split's item names fit their activities: devices that are not interface names, interfaces that are.
fn score(groups: &[Group], counts: &[usize], fields: &[&str]) -> usize {
    let mut pos = 0;
    let mut s = 0;
    for (g, &k) in groups.iter().zip(counts) {
        if !g.items {
            pos += g.width;
            continue;
        }
        for i in 0..k {
            let name = fields[pos + i * g.width];
            s += usize::from(match g.activity {
                Activity::NetDev | Activity::NetEdev => interface_like(name),
                Activity::Disk => !interface_like(name),
                Activity::Cpu
                | Activity::Pcsw
                | Activity::Irq
                | Activity::Swapping
                | Activity::Paging
                | Activity::Io
                | Activity::Memory
                | Activity::MemoryPages
                | Activity::SwapSpace
                | Activity::Hugepages
                | Activity::Ktables
                | Activity::Queue
                | Activity::Tty
                | Activity::Network
                | Activity::Power
                | Activity::Filesystem
                | Activity::Psi
                | Activity::Other => true,
            });
        }
        pos += k * g.width;
    }
    s
}

/// Every way (up to a few) to give each activity its number of repetitions so the line's fields fit.
fn splits(
    groups: &[Group],
    fields: &[&str],
    pos: usize,
    counts: &mut Vec<usize>,
    found: &mut Vec<Vec<usize>>,
) {
    if found.len() >= 16 {
        return;
    }
    let Some(g) = groups.get(counts.len()) else {
        if pos == fields.len() {
            found.push(counts.clone());
        }
        return;
    };
    let numbers = |from: usize, to: usize| fields[from..to].iter().all(|f| parse_f64(f).is_some());
    if !g.items {
        if pos + g.width <= fields.len() && numbers(pos, pos + g.width) {
            counts.push(1);
            splits(groups, fields, pos + g.width, counts, found);
            counts.pop();
        }
        return;
    }
    let mut k = 0;
    let mut at = pos;
    while at + g.width <= fields.len() && item_like(g.activity, fields[at]) && numbers(at + 1, at + g.width) {
        k += 1;
        at += g.width;
        counts.push(k);
        splits(groups, fields, at, counts, found);
        counts.pop();
    }
}

/// One piece of a split line: the table, the item (for activities with items) and the value fields.
pub(super) type Piece<'a> = (usize, Option<&'a str>, &'a [&'a str]);

/// Splits a data line's fields (after host, interval and time) into its activities' pieces;
/// `Err` says why the line cannot be split.
pub(super) fn split<'a>(groups: &[Group], fields: &'a [&'a str]) -> Result<Vec<Piece<'a>>, &'static str> {
    let mut found = Vec::new();
    splits(groups, fields, 0, &mut Vec::new(), &mut found);
    let best = found.iter().map(|c| score(groups, c, fields)).max();
    let mut top = found.iter().filter(|c| Some(score(groups, c, fields)) == best);
    let counts = match (top.next(), top.next()) {
        (None, _) => return Err("the fields do not fit the header's activities"),
        (Some(_), Some(_)) => return Err("the items of two activities cannot be told apart on this line"),
        (Some(c), None) => c,
    };
    let mut out = Vec::new();
    let mut pos = 0;
    for (g, &k) in groups.iter().zip(counts) {
        for _ in 0..k {
            let piece = &fields[pos..pos + g.width];
            out.push(if g.items { (g.table, Some(piece[0]), &piece[1..]) } else { (g.table, None, piece) });
            pos += g.width;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sar::Source;

    #[test]
    fn cpu_items_end_where_the_next_activity_starts_with_a_decimal() {
        let mut sar = Sar::new(Source::SadfCsv);
        let g = groups(&["CPU", "%usr", "%idle[...]", "pswpin/s", "pswpout/s"], &mut sar);
        assert_eq!(g.len(), 2);
        let f = ["-1", "1.0", "2.0", "0", "3.0", "4.0", "1", "5.0", "6.0", "0.00", "0.00"];
        let p = split(&g, &f).unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(p[2].1, Some("1"));
        assert_eq!(p[3], (g[1].table, None, &f[9..]));
    }

    #[test]
    fn devices_and_interfaces_of_equal_width_split_by_their_names() {
        let mut sar = Sar::new(Source::SadfCsv);
        let g = groups(&["DEV", "tps[...]", "IFACE", "rxpck/s[...]"], &mut sar);
        let f = ["loop0", "0", "vda", "5", "lo", "1", "eth0", "2"];
        let p = split(&g, &f).unwrap();
        let items: Vec<_> = p.iter().map(|x| (x.0, x.1.unwrap())).collect();
        assert_eq!(
            items,
            [(g[0].table, "loop0"), (g[0].table, "vda"), (g[1].table, "lo"), (g[1].table, "eth0")]
        );
        // Names that tell nothing (a TTY and a file system of the same width): no guess.
        let mut sar = Sar::new(Source::SadfCsv);
        let g = groups(&["TTY", "rcvin/s[...]", "FILESYSTEM", "MBfsfree[...]"], &mut sar);
        assert!(split(&g, &["ttyS0", "1", "ttyS1", "2", "/dev/vda1", "3"]).is_err());
    }
}
