//! The call tree of a heat map's samples: folded stacks (`comm;root;...;leaf`)
//! merged on their common callers, and per heat-map cell how many samples ended
//! at each node. The page sums the cells of a range and draws the tree as a
//! flame graph. Kept small for the page: at most [`MAX_NODES`] nodes and
//! [`MAX_PAIRS`] (cell, node) counts; beyond that the lightest nodes are cut and
//! their samples count at their nearest kept caller.

use std::collections::{BTreeMap, HashMap};

/// Most nodes kept.
pub(crate) const MAX_NODES: usize = 3000;
/// Most (cell, node) counts kept.
pub(crate) const MAX_PAIRS: usize = 16_000;

/// A call tree with the samples of each cell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallTree {
    /// Frame names (capture text); frame 0 is `all`.
    pub frames: Vec<String>,
    /// Nodes as (parent node, frame); node 0 is the root (`all`, its own parent) and
    /// every parent comes before its children.
    pub nodes: Vec<(u32, u32)>,
    /// Per cell, in cell order: (cell, [(node, samples ending there)]), nodes ascending.
    pub cells: Vec<(usize, Vec<(u32, u32)>)>,
    /// Nodes cut to keep the tree small.
    pub cut: usize,
}

impl CallTree {
    /// The tree of `stacks` (folded, by index) from `(cell, stack index, samples)` counts.
    pub fn build(stacks: &[&str], counts: impl Iterator<Item = (usize, u32, u64)>) -> CallTree {
        let mut t = CallTree { frames: vec!["all".into()], nodes: vec![(0, 0)], ..Default::default() };
        let mut frame_ids: HashMap<String, u32> = HashMap::new();
        let mut children: HashMap<(u32, u32), u32> = HashMap::new();
        let mut leaf_of: HashMap<u32, u32> = HashMap::new();
        let mut pairs: BTreeMap<(usize, u32), u64> = BTreeMap::new();
        for (cell, s, n) in counts {
            let Some(stack) = stacks.get(s as usize) else { continue };
            let leaf = *leaf_of.entry(s).or_insert_with(|| {
                let mut node = 0u32;
                for name in stack.split(';') {
                    let frame = *frame_ids.entry(name.to_string()).or_insert_with(|| {
                        t.frames.push(name.to_string());
                        (t.frames.len() - 1) as u32
                    });
                    node = *children.entry((node, frame)).or_insert_with(|| {
                        t.nodes.push((node, frame));
                        (t.nodes.len() - 1) as u32
                    });
                }
                node
            });
            *pairs.entry((cell, leaf)).or_default() += n;
        }
        let mut budget = MAX_NODES;
        loop {
            let (kept, cut) = t.cut_to(&pairs, budget);
            if kept.len() <= MAX_PAIRS || budget <= 64 {
                t.fill(kept);
                t.cut = cut;
                return t;
            }
            budget /= 2;
        }
    }

    /// Keeps the `budget` heaviest nodes (a caller weighs at least its callees, so the
    /// kept nodes hold every caller of theirs); returns the merged counts and the nodes cut.
    fn cut_to(
        &mut self,
        pairs: &BTreeMap<(usize, u32), u64>,
        budget: usize,
    ) -> (BTreeMap<(usize, u32), u64>, usize) {
        if self.nodes.len() <= budget {
            return (pairs.clone(), 0);
        }
        let mut weight = vec![0u64; self.nodes.len()];
        for (&(_, node), &n) in pairs {
            weight[node as usize] += n;
        }
        for i in (1..self.nodes.len()).rev() {
            let p = self.nodes[i].0 as usize;
            weight[p] += weight[i];
        }
        let mut order: Vec<usize> = (0..self.nodes.len()).collect();
        order.sort_by(|&a, &b| weight[b].cmp(&weight[a]).then(a.cmp(&b)));
        let mut keep = vec![false; self.nodes.len()];
        for &i in order.iter().take(budget) {
            keep[i] = true;
        }
        // Each node's nearest kept node (itself or a caller), and the kept nodes renumbered.
        let mut to = vec![0u32; self.nodes.len()];
        let mut nodes = Vec::with_capacity(budget);
        for i in 0..self.nodes.len() {
            let (p, f) = self.nodes[i];
            if keep[i] && keep[p as usize] || i == 0 {
                to[i] = nodes.len() as u32;
                nodes.push((if i == 0 { 0 } else { to[p as usize] }, f));
            } else {
                to[i] = to[p as usize];
            }
        }
        let cut = self.nodes.len() - nodes.len();
        self.nodes = nodes;
        self.drop_unused_frames();
        let mut merged: BTreeMap<(usize, u32), u64> = BTreeMap::new();
        for (&(cell, node), &n) in pairs {
            *merged.entry((cell, to[node as usize])).or_default() += n;
        }
        (merged, cut)
    }

    /// Frames no node names any more are removed (frame 0, `all`, stays first).
    fn drop_unused_frames(&mut self) {
        let mut used = vec![false; self.frames.len()];
        used[0] = true;
        for &(_, f) in &self.nodes {
            used[f as usize] = true;
        }
        let mut to = vec![0u32; self.frames.len()];
        let mut frames = Vec::new();
        for (i, name) in std::mem::take(&mut self.frames).into_iter().enumerate() {
            if used[i] {
                to[i] = frames.len() as u32;
                frames.push(name);
            }
        }
        self.frames = frames;
        for n in &mut self.nodes {
            n.1 = to[n.1 as usize];
        }
    }

    fn fill(&mut self, pairs: BTreeMap<(usize, u32), u64>) {
        for ((cell, node), n) in pairs {
            let n = u32::try_from(n).unwrap_or(u32::MAX);
            match self.cells.last_mut() {
                Some((c, v)) if *c == cell => v.push((node, n)),
                _ => self.cells.push((cell, vec![(node, n)])),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks_merge_on_their_callers() {
        let stacks = ["mysqld;a;fsync", "mysqld;a;b", "kworker;wb"];
        let t = CallTree::build(&stacks, [(3, 0, 2), (3, 1, 1), (7, 2, 4), (7, 0, 1)].into_iter());
        assert_eq!(t.frames, ["all", "mysqld", "a", "fsync", "b", "kworker", "wb"]);
        assert_eq!(t.nodes, [(0, 0), (0, 1), (1, 2), (2, 3), (2, 4), (0, 5), (5, 6)]);
        assert_eq!(t.cells, [(3, vec![(3, 2), (4, 1)]), (7, vec![(3, 1), (6, 4)])]);
        assert_eq!(t.cut, 0);
    }

    #[test]
    fn the_lightest_nodes_are_cut_to_their_callers() {
        let stacks = ["p;a;x", "p;a;y", "p;b"];
        let mut t = CallTree::build(&stacks, [(0, 0, 5), (0, 1, 1), (1, 2, 3)].into_iter());
        let pairs: BTreeMap<(usize, u32), u64> =
            t.cells.iter().flat_map(|(c, v)| v.iter().map(move |&(n, k)| ((*c, n), u64::from(k)))).collect();
        // Nodes: all 9, p 9, a 6, x 5, b 3, y 1: keeping 5 cuts y into a.
        let (merged, cut) = t.cut_to(&pairs, 5);
        assert_eq!(cut, 1);
        assert_eq!(t.frames, ["all", "p", "a", "x", "b"]);
        assert_eq!(t.nodes, [(0, 0), (0, 1), (1, 2), (2, 3), (1, 4)]);
        assert_eq!(merged.into_iter().collect::<Vec<_>>(), [((0, 2), 1), ((0, 3), 5), ((1, 4), 3)]);
    }
}
