//! Parameter sets as data (every device loads, bad files are named errors, `gtx480` agrees with
//! the timing preset) and the instruction analyser on synthetic instruction streams.

use warpforge_core::{Dim3, DynInst, InstObserver, KernelInfo, MemAccess, MemSpace, OpClass};
use warpforge_models::analyser::{transactions, Analyser};
use warpforge_models::options::{MFactorSource, ModelOptions, RegFileRow};
use warpforge_models::params::{builtin, names, Coalescing, DeviceParams};
use warpforge_models::power::Unit;
use warpforge_models::predict::predict;

#[test]
fn every_builtin_parses_and_names_match() {
    let want = [
        "8800gtx", "fx5600", "8800gt", "gtx280", "gtx580", "e5645", "gtx480",
    ];
    assert_eq!(names(), want);
    for n in want {
        let d = builtin(n).unwrap();
        assert_eq!(d.name, n);
        assert!(!d.source.is_empty());
    }
    assert!(builtin("gtx280").unwrap().power.is_some());
    assert!(builtin("gtx280").unwrap().thermal.is_some());
    assert!(builtin("gtx580").unwrap().power.is_some());
}

#[test]
fn unknown_device_lists_available() {
    let e = builtin("h100").unwrap_err().to_string();
    assert!(
        e.contains("h100") && e.contains("gtx280") && e.contains("e5645"),
        "{e}"
    );
}

#[test]
fn bad_parameter_files_name_the_problem() {
    let good = warpforge_models::params::BUILTIN[0].1;
    let e = DeviceParams::from_toml(&good.replace("mem_ld", "mem_latency"), "x.toml").unwrap_err();
    let s = e.to_string();
    assert!(s.contains("x.toml") && s.contains("mem_latency"), "{s}");
    let e = DeviceParams::from_toml(&good.replace("num_sms = 16", "num_sms = 0"), "y.toml")
        .unwrap_err();
    assert!(e.to_string().contains("core.num_sms"), "{e}");
    let e = DeviceParams::from_toml(
        &good.replace("freq_ghz = 1.35", "freq_ghz = -1.0"),
        "z.toml",
    )
    .unwrap_err();
    assert!(e.to_string().contains("core.freq_ghz"), "{e}");
}

#[test]
fn gtx480_params_agree_with_timing_preset() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/gtx480.toml");
    let Ok(text) = std::fs::read_to_string(path) else {
        panic!("configs/gtx480.toml missing: the gtx480 parameter set is derived from it");
    };
    let v: toml::Value = toml::from_str(&text).unwrap();
    let d = builtin("gtx480").unwrap();
    let core = &v["core"];
    assert_eq!(core["num_sms"].as_integer().unwrap() as u32, d.core.num_sms);
    assert_eq!(
        core["max_warps"].as_integer().unwrap() as u32 * 32,
        d.core.limits.max_threads_per_sm
    );
    assert_eq!(
        core["max_ctas"].as_integer().unwrap() as u32,
        d.core.limits.max_blocks_per_sm
    );
    assert_eq!(
        core["registers"].as_integer().unwrap() as u32,
        d.core.limits.registers_per_sm
    );
    assert_eq!(
        core["shared_bytes"].as_integer().unwrap() as u32,
        d.core.limits.shared_mem_per_sm
    );
    let f = v["clocks"]["core_mhz"].as_float().unwrap() / 1000.0;
    assert!((f - d.core.freq_ghz).abs() < 1e-9);
    let dram = &v["dram"];
    let bw = dram["channels"].as_integer().unwrap() as f64
        * dram["bus_bytes"].as_integer().unwrap() as f64
        * dram["data_ratio"].as_integer().unwrap() as f64
        * v["clocks"]["dram_mhz"].as_float().unwrap()
        / 1000.0;
    assert!((bw - d.memory.bandwidth_gbs).abs() < 0.01, "{bw}");
    let sched = core["schedulers"].as_integer().unwrap() as f64;
    assert!((1.0 / sched - d.core.issue_cycles).abs() < 1e-12);
    // L1 model geometry and shared-memory banks of the extensions.
    let l1 = &v["l1d"];
    assert_eq!(l1["sets"].as_integer().unwrap() as u32, d.memory.l1_sets);
    assert_eq!(l1["ways"].as_integer().unwrap() as u32, d.memory.l1_ways);
    assert_eq!(l1["line_bytes"].as_integer().unwrap(), 128);
    let hashed = l1["index"].as_str().unwrap() == "hashed";
    assert_eq!(
        hashed,
        d.memory.l1_index == warpforge_models::analyser::SetIndex::Hashed
    );
    let l1i = &v["l1i"];
    assert_eq!(l1i["sets"].as_integer().unwrap() as u32, d.memory.l1i_sets);
    assert_eq!(l1i["ways"].as_integer().unwrap() as u32, d.memory.l1i_ways);
    assert_eq!(l1i["line_bytes"].as_integer().unwrap(), 128);
    let sh = &v["shared"];
    assert_eq!(
        sh["banks"].as_integer().unwrap() as u32,
        d.memory.shared_banks
    );
    assert_eq!(
        sh["bank_bytes"].as_integer().unwrap() as u32,
        d.memory.shared_bank_bytes
    );
}

fn mem_inst(
    class: OpClass,
    space: MemSpace,
    addr: impl Fn(u64) -> u64,
    mask: u32,
    dst: u16,
) -> DynInst {
    let mut m = MemAccess {
        space,
        bytes_per_lane: 4,
        ..Default::default()
    };
    for l in 0..32 {
        m.addrs[l] = addr(l as u64);
    }
    let mut i = DynInst {
        class,
        active_mask: mask,
        mem: Some(m),
        ..Default::default()
    };
    if class == OpClass::Load {
        i.n_dst = 1;
        i.dst[0] = dst;
    }
    i.n_src = 1;
    i.src[0] = 100;
    i
}

fn alu(class: OpClass, src: u16) -> DynInst {
    let mut i = DynInst {
        class,
        active_mask: u32::MAX,
        n_src: 1,
        n_dst: 1,
        ..Default::default()
    };
    i.src[0] = src;
    i.dst[0] = 200;
    i
}

#[test]
fn transactions_per_rules() {
    let coal = mem_inst(
        OpClass::Load,
        MemSpace::Global,
        |l| 0x1000 + 4 * l,
        u32::MAX,
        1,
    );
    assert_eq!(transactions(&coal, Coalescing::Cc10), (1, 1, 128));
    assert_eq!(transactions(&coal, Coalescing::Cc13).0, 1);
    assert_eq!(transactions(&coal, Coalescing::Lines128).0, 1);
    // Misaligned by one word: CC 1.0 fails to coalesce (32 transactions), CC 1.3 needs 2 segments.
    let mis = mem_inst(
        OpClass::Load,
        MemSpace::Global,
        |l| 0x1004 + 4 * l,
        u32::MAX,
        1,
    );
    assert_eq!(transactions(&mis, Coalescing::Cc10).0, 32);
    assert_eq!(transactions(&mis, Coalescing::Cc13).0, 2);
    // Stride of 128 B: one line per lane everywhere.
    let strided = mem_inst(OpClass::Load, MemSpace::Global, |l| 128 * l, u32::MAX, 1);
    assert_eq!(transactions(&strided, Coalescing::Lines128).0, 32);
    // Half the lanes active, contiguous: still coalesced.
    let half = mem_inst(
        OpClass::Load,
        MemSpace::Global,
        |l| 0x2000 + 4 * l,
        0xffff,
        1,
    );
    let (t, min, _) = transactions(&half, Coalescing::Lines128);
    assert!(t <= min);
}

fn run_analyser(
    insts: &[(u32, u32, DynInst)],
    grid: u32,
    block: u32,
) -> warpforge_models::analyser::KernelProfile {
    let mut a = Analyser::new(
        Coalescing::Lines128,
        MFactorSource::Experimental,
        RegFileRow::AllOperandInsts,
    );
    let k = KernelInfo {
        name: "k".into(),
        grid: Dim3 {
            x: grid,
            y: 1,
            z: 1,
        },
        block: Dim3 {
            x: block,
            y: 1,
            z: 1,
        },
        regs_per_thread: 16,
        shared_bytes: 0,
        local_bytes: 0,
    };
    a.on_launch(&k);
    for (c, w, i) in insts {
        a.on_inst(*c, *w, i);
    }
    a.on_launch_end(&k);
    a.take_profiles().pop().unwrap()
}

#[test]
fn analyser_counts_model_inputs() {
    // 2 CTAs x 2 warps; each warp: coalesced load, uncoalesced (strided) load, 2 FP ops (one
    // consuming the loads), a shared load, a barrier, an integer divide.
    let mut stream = Vec::new();
    for c in 0..2 {
        for w in 0..2 {
            stream.push((
                c,
                w,
                mem_inst(
                    OpClass::Load,
                    MemSpace::Global,
                    |l| 4096 + 4 * l,
                    u32::MAX,
                    1,
                ),
            ));
            stream.push((
                c,
                w,
                mem_inst(OpClass::Load, MemSpace::Global, |l| 256 * l, u32::MAX, 2),
            ));
            stream.push((c, w, alu(OpClass::FpAlu, 1)));
            stream.push((c, w, alu(OpClass::FpAlu, 50)));
            stream.push((
                c,
                w,
                mem_inst(OpClass::Load, MemSpace::Shared, |l| 4 * l, u32::MAX, 3),
            ));
            stream.push((
                c,
                w,
                DynInst {
                    class: OpClass::Barrier,
                    active_mask: u32::MAX,
                    ..Default::default()
                },
            ));
            stream.push((c, w, alu(OpClass::IntDiv, 60)));
        }
    }
    let p = run_analyser(&stream, 2, 64);
    assert_eq!(p.warps, 4);
    assert_eq!(p.warp_insts, 28);
    let k = p.inputs();
    assert_eq!(k.coal_mem_insts, 1.0);
    assert_eq!(k.uncoal_mem_insts, 1.0);
    assert_eq!(k.uncoal_per_mw, 32.0);
    assert_eq!(k.comp_insts, 5.0); // 2 FP + shared load + barrier + divide
    assert_eq!(k.synch_insts, 1.0);
    assert_eq!(k.ind_mem_req, 1.0); // the second load issues before the first is consumed
    assert_eq!(p.mstr(), 2.0);
    assert!((k.load_bytes_per_warp - (33.0 * 128.0) / 2.0).abs() < 1e-9);
    assert!((k.m_factor - (6.0 + 30.0) / 7.0).abs() < 1e-12);
    let dac = p.dac_per_warp();
    assert_eq!(dac.get(Unit::Fds), 7.0);
    assert_eq!(dac.get(Unit::Fp), 2.0);
    assert_eq!(dac.get(Unit::Int), 1.0);
    assert_eq!(dac.get(Unit::GlobalMem), 2.0);
    assert_eq!(dac.get(Unit::Shared), 1.0);
    assert_eq!(dac.get(Unit::Reg), 6.0); // all but the barrier
    assert_eq!(dac.get(Unit::L2), 33.0);
}

#[test]
fn prediction_end_to_end_on_every_gpu() {
    let mut stream = Vec::new();
    for c in 0..64 {
        for w in 0..8 {
            stream.push((
                c,
                w,
                mem_inst(
                    OpClass::Load,
                    MemSpace::Global,
                    move |l| (c as u64 * 8 + w as u64) * 128 + 4 * l,
                    u32::MAX,
                    1,
                ),
            ));
            for _ in 0..10 {
                stream.push((c, w, alu(OpClass::FpAlu, 1)));
            }
            stream.push((
                c,
                w,
                mem_inst(
                    OpClass::Store,
                    MemSpace::Global,
                    move |l| (c as u64 * 8 + w as u64) * 128 + 4 * l,
                    u32::MAX,
                    0,
                ),
            ));
        }
    }
    let p = run_analyser(&stream, 64, 256);
    for n in names() {
        let d = builtin(n).unwrap();
        let pr = predict(&d, std::slice::from_ref(&p), &ModelOptions::default()).unwrap();
        assert!(pr.cycles > 0.0 && pr.cycles.is_finite(), "{n}");
        assert!(pr.cpi > 0.0);
        assert!(!pr.bottleneck.is_empty());
        if let Some(pw) = &d.power {
            let w = pr.power_w.unwrap();
            assert!(w > pw.idle_w, "{n}: {w}");
            let opt = pr.ipp_optimal_sms.unwrap();
            assert!(opt >= 1 && opt <= d.core.num_sms);
            assert_eq!(pr.ipp_sweep.len(), d.core.num_sms.min(64) as usize);
        } else {
            assert!(pr.power_w.is_none());
        }
    }
    // The CPU: N = 1 and MWP = 1 (4.10).
    let d = builtin("e5645").unwrap();
    let pr = predict(&d, std::slice::from_ref(&p), &ModelOptions::default()).unwrap();
    assert_eq!(pr.launches[0].model.n, 1.0);
    assert_eq!(pr.mwp, 1.0);
}

#[test]
fn block_too_big_is_a_clear_error() {
    let stream = vec![(0, 0, alu(OpClass::FpAlu, 1))];
    let mut p = run_analyser(&stream, 1, 1024);
    p.regs_per_thread = 64;
    let e = predict(&builtin("8800gtx").unwrap(), &[p], &ModelOptions::default()).unwrap_err();
    assert!(e.to_string().contains("does not fit"), "{e}");
}
