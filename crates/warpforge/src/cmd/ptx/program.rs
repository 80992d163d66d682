//! What `ptx run` executes: a *launch program*, buffers created once and then a sequence of
//! kernel launches over them, built from the command line (one kernel, `--launches N`) or from a
//! launch script (`--script FILE.toml|FILE.json`) for programs of several kernels.
//!
//! A launch script names the PTX file (relative to the script), declares the buffers and lists
//! the launches in order; a launch's `args` are `buf:NAME` (a declared buffer) or a scalar
//! `TYPE:VALUE` as on the command line:
//!
//! ```toml
//! ptx = "vecadd.ptx"
//! [[buffer]]
//! name = "x"
//! type = "s32"      # u8 i8 u16 i16 u32 s32 u64 s64 f32 f64
//! count = 500
//! init = "range"    # zeros (default), range, rand:SEED, file:PATH.npy (relative to the script)
//! [[launch]]
//! kernel = "saxpy_i32"
//! grid = 4          # X, "X,Y,Z" or [X, Y, Z]
//! block = 128
//! shared = 0        # dynamic shared memory in bytes (default 0)
//! args = ["s32:-3", "buf:x", "buf:y", "u32:500"]
//! repeat = 1        # back-to-back launches (default 1)
//! ```
//!
//! Launch bundles (`warpforge run W --dump-launches DIR`) add a buffer's `address` (the replay
//! checks its allocation lands there), a launch's `inputs = { NAME = "FILE.npy" }` (copied in
//! before the launch: what the host wrote between launches), `buf:NAME+OFFSET` arguments and
//! `bytes:HEX` by-value parameters. They also carry the module's `.global` variables as the
//! host left them (`[[global]] name = "cp_atoms" init = "file:g0.npy"`, and a launch's
//! `global_inputs = { cp_atoms = "FILE.npy" }` where the host rewrote one between launches),
//! and each buffer's bytes after the recorded run's last launch where a kernel changed them
//! (`expect = "final_b3.npy"`): the replay compares its final memory with them (`check`).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use serde::Deserialize;
use warpforge_core::Dim3;
use warpforge_simt::npy::{self, Dtype};
use warpforge_simt::{DevPtr, Device, KernelArg, LaunchConfig, ModuleId};

use super::buffers::{buffer_bytes, check_init, dtype_of, init_bytes, parse_scalar, Buffer};

/// A buffer to create before the first launch.
pub struct BufferSpec {
    /// The device address it must get (launch bundles record it, so that pointers stored
    /// inside buffers stay valid); `None`: wherever it lands.
    pub address: Option<u64>,
    /// Name used by `buf:NAME` and `--out NAME=...`.
    pub name: String,
    /// Element type.
    pub dtype: Dtype,
    /// Element count.
    pub count: u64,
    /// Initialiser (`zeros`, `range`, `rand:SEED`, `file:PATH.npy`).
    pub init: String,
    /// The buffer's bytes at the end of the recorded run (`.npy`), compared after the replay.
    pub expect: Option<PathBuf>,
}

/// A module-scope `.global` variable written before the first launch (launch bundles).
pub struct GlobalSpec {
    /// The PTX variable name.
    pub name: String,
    /// Its bytes (`.npy`, `u8`), as many as the variable has.
    pub file: PathBuf,
}

/// A kernel argument: a buffer (index into [`Program::buffers`]) or a scalar.
pub enum ArgSpec {
    /// The device address of a buffer plus a byte offset.
    Buffer(usize, u64),
    /// A scalar value.
    Scalar(KernelArg),
}

/// One kernel launch, repeated `repeat` times back to back.
pub struct LaunchSpec {
    /// Kernel (entry) name.
    pub kernel: String,
    /// Grid, CTA shape and dynamic shared bytes.
    pub cfg: LaunchConfig,
    /// Arguments in parameter order.
    pub args: Vec<ArgSpec>,
    /// Number of back-to-back launches (at least 1).
    pub repeat: u32,
    /// Buffers overwritten from `.npy` files before the launch (what the host wrote between
    /// launches): (buffer index, file).
    pub inputs: Vec<(usize, PathBuf)>,
    /// Module `.global` variables overwritten before the launch: (variable name, file).
    pub global_inputs: Vec<(String, PathBuf)>,
}

/// Buffers, then launches in order.
pub struct Program {
    /// The PTX file.
    pub ptx: PathBuf,
    /// Buffers, created and initialised before anything runs.
    pub buffers: Vec<BufferSpec>,
    /// Module variables written after the module is loaded, before the first launch.
    pub globals: Vec<GlobalSpec>,
    /// Launches in program order.
    pub launches: Vec<LaunchSpec>,
}

/// A program whose buffers are allocated and whose module is loaded on a device.
pub struct Loaded {
    /// The loaded module.
    pub module: ModuleId,
    /// The allocated buffers, in [`Program::buffers`] order.
    pub buffers: Vec<Buffer>,
    /// Each launch's arguments, resolved to device addresses.
    pub args: Vec<Vec<KernelArg>>,
}

/// Parses one argument: a scalar `TYPE:VALUE`, a reference `buf:NAME` to a declared buffer, or
/// (when `declare` is set, i.e. on the command line) a declaration `buf:NAME:TYPE:COUNT:INIT`.
fn parse_arg(s: &str, buffers: &mut Vec<BufferSpec>, declare: bool) -> anyhow::Result<ArgSpec> {
    if let Some(rest) = s.strip_prefix("buf:") {
        let parts: Vec<&str> = rest.splitn(4, ':').collect();
        if parts.len() == 1 && !declare {
            let (name, off) = match parts[0].split_once('+') {
                Some((n, o)) => (
                    n,
                    o.parse::<u64>()
                        .map_err(|_| anyhow!("`+{o}`: the offset must be a byte count"))?,
                ),
                None => (parts[0], 0),
            };
            return buffers
                .iter()
                .position(|b| b.name == name)
                .map(|i| ArgSpec::Buffer(i, off))
                .ok_or_else(|| {
                    let names: Vec<&str> = buffers.iter().map(|b| b.name.as_str()).collect();
                    anyhow!(
                        "no buffer named `{name}` (declared: {})",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    )
                });
        }
        if parts.len() != 4 || !declare {
            bail!(if declare {
                "expected buf:NAME:TYPE:COUNT:INIT"
            } else {
                "expected buf:NAME (a buffer of the script's [[buffer]] list)"
            });
        }
        let (name, ty, count, init) = (parts[0], parts[1], parts[2], parts[3]);
        let spec = buffer_spec(name, ty, count, init, buffers)?;
        buffers.push(spec);
        return Ok(ArgSpec::Buffer(buffers.len() - 1, 0));
    }
    let (kind, v) = s
        .split_once(':')
        .ok_or_else(|| anyhow!("expected TYPE:VALUE or buf:NAME:TYPE:COUNT:INIT"))?;
    Ok(ArgSpec::Scalar(parse_scalar(kind, v)?))
}

/// A validated buffer declaration (name unique and non-empty, known type, integer count).
fn buffer_spec(
    name: &str,
    ty: &str,
    count: &str,
    init: &str,
    existing: &[BufferSpec],
) -> anyhow::Result<BufferSpec> {
    if name.is_empty() || existing.iter().any(|b| b.name == name) {
        bail!("buffer name `{name}` is empty or used twice");
    }
    let dtype = dtype_of(ty)?;
    check_init(init)?;
    let count: u64 = count
        .parse()
        .map_err(|_| anyhow!("COUNT `{count}` is not an integer"))?;
    buffer_bytes(dtype, count)?;
    Ok(BufferSpec {
        address: None,
        name: name.to_string(),
        dtype,
        count,
        init: init.to_string(),
        expect: None,
    })
}

impl Program {
    /// The program of a command line: `launches` launches of one kernel.
    pub fn from_cli(
        ptx: &Path,
        kernel: &str,
        cfg: LaunchConfig,
        args: &[String],
        launches: u32,
    ) -> anyhow::Result<Self> {
        if launches == 0 {
            bail!("--launches must be at least 1");
        }
        let mut buffers = Vec::new();
        let mut specs = Vec::new();
        for (i, s) in args.iter().enumerate() {
            let arg = parse_arg(s, &mut buffers, true)
                .with_context(|| format!("--arg {} (`{s}`)", i + 1))?;
            specs.push(arg);
        }
        Ok(Self {
            ptx: ptx.to_path_buf(),
            buffers,
            globals: Vec::new(),
            launches: vec![LaunchSpec {
                kernel: kernel.to_string(),
                cfg,
                args: specs,
                repeat: launches,
                inputs: Vec::new(),
                global_inputs: Vec::new(),
            }],
        })
    }

    /// The program of a launch script (TOML, or JSON for a `.json` file). Paths in it (`ptx`,
    /// `file:` initialisers) are relative to the script's directory. Errors name the script,
    /// the line where the parser can tell it, and the launch or buffer.
    pub fn from_script(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let script: Script = if path.extension().is_some_and(|e| e == "json") {
            serde_json::from_str(&text)
                .map_err(|e| anyhow!("{}:{}: {e}", path.display(), e.line()))?
        } else {
            toml::from_str(&text).map_err(|e| {
                let line = e.span().map(|s| {
                    1 + text.as_bytes()[..s.start.min(text.len())]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count()
                });
                match line {
                    Some(l) => anyhow!("{}:{l}: {}", path.display(), e.message()),
                    None => anyhow!("{}: {}", path.display(), e.message()),
                }
            })?
        };
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let at = |what: String| format!("{}: {what}", path.display());
        if script.launches.is_empty() {
            bail!(at("no [[launch]] entries".into()));
        }
        let readable = |what: String, f: &Path| -> anyhow::Result<PathBuf> {
            let file = dir.join(f);
            if !file.is_file() {
                bail!(at(format!("{what}: cannot read {}", file.display())));
            }
            Ok(file)
        };
        let mut buffers = Vec::new();
        for (i, b) in script.buffers.iter().enumerate() {
            let init = match b.init.strip_prefix("file:") {
                Some(f) => format!("file:{}", dir.join(f).display()),
                None => b.init.clone(),
            };
            let mut spec = buffer_spec(&b.name, &b.ty, &b.count.to_string(), &init, &buffers)
                .with_context(|| at(format!("buffer {} (`{}`)", i + 1, b.name)))?;
            spec.address = b.address;
            if let Some(f) = &b.expect {
                spec.expect = Some(readable(format!("buffer `{}`: expect", b.name), f)?);
            }
            buffers.push(spec);
        }
        let mut globals = Vec::new();
        for g in &script.globals {
            let f = g.init.strip_prefix("file:").ok_or_else(|| {
                anyhow!(at(format!(
                    "global `{}`: init must be file:PATH.npy",
                    g.name
                )))
            })?;
            let file = readable(format!("global `{}`", g.name), Path::new(f))?;
            globals.push(GlobalSpec {
                name: g.name.clone(),
                file,
            });
        }
        let mut launches = Vec::new();
        for (i, l) in script.launches.iter().enumerate() {
            let ctx = || at(format!("launch {} (`{}`)", i + 1, l.kernel));
            if l.repeat == 0 {
                bail!("{}: repeat must be at least 1", ctx());
            }
            let grid = l.grid.dim().map_err(|e| anyhow!("{}: grid {e}", ctx()))?;
            let block = l.block.dim().map_err(|e| anyhow!("{}: block {e}", ctx()))?;
            let mut args = Vec::new();
            for (j, a) in l.args.iter().enumerate() {
                let arg = parse_arg(a, &mut buffers, false)
                    .with_context(|| format!("{}: argument {} (`{a}`)", ctx(), j + 1))?;
                args.push(arg);
            }
            let mut inputs = Vec::new();
            for (name, file) in &l.inputs {
                let i = buffers
                    .iter()
                    .position(|b| &b.name == name)
                    .ok_or_else(|| anyhow!("{}: inputs: no buffer named `{name}`", ctx()))?;
                let file = dir.join(file);
                if !file.is_file() {
                    bail!("{}: inputs: cannot read {}", ctx(), file.display());
                }
                inputs.push((i, file));
            }
            let mut global_inputs = Vec::new();
            for (name, file) in &l.global_inputs {
                let file = readable(
                    format!("launch {} (`{}`): global_inputs `{name}`", i + 1, l.kernel),
                    file,
                )?;
                global_inputs.push((name.clone(), file));
            }
            launches.push(LaunchSpec {
                kernel: l.kernel.clone(),
                cfg: LaunchConfig {
                    grid,
                    block,
                    shared_bytes: l.shared,
                },
                args,
                repeat: l.repeat,
                inputs,
                global_inputs,
            });
        }
        Ok(Self {
            ptx: dir.join(&script.ptx),
            buffers,
            globals,
            launches,
        })
    }

    /// Loads the module and creates every buffer on `dev`, and checks that every launched
    /// kernel exists, before anything runs.
    pub fn load(&self, dev: &mut Device) -> anyhow::Result<Loaded> {
        let text = std::fs::read_to_string(&self.ptx)
            .with_context(|| format!("cannot read {}", self.ptx.display()))?;
        let module = dev
            .load_ptx(&text, &self.ptx.display().to_string())
            .map_err(|e| anyhow!("{e}"))?;
        let md = dev.module(module).expect("loaded module");
        let mut kernels: Vec<String> = md.kernels().map(|k| k.name.clone()).collect();
        kernels.sort();
        for l in &self.launches {
            if !kernels.contains(&l.kernel) {
                bail!(
                    "{}: no kernel `{}`; available kernels: {}",
                    self.ptx.display(),
                    l.kernel,
                    kernels.join(", ")
                );
            }
        }
        let mut buffers = Vec::new();
        for b in &self.buffers {
            let ctx = || format!("buffer `{}`", b.name);
            let data = init_bytes(&b.init, b.dtype, b.count).with_context(ctx)?;
            let ptr = dev.malloc(data.len() as u64).with_context(ctx)?;
            if let Some(want) = b.address.filter(|&a| a != ptr.0) {
                bail!(
                    "buffer `{}` was allocated at 0x{:x}, the script requires 0x{want:x} (allocations must come in the recorded order and sizes)",
                    b.name,
                    ptr.0
                );
            }
            dev.copy_htod(ptr, &data)?;
            buffers.push(Buffer {
                dtype: b.dtype,
                count: b.count,
                ptr,
            });
        }
        for g in &self.globals {
            write_global(dev, module, &g.name, &g.file)?;
        }
        let args = self
            .launches
            .iter()
            .map(|l| {
                l.args
                    .iter()
                    .map(|a| match a {
                        ArgSpec::Buffer(i, off) => KernelArg::Ptr(DevPtr(buffers[*i].ptr.0 + off)),
                        ArgSpec::Scalar(v) => v.clone(),
                    })
                    .collect()
            })
            .collect();
        Ok(Loaded {
            module,
            buffers,
            args,
        })
    }

    /// Copies launch `k`'s `inputs` files into their buffers (before its first repeat).
    pub fn apply_inputs(&self, k: usize, dev: &mut Device, loaded: &Loaded) -> anyhow::Result<()> {
        for (i, file) in &self.launches[k].inputs {
            let (spec, buf) = (&self.buffers[*i], &loaded.buffers[*i]);
            let spec_text = format!("file:{}", file.display());
            let data = init_bytes(&spec_text, spec.dtype, spec.count)
                .with_context(|| format!("launch {} input for `{}`", k + 1, spec.name))?;
            dev.copy_htod(buf.ptr, &data)?;
        }
        for (name, file) in &self.launches[k].global_inputs {
            write_global(dev, loaded.module, name, file)
                .with_context(|| format!("launch {} global input", k + 1))?;
        }
        Ok(())
    }

    /// Compares every buffer that has an `expect` file with its bytes now (after the last
    /// launch). Returns the number of buffers compared and one line per buffer that differs
    /// (first differing byte and the count of differing bytes).
    pub fn check_expected(
        &self,
        dev: &mut Device,
        loaded: &Loaded,
    ) -> anyhow::Result<(usize, Vec<String>)> {
        let mut compared = 0;
        let mut bad = Vec::new();
        for (spec, buf) in self.buffers.iter().zip(&loaded.buffers) {
            let Some(file) = &spec.expect else { continue };
            let want = npy_bytes(file)?;
            let have: Vec<u8> = dev.read(buf.ptr, want.len().min(buf.byte_len()))?;
            compared += 1;
            if have.len() != want.len() {
                bad.push(format!(
                    "buffer `{}`: {} bytes recorded, {} now",
                    spec.name,
                    want.len(),
                    buf.byte_len()
                ));
            } else if let Some(first) = have.iter().zip(&want).position(|(a, b)| a != b) {
                let n = have.iter().zip(&want).filter(|(a, b)| a != b).count();
                bad.push(format!(
                    "buffer `{}`: {n} of {} bytes differ from the recorded run, the first at byte {first}",
                    spec.name,
                    want.len()
                ));
            }
        }
        Ok((compared, bad))
    }

    /// The launches as JSON (`kernel`, `grid`, `block`, `shared`, `repeat`).
    pub fn launches_json(&self) -> serde_json::Value {
        let dim = |d: Dim3| serde_json::json!([d.x, d.y, d.z]);
        self.launches
            .iter()
            .map(|l| {
                serde_json::json!({
                    "kernel": l.kernel,
                    "grid": dim(l.cfg.grid),
                    "block": dim(l.cfg.block),
                    "shared": l.cfg.shared_bytes,
                    "repeat": l.repeat,
                })
            })
            .collect()
    }
}

/// A launch script as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Script {
    ptx: PathBuf,
    #[serde(default, rename = "buffer")]
    buffers: Vec<ScriptBuffer>,
    #[serde(default, rename = "global")]
    globals: Vec<ScriptGlobal>,
    #[serde(default, rename = "launch")]
    launches: Vec<ScriptLaunch>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptGlobal {
    name: String,
    init: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptBuffer {
    name: String,
    #[serde(rename = "type")]
    ty: String,
    count: u64,
    #[serde(default = "zeros")]
    init: String,
    #[serde(default)]
    address: Option<u64>,
    #[serde(default)]
    expect: Option<PathBuf>,
}

fn zeros() -> String {
    "zeros".into()
}

fn one() -> u32 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptLaunch {
    kernel: String,
    grid: DimSpec,
    block: DimSpec,
    #[serde(default)]
    shared: u32,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default = "one")]
    repeat: u32,
    #[serde(default)]
    inputs: std::collections::BTreeMap<String, PathBuf>,
    #[serde(default)]
    global_inputs: std::collections::BTreeMap<String, PathBuf>,
}

/// The bytes of a `.npy` file (any dtype).
fn npy_bytes(file: &Path) -> anyhow::Result<Vec<u8>> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    Ok(npy::read(&bytes)
        .map_err(|e| anyhow!("{}: {e}", file.display()))?
        .data)
}

/// Writes a `.npy` file's bytes into module variable `name`, which must be a `.global`
/// variable of exactly that size.
fn write_global(dev: &mut Device, m: ModuleId, name: &str, file: &Path) -> anyhow::Result<()> {
    let ptr = dev.symbol_address(m, name).ok_or_else(|| {
        anyhow!("global `{name}`: the module has no .global variable of that name")
    })?;
    let size = dev
        .allocations()
        .find(|(p, _, _)| *p == ptr)
        .map(|(_, d, _)| d.len())
        .unwrap_or(0);
    let data = npy_bytes(file)?;
    if data.len() != size {
        bail!(
            "global `{name}`: {} holds {} bytes, the variable has {size}",
            file.display(),
            data.len()
        );
    }
    dev.copy_htod(ptr, &data)?;
    Ok(())
}

/// A grid or CTA shape: `4`, `"4,2"` or `[4, 2]`.
#[derive(Deserialize)]
#[serde(untagged)]
enum DimSpec {
    Number(u32),
    Text(String),
    List(Vec<u32>),
}

impl DimSpec {
    fn dim(&self) -> Result<Dim3, String> {
        let text = match self {
            DimSpec::Number(n) => n.to_string(),
            DimSpec::Text(s) => s.clone(),
            DimSpec::List(v) => v
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(","),
        };
        super::parse_dim(&text)
    }
}
