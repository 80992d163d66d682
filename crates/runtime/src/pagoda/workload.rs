//! Pagoda workloads: Table 5.4 benchmarks and the task-cost calibration.
//!
//! Per-task compute times are a documented calibration (docs/RUNTIME.md): the document gives none.
//! Copy times follow Table 5.4's copy/compute split under HyperQ: with 32 tasks computing at once,
//! HyperQ spends `compute/32` of GPU time per task, so a task's copy time is
//! `compute / 32 * copy% / compute%`. [`TaskCostSource`] is the hook through which timing-model
//! measurements of the task kernels can replace the table.

use crate::engine::SimRng;
use crate::RuntimeError;

/// Default tasks per benchmark (32K; SLUD uses 273K).
pub const TASKS_DEFAULT: usize = 32 * 1024;

/// One row of Table 5.4 plus its calibration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BenchSpec {
    /// Name.
    pub name: &'static str,
    /// Irregular task sizes.
    pub irregular: bool,
    /// % of HyperQ time in data copies.
    pub copy_pct: f64,
    /// % of HyperQ time in compute.
    pub compute_pct: f64,
    /// Uses shared memory (bytes per TB when it does).
    pub smem: u32,
    /// Needs threadblock synchronisation.
    pub sync: bool,
    /// Registers per thread by default (> 32 spills under Pagoda's cap).
    pub regs: u32,
    /// Mean isolated compute time of one 128-thread task (ns) (calibration).
    pub compute_ns: f64,
    /// Task-count multiplier relative to 32K (SLUD 273K / 32K).
    pub count_scale: f64,
}

/// Table 5.4 (compute_ns is the calibration, not the document).
pub const BENCHES: [BenchSpec; 8] = [
    BenchSpec {
        name: "MB",
        irregular: true,
        copy_pct: 24.0,
        compute_pct: 76.0,
        smem: 0,
        sync: false,
        regs: 28,
        compute_ns: 360_000.0,
        count_scale: 1.0,
    },
    BenchSpec {
        name: "FB",
        irregular: false,
        copy_pct: 35.0,
        compute_pct: 65.0,
        smem: 0,
        sync: true,
        regs: 21,
        compute_ns: 240_000.0,
        count_scale: 1.0,
    },
    BenchSpec {
        name: "BF",
        irregular: false,
        copy_pct: 13.0,
        compute_pct: 87.0,
        smem: 0,
        sync: false,
        regs: 34,
        compute_ns: 300_000.0,
        count_scale: 1.0,
    },
    BenchSpec {
        name: "CONV",
        irregular: false,
        copy_pct: 30.0,
        compute_pct: 70.0,
        smem: 0,
        sync: false,
        regs: 25,
        compute_ns: 120_000.0,
        count_scale: 1.0,
    },
    BenchSpec {
        name: "DCT",
        irregular: false,
        copy_pct: 81.0,
        compute_pct: 19.0,
        smem: 2048,
        sync: true,
        regs: 33,
        compute_ns: 90_000.0,
        count_scale: 1.0,
    },
    BenchSpec {
        name: "MM",
        irregular: false,
        copy_pct: 51.0,
        compute_pct: 49.0,
        smem: 4096,
        sync: true,
        regs: 30,
        compute_ns: 180_000.0,
        count_scale: 1.0,
    },
    BenchSpec {
        name: "SLUD",
        irregular: true,
        copy_pct: 3.0,
        compute_pct: 97.0,
        smem: 0,
        sync: false,
        regs: 17,
        compute_ns: 60_000.0,
        count_scale: 273.0 / 32.0,
    },
    BenchSpec {
        name: "3DES",
        irregular: true,
        copy_pct: 74.0,
        compute_pct: 26.0,
        smem: 0,
        sync: false,
        regs: 26,
        compute_ns: 150_000.0,
        count_scale: 1.0,
    },
];

/// Benchmarks of the experiment (Table 5.4 plus the MPE mix).
pub const BENCH_NAMES: [&str; 9] = ["MB", "FB", "BF", "CONV", "DCT", "MM", "SLUD", "3DES", "MPE"];

/// MPE: 8K tasks each of these (3DES irregular, MB irregular, FB sync, MM shared memory).
pub const MPE_PARTS: [&str; 4] = ["3DES", "MB", "FB", "MM"];

/// Hook for timing-model-derived task costs.
pub trait TaskCostSource {
    /// Mean isolated compute time (ns) of one task of `bench`, or `None` to keep the table.
    fn compute_ns(&self, bench: &str) -> Option<f64>;
}

/// One task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Task {
    /// Threads per threadblock.
    pub threads: u32,
    /// Threadblocks.
    pub tbs: u32,
    /// Shared memory per threadblock (bytes).
    pub smem: u32,
    /// Needs TB synchronisation.
    pub sync: bool,
    /// Isolated compute time of each of its warps (ns).
    pub compute_ns: f64,
    /// Host-to-device plus device-to-host copy time of its data (ns).
    pub copy_ns: f64,
    /// Registers per thread by default.
    pub regs: u32,
}

impl Task {
    /// Warps per threadblock.
    pub fn warps_per_tb(&self) -> u32 {
        self.threads.div_ceil(32)
    }
    /// Warps of the whole task.
    pub fn warps(&self) -> u32 {
        self.warps_per_tb() * self.tbs
    }
}

/// A benchmark's task list.
#[derive(Debug, Clone)]
pub struct TaskSet {
    /// Benchmark name.
    pub name: String,
    /// The tasks, in spawn order.
    pub tasks: Vec<Task>,
}

fn spec(name: &str) -> Option<&'static BenchSpec> {
    BENCHES.iter().find(|b| b.name.eq_ignore_ascii_case(name))
}

fn make_task(
    b: &BenchSpec,
    threads: u32,
    rng: &mut SimRng,
    src: Option<&dyn TaskCostSource>,
) -> Task {
    // threads == 0: the irregular setting of Fig. 5.8, 32..256 threads (whole warps) per task
    let threads = if threads == 0 {
        32 * rng.range(1, 8) as u32
    } else {
        threads
    };
    let mean = src
        .and_then(|s| s.compute_ns(b.name))
        .unwrap_or(b.compute_ns);
    let scale = if b.name == "3DES" {
        // packets of 2K-64K bytes; work and data proportional to size (mean 33K)
        rng.range(2, 64) as f64 / 33.0
    } else if b.irregular {
        0.25 + 1.5 * rng.unit()
    } else {
        1.0
    };
    let compute = mean * scale;
    let copy = compute / 32.0 * b.copy_pct / b.compute_pct * threads as f64 / 128.0;
    Task {
        threads,
        tbs: 1,
        smem: b.smem,
        sync: b.sync,
        compute_ns: compute,
        copy_ns: copy,
        regs: b.regs,
    }
}

/// Generates `n` tasks of `bench` (SLUD scales `n` by 273/32) with `threads` threads each
/// (`0`: random 32..256 threads per task, with work proportional to threads).
pub fn generate(
    bench: &str,
    n: usize,
    threads: u32,
    seed: u64,
    src: Option<&dyn TaskCostSource>,
) -> Result<TaskSet, RuntimeError> {
    let mut rng = SimRng::new(seed);
    let unknown = || RuntimeError::UnknownName {
        what: "Pagoda benchmark",
        name: bench.to_string(),
        known: BENCH_NAMES.join(", "),
    };
    let tasks = if bench.eq_ignore_ascii_case("MPE") {
        let parts: Vec<&BenchSpec> = MPE_PARTS.iter().filter_map(|p| spec(p)).collect();
        (0..n)
            .map(|i| make_task(parts[i % parts.len()], threads, &mut rng, src))
            .collect()
    } else {
        let b = spec(bench).ok_or_else(unknown)?;
        let count = (n as f64 * b.count_scale).round() as usize;
        (0..count)
            .map(|_| make_task(b, threads, &mut rng, src))
            .collect()
    };
    let name = BENCH_NAMES
        .iter()
        .find(|x| x.eq_ignore_ascii_case(bench))
        .ok_or_else(unknown)?;
    Ok(TaskSet {
        name: name.to_string(),
        tasks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_share_matches_table_5_4() {
        for b in BENCHES {
            let t = generate(b.name, 64, 128, 1, None).unwrap();
            let copy: f64 = t.tasks.iter().map(|t| t.copy_ns).sum();
            let comp: f64 = t.tasks.iter().map(|t| t.compute_ns / 32.0).sum();
            let share = 100.0 * copy / (copy + comp);
            assert!((share - b.copy_pct).abs() < 1e-6, "{}: {share}", b.name);
        }
        assert_eq!(
            generate("SLUD", 32768, 128, 1, None).unwrap().tasks.len(),
            279_552
        );
        assert_eq!(
            generate("MPE", 32768, 128, 1, None).unwrap().tasks.len(),
            32768
        );
        assert!(generate("XYZ", 1, 128, 1, None).is_err());
    }
}
