//! The compact JSON a heat map carries for the page's script (in a `data-heat`
//! attribute, escaped by maud like any attribute):
//!
//! ```text
//! {"c":[0,3,5,...],                 samples per cell, col * 10 + row
//!  "f":"all\nmysqld\nfsync",        frame names, one per line (frame 0 is `all`)
//!  "n":[0,0, 0,1, 1,2],             call-tree nodes as (parent, frame) pairs, node 0 the root
//!  "s":[12,2, 5,3, 7,1, 13,1, 5,4], per cell with samples: cell, k, then k (node, samples) pairs
//!  "r":[2]}                         frames on an fsync-like path (drawn red)
//! ```
//!
//! Frame names are capture text: their control and bidirectional characters are
//! written as visible escapes before they are encoded, and the script only ever
//! sets them as text.

use crate::analysis::heat::PerfHeat;
use std::fmt::Write;

/// Appends `v` as `[a,b,c]`.
fn push_list(out: &mut String, v: impl Iterator<Item = u64>) {
    out.push('[');
    for (i, x) in v.enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{x}");
    }
    out.push(']');
}

/// The JSON of a heat map (see the module documentation).
pub(super) fn json(h: &PerfHeat) -> String {
    let t = &h.tree;
    let mut out = String::from("{\"c\":");
    push_list(&mut out, h.counts.iter().map(|&c| u64::from(c)));
    let names: Vec<String> = t.frames.iter().map(|f| crate::term::one_line(f).replace('\n', " ")).collect();
    let _ = write!(out, ",\"f\":{}", serde_json::Value::String(names.join("\n")));
    out.push_str(",\"n\":");
    push_list(&mut out, t.nodes.iter().flat_map(|&(p, f)| [u64::from(p), u64::from(f)]));
    out.push_str(",\"s\":");
    push_list(
        &mut out,
        t.cells.iter().flat_map(|(cell, v)| {
            [*cell as u64, v.len() as u64]
                .into_iter()
                .chain(v.iter().flat_map(|&(n, k)| [u64::from(n), u64::from(k)]))
        }),
    );
    out.push_str(",\"r\":");
    push_list(
        &mut out,
        t.frames
            .iter()
            .enumerate()
            .filter(|(i, f)| *i > 0 && iosift_parsers::perf_script::is_fsync_symbol(f))
            .map(|(i, _)| i as u64),
    );
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::heat::tree::CallTree;

    #[test]
    fn json_is_compact_and_names_are_escaped() {
        let stacks = ["my\u{202e}sqld;fsync", "my\u{202e}sqld;\"x\\"];
        let tree = CallTree::build(&stacks, [(3, 0, 2), (4, 1, 1)].into_iter());
        let h = PerfHeat { counts: vec![0, 0, 0, 2, 1], tree, ..Default::default() };
        let j = json(&h);
        assert_eq!(
            j,
            r#"{"c":[0,0,0,2,1],"f":"all\nmy\\u{202e}sqld\nfsync\n\"x\\","n":[0,0,0,1,1,2,1,3],"s":[3,1,2,2,4,1,3,1],"r":[2]}"#
        );
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["f"].as_str().unwrap().split('\n').nth(3), Some("\"x\\"));
    }
}
