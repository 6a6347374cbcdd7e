//! Fuzz target: `common::decode::maybe_gunzip` with a small output limit.
//! The input is decoded as given and, so the fuzzer needs not find the
//! magic bytes itself, once more behind a gzip magic. Output never passes
//! the limit; a bomb is `TooLarge`, never an out-of-memory kill.

#![no_main]

use iosift_parsers::common::decode::{DecodeError, maybe_gunzip};
use libfuzzer_sys::fuzz_target;

const LIMIT: u64 = 64 * 1024;

fn check(input: &[u8]) {
    match maybe_gunzip(input, LIMIT) {
        Ok(out) => assert!(out.len() as u64 <= LIMIT || out.len() == input.len()),
        Err(DecodeError::TooLarge { limit }) => assert_eq!(limit, LIMIT),
        Err(DecodeError::Corrupt { decoded, .. }) => assert!(decoded as u64 <= LIMIT + 1),
    }
}

fuzz_target!(|data: &[u8]| {
    check(data);
    if !data.starts_with(&[0x1f, 0x8b]) {
        let mut g = Vec::with_capacity(data.len() + 2);
        g.extend_from_slice(&[0x1f, 0x8b]);
        g.extend_from_slice(data);
        check(&g);
    }
});
