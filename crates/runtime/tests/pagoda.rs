//! Pagoda data-structure invariants (proptest) and the experiment's orderings.

use proptest::prelude::*;
use warpforge_runtime::pagoda::{
    self, barrier::BarrierPool, buddy::Buddy, master::PagodaConfig, rt_pagoda, task_table::*,
    workload,
};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The buddy allocator never hands out overlapping blocks, keeps "marked => parent marked",
    /// and returns to an all-free tree once everything is freed.
    #[test]
    fn buddy_blocks_never_overlap(ops in prop::collection::vec((any::<bool>(), 1u32..20_000, any::<u16>()), 1..200)) {
        let mut b = Buddy::new();
        let mut live: Vec<warpforge_runtime::pagoda::buddy::Block> = Vec::new();
        for (alloc, size, pick) in ops {
            if alloc || live.is_empty() {
                if let Some(blk) = b.alloc(size) {
                    prop_assert!(blk.size >= size && blk.size >= 512 && blk.offset % 32 == 0);
                    prop_assert!(blk.offset + blk.size <= 32 * 1024);
                    for o in &live {
                        let disjoint = blk.offset + blk.size <= o.offset || o.offset + o.size <= blk.offset;
                        prop_assert!(disjoint, "{:?} overlaps {:?}", blk, o);
                    }
                    live.push(blk);
                } else {
                    // refusal only when every aligned block of that size overlaps a live block
                    let need = size.max(512).next_power_of_two();
                    let free_slot = (0..32 * 1024 / need).map(|k| k * need).any(|off| {
                        live.iter().all(|o| off + need <= o.offset || o.offset + o.size <= off)
                    });
                    prop_assert!(!free_slot, "refused {} B although a block was free", size);
                }
            } else {
                let blk = live.swap_remove(pick as usize % live.len());
                b.free(blk);
            }
            prop_assert!(b.invariant_holds());
        }
        for blk in live.drain(..) {
            b.free(blk);
        }
        prop_assert!(b.all_free());
    }

    /// No two live holders ever share a barrier ID.
    #[test]
    fn barrier_ids_are_unique_among_live_tasks(ops in prop::collection::vec((any::<bool>(), any::<u8>()), 1..300)) {
        let mut p = BarrierPool::new();
        let mut live: Vec<u8> = Vec::new();
        for (take, pick) in ops {
            if take {
                match p.acquire() {
                    Some(id) => {
                        prop_assert!(id != 0 && id < 16 && !live.contains(&id));
                        live.push(id);
                    }
                    None => prop_assert_eq!(live.len(), 15),
                }
            } else if !live.is_empty() {
                let id = live.swap_remove(pick as usize % live.len());
                p.release(id);
            }
            prop_assert_eq!(p.available() as usize, 15 - live.len());
        }
    }

    /// TaskTable protocol: under any interleaving of spawns, FIFO copies, scans, completions,
    /// copy-backs and flushes, every spawned task is scheduled exactly once, and one copy is
    /// sent per spawn.
    #[test]
    fn every_spawned_task_is_scheduled_exactly_once(
        ops in prop::collection::vec((0u8..6, any::<u16>()), 1..400),
        cols in 1usize..4,
        rows in 1usize..5,
    ) {
        let mut t = TaskTable::new(cols, rows);
        let mut wire: std::collections::VecDeque<Msg> = Default::default();
        let mut running: Vec<TaskId> = Vec::new();
        let mut spawned = 0u64;
        let mut writes = 0u64;
        let mut ran: Vec<u32> = Vec::new();
        let run_one = |t: &mut TaskTable, col: usize, ran: &mut Vec<u32>, running: &mut Vec<TaskId>| {
            for id in t.scan(col).scheduled {
                let serial = t.gpu_entry(id).p.args as usize;
                ran[serial] += 1;
                running.push(id);
            }
        };
        for (op, x) in ops {
            match op {
                0 | 1 => {
                    if let Some((_, m)) = t.spawn(Params { args: spawned, threads: 128, num_tb: 1, ..Params::default() }) {
                        spawned += 1;
                        ran.push(0);
                        wire.push_back(m);
                        writes += 1;
                    }
                }
                2 => {
                    for _ in 0..(x % 4) {
                        if let Some(m) = wire.pop_front() {
                            t.deliver(m);
                        }
                    }
                }
                3 => run_one(&mut t, x as usize % cols, &mut ran, &mut running),
                4 => {
                    if !running.is_empty() {
                        let id = running.swap_remove(x as usize % running.len());
                        t.finish(id);
                    }
                }
                _ => {
                    if x % 2 == 0 {
                        wire.push_back(t.copy_back());
                    } else if let Some(m) = t.flush() {
                        wire.push_back(m);
                    }
                }
            }
        }
        // drain: flush, deliver everything, scan until quiet
        if let Some(m) = t.flush() {
            wire.push_back(m);
        }
        while let Some(m) = wire.pop_front() {
            t.deliver(m);
        }
        for _ in 0..(2 * cols * rows + 2) {
            for c in 0..cols {
                run_one(&mut t, c, &mut ran, &mut running);
            }
        }
        prop_assert_eq!(writes, spawned);
        for (i, r) in ran.iter().enumerate() {
            prop_assert_eq!(*r, 1, "task {} ran {} times", i, r);
        }
    }
}

#[test]
fn full_runtime_runs_every_task_once_and_frees_everything() {
    let c = PagodaConfig::default();
    for b in ["MM", "FB", "MPE", "DCT"] {
        let set = workload::generate(b, 3000, 128, 9, None).unwrap();
        for batch in [None, Some(c.pagoda_batch)] {
            let (stats, trace) = rt_pagoda::run(&c, &set, batch);
            assert_eq!(stats.tasks, set.tasks.len(), "{b}");
            assert!(
                trace.runs.iter().all(|&r| r == 1),
                "{b}: a task ran twice or never"
            );
            assert!(
                !trace.barrier_clash,
                "{b}: two live TBs shared a barrier id"
            );
            assert!(trace.smem_all_free, "{b}: shared memory leaked");
        }
    }
}

#[test]
fn orderings_at_reduced_size() {
    let c = PagodaConfig::default();
    let all: Vec<&str> = pagoda::RUNTIMES.iter().map(|r| r.0).collect();
    let benches = ["MB", "FB", "CONV", "MM", "3DES", "MPE"];
    let cells =
        pagoda::run_experiment(&c, &benches, &all, 4096, 128, true, 1, &mut |_, _| {}).unwrap();
    let sp = |r| pagoda::geomean_speedup(&cells, "Pagoda", r);
    assert!(sp("HyperQ") > 1.2, "HyperQ {}", sp("HyperQ"));
    assert!(sp("GeMTC") > 1.05, "GeMTC {}", sp("GeMTC"));
    assert!(
        sp("Pagoda-batch") > 1.0,
        "Pagoda-batch {}",
        sp("Pagoda-batch")
    );
    assert!(sp("CPU-20") > 2.0, "CPU {}", sp("CPU-20"));
    let irr = pagoda::run_experiment(
        &c,
        &benches,
        &["Pagoda", "Fusion", "HyperQ", "Pagoda-batch"],
        4096,
        0,
        false,
        1,
        &mut |_, _| {},
    )
    .unwrap();
    let si = |r| pagoda::geomean_speedup(&irr, "Pagoda", r);
    assert!(si("Fusion") > 1.1, "Fusion {}", si("Fusion"));
    assert!(si("HyperQ") > 1.2 && si("Pagoda-batch") > 1.0);
    // Static fusion's mean task latency is far above Pagoda's (Fig. 5.9).
    for b in benches {
        let l = |r: &str| {
            irr.iter()
                .find(|x| x.bench == b && x.runtime == r)
                .unwrap()
                .stats
                .mean_latency
        };
        assert!(l("Fusion") > 1.4 * l("Pagoda"), "{b}");
    }
}

#[test]
fn bad_runtime_name_lists_the_known_ones() {
    let e = pagoda::runtime_by_name("cilk").err().unwrap().to_string();
    assert!(
        e.contains("cilk") && e.contains("HyperQ") && e.contains("GeMTC"),
        "{e}"
    );
}
