//! Functional SIMT executor of PTX kernels and a small CUDA-driver-like host API.
//!
//! CONTRACT STUB: the signatures below are the host API the workloads and the CLI program
//! against. Bodies are being implemented.
#![deny(missing_docs)]

pub mod arith;

use bytemuck::Pod;
use warpforge_core::{Dim3, InstObserver, KernelRunner};

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
    /// Placeholder while the executor is built.
    #[error("{0}")]
    Other(String),
}

/// The simulated device: memory, loaded modules, and an optional timing runner.
pub struct Device {
    _priv: (),
}

impl Device {
    /// A device that executes kernels functionally.
    pub fn new() -> Self {
        todo!()
    }
    /// Installs a timing runner: later launches are simulated by it.
    pub fn set_runner(&mut self, _runner: Box<dyn KernelRunner>) {
        todo!()
    }
    /// The installed runner, if any.
    pub fn runner_mut(&mut self) -> Option<&mut (dyn KernelRunner + 'static)> {
        todo!()
    }
    /// Installs an instruction observer (characterisation, trace recording); `None` removes it.
    pub fn set_observer(&mut self, _observer: Option<Box<dyn InstObserver>>) {
        todo!()
    }
    /// The installed observer, if any.
    pub fn observer_mut(&mut self) -> Option<&mut (dyn InstObserver + 'static)> {
        todo!()
    }
    /// Parses and loads a PTX module; `file` names it in error messages.
    pub fn load_ptx(&mut self, _text: &str, _file: &str) -> Result<ModuleId, SimtError> {
        todo!()
    }
    /// Allocates `bytes` of zeroed global memory (256-byte aligned).
    pub fn malloc(&mut self, _bytes: u64) -> Result<DevPtr, SimtError> {
        todo!()
    }
    /// Allocates and copies `data` in.
    pub fn alloc_copy<T: Pod>(&mut self, _data: &[T]) -> Result<DevPtr, SimtError> {
        todo!()
    }
    /// Copies host data to device memory.
    pub fn copy_htod<T: Pod>(&mut self, _dst: DevPtr, _data: &[T]) -> Result<(), SimtError> {
        todo!()
    }
    /// Copies device memory to host.
    pub fn copy_dtoh<T: Pod>(&mut self, _src: DevPtr, _out: &mut [T]) -> Result<(), SimtError> {
        todo!()
    }
    /// Reads `n` elements back.
    pub fn read<T: Pod>(&mut self, _src: DevPtr, _n: usize) -> Result<Vec<T>, SimtError> {
        todo!()
    }
    /// Launches `kernel` of module `m` and runs it to completion (functionally, or on the runner).
    pub fn launch(
        &mut self,
        _m: ModuleId,
        _kernel: &str,
        _cfg: LaunchConfig,
        _args: &[KernelArg],
    ) -> Result<(), SimtError> {
        todo!()
    }
    /// Waits for outstanding work (launches are synchronous; kept for CUDA familiarity).
    pub fn synchronize(&mut self) -> Result<(), SimtError> {
        Ok(())
    }
}

impl Default for Device {
    fn default() -> Self {
        Self::new()
    }
}
