//! Registers-per-thread estimate for raw PTX (PTX virtual registers are unbounded; the real
//! figure comes from `ptxas`, which a later version may call).
//!
//! Method: a backward liveness analysis over each function's instructions (successors: the next
//! instruction and branch targets). At every instruction the live non-predicate registers are
//! summed in 32-bit slots (a `.b64` register counts 2, `.b16`/`.b8` count 1); the estimate is the
//! maximum over the kernel and every function it calls (summed along the deepest call chain is
//! not attempted: callee pressure is added on top of the kernel's), plus 2 slots the ABI reserves,
//! clamped to `[8, 255]`.

use warpforge_ptx::{AddrBase, Function, Module, OpKind, Operand, ScalarType};

fn collect_regs(o: &Operand, out: &mut Vec<u32>) {
    match o {
        Operand::Reg(r) | Operand::NotReg(r) => out.push(r.0),
        Operand::PredPair(a, b) => {
            out.push(a.0);
            out.push(b.0);
        }
        Operand::Addr {
            base: AddrBase::Reg(r),
            ..
        } => out.push(r.0),
        Operand::Vec(v) | Operand::List(v) => v.iter().for_each(|e| collect_regs(e, out)),
        _ => {}
    }
}

fn has_dst(k: OpKind) -> bool {
    use OpKind::*;
    !matches!(
        k,
        St | Red
            | Bra
            | Brx
            | Call
            | Ret
            | Exit
            | Bar
            | Barrier
            | Membar
            | Fence
            | Prefetch
            | Prefetchu
            | Trap
            | Brkpt
            | Nanosleep
            | Pmevent
            | Sust
    )
}

/// Peak live 32-bit register slots of one function.
pub fn pressure(f: &Function) -> u32 {
    let n = f.insts.len();
    let nregs = f.regs.len();
    if n == 0 || nregs == 0 {
        return 0;
    }
    let words = nregs.div_ceil(64);
    let weight: Vec<u32> = f
        .regs
        .iter()
        .map(|r| match r.ty {
            ScalarType::Pred => 0,
            t => t.size().div_ceil(4) * r.vec.max(1) as u32,
        })
        .collect();
    let mut defs = vec![Vec::new(); n];
    let mut uses = vec![Vec::new(); n];
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, inst) in f.insts.iter().enumerate() {
        let mut start = 0;
        if has_dst(inst.op.kind) && !inst.operands.is_empty() {
            collect_regs(&inst.operands[0], &mut defs[i]);
            start = 1;
        }
        for o in &inst.operands[start..] {
            collect_regs(o, &mut uses[i]);
        }
        if let Some(g) = inst.guard {
            uses[i].push(g.reg.0);
        }
        let terminal = matches!(inst.op.kind, OpKind::Ret | OpKind::Exit)
            || (inst.op.kind == OpKind::Bra && inst.guard.is_none());
        if !terminal && i + 1 < n {
            succ[i].push(i + 1);
        }
        if inst.op.kind == OpKind::Bra {
            if let Some(Operand::Label(t)) = inst.operands.first() {
                if (*t as usize) < n {
                    succ[i].push(*t as usize);
                }
            }
        }
    }
    let mut live_in = vec![vec![0u64; words]; n];
    let mut changed = true;
    let mut scratch = vec![0u64; words];
    let mut iters = 0;
    while changed && iters < 100 {
        changed = false;
        iters += 1;
        for i in (0..n).rev() {
            scratch.iter_mut().for_each(|w| *w = 0);
            for &s in &succ[i] {
                for (w, l) in scratch.iter_mut().zip(&live_in[s]) {
                    *w |= *l;
                }
            }
            for &r in &defs[i] {
                scratch[r as usize / 64] &= !(1u64 << (r % 64));
            }
            for &r in &uses[i] {
                scratch[r as usize / 64] |= 1u64 << (r % 64);
            }
            if scratch != live_in[i] {
                live_in[i].copy_from_slice(&scratch);
                changed = true;
            }
        }
    }
    let mut peak = 0u32;
    for (i, l) in live_in.iter().enumerate() {
        let mut p = 0u32;
        for (wi, w) in l.iter().enumerate() {
            let mut bits = *w;
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                p += weight[wi * 64 + b];
            }
        }
        // Destinations defined here also occupy registers at this point.
        for &r in &defs[i] {
            if l[r as usize / 64] & (1u64 << (r % 64)) == 0 {
                p += weight[r as usize];
            }
        }
        peak = peak.max(p);
    }
    peak
}

/// Estimated registers per thread of a kernel whose code holds `funcs` (module indices, kernel
/// first).
pub fn estimate(m: &Module, funcs: &[usize]) -> u32 {
    let kernel = funcs.first().map_or(0, |&k| pressure(&m.functions[k]));
    let callee = funcs[1..]
        .iter()
        .map(|&f| pressure(&m.functions[f]))
        .max()
        .unwrap_or(0);
    (kernel + callee + 2).clamp(8, 255)
}
