//! The simulated Pascal Titan X, the MasterKernel layout (§5.2.1; digest §3.3) and the runtime
//! cost constants (a calibration: the document gives no latencies, digest §6.1).

use crate::engine::Time;

/// GPU, MasterKernel and host-cost parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct PagodaConfig {
    /// Streaming multiprocessors (28 on the Pascal Titan X).
    pub sms: usize,
    /// MasterKernel threadblocks (MTBs) per SM (2).
    pub mtbs_per_sm: usize,
    /// Warps per MTB (32: 1024 threads).
    pub warps_per_mtb: usize,
    /// TaskTable rows per MTB column (32).
    pub rows: usize,
    /// Register cap per thread under Pagoda (32).
    pub reg_cap: u32,
    /// Registers per SM (65,536).
    pub rf_regs: u32,
    /// Resident warps per SM (64).
    pub max_warps_per_sm: u32,
    /// Resident threadblocks per SM (32).
    pub max_tbs_per_sm: u32,
    /// Warps at which an SM's issue bandwidth saturates: beyond it every resident warp slows
    /// proportionally (the contention model).
    pub sat_warps: f64,
    /// Compute slowdown of a task whose registers exceed the cap (spills; BF 34, DCT 33).
    pub spill_penalty: f64,
    /// Host API cost of one `cudaMemcpyAsync` / `taskSpawn` call (ns).
    pub api_copy: Time,
    /// Host API cost of one kernel launch (ns).
    pub api_launch: Time,
    /// GPU-side latency from a kernel's launch to its first threadblock (ns).
    pub launch_latency: Time,
    /// Fixed cost of one DMA transfer on the copy engine (ns).
    pub dma_setup: Time,
    /// Copy-engine time of one 64-byte TaskTable entry (ns).
    pub entry_copy: Time,
    /// Scheduler-warp time to scan its 32 rows (ns).
    pub scan: Time,
    /// Scheduler-warp time to place one threadblock (`pSched` + allocation) (ns).
    pub place: Time,
    /// GeMTC: time of one operation on its single global FIFO queue (ns).
    pub gemtc_queue_op: Time,
    /// GeMTC batch size (tasks).
    pub gemtc_batch: usize,
    /// Static fusion: threadblock size (256) and tasks per fused kernel.
    pub fusion_tb: u32,
    /// Tasks per fused kernel.
    pub fusion_batch: usize,
    /// Pagoda-batch batch size (tasks): the TaskTable capacity.
    pub pagoda_batch: usize,
    /// Host polling interval of `wait`/`waitAll` and batch completion checks (ns).
    pub poll: Time,
    /// CPU pool cores (2 x 10-core Xeon E5-2660).
    pub cpu_cores: usize,
    /// CPU time of a task relative to its GPU warp time.
    pub cpu_factor: f64,
    /// Concurrent kernels under HyperQ (32 hardware connections).
    pub hyperq_connections: usize,
}

impl Default for PagodaConfig {
    fn default() -> Self {
        Self {
            sms: 28,
            mtbs_per_sm: 2,
            warps_per_mtb: 32,
            rows: 32,
            reg_cap: 32,
            rf_regs: 65_536,
            max_warps_per_sm: 64,
            max_tbs_per_sm: 32,
            sat_warps: 16.0,
            spill_penalty: 1.1,
            api_copy: 600,
            api_launch: 2_500,
            launch_latency: 3_000,
            dma_setup: 300,
            entry_copy: 100,
            scan: 400,
            place: 150,
            gemtc_queue_op: 1_000,
            gemtc_batch: 1024,
            fusion_tb: 256,
            fusion_batch: 256,
            pagoda_batch: 28 * 2 * 32,
            poll: 10_000,
            cpu_cores: 20,
            cpu_factor: 3.0,
            hyperq_connections: 32,
        }
    }
}

impl PagodaConfig {
    /// MTBs in the MasterKernel (56 on 28 SMs).
    pub fn mtbs(&self) -> usize {
        self.sms * self.mtbs_per_sm
    }
    /// Executor warps (warp 0 of every MTB schedules): 56 x 31 = 1736.
    pub fn executor_warps(&self) -> usize {
        self.mtbs() * (self.warps_per_mtb - 1)
    }
    /// TaskTable entries (56 x 32 = 1792).
    pub fn table_entries(&self) -> usize {
        self.mtbs() * self.rows
    }
    /// Registers the MasterKernel occupies per SM at the cap: 2 x 1024 x 32.
    pub fn masterkernel_regs_per_sm(&self) -> u32 {
        (self.mtbs_per_sm * self.warps_per_mtb * 32) as u32 * self.reg_cap
    }
    /// Occupancy of `warps` resident warps on `sms` SMs of 64 warps (claim 4).
    pub fn occupancy(warps: u32, sms: u32) -> f64 {
        warps as f64 / (64.0 * sms as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masterkernel_layout_claims() {
        let c = PagodaConfig::default();
        assert_eq!(c.mtbs(), 56);
        assert_eq!(c.executor_warps(), 1736);
        assert_eq!(c.table_entries(), 1792);
        assert_eq!(c.mtbs_per_sm * c.warps_per_mtb, c.max_warps_per_sm as usize); // 100 %
        assert_eq!(c.masterkernel_regs_per_sm(), c.rf_regs);
        // Claim 4: an 8-warp task on an 80-SM V100, alone and with 32 HyperQ connections.
        assert!((PagodaConfig::occupancy(8, 80) * 100.0 - 0.156).abs() < 1e-3);
        assert!((PagodaConfig::occupancy(8 * 32, 80) * 100.0 - 5.0).abs() < 1e-9);
    }
}
