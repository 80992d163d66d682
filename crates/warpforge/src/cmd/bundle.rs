//! Launch bundles (issue 14 item 2): every launch of a built-in workload, written as a
//! directory that `warpforge ptx run --bundle DIR` replays on the simulator and
//! `scripts/replay-bundle.py` replays on a real GPU.
//!
//! A bundle is a launch script ([`super::ptx`]'s `launches.toml`) with its files:
//! - `kernel.ptx`: the module the workload loaded;
//! - `bN.npy` (`u8`, the allocation's bytes): buffer N as it was when the first launch after its
//!   allocation started; buffers are declared in allocation order with their original device
//!   `address`, which the replay reproduces and checks, so pointers stored inside buffers stay
//!   valid;
//! - `lK_bN.npy`: buffer N as the host left it before launch K where the host wrote it after
//!   the previous launch (a launch's `inputs`): the replay copies it in before launch K.
//! - `gN.npy` / `lK_gN.npy`: the module's `.global` variable N (`[[global]]`, by PTX name) as the
//!   host left it before the first launch and, where the host rewrote it, before launch K
//!   (`global_inputs`). Workloads that fill a module variable (`cudaMemcpyToSymbol`), such as
//!   cp's atoms, need these.
//! - `final_bN.npy`: buffer N after the last launch, for every buffer a kernel changed (the
//!   buffer's `expect`): the replay checks that it ends with the same bytes, and a GPU replay
//!   can be compared with it.
//!
//! Pointer arguments become `buf:bN` (or `buf:bN+OFFSET`), scalars keep their type and value,
//! so a replay runs exactly the recorded launches on exactly the recorded memory.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::Hasher;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use warpforge_simt::npy::{self, Dtype};
use warpforge_simt::{Device, KernelArg, LaunchHook, LaunchRecord, ModuleId};

/// A buffer of the bundle: a `malloc` allocation of the recorded run.
struct Buf {
    base: u64,
    len: usize,
}

/// One recorded launch, as launch-script text fields.
struct Launch {
    kernel: String,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    args: Vec<String>,
    /// (buffer index, file) pairs copied in before the launch.
    inputs: Vec<(usize, String)>,
    /// (global index, file) pairs copied in before the launch.
    global_inputs: Vec<(usize, String)>,
}

/// The launch hook that records a bundle into a directory as the workload runs.
pub struct Recorder {
    dir: PathBuf,
    module: Option<(ModuleId, String)>,
    bufs: Vec<Buf>,
    index: HashMap<u64, usize>,
    /// Module `.global` variables seen: (PTX name, address), in first-seen order.
    globals: Vec<(String, u64)>,
    gindex: HashMap<u64, usize>,
    /// Content hash of every allocation after the previous launch.
    after: HashMap<u64, u64>,
    /// Content hash of what the host last put in each buffer (its initial bytes or an input).
    host: HashMap<u64, u64>,
    /// Each buffer's bytes after the latest launch that changed it.
    last: HashMap<u64, Vec<u8>>,
    launches: Vec<Launch>,
    bytes: u64,
    error: Option<String>,
}

fn hash(data: &[u8]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    h.write(data);
    h.finish()
}

fn scalar(a: &KernelArg) -> String {
    match a {
        KernelArg::U32(v) => format!("u32:{v}"),
        KernelArg::S32(v) => format!("s32:{v}"),
        KernelArg::U64(v) => format!("u64:{v}"),
        KernelArg::S64(v) => format!("s64:{v}"),
        KernelArg::F32(v) => format!("f32:{v:?}"),
        KernelArg::F64(v) => format!("f64:{v:?}"),
        KernelArg::Ptr(p) => format!("u64:{}", p.0),
        KernelArg::Bytes(b) => {
            let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
            format!("bytes:{hex}")
        }
    }
}

impl Recorder {
    /// A recorder writing into `dir` (which must exist and be empty).
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            module: None,
            bufs: Vec::new(),
            index: HashMap::new(),
            globals: Vec::new(),
            gindex: HashMap::new(),
            after: HashMap::new(),
            host: HashMap::new(),
            last: HashMap::new(),
            launches: Vec::new(),
            bytes: 0,
            error: None,
        }
    }

    fn write_npy(&mut self, name: &str, data: &[u8]) -> Result<(), String> {
        let path = self.dir.join(name);
        std::fs::write(&path, npy::write(Dtype::U8, data))
            .map_err(|e| format!("writing {}: {e}", path.display()))?;
        self.bytes += data.len() as u64;
        Ok(())
    }

    fn record(&mut self, dev: &Device, l: &LaunchRecord<'_>) -> Result<(), String> {
        match &self.module {
            None => {
                let text = dev.module_source(l.module).unwrap_or_default().to_string();
                self.module = Some((l.module, text));
            }
            Some((m, _)) if *m != l.module => {
                return Err(
                    "the workload launches kernels of several PTX modules; a bundle holds one"
                        .into(),
                )
            }
            Some(_) => {}
        }
        let k = self.launches.len();
        let mut inputs = Vec::new();
        let mut global_inputs = Vec::new();
        for (ptr, data, label) in dev.allocations() {
            if label != "malloc" {
                // A module `.global` variable (allocations are labelled with its name).
                match self.gindex.get(&ptr.0) {
                    None => {
                        let i = self.globals.len();
                        self.write_npy(&format!("g{i}.npy"), data)?;
                        self.gindex.insert(ptr.0, i);
                        self.globals.push((label.to_string(), ptr.0));
                    }
                    Some(&i) => {
                        if self.after.get(&ptr.0) != Some(&hash(data)) {
                            let file = format!("l{k}_g{i}.npy");
                            self.write_npy(&file, data)?;
                            global_inputs.push((i, file));
                        }
                    }
                }
                continue;
            }
            match self.index.get(&ptr.0) {
                None => {
                    let i = self.bufs.len();
                    self.write_npy(&format!("b{i}.npy"), data)?;
                    self.index.insert(ptr.0, i);
                    self.host.insert(ptr.0, hash(data));
                    self.bufs.push(Buf {
                        base: ptr.0,
                        len: data.len(),
                    });
                }
                Some(&i) => {
                    let h = hash(data);
                    if self.after.get(&ptr.0) != Some(&h) {
                        let file = format!("l{k}_b{i}.npy");
                        self.write_npy(&file, data)?;
                        inputs.push((i, file));
                        self.host.insert(ptr.0, h);
                    }
                }
            }
        }
        let args = l
            .args
            .iter()
            .map(|a| match a {
                KernelArg::Ptr(p) => {
                    let i = self.bufs.partition_point(|b| b.base <= p.0);
                    match i.checked_sub(1).map(|i| (i, &self.bufs[i])) {
                        Some((i, b)) if p.0 < b.base + b.len.max(1) as u64 => {
                            let off = p.0 - b.base;
                            if off == 0 {
                                format!("buf:b{i}")
                            } else {
                                format!("buf:b{i}+{off}")
                            }
                        }
                        _ => scalar(a),
                    }
                }
                _ => scalar(a),
            })
            .collect();
        let d = |v: warpforge_core::Dim3| [v.x, v.y, v.z];
        self.launches.push(Launch {
            kernel: l.kernel.to_string(),
            grid: d(l.cfg.grid),
            block: d(l.cfg.block),
            shared: l.cfg.shared_bytes,
            args,
            inputs,
            global_inputs,
        });
        Ok(())
    }

    /// Writes `kernel.ptx` and `launches.toml`; fails if recording failed or nothing was
    /// launched. Returns (launches, buffers, bytes of buffer data).
    pub fn finish(&mut self) -> anyhow::Result<(usize, usize, u64)> {
        if let Some(e) = &self.error {
            bail!("recording the launches: {e}");
        }
        let Some((_, text)) = &self.module else {
            bail!("the workload launched no kernel");
        };
        let text = text.clone();
        std::fs::write(self.dir.join("kernel.ptx"), &text)?;
        // The final bytes of every buffer a kernel changed after the host last wrote it.
        let mut expect = Vec::new();
        for i in 0..self.bufs.len() {
            let base = self.bufs[i].base;
            let changed = self
                .last
                .get(&base)
                .filter(|d| self.host.get(&base) != Some(&hash(d)))
                .cloned();
            if let Some(data) = changed {
                let file = format!("final_b{i}.npy");
                self.write_npy(&file, &data)
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                expect.push(Some(file));
            } else {
                expect.push(None);
            }
        }
        let mut s = String::from(
            "# A warpforge launch bundle: `warpforge ptx run --bundle DIR` replays it on the\n\
             # simulator, scripts/replay-bundle.py on a GPU.\nptx = \"kernel.ptx\"\n",
        );
        for (i, b) in self.bufs.iter().enumerate() {
            let _ = write!(
                s,
                "\n[[buffer]]\nname = \"b{i}\"\ntype = \"u8\"\ncount = {}\ninit = \"file:b{i}.npy\"\naddress = {}\n",
                b.len, b.base
            );
            if let Some(f) = &expect[i] {
                let _ = writeln!(s, "expect = \"{f}\"");
            }
        }
        for (i, (name, _)) in self.globals.iter().enumerate() {
            let _ = write!(
                s,
                "\n[[global]]\nname = \"{name}\"\ninit = \"file:g{i}.npy\"\n"
            );
        }
        for l in &self.launches {
            let list = |v: [u32; 3]| format!("[{}, {}, {}]", v[0], v[1], v[2]);
            let args: Vec<String> = l.args.iter().map(|a| format!("\"{a}\"")).collect();
            let _ = write!(
                s,
                "\n[[launch]]\nkernel = \"{}\"\ngrid = {}\nblock = {}\nshared = {}\nargs = [{}]\n",
                l.kernel,
                list(l.grid),
                list(l.block),
                l.shared,
                args.join(", ")
            );
            if !l.inputs.is_empty() {
                let inputs: Vec<String> = l
                    .inputs
                    .iter()
                    .map(|(i, f)| format!("b{i} = \"{f}\""))
                    .collect();
                let _ = writeln!(s, "inputs = {{ {} }}", inputs.join(", "));
            }
            if !l.global_inputs.is_empty() {
                let inputs: Vec<String> = l
                    .global_inputs
                    .iter()
                    .map(|(i, f)| format!("\"{}\" = \"{f}\"", self.globals[*i].0))
                    .collect();
                let _ = writeln!(s, "global_inputs = {{ {} }}", inputs.join(", "));
            }
        }
        std::fs::write(self.dir.join("launches.toml"), s)?;
        Ok((self.launches.len(), self.bufs.len(), self.bytes))
    }
}

impl LaunchHook for Recorder {
    fn before_launch(&mut self, dev: &Device, launch: &LaunchRecord<'_>) {
        if self.error.is_none() {
            if let Err(e) = self.record(dev, launch) {
                self.error = Some(e);
            }
        }
    }

    fn after_launch(&mut self, dev: &Device) {
        for (ptr, data, label) in dev.allocations() {
            let h = hash(data);
            let before = self.after.insert(ptr.0, h);
            if label == "malloc" && before != Some(h) {
                self.last.insert(ptr.0, data.to_vec());
            }
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// A fresh directory beside `dir` to record into, renamed to `dir` by [`publish`] once the
/// bundle is whole; `dir` itself must not exist or be empty.
pub fn staging_dir(dir: &Path) -> anyhow::Result<PathBuf> {
    if dir.exists()
        && std::fs::read_dir(dir)
            .with_context(|| format!("{} is not a readable directory", dir.display()))?
            .next()
            .is_some()
    {
        bail!(
            "--dump-launches {}: the directory exists and is not empty",
            dir.display()
        );
    }
    let name = dir
        .file_name()
        .with_context(|| format!("--dump-launches {}: not a directory path", dir.display()))?;
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let tmp = parent.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    Ok(tmp)
}

/// Moves the finished bundle from `tmp` to `dir`.
pub fn publish(tmp: &Path, dir: &Path) -> anyhow::Result<()> {
    if dir.exists() {
        std::fs::remove_dir(dir).with_context(|| format!("replacing {}", dir.display()))?;
    }
    std::fs::rename(tmp, dir).with_context(|| format!("writing {}", dir.display()))
}
