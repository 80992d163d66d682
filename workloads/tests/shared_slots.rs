//! Shared register slots against one slot per register (docs/simt.md, "Registers"): every
//! registered workload at `tiny` (and, `#[ignore]`d, at `small`), run functionally on a default
//! device (the kernel body's registers with disjoint live ranges share a physical slot) and on a
//! device with `Device::set_share_slots(false)`, must pass its check both times, leave every
//! global allocation byte-identical and execute the same warp and thread instructions. The
//! sharing must be real: the shared decodes use fewer slots in total than the unshared ones.

use warpforge_simt::{Device, ModuleId};
use warpforge_workloads::{registry, Check, Size, Workload};

/// What a run leaves behind: (label, bytes) of every global allocation in address order, warp
/// and thread instructions, and the register slots (narrow + wide) of every loaded kernel.
struct Outcome {
    allocs: Vec<(String, Vec<u8>)>,
    warp_insts: u64,
    thread_insts: u64,
    slots: u64,
}

fn run(w: &dyn Workload, size: Size, share: bool) -> Result<Outcome, String> {
    let name = w.info().name;
    let mut dev = Device::new();
    dev.set_share_slots(share);
    match w.run(&mut dev, size) {
        Ok(Check::Passed) => {}
        Ok(Check::Failed(m)) => {
            return Err(format!("{name} (share {share}) failed its check: {m}"))
        }
        Err(e) => return Err(format!("{name} (share {share}) failed to run: {e}")),
    }
    let allocs = dev
        .allocations()
        .map(|(_, data, label)| (label.to_string(), data.to_vec()))
        .collect();
    let stats = dev.total_stats();
    let mut slots = 0u64;
    let mut m = 0u32;
    while dev.module(ModuleId(m)).is_some() {
        for k in dev.kernel_names(ModuleId(m)) {
            let code = dev
                .kernel_code(ModuleId(m), &k)
                .map_err(|e| e.to_string())?;
            if code.shared_slots != share {
                return Err(format!(
                    "{name}: kernel {k} decoded with shared_slots {}",
                    !share
                ));
            }
            slots += (code.narrow_slots + code.wide_slots) as u64;
        }
        m += 1;
    }
    Ok(Outcome {
        allocs,
        warp_insts: stats.warp_insts,
        thread_insts: stats.thread_insts,
        slots,
    })
}

/// Compares the two decodes of `w`; an error message naming the first difference.
fn compare(w: &dyn Workload, size: Size) -> Result<(u64, u64, u64), String> {
    let name = w.info().name;
    let shared = run(w, size, true)?;
    let own = run(w, size, false)?;
    if shared.allocs.len() != own.allocs.len() {
        return Err(format!(
            "{name}: {} allocations shared, {} unshared",
            shared.allocs.len(),
            own.allocs.len()
        ));
    }
    for (i, ((ls, ds), (lo, d_o))) in shared.allocs.iter().zip(&own.allocs).enumerate() {
        if ls != lo || ds.len() != d_o.len() {
            return Err(format!(
                "{name}: allocation {i} is `{ls}` of {} bytes shared, `{lo}` of {} unshared",
                ds.len(),
                d_o.len()
            ));
        }
        if let Some(b) = ds.iter().zip(d_o).position(|(a, b)| a != b) {
            return Err(format!(
                "{name}: allocation {i} (`{ls}`) differs first at byte {b}: {:#04x} shared, {:#04x} unshared",
                ds[b], d_o[b]
            ));
        }
    }
    if (shared.warp_insts, shared.thread_insts) != (own.warp_insts, own.thread_insts) {
        return Err(format!(
            "{name}: warp/thread instructions {}/{} shared, {}/{} unshared",
            shared.warp_insts, shared.thread_insts, own.warp_insts, own.thread_insts
        ));
    }
    if shared.warp_insts == 0 {
        return Err(format!("{name}: no instruction executed"));
    }
    Ok((shared.slots, own.slots, shared.warp_insts))
}

/// Every workload at `size` compared; panics with every difference found.
fn compare_all(size: Size) {
    let (mut shared, mut own, mut insts) = (0u64, 0u64, 0u64);
    let mut errors = Vec::new();
    let all = registry();
    let n = all.len();
    assert!(n >= 40, "only {n} workloads registered");
    for w in all {
        match compare(w, size) {
            Ok((s, o, i)) => {
                insts += i;
                assert!(s <= o, "{}: {s} slots shared, {o} unshared", w.info().name);
                shared += s;
                own += o;
            }
            Err(e) => errors.push(e),
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    eprintln!(
        "{n} workloads at {}, {insts} warp instructions each way; register slots of every kernel: \
         {shared} shared, {own} unshared",
        size.name()
    );
    assert!(
        shared < own,
        "sharing saved nothing: {shared} slots shared, {own} unshared"
    );
}

#[test]
fn every_workload_at_tiny_is_identical_with_and_without_shared_slots() {
    compare_all(Size::Tiny);
}

/// The same at `small` (`cargo test --release -p warpforge-workloads --test shared_slots --
/// --ignored --nocapture`).
#[test]
#[ignore]
fn every_workload_at_small_is_identical_with_and_without_shared_slots() {
    compare_all(Size::Small);
}
