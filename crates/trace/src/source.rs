//! [`TraceSource`]: a kernel trace as a [`WarpSource`] for the timing model.
//!
//! Thread blocks are parsed when the timing model starts them. The timing model starts CTAs in
//! increasing order and the tracer writes them in that order, so normally exactly the running CTAs
//! are held in memory; a CTA requested ahead of the file order makes the reader buffer the blocks
//! in between. Finished CTAs give their instruction vectors back to a pool, so steady-state
//! streaming allocates nothing per instruction.

use crate::opcodes::OpcodeTable;
use crate::traceg::{CtaTrace, KernelHeader, TraceReader};
use crate::TraceError;
use std::collections::BTreeMap;
use std::path::Path;
use warpforge_core::{DynInst, KernelInfo, SourceError, WarpSource, WarpStep};

/// A kernel trace, streamed thread block by thread block.
pub struct TraceSource {
    reader: TraceReader,
    info: KernelInfo,
    ctas: BTreeMap<u32, CtaTrace>,
    pool: Vec<CtaTrace>,
    warps_per_cta: u32,
    max_buffered: usize,
}

impl TraceSource {
    /// Opens a kernel trace (`.traceg` or `.traceg.xz`) and reads its header. `table` replaces
    /// the built-in opcode table chosen by `-binary version`; `extra` adds entries to it.
    pub fn open(
        path: &Path,
        table: Option<&OpcodeTable>,
        extra: Option<&OpcodeTable>,
    ) -> Result<Self, TraceError> {
        let reader = TraceReader::open(path, table, extra)?;
        let info = reader.header().kernel_info();
        let warps_per_cta = info.warps_per_cta();
        Ok(Self {
            reader,
            info,
            ctas: BTreeMap::new(),
            pool: Vec::new(),
            warps_per_cta,
            max_buffered: 0,
        })
    }

    /// The trace header.
    pub fn header(&self) -> &KernelHeader {
        self.reader.header()
    }

    /// Most thread blocks held at once so far (the memory bound of the stream).
    pub fn max_buffered(&self) -> usize {
        self.max_buffered
    }

    fn err(&self, e: impl std::fmt::Display) -> SourceError {
        SourceError::new(e.to_string())
    }
}

impl WarpSource for TraceSource {
    fn kernel(&self) -> &KernelInfo {
        &self.info
    }

    fn start_cta(&mut self, cta: u32, _sm: u32) -> Result<u32, SourceError> {
        while !self.ctas.contains_key(&cta) {
            let mut buf = self.pool.pop().unwrap_or_default();
            match self.reader.read_tb(&mut buf).map_err(|e| self.err(e))? {
                Some(id) => {
                    if self.ctas.insert(id, buf).is_some() {
                        return Err(self.err(format!(
                            "{}: thread block {} appears twice in the trace",
                            self.reader.path().display(),
                            self.info.grid.unlinear(u64::from(id))
                        )));
                    }
                    self.max_buffered = self.max_buffered.max(self.ctas.len());
                }
                None => {
                    return Err(self.err(format!(
                        "{}: the trace ends without thread block {} (CTA {cta}) of grid {}",
                        self.reader.path().display(),
                        self.info.grid.unlinear(u64::from(cta)),
                        self.info.grid
                    )))
                }
            }
        }
        Ok(self.warps_per_cta)
    }

    fn next(&mut self, cta: u32, warp: u32, out: &mut DynInst) -> Result<WarpStep, SourceError> {
        let Some(c) = self.ctas.get_mut(&cta) else {
            return Err(SourceError::new(format!(
                "trace source: CTA {cta} was not started"
            )));
        };
        let Some(w) = c.warps.get_mut(warp as usize) else {
            return Err(SourceError::new(format!(
                "trace source: CTA {cta} has no warp {warp}"
            )));
        };
        match w.insts.get(w.pos) {
            Some(i) => {
                *out = *i;
                w.pos += 1;
                Ok(WarpStep::Inst)
            }
            None => Ok(WarpStep::Done),
        }
    }

    fn finish_cta(&mut self, cta: u32) {
        if let Some(c) = self.ctas.remove(&cta) {
            self.pool.push(c);
        }
    }
}
