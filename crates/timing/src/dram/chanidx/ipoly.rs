//! IPOLY indexing (GPGPU-Sim `-gpgpu_memory_partition_indexing 2`; Rau, "Pseudo-randomly
//! interleaved memory", ISCA 1991): the chunk number, read as a polynomial over GF(2), modulo a
//! primitive polynomial `P` of degree `log2(channels)`. With the chunk = `rest * x^d + low`,
//! that is `low XOR (rest * x^d mod P)`, so `T[j] = x^(j + d) mod P`. Any `2^d` consecutive
//! chunks, and any `2^d` chunks at a power-of-two stride, fall on distinct channels. Decision:
//! the polynomials are the usual primitive trinomials / pentanomials of each degree (GPGPU-Sim
//! fixes its own for 16, 32 and 64 channels, so channel numbers differ from its, not the
//! spreading property).

/// Primitive polynomials by degree (bit d set), degrees 1 to 10.
const POLY: [u64; 11] = [
    0,
    0b11,
    0b111,
    0b1011,
    0b1_0011,
    0b10_0101,
    0b100_0011,
    0b1000_0011,
    0x11D,
    0x211,
    0x409,
];

/// `T[j] = x^(j + bits) mod P`.
pub fn table(bits: u32) -> Result<[u64; 64], String> {
    if bits == 0 || bits as usize >= POLY.len() {
        return Err(format!(
            "ipoly channel indexing needs a power of two channels from 2 to {}",
            1 << (POLY.len() - 1)
        ));
    }
    let p = POLY[bits as usize];
    let mut t = [0; 64];
    // v = x^bits mod P, then multiply by x each step.
    let mut v = p ^ (1 << bits);
    for e in t.iter_mut() {
        *e = v;
        v <<= 1;
        if v & (1 << bits) != 0 {
            v ^= p;
        }
    }
    Ok(t)
}
