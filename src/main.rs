//! The `iosift` command line.
fn main() {}
