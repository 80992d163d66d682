//! Bitwise permutation (GPGPU-Sim `-gpgpu_memory_partition_indexing 1`): the channel index XOR
//! the `log2(channels)` lowest address bits above the channel bits.

/// `T[j] = 1 << j` for the low `bits` bits of the rest.
pub fn table(bits: u32) -> Result<[u64; 64], String> {
    if bits == 0 {
        return Err("xor channel indexing needs a power of two channels (at least 2)".into());
    }
    let mut t = [0; 64];
    for (j, v) in t.iter_mut().enumerate().take(bits as usize) {
        *v = 1 << j;
    }
    Ok(t)
}
