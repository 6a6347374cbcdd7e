//! Limits that keep a hostile or huge capture from exhausting memory.

/// Configurable input limits (each error message names the flag that raises it).
#[derive(Debug, Clone)]
pub struct Limits {
    /// Total decompressed bytes of all files (`--max-bytes`).
    pub max_total_bytes: u64,
    /// Number of files (`--max-files`).
    pub max_files: usize,
    /// Archives inside archives (`--max-depth`).
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_total_bytes: 8 << 30, max_files: 20_000, max_depth: 3 }
    }
}
