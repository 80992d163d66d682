//! Consecutive indexing: no mixing (GPGPU-Sim `-gpgpu_memory_partition_indexing 0`).

/// All zero: the channel is the consecutive index.
pub fn table(_bits: u32) -> Result<[u64; 64], String> {
    Ok([0; 64])
}
