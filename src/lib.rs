//! iosift: analyzer for Linux and MySQL I/O incident captures.
