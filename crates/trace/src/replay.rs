//! Running a whole trace directory through a [`KernelRunner`].

use crate::{KernelList, OpcodeTable, TraceError, TraceSource};
use warpforge_core::{KernelRunner, SourceError};

/// An error while replaying a trace.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The trace is malformed.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The runner failed (a malformed thread block found mid-run, a deadlock, an interrupt).
    #[error(transparent)]
    Source(#[from] SourceError),
}

/// Replays every kernel of `list` in order on `runner`; returns the number of kernels.
/// `MemcpyHtoD` commands have no timing effect in warpforge (GPGPU-Sim's
/// `-gpgpu_perf_sim_memcpy` L2 warm-up is not modelled) and are skipped.
pub fn replay(
    list: &KernelList,
    runner: &mut dyn KernelRunner,
    extra: Option<&OpcodeTable>,
) -> Result<usize, ReplayError> {
    let mut n = 0;
    for k in list.kernels() {
        let mut src = TraceSource::open(k, None, extra)?;
        runner.run_kernel(&mut src)?;
        n += 1;
    }
    Ok(n)
}
