//! Functional SIMT executor of PTX kernels and a small CUDA-driver-like host API.
//!
//! [`Device`] holds a sparse 64-bit global memory ([`memory`]), loaded PTX modules and optional
//! timing runner and instruction observer. [`Device::launch`] decodes the kernel once into a
//! compact instruction array ([`program`]) and either executes it functionally ([`run`]: CTAs in
//! order, each CTA's warps round-robin between barriers) or, when a [`KernelRunner`] is installed,
//! hands the runner a [`WarpSource`](warpforge_core::WarpSource) ([`source`]) that executes a
//! warp's next instruction on demand.
//!
//! Conventions shared with the timing model (see `docs/PTX-SEMANTICS.md`):
//! - `DynInst::pc` is `static_idx * 8`; `static_idx` indexes the kernel's code (kernel body, then
//!   the `.func`s it calls), so a kernel instruction's index is its PTX instruction index.
//! - Register numbers in `DynInst` are per-warp register slots: the kernel's PTX `RegId`s, then
//!   callee registers, then special registers.
//! - Generic-address windows: [`memory`].
#![deny(missing_docs)]

pub mod alu;
pub mod arith;
pub mod bench;
pub mod exec;
pub mod memory;
pub mod npy;
pub mod program;
pub mod record;
pub mod regest;
pub mod run;
pub mod source;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use bytemuck::Pod;
use warpforge_core::{Dim3, InstObserver, KernelInfo, KernelRunner};
use warpforge_ptx::Module;

pub use exec::{TexBinding, TexFormat};
pub use memory::{CONST_WINDOW, GLOBAL_BASE, LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW};
pub use program::PC_STRIDE;
pub use record::{LaunchHook, LaunchRecord};
pub use run::LaunchStats;

/// A device address in the simulated 64-bit global address space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DevPtr(pub u64);

impl DevPtr {
    /// This pointer advanced by `bytes`.
    pub fn offset(self, bytes: u64) -> DevPtr {
        DevPtr(self.0 + bytes)
    }
}

/// A loaded module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModuleId(pub u32);

/// A kernel argument, matched against the kernel's `.param` list at launch.
#[derive(Debug, Clone, PartialEq)]
pub enum KernelArg {
    /// 32-bit unsigned (also `.b32`).
    U32(u32),
    /// 32-bit signed.
    S32(i32),
    /// 64-bit unsigned.
    U64(u64),
    /// 64-bit signed.
    S64(i64),
    /// Single precision.
    F32(f32),
    /// Double precision.
    F64(f64),
    /// A device pointer (a `.u64` parameter).
    Ptr(DevPtr),
    /// Raw bytes for a by-value struct parameter (`.param .align N .b8 p[M]`).
    Bytes(Vec<u8>),
}

impl KernelArg {
    /// The argument's bytes, little-endian.
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            KernelArg::U32(v) => v.to_le_bytes().to_vec(),
            KernelArg::S32(v) => v.to_le_bytes().to_vec(),
            KernelArg::U64(v) => v.to_le_bytes().to_vec(),
            KernelArg::S64(v) => v.to_le_bytes().to_vec(),
            KernelArg::F32(v) => v.to_le_bytes().to_vec(),
            KernelArg::F64(v) => v.to_le_bytes().to_vec(),
            KernelArg::Ptr(p) => p.0.to_le_bytes().to_vec(),
            KernelArg::Bytes(b) => b.clone(),
        }
    }

    fn describe(&self) -> &'static str {
        match self {
            KernelArg::U32(_) => "u32",
            KernelArg::S32(_) => "s32",
            KernelArg::U64(_) => "u64",
            KernelArg::S64(_) => "s64",
            KernelArg::F32(_) => "f32",
            KernelArg::F64(_) => "f64",
            KernelArg::Ptr(_) => "pointer",
            KernelArg::Bytes(_) => "bytes",
        }
    }
}

/// Launch shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Grid in CTAs.
    pub grid: Dim3,
    /// CTA in threads.
    pub block: Dim3,
    /// Dynamic shared memory per CTA in bytes.
    pub shared_bytes: u32,
}

/// Errors of the host API and of functional execution. Messages name the file, kernel, CTA,
/// thread and PC (with PTX line) where they apply.
#[derive(Debug, thiserror::Error)]
pub enum SimtError {
    /// The PTX text does not parse.
    #[error("{0}")]
    Parse(String),
    /// The module parses but cannot be prepared for execution (unsupported construct).
    #[error("{0}")]
    Decode(String),
    /// A launch was rejected before running (unknown kernel, bad arguments or shape).
    #[error("{0}")]
    Launch(String),
    /// A functional fault while executing (out-of-bounds access, trap, deadlock).
    #[error("{0}")]
    Exec(String),
    /// A host-side memory operation failed (bad pointer, out of range copy).
    #[error("{0}")]
    Memory(String),
    /// The timing runner reported an error.
    #[error("{0}")]
    Runner(String),
    /// Anything else.
    #[error("{0}")]
    Other(String),
}

/// Maximum threads per CTA.
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// Maximum shared memory per CTA in bytes (static + dynamic), as on Volta-class GPUs.
pub const MAX_SHARED_BYTES: u64 = 96 * 1024;

pub(crate) struct Loaded {
    pub module: Module,
    pub source: String,
    pub layout: program::ModuleLayout,
    pub kernels: HashMap<String, Arc<program::KernelCode>>,
    /// The kernels decoded with one slot per register, made at the first launch under an
    /// observer that wants register values (when `kernels` shares slots).
    pub unshared: HashMap<String, Arc<program::KernelCode>>,
}

impl Loaded {
    /// Decodes kernel `name` of this module (`share`: see [`program::decode_kernel_with`]).
    fn decode(&self, name: &str, share: bool) -> Result<program::KernelCode, SimtError> {
        program::decode_kernel_with(
            &self.module,
            name,
            &self.layout,
            &|f| warpforge_ptx::reconvergence_points(f),
            share,
        )
        .map_err(SimtError::Decode)
    }
}

/// The simulated device: memory, loaded modules, and an optional timing runner.
pub struct Device {
    pub(crate) gmem: memory::GlobalMem,
    pub(crate) modules: Vec<Loaded>,
    pub(crate) textures: BTreeMap<String, TexBinding>,
    runner: Option<Box<dyn KernelRunner>>,
    observer: Option<Box<dyn InstObserver>>,
    hook: Option<Box<dyn LaunchHook>>,
    last: LaunchStats,
    total: LaunchStats,
    nsm: u32,
    limits: run::Limits,
    share_slots: bool,
}

impl Device {
    /// A device that executes kernels functionally.
    pub fn new() -> Self {
        Self {
            gmem: memory::GlobalMem::new(),
            modules: Vec::new(),
            textures: BTreeMap::new(),
            runner: None,
            observer: None,
            hook: None,
            last: LaunchStats::default(),
            total: LaunchStats::default(),
            nsm: 1,
            limits: run::Limits::default(),
            share_slots: true,
        }
    }
    /// Installs a timing runner: later launches are simulated by it.
    pub fn set_runner(&mut self, runner: Box<dyn KernelRunner>) {
        self.runner = Some(runner);
    }
    /// Removes and returns the timing runner; later launches run functionally.
    pub fn take_runner(&mut self) -> Option<Box<dyn KernelRunner>> {
        self.runner.take()
    }
    /// The installed runner, if any.
    pub fn runner_mut(&mut self) -> Option<&mut (dyn KernelRunner + 'static)> {
        self.runner.as_deref_mut()
    }
    /// Installs an instruction observer (characterisation, trace recording); `None` removes it.
    pub fn set_observer(&mut self, observer: Option<Box<dyn InstObserver>>) {
        self.observer = observer;
    }
    /// Removes and returns the observer.
    pub fn take_observer(&mut self) -> Option<Box<dyn InstObserver>> {
        self.observer.take()
    }
    /// The installed observer, if any.
    pub fn observer_mut(&mut self) -> Option<&mut (dyn InstObserver + 'static)> {
        self.observer.as_deref_mut()
    }
    /// Sets the number of SMs reported by `%nsmid` and used to spread `%smid` over CTAs in
    /// functional runs (CTA `i` reports `%smid = i % n`). Default 1.
    pub fn set_num_sms(&mut self, n: u32) {
        self.nsm = n.max(1);
    }
    /// Bounds the warp instructions of each functional launch (`None`: unbounded, the default);
    /// a launch past the limit stops with an error naming the CTA and the warps' pcs.
    pub fn set_instruction_limit(&mut self, limit: Option<u64>) {
        self.limits.insts = limit.unwrap_or(u64::MAX);
    }
    /// Bounds the warp instructions a CTA of a functional launch may execute without forward
    /// progress (no warp exits, no store or atomic executes) before the launch stops with an
    /// error naming kernel, CTA, warps and pcs; `None` lifts the guard. Default
    /// [`run::DEFAULT_STALL_LIMIT`].
    pub fn set_stall_limit(&mut self, limit: Option<u64>) {
        self.limits.stall = limit.unwrap_or(u64::MAX);
    }
    /// Whether modules loaded from now on let the kernel body's registers with disjoint live
    /// ranges share a physical slot (docs/simt.md, "Registers"; default `true`). `false` decodes
    /// one slot per register, as with a value observer: for debugging and for the tests that
    /// compare the two (results and instruction counts are meant to be identical). Decided at
    /// load, so modules already loaded keep their decode.
    pub fn set_share_slots(&mut self, share: bool) {
        self.share_slots = share;
    }
    /// Parses and loads a PTX module; `file` names it in error messages.
    pub fn load_ptx(&mut self, text: &str, file: &str) -> Result<ModuleId, SimtError> {
        let module =
            warpforge_ptx::parse(text, file).map_err(|e| SimtError::Parse(e.to_string()))?;
        let layout = program::layout_module(&module, &mut self.gmem).map_err(SimtError::Decode)?;
        let mut loaded = Loaded {
            module,
            source: text.to_string(),
            layout,
            kernels: HashMap::new(),
            unshared: HashMap::new(),
        };
        // Decode every kernel now so that unsupported instructions are reported at load.
        let names: Vec<String> = loaded.module.kernels().map(|k| k.name.clone()).collect();
        for n in names {
            let code = loaded.decode(&n, self.share_slots)?;
            loaded.kernels.insert(n, Arc::new(code));
        }
        self.modules.push(loaded);
        Ok(ModuleId(self.modules.len() as u32 - 1))
    }
    /// Decodes every function of module `m` with a body (not only those reachable from a
    /// kernel), reporting the first construct the executor cannot run (`warpforge ptx check`).
    pub fn validate_all(&self, m: ModuleId) -> Result<(), SimtError> {
        let l = self
            .modules
            .get(m.0 as usize)
            .ok_or_else(|| SimtError::Decode(format!("no module with id {}", m.0)))?;
        for f in l.module.functions.iter().filter(|f| !f.is_decl) {
            program::decode_kernel(&l.module, &f.name, &l.layout, &|f| {
                warpforge_ptx::reconvergence_points(f)
            })
            .map_err(SimtError::Decode)?;
        }
        Ok(())
    }
    /// The decoded code of `kernel` in module `m`: its register banks
    /// ([`program::KernelCode::narrow_slots`], `wide_slots`, `shared_slots`) among the rest.
    pub fn kernel_code(
        &self,
        m: ModuleId,
        kernel: &str,
    ) -> Result<Arc<program::KernelCode>, SimtError> {
        self.code(m, kernel)
    }
    /// The PTX text module `m` was loaded from.
    pub fn module_source(&self, m: ModuleId) -> Option<&str> {
        self.modules.get(m.0 as usize).map(|l| l.source.as_str())
    }
    /// The global allocations (base address, contents, label: `malloc` or a module variable's
    /// name), in address order (which is allocation order).
    pub fn allocations(&self) -> impl Iterator<Item = (DevPtr, &[u8], &str)> {
        self.gmem
            .allocs()
            .iter()
            .map(|a| (DevPtr(a.base), a.data.as_slice(), a.label.as_str()))
    }
    /// Installs a launch hook (called before and after every launch); `None` removes it.
    pub fn set_launch_hook(&mut self, hook: Option<Box<dyn LaunchHook>>) {
        self.hook = hook;
    }
    /// Removes and returns the launch hook.
    pub fn take_launch_hook(&mut self) -> Option<Box<dyn LaunchHook>> {
        self.hook.take()
    }
    /// The parsed module.
    pub fn module(&self, m: ModuleId) -> Option<&Module> {
        self.modules.get(m.0 as usize).map(|l| &l.module)
    }
    /// Names of the kernels of module `m`, in file order.
    pub fn kernel_names(&self, m: ModuleId) -> Vec<String> {
        self.module(m)
            .map(|md| md.kernels().map(|k| k.name.clone()).collect())
            .unwrap_or_default()
    }
    /// Static description of `kernel` (registers estimated, shared and local bytes) for a launch
    /// of shape `cfg`.
    pub fn kernel_info(
        &self,
        m: ModuleId,
        kernel: &str,
        cfg: LaunchConfig,
    ) -> Result<KernelInfo, SimtError> {
        let code = self.code(m, kernel)?;
        Ok(kernel_info(&code, cfg))
    }
    /// Global address of module-scope variable `name` (`.global` variables only).
    pub fn symbol_address(&self, m: ModuleId, name: &str) -> Option<DevPtr> {
        let l = self.modules.get(m.0 as usize)?;
        match l.layout.symbols.get(name) {
            Some(&(program::Space::Global, a)) => Some(DevPtr(a)),
            _ => None,
        }
    }
    /// Binds texture reference `name` (as used by `tex.1d`/`tex.2d`) to linear device memory.
    /// See [`TexBinding`] for the sampling rules.
    pub fn bind_texture(&mut self, name: &str, binding: TexBinding) -> Result<(), SimtError> {
        if !matches!(binding.channels, 1 | 2 | 4) {
            return Err(SimtError::Other(format!(
                "texture `{name}`: channels must be 1, 2 or 4, got {}",
                binding.channels
            )));
        }
        let rows = binding.height.max(1) as u64;
        let row_bytes = binding.width as u64 * binding.channels as u64 * 4;
        let span = if rows > 1 {
            (rows - 1) * binding.pitch + row_bytes
        } else {
            row_bytes
        };
        if span > 0 {
            self.gmem.slice_mut(binding.ptr, span).map_err(|_| {
                SimtError::Memory(format!(
                    "texture `{name}`: {span} bytes at 0x{:x} are not inside one allocation",
                    binding.ptr
                ))
            })?;
        }
        self.textures.insert(name.to_string(), binding);
        Ok(())
    }
    /// Allocates `bytes` of zeroed global memory (256-byte aligned).
    pub fn malloc(&mut self, bytes: u64) -> Result<DevPtr, SimtError> {
        self.gmem
            .alloc(bytes, "malloc")
            .map(DevPtr)
            .ok_or_else(|| SimtError::Memory(format!("cannot allocate {bytes} bytes")))
    }
    /// Allocates and copies `data` in.
    pub fn alloc_copy<T: Pod>(&mut self, data: &[T]) -> Result<DevPtr, SimtError> {
        let p = self.malloc(std::mem::size_of_val(data) as u64)?;
        self.copy_htod(p, data)?;
        Ok(p)
    }
    /// The `len` device bytes at `p` for a host copy; outside one allocation the error reads
    /// "`op` of `len` bytes `dir` 0x`p`: not inside one allocation".
    fn host_span(
        &mut self,
        op: &str,
        dir: &str,
        p: DevPtr,
        len: usize,
    ) -> Result<&mut [u8], SimtError> {
        self.gmem.slice_mut(p.0, len as u64).map_err(|_| {
            SimtError::Memory(format!(
                "{op} of {len} bytes {dir} 0x{:x}: not inside one allocation",
                p.0
            ))
        })
    }
    /// Copies host data to device memory.
    pub fn copy_htod<T: Pod>(&mut self, dst: DevPtr, data: &[T]) -> Result<(), SimtError> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if bytes.is_empty() {
            return Ok(());
        }
        self.host_span("copy_htod", "to", dst, bytes.len())?
            .copy_from_slice(bytes);
        Ok(())
    }
    /// Copies device memory to host.
    pub fn copy_dtoh<T: Pod>(&mut self, src: DevPtr, out: &mut [T]) -> Result<(), SimtError> {
        let bytes: &mut [u8] = bytemuck::cast_slice_mut(out);
        if bytes.is_empty() {
            return Ok(());
        }
        bytes.copy_from_slice(self.host_span("copy_dtoh", "from", src, bytes.len())?);
        Ok(())
    }
    /// Reads `n` elements back.
    pub fn read<T: Pod>(&mut self, src: DevPtr, n: usize) -> Result<Vec<T>, SimtError> {
        let mut v = vec![T::zeroed(); n];
        self.copy_dtoh(src, &mut v)?;
        Ok(v)
    }
    /// Fills `bytes` bytes at `dst` with `value` (like `cudaMemset`).
    pub fn memset(&mut self, dst: DevPtr, value: u8, bytes: u64) -> Result<(), SimtError> {
        if bytes == 0 {
            return Ok(());
        }
        let s = self.gmem.slice_mut(dst.0, bytes).map_err(|_| {
            SimtError::Memory(format!(
                "memset of {bytes} bytes at 0x{:x}: not inside one allocation",
                dst.0
            ))
        })?;
        s.fill(value);
        Ok(())
    }

    pub(crate) fn code(
        &self,
        m: ModuleId,
        kernel: &str,
    ) -> Result<Arc<program::KernelCode>, SimtError> {
        let l = self
            .modules
            .get(m.0 as usize)
            .ok_or_else(|| SimtError::Launch(format!("no module with id {}", m.0)))?;
        if let Some(c) = l.kernels.get(kernel) {
            return Ok(c.clone());
        }
        let mut names: Vec<&str> = l.module.kernels().map(|k| k.name.as_str()).collect();
        names.sort();
        Err(SimtError::Launch(format!(
            "{}: no kernel `{kernel}`; available kernels: {}",
            l.module.file,
            if names.is_empty() {
                "(none)".to_string()
            } else {
                names.join(", ")
            }
        )))
    }

    /// Builds the parameter buffer after checking arguments and shape.
    fn prepare(
        &self,
        code: &program::KernelCode,
        cfg: &LaunchConfig,
        args: &[KernelArg],
    ) -> Result<Vec<u8>, SimtError> {
        let k = &code.name;
        if args.len() != code.params.len() {
            return Err(SimtError::Launch(format!(
                "kernel `{k}` takes {} arguments, {} given",
                code.params.len(),
                args.len()
            )));
        }
        let mut buf = vec![0u8; code.param_bytes as usize];
        for (i, (a, p)) in args.iter().zip(&code.params).enumerate() {
            let b = a.bytes();
            if b.len() as u64 != p.size {
                return Err(SimtError::Launch(format!(
                    "kernel `{k}` argument {i} (`{}`, .{:?} of {} bytes): got a {} of {} bytes",
                    p.name,
                    p.ty,
                    p.size,
                    a.describe(),
                    b.len()
                )));
            }
            buf[p.offset as usize..(p.offset + p.size) as usize].copy_from_slice(&b);
        }
        let threads = cfg.block.size();
        if threads == 0 || cfg.grid.size() == 0 {
            return Err(SimtError::Launch(format!(
                "kernel `{k}`: empty launch (grid {}, block {})",
                cfg.grid, cfg.block
            )));
        }
        if threads > MAX_BLOCK_THREADS {
            return Err(SimtError::Launch(format!(
                "kernel `{k}`: block {} has {threads} threads, more than {MAX_BLOCK_THREADS}",
                cfg.block
            )));
        }
        if cfg.grid.size() > u32::MAX as u64 {
            return Err(SimtError::Launch(format!(
                "kernel `{k}`: grid {} has too many CTAs",
                cfg.grid
            )));
        }
        let shared = code.shared_static as u64 + cfg.shared_bytes as u64;
        if shared > MAX_SHARED_BYTES {
            return Err(SimtError::Launch(format!(
                "kernel `{k}`: {} bytes of static plus {} bytes of dynamic shared memory exceed {MAX_SHARED_BYTES} bytes per CTA",
                code.shared_static, cfg.shared_bytes
            )));
        }
        Ok(buf)
    }

    /// Launches `kernel` of module `m` and runs it to completion (functionally, or on the runner).
    pub fn launch(
        &mut self,
        m: ModuleId,
        kernel: &str,
        cfg: LaunchConfig,
        args: &[KernelArg],
    ) -> Result<(), SimtError> {
        let mut code = self.code(m, kernel)?;
        if code.shared_slots && self.observer.as_deref().is_some_and(|o| o.wants_values()) {
            // Value observers see each destination's untouched lanes: one slot per register
            // (decoded once per kernel).
            let l = &mut self.modules[m.0 as usize];
            code = match l.unshared.get(kernel) {
                Some(c) => c.clone(),
                None => {
                    let c = Arc::new(l.decode(kernel, false)?);
                    l.unshared.insert(kernel.to_string(), c.clone());
                    c
                }
            };
        }
        let params = self.prepare(&code, &cfg, args)?;
        let mut hook = self.hook.take();
        if let Some(h) = hook.as_deref_mut() {
            let rec = record::LaunchRecord {
                module: m,
                kernel,
                cfg,
                args,
            };
            h.before_launch(self, &rec);
        }
        let info = kernel_info(&code, cfg);
        let cbank = std::mem::take(&mut self.modules[m.0 as usize].layout.const_bank);
        let mut observer = self.observer.take();
        if let Some(o) = observer.as_deref_mut() {
            o.on_launch(&info);
        }
        let mut env = exec::Env {
            code: &code,
            gmem: &mut self.gmem,
            cbank: &cbank,
            params: &params,
            tex: &self.textures,
            grid: cfg.grid,
            block: cfg.block,
            dyn_shared: cfg.shared_bytes,
            nsm: self.nsm,
        };
        let result = if let Some(runner) = self.runner.as_deref_mut() {
            let obs = observer.as_deref_mut().map(|o| o as &mut dyn InstObserver);
            let mut src = source::ExecSource::new(env, info.clone(), obs);
            let r = runner
                .run_kernel(&mut src)
                .map_err(|e| SimtError::Runner(e.message));
            let stats = src.stats();
            r.map(|_| stats)
        } else {
            run::run_functional(
                &mut env,
                observer.as_deref_mut().map(|o| o as &mut dyn InstObserver),
                self.limits,
            )
        };
        if let Some(o) = observer.as_deref_mut() {
            o.on_launch_end(&info);
        }
        self.observer = observer;
        self.modules[m.0 as usize].layout.const_bank = cbank;
        let stats = match result {
            Ok(s) => s,
            Err(e) => {
                self.hook = hook;
                return Err(e);
            }
        };
        if let Some(h) = hook.as_deref_mut() {
            h.after_launch(self);
        }
        self.hook = hook;
        self.last = stats;
        self.total.warp_insts += stats.warp_insts;
        self.total.thread_insts += stats.thread_insts;
        Ok(())
    }
    /// Statistics of the most recent launch.
    pub fn last_launch_stats(&self) -> LaunchStats {
        self.last
    }
    /// Statistics summed over every launch of this device.
    pub fn total_stats(&self) -> LaunchStats {
        self.total
    }
    /// Waits for outstanding work (launches are synchronous; kept for CUDA familiarity).
    pub fn synchronize(&mut self) -> Result<(), SimtError> {
        Ok(())
    }
}

fn kernel_info(code: &program::KernelCode, cfg: LaunchConfig) -> KernelInfo {
    let shared_static = (code.shared_static as u64).div_ceil(code.dyn_shared_align as u64)
        * code.dyn_shared_align as u64;
    KernelInfo {
        name: code.name.clone(),
        grid: cfg.grid,
        block: cfg.block,
        regs_per_thread: code.regs_per_thread,
        shared_bytes: if cfg.shared_bytes > 0 {
            (shared_static + cfg.shared_bytes as u64) as u32
        } else {
            code.shared_static
        },
        local_bytes: code.local_bytes,
    }
}

impl Default for Device {
    fn default() -> Self {
        Self::new()
    }
}
