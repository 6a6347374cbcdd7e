//! One shared copy of each name that repeats down a capture's rows: the
//! commands of `pidstat -d -t` (`|__gcache-w0`, `mariadbd`, `kworker/u4:2`)
//! come back every second, and a fresh `String` per row made allocation a fifth
//! of the parse of a 200 MB file and of every merge under a memory budget.

use std::collections::HashSet;
use std::sync::Arc;

/// Most names kept for sharing; past it the set starts afresh (rows keep their copies).
/// `pidstat -l` of short-lived shells can print a new command line every row.
const MAX_NAMES: usize = 1 << 16;

/// Hands out one [`Arc<str>`] per distinct name.
#[derive(Debug, Default)]
pub struct Names {
    set: HashSet<Arc<str>>,
}

impl Names {
    /// The shared copy of `name` (made on first sight).
    pub fn get(&mut self, name: &str) -> Arc<str> {
        if let Some(a) = self.set.get(name) {
            return a.clone();
        }
        if self.set.len() >= MAX_NAMES {
            self.set.clear();
        }
        let a: Arc<str> = Arc::from(name);
        self.set.insert(a.clone());
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_seen_again_is_the_same_allocation() {
        let mut n = Names::default();
        let a = n.get("gcache-w0");
        let b = n.get("gcache-w0");
        let c = n.get("mariadbd");
        assert!(Arc::ptr_eq(&a, &b) && !Arc::ptr_eq(&a, &c));
        assert_eq!((&*a, &*c), ("gcache-w0", "mariadbd"));
        for k in 0..MAX_NAMES + 1 {
            n.get(&format!("sh-{k}"));
        }
        // Started afresh: still the right text, now a new copy.
        let d = n.get("gcache-w0");
        assert!(!Arc::ptr_eq(&a, &d) && &*d == "gcache-w0");
    }
}
