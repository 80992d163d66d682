//! `warpforge ptx`: work with PTX files directly.
//!
//! - `check FILE.ptx`: parses the module and decodes every kernel and every function for
//!   execution; prints a one-line summary, or `error: file:line:col: ...` and exits 2.
//! - `run FILE.ptx --kernel K --grid X[,Y,Z] --block X[,Y,Z] [--shared BYTES] --arg ...
//!   [--out NAME=PATH.npy] [--launches N] [--max-warp-insts N]`: allocates the argument
//!   buffers, launches the kernel functionally and writes chosen buffers back as `.npy` files.
//!
//! `--arg` forms: a scalar `u32:5`, `s32:-1`, `u64:..`, `s64:..`, `f32:1.5`, `f64:..`, or a device
//! buffer `buf:NAME:TYPE:COUNT:INIT` with TYPE one of u8 i8 u16 i16 u32 s32 u64 s64 f32 f64 and
//! INIT one of `zeros`, `range` (0, 1, 2, ...), `rand:SEED` (integers uniform over the type,
//! floats uniform in [0, 1), ChaCha8 seeded) or `file:PATH.npy` (dtype and element count must
//! match). Every input is validated before anything runs; outputs are written to a temporary file
//! and renamed, so a failure never leaves a half-written `.npy`.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context};
use rand::{Rng, SeedableRng};
use warpforge_core::Dim3;
use warpforge_simt::npy::{self, Dtype};
use warpforge_simt::{DevPtr, Device, KernelArg, LaunchConfig};

/// Subcommands of `warpforge ptx`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Parse a PTX file and check that every kernel decodes for execution.
    Check {
        /// The PTX file.
        file: PathBuf,
    },
    /// Run a kernel of a PTX file functionally.
    Run(RunArgs),
}

/// Arguments of `warpforge ptx run`.
#[derive(clap::Args)]
pub struct RunArgs {
    /// The PTX file.
    pub file: PathBuf,
    /// Kernel (entry) name.
    #[arg(long)]
    pub kernel: String,
    /// Grid in CTAs: `X`, `X,Y` or `X,Y,Z`.
    #[arg(long, value_parser = parse_dim)]
    pub grid: Dim3,
    /// CTA in threads: `X`, `X,Y` or `X,Y,Z`.
    #[arg(long, value_parser = parse_dim)]
    pub block: Dim3,
    /// Dynamic shared memory per CTA in bytes.
    #[arg(long, default_value_t = 0)]
    pub shared: u32,
    /// Kernel argument, in parameter order (repeatable): `u32:5` or `buf:NAME:TYPE:COUNT:INIT`.
    #[arg(long = "arg", value_name = "ARG")]
    pub args: Vec<String>,
    /// Write buffer NAME to a `.npy` file after the run (repeatable): `NAME=PATH.npy`.
    #[arg(long = "out", value_name = "NAME=PATH")]
    pub outs: Vec<String>,
    /// Number of back-to-back launches.
    #[arg(long, default_value_t = 1)]
    pub launches: u32,
    /// Stop a launch after this many warp instructions (catches livelocks and spin-waits on
    /// other CTAs, which functional mode runs one after another).
    #[arg(long)]
    pub max_warp_insts: Option<u64>,
}

/// Parses `X[,Y[,Z]]`.
pub fn parse_dim(s: &str) -> Result<Dim3, String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: expected X, X,Y or X,Y,Z"));
    }
    let mut v = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = p
            .trim()
            .parse()
            .map_err(|_| format!("`{s}`: `{p}` is not a non-negative integer"))?;
        if v[i] == 0 {
            return Err(format!("`{s}`: extents must be at least 1"));
        }
    }
    Ok(Dim3::new(v[0], v[1], v[2]))
}

/// Runs the subcommand.
pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Check { file } => check(&file),
        Command::Run(a) => run_kernel(a),
    }
}

fn read_ptx(file: &Path) -> anyhow::Result<String> {
    std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))
}

fn check(file: &Path) -> anyhow::Result<()> {
    let text = read_ptx(file)?;
    let mut dev = Device::new();
    let m = dev
        .load_ptx(&text, &file.display().to_string())
        .map_err(|e| anyhow!("{e}"))?;
    dev.validate_all(m).map_err(|e| anyhow!("{e}"))?;
    let md = dev.module(m).expect("loaded module");
    let kernels: Vec<&str> = md.kernels().map(|k| k.name.as_str()).collect();
    let funcs = md
        .functions
        .iter()
        .filter(|f| !f.is_entry && !f.is_decl)
        .count();
    let insts: usize = md.functions.iter().map(|f| f.insts.len()).sum();
    println!(
        "{}: ok: {} kernel{} ({}), {} function{}, {} instructions",
        file.display(),
        kernels.len(),
        if kernels.len() == 1 { "" } else { "s" },
        kernels.join(", "),
        funcs,
        if funcs == 1 { "" } else { "s" },
        insts
    );
    Ok(())
}

/// One buffer argument.
struct Buffer {
    name: String,
    dtype: Dtype,
    count: u64,
    ptr: DevPtr,
}

fn dtype_of(t: &str) -> anyhow::Result<Dtype> {
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
pub const MAX_BUFFER_BYTES: u64 = 16 << 30;

/// Bytes of a buffer of `count` elements of `dtype`, refused above [`MAX_BUFFER_BYTES`].
fn buffer_bytes(dtype: Dtype, count: u64) -> anyhow::Result<usize> {
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
fn reserve(bytes: usize) -> anyhow::Result<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(bytes)
        .map_err(|e| anyhow!("cannot allocate {bytes} bytes of host memory: {e}"))?;
    Ok(v)
}

fn init_bytes(spec: &str, dtype: Dtype, count: u64) -> anyhow::Result<Vec<u8>> {
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

fn parse_scalar(kind: &str, v: &str) -> anyhow::Result<KernelArg> {
    let bad = |e: &dyn std::fmt::Display| anyhow!("`{kind}:{v}`: {e}");
    Ok(match kind {
        "u32" => KernelArg::U32(v.parse().map_err(|e| bad(&e))?),
        "s32" | "i32" => KernelArg::S32(v.parse().map_err(|e| bad(&e))?),
        "u64" => KernelArg::U64(v.parse().map_err(|e| bad(&e))?),
        "s64" | "i64" => KernelArg::S64(v.parse().map_err(|e| bad(&e))?),
        "f32" => KernelArg::F32(v.parse().map_err(|e| bad(&e))?),
        "f64" => KernelArg::F64(v.parse().map_err(|e| bad(&e))?),
        _ => bail!("unknown argument kind `{kind}` (expected u32 s32 u64 s64 f32 f64 or buf)"),
    })
}

fn run_kernel(a: RunArgs) -> anyhow::Result<()> {
    let text = read_ptx(&a.file)?;
    let mut dev = Device::new();
    dev.set_instruction_limit(a.max_warp_insts);
    let m = dev
        .load_ptx(&text, &a.file.display().to_string())
        .map_err(|e| anyhow!("{e}"))?;
    // Arguments.
    let mut args = Vec::new();
    let mut bufs: Vec<Buffer> = Vec::new();
    for (i, s) in a.args.iter().enumerate() {
        let ctx = || format!("--arg {} (`{s}`)", i + 1);
        if let Some(rest) = s.strip_prefix("buf:") {
            let parts: Vec<&str> = rest.splitn(4, ':').collect();
            if parts.len() != 4 {
                bail!("{}: expected buf:NAME:TYPE:COUNT:INIT", ctx());
            }
            let (name, ty, count, init) = (parts[0], parts[1], parts[2], parts[3]);
            if name.is_empty() || bufs.iter().any(|b| b.name == name) {
                bail!("{}: buffer name `{name}` is empty or used twice", ctx());
            }
            let dtype = dtype_of(ty).with_context(ctx)?;
            let count: u64 = count
                .parse()
                .map_err(|_| anyhow!("{}: COUNT `{count}` is not an integer", ctx()))?;
            let data = init_bytes(init, dtype, count).with_context(ctx)?;
            let ptr = dev.malloc(data.len() as u64).with_context(ctx)?;
            dev.copy_htod(ptr, &data)?;
            args.push(KernelArg::Ptr(ptr));
            bufs.push(Buffer {
                name: name.to_string(),
                dtype,
                count,
                ptr,
            });
        } else {
            let (kind, v) = s.split_once(':').ok_or_else(|| {
                anyhow!("{}: expected TYPE:VALUE or buf:NAME:TYPE:COUNT:INIT", ctx())
            })?;
            args.push(parse_scalar(kind, v).with_context(ctx)?);
        }
    }
    // Outputs, validated before running.
    let mut outs = Vec::new();
    for o in &a.outs {
        let (name, path) = o
            .split_once('=')
            .ok_or_else(|| anyhow!("--out `{o}`: expected NAME=PATH.npy"))?;
        let idx = bufs.iter().position(|b| b.name == name).ok_or_else(|| {
            let names: Vec<&str> = bufs.iter().map(|b| b.name.as_str()).collect();
            anyhow!(
                "--out `{o}`: no buffer named `{name}` (buffers: {})",
                names.join(", ")
            )
        })?;
        outs.push((idx, PathBuf::from(path)));
    }
    if a.launches == 0 {
        bail!("--launches must be at least 1");
    }
    let cfg = LaunchConfig {
        grid: a.grid,
        block: a.block,
        shared_bytes: a.shared,
    };
    let t = Instant::now();
    for _ in 0..a.launches {
        dev.launch(m, &a.kernel, cfg, &args)
            .map_err(|e| anyhow!("{e}"))?;
    }
    let secs = t.elapsed().as_secs_f64();
    let st = dev.total_stats();
    println!(
        "{} grid {} block {}: {} launch{}, {} warp instructions, {} thread instructions, {:.3} s",
        a.kernel,
        a.grid,
        a.block,
        a.launches,
        if a.launches == 1 { "" } else { "es" },
        st.warp_insts,
        st.thread_insts,
        secs
    );
    for (idx, path) in outs {
        let b = &bufs[idx];
        let data: Vec<u8> = dev.read(b.ptr, (b.count as usize) * b.dtype.size())?;
        write_atomically(&path, &npy::write(b.dtype, &data))?;
        println!(
            "wrote {} ({} x {})",
            path.display(),
            b.count,
            b.dtype.descr()
        );
    }
    Ok(())
}

/// Writes `bytes` to a temporary file beside `path`, then renames it into place.
fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| anyhow!("{}: not a file path", path.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        anyhow!("cannot write {}: {e}", path.display())
    })
}
