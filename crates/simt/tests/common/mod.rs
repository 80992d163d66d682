//! Harness for hand-written PTX tests: wraps an instruction sequence into a kernel whose threads
//! each own 16 result slots of 8 bytes in `out` (`%rd63` points at the thread's first slot) and
//! may use an auxiliary buffer (`%rd61`).
#![allow(dead_code)]

use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg, LaunchConfig, SimtError};

/// Result slots per thread.
pub const SLOTS: usize = 16;

/// Builds the PTX module text around `body` with module-scope declarations `globals`.
pub fn module(globals: &str, body: &str) -> String {
    format!(
        r#"
.version 7.0
.target sm_70
.address_size 64
{globals}
.visible .entry t(.param .u64 out, .param .u64 aux)
{{
  .reg .pred %p<16>;
  .reg .b16 %h<16>;
  .reg .b32 %r<64>;
  .reg .b64 %rd<64>;
  .reg .f32 %f<32>;
  .reg .f64 %fd<16>;
  ld.param.u64 %rd60, [out];
  ld.param.u64 %rd61, [aux];
  mov.u32 %r60, %tid.x;
  mov.u32 %r61, %ctaid.x;
  mov.u32 %r62, %ntid.x;
  mad.lo.s32 %r63, %r61, %r62, %r60;
  mul.wide.u32 %rd62, %r63, 128;
  add.s64 %rd63, %rd60, %rd62;
{body}
  ret;
}}
"#
    )
}

/// Outcome of a corpus run.
pub struct Run {
    /// Per thread, its 16 result slots.
    pub out: Vec<[u64; SLOTS]>,
    /// The auxiliary buffer after the run.
    pub aux: Vec<u64>,
    /// The device, for further inspection.
    pub dev: Device,
    /// The device addresses of `out` and `aux` (the kernel's two parameters).
    pub out_ptr: u64,
    /// See `out_ptr`.
    pub aux_ptr: u64,
}

/// Runs `body` with `grid` × `block` threads; `aux` initialises the auxiliary buffer.
pub fn try_run(
    globals: &str,
    body: &str,
    grid: u32,
    block: u32,
    aux: &[u64],
) -> Result<Run, SimtError> {
    let mut dev = Device::new();
    let m = dev.load_ptx(&module(globals, body), "corpus.ptx")?;
    let threads = (grid * block) as usize;
    let out = dev.malloc((threads * SLOTS * 8) as u64)?;
    let aux_buf = if aux.is_empty() {
        vec![0u64; 16]
    } else {
        aux.to_vec()
    };
    let daux = dev.alloc_copy(&aux_buf)?;
    let cfg = LaunchConfig {
        grid: Dim3::x(grid),
        block: Dim3::x(block),
        shared_bytes: 0,
    };
    dev.launch(m, "t", cfg, &[KernelArg::Ptr(out), KernelArg::Ptr(daux)])?;
    let flat: Vec<u64> = dev.read(out, threads * SLOTS)?;
    let flat_out = flat
        .chunks(SLOTS)
        .map(|c| {
            let mut a = [0u64; SLOTS];
            a.copy_from_slice(c);
            a
        })
        .collect();
    let aux = dev.read(daux, aux_buf.len())?;
    Ok(Run {
        out: flat_out,
        aux,
        dev,
        out_ptr: out.0,
        aux_ptr: daux.0,
    })
}

/// [`try_run`], panicking with the error message on failure.
pub fn run(globals: &str, body: &str, grid: u32, block: u32, aux: &[u64]) -> Run {
    match try_run(globals, body, grid, block, aux) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    }
}

/// Deterministic pseudo-random values (xorshift32 from `seed | 1`).
pub fn data(n: usize, seed: u32) -> Vec<u32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        })
        .collect()
}
