//! Memory-partition (channel) indexing (GPGPU-Sim `-gpgpu_memory_partition_indexing`): the
//! channel of an address is its consecutive channel index (`(addr >> channel_bit) mod
//! channels`, [`super::addrmap`]) XOR a function `f` of the address bits above the channel
//! bits, so that power-of-two strides spread over the channels. Every function here is linear
//! over GF(2), given by a table `T` of 64 values: `f(rest) = XOR of T[j] for every set bit j of
//! rest`; XOR with `f(rest)` is its own inverse, so the channel-local address stays the
//! address with the channel bits removed and write-backs map back exactly.
//!
//! Adding a function: one file with a `table(bits)` function, one row in [`CHANNEL_INDEX`].

mod consecutive;
mod ipoly;
mod xor;

/// A table builder: `bits` = log2(channels) (0 when the channel count is not a power of two);
/// an error names the restriction.
pub type TableFn = fn(bits: u32) -> Result<[u64; 64], String>;

/// Registry: (name, description, table builder).
pub const CHANNEL_INDEX: &[(&str, &str, TableFn)] = &[
    (
        "consecutive",
        "consecutive channel-bit chunks rotate over the channels (GPGPU-Sim 0)",
        consecutive::table,
    ),
    (
        "xor",
        "channel bits XOR the lowest bits above them (GPGPU-Sim 1, bitwise permutation)",
        xor::table,
    ),
    (
        "ipoly",
        "channel = address polynomial mod a primitive polynomial over GF(2) (GPGPU-Sim 2, IPOLY)",
        ipoly::table,
    ),
];

/// The table of function `name` for `channels` channels.
pub fn table(name: &str, channels: u32) -> Result<[u64; 64], String> {
    let Some(r) = CHANNEL_INDEX.iter().find(|r| r.0 == name) else {
        return Err(format!(
            "unknown channel index `{name}` (known: {})",
            names().join(", ")
        ));
    };
    let bits = if channels.is_power_of_two() {
        channels.trailing_zeros()
    } else {
        0
    };
    (r.2)(bits)
}

/// Registered names.
pub fn names() -> Vec<&'static str> {
    CHANNEL_INDEX.iter().map(|r| r.0).collect()
}

/// `f(rest)` for table `t`.
#[inline]
pub fn mix(t: &[u64; 64], mut rest: u64) -> u64 {
    let mut v = 0;
    while rest != 0 {
        let j = rest.trailing_zeros();
        v ^= t[j as usize];
        rest &= rest - 1;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every function maps each aligned block of `channels` consecutive chunks, and each
    /// power-of-two stride of chunks, onto all channels.
    #[test]
    fn strides_spread_over_all_channels() {
        for name in ["xor", "ipoly"] {
            for ch in [4u32, 16, 32, 64] {
                let t = table(name, ch).unwrap();
                for stride in [1u64, 2, 8, 32, 64, 1024] {
                    let mut seen = std::collections::BTreeSet::new();
                    for i in 0..ch as u64 {
                        let chunk = i * stride;
                        let (rest, low) = (chunk / ch as u64, chunk % ch as u64);
                        seen.insert(low ^ mix(&t, rest));
                    }
                    let want = if name == "xor" && stride > ch as u64 {
                        0
                    } else {
                        ch as usize
                    };
                    if want > 0 {
                        assert_eq!(seen.len(), want, "{name} {ch} channels, stride {stride}");
                    }
                }
            }
        }
    }

    #[test]
    fn consecutive_is_the_identity_and_ipoly_needs_a_power_of_two() {
        assert!(table("consecutive", 6).unwrap().iter().all(|&v| v == 0));
        assert!(table("ipoly", 80).unwrap_err().contains("power of two"));
        assert!(table("nope", 8).unwrap_err().contains("ipoly"));
    }
}
