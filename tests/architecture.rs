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
    let within = edges_within;
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

// ---------------------------------------------------------------------------
// File-level cycles: a graph of the `.rs` files of one crate's source root.
// ---------------------------------------------------------------------------

/// The module path of a file of a source root: `iostat/budget.rs` ->
/// `[iostat, budget]`, `iostat/mod.rs` -> `[iostat]`, `lib.rs` -> `[]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("the file is under the source root");
    let mut out: Vec<String> =
        rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let last = out.pop().unwrap_or_default();
    let stem = last.strip_suffix(".rs").unwrap_or(&last);
    if !(stem == "mod" || (out.is_empty() && stem == "lib")) {
        out.push(stem.to_string());
    }
    out
}

/// The text with comments, string and character literals blanked (newlines
/// kept), so that only code is scanned and braces in literals do not count.
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, s: &[char]| {
        out.extend(s.iter().map(|&ch| if ch == '\n' { '\n' } else { ' ' }));
    };
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let at = |k: usize| c.get(k).copied().unwrap_or('\0');
        let starts_token = i == 0 || !ident_char(c[i - 1]);
        let end = if c[i] == '/' && at(i + 1) == '/' {
            (i..c.len()).find(|&k| c[k] == '\n').unwrap_or(c.len())
        } else if c[i] == '/' && at(i + 1) == '*' {
            let (mut k, mut nest) = (i + 2, 1);
            while k < c.len() && nest > 0 {
                if c[k] == '/' && at(k + 1) == '*' {
                    nest += 1;
                    k += 1;
                } else if c[k] == '*' && at(k + 1) == '/' {
                    nest -= 1;
                    k += 1;
                }
                k += 1;
            }
            k
        } else if starts_token && (c[i] == 'r' || (c[i] == 'b' && at(i + 1) == 'r')) {
            // r"..", r#".."#, br".."
            let mut k = if c[i] == 'b' { i + 2 } else { i + 1 };
            let hashes = (k..c.len()).take_while(|&j| c[j] == '#').count();
            k += hashes;
            if at(k) != '"' {
                out.push(c[i]);
                i += 1;
                continue;
            }
            let close: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            (k + 1..c.len()).find(|&j| c[j..].starts_with(&close)).map_or(c.len(), |j| j + close.len())
        } else if c[i] == '"' {
            let mut k = i + 1;
            while k < c.len() && c[k] != '"' {
                k += if c[k] == '\\' { 2 } else { 1 };
            }
            k + 1
        } else if c[i] == '\'' && at(i + 1) == '\\' {
            (i + 2..c.len()).find(|&k| c[k] == '\'').map_or(c.len(), |k| k + 1)
        } else if c[i] == '\'' && at(i + 2) == '\'' {
            i + 3
        } else {
            out.push(c[i]);
            i += 1;
            continue;
        };
        let end = end.min(c.len());
        blank(&mut out, &c[i..end]);
        i = end;
    }
    out
}

/// A token of code: an identifier or one punctuation character (`::` is two
/// `:`), with its 1-based line.
fn tokens(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut chars = code.char_indices().peekable();
    while let Some((i, ch)) = chars.next() {
        if ch == '\n' {
            line += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let mut end = i + ch.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if !(d.is_alphanumeric() || d == '_') {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            out.push((code[i..end].to_string(), line));
        } else if !ch.is_whitespace() {
            out.push((ch.to_string(), line));
        }
    }
    out
}

/// The paths (segments, `self` and `*` kept) a `use` tree starting at token
/// `i` names, and the index of the token after it.
fn use_tree(t: &[(String, usize)], mut i: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix.to_vec();
    while i < t.len() {
        match t[i].0.as_str() {
            "{" => {
                i += 1;
                while i < t.len() && t[i].0 != "}" {
                    i = use_tree(t, i, &path, out);
                    if t.get(i).is_some_and(|x| x.0 == ",") {
                        i += 1;
                    }
                }
                return i + 1;
            }
            ":" => i += 1,
            "as" => i += 2,
            "," | "}" | ";" => break,
            seg => {
                path.push(seg.to_string());
                i += 1;
            }
        }
    }
    if path.len() > prefix.len() {
        out.push(path);
    }
    i
}

/// Every path one file names that starts at `crate`, `super`, `self` or a
/// child module it declares, made absolute, with its line.
fn file_paths(code: &str, here: &[String]) -> Vec<(Vec<String>, usize)> {
    let t = tokens(code);
    let children: BTreeSet<&str> =
        t.windows(3).filter(|w| w[0].0 == "mod" && w[2].0 == ";").map(|w| w[1].0.as_str()).collect();
    // Inline modules (`mod tests { .. }`) as (name, brace depth at their `{`).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let (tok, line) = (t[i].0.as_str(), t[i].1);
        let prev = if i > 0 { t[i - 1].0.as_str() } else { "" };
        let next = t.get(i + 1).map_or("", |x| x.0.as_str());
        let mut module: Vec<String> = here.to_vec();
        module.extend(inline.iter().map(|(m, _)| m.clone()));
        match tok {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            "mod" if t.get(i + 2).is_some_and(|x| x.0 == "{") => {
                inline.push((next.to_string(), depth));
            }
            "use" if next != "<" => {
                let mut paths = Vec::new();
                i = use_tree(&t, i + 1, &[], &mut paths);
                for p in paths {
                    if let Some(abs) = absolute(&p, &module, inline.is_empty(), &children) {
                        out.push((abs, line));
                    }
                }
                continue;
            }
            _ if next == ":" && prev != ":" && prev != "$" => {
                let mut p = vec![tok.to_string()];
                let mut k = i + 1;
                while t.get(k).is_some_and(|x| x.0 == ":")
                    && t.get(k + 1).is_some_and(|x| x.0 == ":")
                    && t.get(k + 2)
                        .is_some_and(|x| x.0.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
                {
                    p.push(t[k + 2].0.clone());
                    k += 3;
                }
                // `crate::$module` in a macro names no module of its own.
                let whole = p.len() > 1 || t.get(k).is_some_and(|x| x.0 != ":");
                if let Some(abs) = absolute(&p, &module, inline.is_empty(), &children).filter(|_| whole) {
                    out.push((abs, line));
                }
                i = k;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// A path made absolute from module `here`; `None` for other crates, std and
/// local items. `children` are the file modules `here` declares, in scope by
/// name at the top level of the file only (`at_top`).
fn absolute(p: &[String], here: &[String], at_top: bool, children: &BTreeSet<&str>) -> Option<Vec<String>> {
    let first = p.first()?.as_str();
    let mut base: Vec<String> = match first {
        "crate" => Vec::new(),
        "super" | "self" => here.to_vec(),
        _ if at_top && children.contains(first) && p.len() > 1 => here.to_vec(),
        _ => return None,
    };
    let mut rest = p;
    if first == "crate" || first == "self" {
        rest = &p[1..];
    }
    while rest.first().is_some_and(|s| s == "super") {
        base.pop();
        rest = &rest[1..];
    }
    base.extend(rest.iter().filter(|s| *s != "self" && *s != "*").cloned());
    Some(base)
}

/// The graph of the files of one crate's source root (`parsers/src`, `src`):
/// file -> file it uses -> where (first `file:line` found). An edge `a -> b`
/// is a path in `a` (in a `use`, grouped or not, or inline) through
/// `crate::`, `super::`, `self::` or a child module `a` declares, resolved to
/// the file that defines the longest module prefix of the path: an item of
/// `iostat/types.rs` named as `crate::iostat::types::Report` is an edge to
/// `iostat/types.rs`, but named through a re-export (`crate::iostat::Report`)
/// it is an edge to `iostat/mod.rs`. Inline modules (`mod tests { .. }`)
/// belong to their file. `main.rs` at the root is another crate (the
/// binary) and is left out; self-edges are dropped.
fn file_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    let root_main = src.join("main.rs");
    files.retain(|f| *f != root_main);
    files.sort();
    let rel = |f: &Path| f.strip_prefix(src).expect("under the root").display().to_string();
    let by_module: BTreeMap<Vec<String>, String> =
        files.iter().map(|f| (module_path(src, f), rel(f))).collect();
    let mut g = Graph::new();
    for f in &files {
        let me = rel(f);
        let text = fs::read_to_string(f).expect("a source file is readable");
        let mut deps = BTreeMap::new();
        for (abs, line) in file_paths(&code_only(&text), &module_path(src, f)) {
            let target = (0..=abs.len()).rev().find_map(|n| by_module.get(&abs[..n]));
            if let Some(to) = target.filter(|to| **to != me) {
                deps.entry(to.clone()).or_insert(format!("{me}:{line}"));
            }
        }
        g.insert(me, deps);
    }
    g
}

/// Every edge inside one cycle, with the line that makes it.
fn edges_within(g: &Graph, comp: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for a in comp {
        for (b, at) in &g[a] {
            if comp.contains(b) {
                out.push(format!("{a} -> {b} ({at})"));
            }
        }
    }
    out
}

/// No file-level import cycle in the source root `root` of a library crate.
fn crate_files_form_no_cycle(root: &str) {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(root);
    let g = file_graph(&src);
    assert!(g.len() > 5, "{root}: {} files seen", g.len());
    println!("file graph of {root} (file -> files it uses):");
    for (f, deps) in &g {
        println!("  {f} -> {}", deps.keys().cloned().collect::<Vec<_>>().join(", "));
    }
    let found = cycles(&g);
    assert!(
        found.is_empty(),
        "file-level import cycles in {root}: {}",
        found.iter().map(|c| edges_within(&g, c).join(", ")).collect::<Vec<_>>().join("; ")
    );
}

#[test]
fn parser_files_form_no_cycle() {
    crate_files_form_no_cycle("parsers/src");
}

#[test]
fn scrub_files_form_no_cycle() {
    crate_files_form_no_cycle("scrub/src");
}

#[test]
fn the_file_scanner_resolves_every_form_of_path() {
    let here = vec!["fam".to_string(), "child".to_string()];
    let code = code_only(
        "//! crate::doc::x\nuse crate::{a, b::{c, d as e}};\nuse super::sib::X;\nmod kid;\n\
         fn f() { let s = \"crate::str::x\"; let c = '{'; kid::g(); self::h(); super::super::top::k(); }\n\
         macro_rules! m { ($m:ident) => { $crate::mac::x; crate::$m::y } }\n\
         #[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::up;\n}\nuse std::fmt;\n",
    );
    let got: Vec<(String, usize)> =
        file_paths(&code, &here).into_iter().map(|(p, l)| (p.join("::"), l)).collect();
    let want: Vec<(String, usize)> = [
        ("a", 2),
        ("b::c", 2),
        ("b::d", 2),
        ("fam::sib::X", 3),
        ("fam::child::kid::g", 5),
        ("fam::child::h", 5),
        ("top::k", 5),
        ("fam::child", 9),
        ("fam::up", 10),
    ]
    .iter()
    .map(|(p, l)| (p.to_string(), *l))
    .collect();
    assert_eq!(got, want);
    let src = Path::new("/r");
    assert_eq!(module_path(src, Path::new("/r/lib.rs")), Vec::<String>::new());
    assert_eq!(module_path(src, Path::new("/r/iostat/mod.rs")), vec!["iostat"]);
    assert_eq!(module_path(src, Path::new("/r/iostat/budget.rs")), vec!["iostat", "budget"]);
    assert_eq!(code_only("r#\"}\"# 'a' b\"{\" x<'a>"), "           b    x<'a>");
}

/// The graph without the edges from a file up to the `mod.rs` of a folder it is in: a
/// folder module's `mod.rs` is its facade (it declares the children, re-exports what the
/// rest of the crate uses and holds the few types they share), so a child naming
/// `super::Item` is no cycle with it. Cycles among sibling files, and across folders,
/// stay (analysis/replication <-> lag_witness, report/html <-> story were such).
fn without_facade_edges(mut g: Graph) -> Graph {
    for (file, deps) in g.iter_mut() {
        deps.retain(|to, _| {
            let Some(folder) = to.strip_suffix("mod.rs") else { return true };
            !file.starts_with(folder)
        });
    }
    g
}

#[test]
fn src_files_form_no_cycle() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = without_facade_edges(file_graph(&src));
    let found = cycles(&g);
    assert!(
        found.is_empty(),
        "file-level import cycles in src: {}",
        found.iter().map(|c| edges_within(&g, c).join(", ")).collect::<Vec<_>>().join("; ")
    );
}

#[test]
fn only_edges_up_to_a_facade_are_dropped() {
    let mut g = Graph::new();
    let dep = |to: &[&str]| to.iter().map(|t| (t.to_string(), "x:1".to_string())).collect();
    g.insert("a/mod.rs".into(), dep(&["a/b.rs"]));
    g.insert("a/b.rs".into(), dep(&["a/mod.rs", "a/c.rs", "d/mod.rs"]));
    g.insert("a/c.rs".into(), dep(&["a/b.rs"]));
    g.insert("d/mod.rs".into(), dep(&["a/b.rs"]));
    let g = without_facade_edges(g);
    assert_eq!(g["a/b.rs"].keys().collect::<Vec<_>>(), ["a/c.rs", "d/mod.rs"]);
    // b <-> c (siblings) and b <-> d/mod.rs (another folder's facade) are still cycles.
    assert_eq!(cycles(&g).len(), 1);
}
