//! Input mutations: byte flips, deletions, duplications, splices with other corpus entries, and
//! replacements of numbers and words by boundary values (the inputs are text formats, so
//! token-level edits reach far more code than random bytes).

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Boundary values substituted for numbers.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "31",
    "32",
    "33",
    "63",
    "64",
    "255",
    "256",
    "4095",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "0x0",
    "0xffffffff",
    "0xffffffffffffffff",
    "1e309",
    "nan",
    "-0",
    "1.5",
    "0.0",
];

/// Tokens inserted at random places.
const TOKENS: &[&str] = &[
    "\n", " ", ";", ",", "{", "}", "[", "]", "(", ")", "=", ":", ".", "%", "\"", "'", "#", "-",
    "\0", "\u{ff}", "[[", "]]", "\\", "0x", "//", "/*", "*/", "\r\n",
];

/// One mutated copy of `input`; `other` is another corpus entry for splicing.
pub fn mutate(rng: &mut ChaCha8Rng, input: &[u8], other: &[u8], max_len: usize) -> Vec<u8> {
    let mut v = input.to_vec();
    let rounds = 1 + rng.gen_range(0..4u32);
    for _ in 0..rounds {
        let len = v.len();
        match rng.gen_range(0..10u32) {
            0 if len > 0 => {
                let i = rng.gen_range(0..len);
                v[i] ^= 1 << rng.gen_range(0..8u32);
            }
            1 if len > 0 => {
                let i = rng.gen_range(0..len);
                v[i] = rng.gen();
            }
            2 if len > 1 => {
                let a = rng.gen_range(0..len);
                let b = (a + rng.gen_range(1..=64.min(len - a))).min(len);
                v.drain(a..b);
            }
            3 if len > 1 => {
                let a = rng.gen_range(0..len);
                let b = (a + rng.gen_range(1..=256.min(len - a))).min(len);
                let chunk = v[a..b].to_vec();
                let at = rng.gen_range(0..=v.len());
                v.splice(at..at, chunk);
            }
            4 if !other.is_empty() => {
                // Splice: a prefix of this input with a suffix of the other.
                let a = rng.gen_range(0..=len);
                let b = rng.gen_range(0..other.len());
                v.truncate(a);
                v.extend_from_slice(&other[b..]);
            }
            5 | 6 => replace_number(rng, &mut v),
            7 => {
                let t = TOKENS[rng.gen_range(0..TOKENS.len())].as_bytes();
                let at = rng.gen_range(0..=v.len());
                v.splice(at..at, t.iter().copied());
            }
            8 if len > 0 => {
                // Drop a whole line.
                let at = rng.gen_range(0..len);
                let start = v[..at]
                    .iter()
                    .rposition(|&c| c == b'\n')
                    .map_or(0, |p| p + 1);
                let end = v[at..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(len, |p| at + p + 1);
                v.drain(start..end);
            }
            _ if len > 0 => {
                // Duplicate a line.
                let at = rng.gen_range(0..len);
                let start = v[..at]
                    .iter()
                    .rposition(|&c| c == b'\n')
                    .map_or(0, |p| p + 1);
                let end = v[at..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(len, |p| at + p + 1);
                let line = v[start..end].to_vec();
                v.splice(end..end, line);
            }
            _ => v.push(rng.gen()),
        }
    }
    v.truncate(max_len);
    v
}

/// Replaces one run of digits (a number) with a boundary value.
fn replace_number(rng: &mut ChaCha8Rng, v: &mut Vec<u8>) {
    let starts: Vec<usize> = (0..v.len())
        .filter(|&i| v[i].is_ascii_digit() && (i == 0 || !v[i - 1].is_ascii_alphanumeric()))
        .collect();
    if starts.is_empty() {
        return;
    }
    let a = starts[rng.gen_range(0..starts.len())];
    let b = a + v[a..]
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'.'))
        .unwrap_or(v.len() - a);
    let n = NUMBERS[rng.gen_range(0..NUMBERS.len())].as_bytes();
    v.splice(a..b, n.iter().copied());
}
