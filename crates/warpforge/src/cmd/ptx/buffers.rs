//! Device buffers of `ptx run`: element types, initialisers (`zeros`, `range`, `rand:SEED`,
//! `file:PATH.npy`) and the host-memory bounds that refuse absurd requests before allocating.

use anyhow::{anyhow, bail, Context};
use rand::{Rng, SeedableRng};
use warpforge_simt::npy::{self, Dtype};
use warpforge_simt::{DevPtr, KernelArg};

/// A buffer allocated on the device.
pub struct Buffer {
    pub dtype: Dtype,
    pub count: u64,
    pub ptr: DevPtr,
}

impl Buffer {
    /// Size in bytes.
    pub fn byte_len(&self) -> usize {
        self.count as usize * self.dtype.size()
    }
}

pub(super) fn dtype_of(t: &str) -> anyhow::Result<Dtype> {
    Ok(match t {
        "u8" => Dtype::U8,
        "i8" | "s8" => Dtype::I8,
        "u16" => Dtype::U16,
        "i16" | "s16" => Dtype::I16,
        "u32" => Dtype::U32,
        "i32" | "s32" => Dtype::I32,
        "u64" => Dtype::U64,
        "i64" | "s64" => Dtype::I64,
        "f32" => Dtype::F32,
        "f64" => Dtype::F64,
        _ => bail!("unknown element type `{t}` (expected u8 i8 u16 i16 u32 s32 u64 s64 f32 f64)"),
    })
}

/// Element `i` of `range` in `dtype`, little-endian.
fn range_elem(dtype: Dtype, i: u64, out: &mut Vec<u8>) {
    match dtype {
        Dtype::F32 => out.extend_from_slice(&(i as f32).to_le_bytes()),
        Dtype::F64 => out.extend_from_slice(&(i as f64).to_le_bytes()),
        d => out.extend_from_slice(&i.to_le_bytes()[..d.size()]),
    }
}

/// Largest buffer `ptx run --arg buf:...` accepts, in bytes (16 GiB): the simulated device
/// memory lives in host memory, so larger requests are refused with an error naming the
/// argument instead of exhausting the host.
pub(super) const MAX_BUFFER_BYTES: u64 = 16 << 30;

/// Bytes of a buffer of `count` elements of `dtype`, refused above [`MAX_BUFFER_BYTES`].
pub(super) fn buffer_bytes(dtype: Dtype, count: u64) -> anyhow::Result<usize> {
    let bytes = count
        .checked_mul(dtype.size() as u64)
        .filter(|&b| b <= MAX_BUFFER_BYTES)
        .ok_or_else(|| {
            anyhow!(
                "COUNT {count} x {} bytes exceeds the buffer limit of {MAX_BUFFER_BYTES} bytes (16 GiB)",
                dtype.size()
            )
        })?;
    usize::try_from(bytes).map_err(|_| anyhow!("{bytes} bytes do not fit in host memory"))
}

/// An empty vector with room for `bytes` bytes, or an error when the host cannot provide it.
pub(super) fn reserve(bytes: usize) -> anyhow::Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(bytes)
        .map_err(|e| anyhow!("cannot allocate {bytes} bytes of host memory: {e}"))?;
    Ok(v)
}

/// Checks the form of an initialiser (`zeros`, `range`, `rand:SEED`, `file:PATH`) without
/// reading or allocating anything.
pub(super) fn check_init(spec: &str) -> anyhow::Result<()> {
    match spec.split_once(':') {
        _ if spec == "zeros" || spec == "range" => Ok(()),
        Some(("rand", seed)) => seed
            .parse::<u64>()
            .map(|_| ())
            .map_err(|_| anyhow!("`rand:{seed}`: the seed must be an integer")),
        Some(("file", _)) => Ok(()),
        _ => bail!("unknown INIT `{spec}` (expected zeros, range, rand:SEED or file:PATH.npy)"),
    }
}

pub(super) fn init_bytes(spec: &str, dtype: Dtype, count: u64) -> anyhow::Result<Vec<u8>> {
    let bytes = buffer_bytes(dtype, count)?;
    let n = count as usize;
    if spec == "zeros" {
        let mut v = reserve(bytes)?;
        v.resize(bytes, 0);
        return Ok(v);
    }
    if spec == "range" {
        let mut v = reserve(bytes)?;
        (0..count).for_each(|i| range_elem(dtype, i, &mut v));
        return Ok(v);
    }
    if let Some(seed) = spec.strip_prefix("rand:") {
        let seed: u64 = seed
            .parse()
            .map_err(|_| anyhow!("`rand:{seed}`: the seed must be an integer"))?;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut v = reserve(bytes)?;
        for _ in 0..n {
            match dtype {
                Dtype::F32 => v.extend_from_slice(&rng.gen::<f32>().to_le_bytes()),
                Dtype::F64 => v.extend_from_slice(&rng.gen::<f64>().to_le_bytes()),
                d => v.extend_from_slice(&rng.gen::<u64>().to_le_bytes()[..d.size()]),
            }
        }
        return Ok(v);
    }
    if let Some(path) = spec.strip_prefix("file:") {
        let bytes = std::fs::read(path).with_context(|| format!("cannot read {path}"))?;
        let a = npy::read(&bytes).map_err(|e| anyhow!("{path}: {e}"))?;
        if a.dtype != dtype {
            bail!(
                "{path}: dtype {} does not match the buffer type {}",
                a.dtype.descr(),
                dtype.descr()
            );
        }
        if a.len() != count {
            bail!(
                "{path}: {} elements (shape {:?}), the buffer has {count}",
                a.len(),
                a.shape
            );
        }
        return Ok(a.data);
    }
    bail!("unknown INIT `{spec}` (expected zeros, range, rand:SEED or file:PATH.npy)")
}

pub(super) fn parse_scalar(kind: &str, v: &str) -> anyhow::Result<KernelArg> {
    let bad = |e: &dyn std::fmt::Display| anyhow!("`{kind}:{v}`: {e}");
    Ok(match kind {
        "u32" => KernelArg::U32(v.parse().map_err(|e| bad(&e))?),
        "s32" | "i32" => KernelArg::S32(v.parse().map_err(|e| bad(&e))?),
        "u64" => KernelArg::U64(v.parse().map_err(|e| bad(&e))?),
        "s64" | "i64" => KernelArg::S64(v.parse().map_err(|e| bad(&e))?),
        "f32" => KernelArg::F32(v.parse().map_err(|e| bad(&e))?),
        "f64" => KernelArg::F64(v.parse().map_err(|e| bad(&e))?),
        "bytes" => {
            if !v.len().is_multiple_of(2) || !v.bytes().all(|c| c.is_ascii_hexdigit()) {
                bail!("`bytes:{v}`: expected an even number of hexadecimal digits");
            }
            let b = (0..v.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&v[i..i + 2], 16).expect("checked hex"))
                .collect();
            KernelArg::Bytes(b)
        }
        _ => {
            bail!("unknown argument kind `{kind}` (expected u32 s32 u64 s64 f32 f64 bytes or buf)")
        }
    })
}
