//! The dependency graph among the top-level modules of `src/` (`analysis`,
//! `analyze`, `rules`, `pipeline`, ...) is acyclic, apart from the cycles
//! listed in [`KNOWN`] that are being removed.
//!
//! An edge `a -> b` is a `crate::b` path (in a `use` or inline, grouped
//! `use crate::{b, c}` included) or a `super::b` that climbs to the crate root,
//! in any `.rs` file of module `a` (tests included; comment lines ignored).
//! `src/main.rs` is the binary (it reaches the library as `iosift::`) and
//! `src/lib.rs` only declares the modules, so neither is a node.
//!
//! Run `cargo test --test suite architecture -- --nocapture` to print the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Edges that close a cycle today, each removed by a step of issue 13; the test
/// fails on any other cycle, and on an entry here that no longer exists (delete
/// it then, so it cannot hide a new cycle later). An entry is (from, to, why and
/// which step removes it). None is left: issue 13 removed pipeline<->inspect,
/// analyze<->rules, analysis<->pipeline and table<->source.
const KNOWN: &[(&str, &str, &str)] = &[];

/// Top-level modules: `src/<m>.rs` and `src/<m>/`, without `main` and `lib`.
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut out: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for e in fs::read_dir(src).expect("src/ is readable") {
        let p = e.expect("a directory entry").path();
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        if p.is_dir() {
            let mut files = Vec::new();
            rs_files(&p, &mut files);
            out.entry(stem).or_default().extend(files);
        } else if p.extension().is_some_and(|x| x == "rs") && stem != "main" && stem != "lib" {
            out.entry(stem).or_default().push(p);
        }
    }
    out
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).expect("a module folder is readable") {
        let p = e.expect("a directory entry").path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// How many `super::` climb from this file to the crate root: 1 for
/// `src/m.rs` and `src/m/mod.rs`, 2 for `src/m/x.rs`, ...
fn depth(src: &Path, file: &Path) -> usize {
    let rel = file.strip_prefix(src).expect("the file is under src/");
    let parts = rel.components().count();
    let is_mod = rel.file_name().is_some_and(|n| n == "mod.rs");
    if is_mod { parts - 1 } else { parts }
}

/// An identifier starting at `s`.
fn ident(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// The top-level modules one file refers to, each with the first line (1-based) naming it.
fn references(text: &str, climbs: usize, names: &BTreeSet<String>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let root_super = "super::".repeat(climbs);
    for (no, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("//") {
            continue;
        }
        let mut heads: Vec<&str> = Vec::new();
        for (i, _) in line.match_indices("crate::") {
            // `iosift_crate::x` or `$crate::` are not this crate's root.
            let before = line[..i].chars().last();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            heads.push(&line[i + "crate::".len()..]);
        }
        for (i, _) in line.match_indices(root_super.as_str()) {
            let rest = &line[i + root_super.len()..];
            let before = line[..i].chars().last();
            if rest.starts_with("super::") || before.is_some_and(|c| c.is_ascii_alphanumeric() || c == ':') {
                continue;
            }
            heads.push(rest);
        }
        for h in heads {
            if let Some(group) = h.strip_prefix('{') {
                // `use crate::{a, b::c}`: every first segment of the group.
                let inner = group.split('}').next().unwrap_or("");
                for x in inner.split(',') {
                    out.entry(ident(x.trim()).to_string()).or_insert(no + 1);
                }
            } else {
                out.entry(ident(h).to_string()).or_insert(no + 1);
            }
        }
    }
    out.retain(|m, _| names.contains(m));
    out
}

/// Module -> module it uses -> where (first `file:line` found).
type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// The graph of `src/` (self-references dropped).
fn graph() -> Graph {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules(&src);
    let names: BTreeSet<String> = mods.keys().cloned().collect();
    let mut g = Graph::new();
    for (m, files) in &mods {
        let mut deps = BTreeMap::new();
        let mut files = files.clone();
        files.sort();
        for f in &files {
            let text = fs::read_to_string(f).expect("a source file is readable");
            let rel = f.strip_prefix(&src).expect("under src/").display().to_string();
            for (d, line) in references(&text, depth(&src, f), &names) {
                deps.entry(d).or_insert(format!("src/{rel}:{line}"));
            }
        }
        deps.remove(m);
        g.insert(m.clone(), deps);
    }
    g
}

/// Strongly connected components with more than one module (Tarjan).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct St<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut St<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        let g = s.g;
        for w in g.get(v).into_iter().flat_map(|d| d.keys()) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = St {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

#[test]
fn top_level_modules_form_no_new_cycle() {
    let mut g = graph();
    println!("dependency graph of src/ (module -> modules it uses):");
    for (m, deps) in &g {
        println!("  {m} -> {}", deps.keys().cloned().collect::<Vec<_>>().join(", "));
    }
    // Every edge inside a cycle, with the line that makes it.
    let within = |g: &Graph, comp: &[String]| -> Vec<String> {
        let mut out = Vec::new();
        for a in comp {
            for (b, at) in &g[a] {
                if comp.contains(b) {
                    out.push(format!("{a} -> {b} ({at})"));
                }
            }
        }
        out
    };
    for c in cycles(&g) {
        println!("cycle today: {}: {}", c.join(" <-> "), within(&g, &c).join(", "));
    }
    for (a, b, why) in KNOWN {
        assert!(
            g.get(*a).is_some_and(|d| d.contains_key(*b)),
            "the known cycle edge {a} -> {b} ({why}) is gone: remove it from KNOWN"
        );
        g.entry(a.to_string()).or_default().remove(*b);
    }
    let left = cycles(&g);
    assert!(
        left.is_empty(),
        "module cycles not in KNOWN: {}",
        left.iter().map(|c| within(&g, c).join(", ")).collect::<Vec<_>>().join("; ")
    );
}

#[test]
fn the_scanner_sees_every_form_of_reference() {
    let names: BTreeSet<String> = ["a", "b", "c", "d", "e"].iter().map(|s| s.to_string()).collect();
    let text =
        "use crate::a::X;\nuse crate::{b, c::Y};\nfn f() { super::d::g(); }\n// crate::e in a comment\n";
    let got = references(text, 1, &names);
    let want: BTreeMap<String, usize> =
        [("a", 1), ("b", 2), ("c", 2), ("d", 3)].iter().map(|(m, l)| (m.to_string(), *l)).collect();
    assert_eq!(got, want);
    // One level down, `super::` is the parent module, not the root.
    assert!(references("use super::d;", 2, &names).is_empty());
    assert!(references("use super::super::d;", 2, &names).contains_key("d"));
    assert!(references("use iosift_crate::a; macro_rules! m { () => { $crate::b } }", 1, &names).is_empty());
    let g: Graph = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]
        .iter()
        .map(|(x, y)| (x.to_string(), BTreeMap::from([(y.to_string(), String::new())])))
        .collect();
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]);
}
