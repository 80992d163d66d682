//! Static TB-redundancy analyses over the PTX IR (document 003, §5.2 and §5.6).
//!
//! * [`Dimensionality`]: DARSIE's compiler pass. Lattice `R` (definitely redundant) > `CR`
//!   (conditionally redundant) > `V` (vector). Seeds: `%ctaid`, `%ntid`, `%nctaid`, immediates,
//!   symbol addresses (the shared-memory base, globals) and kernel parameters are `R`; `%tid.x`
//!   is `CR`; everything else `V`. An instruction's class is the weakest class of its sources
//!   (meet); a load from an `R`/`CR` address inherits the address's class. At launch,
//!   [`promotes_cr`] (2D TB, `blockDim.x` a power of two <= warp size: claim 24) turns `CR` into
//!   `R`, otherwise `CR` becomes `V` ([`Dimensionality::finalize`]).
//! * [`affinity`]: the baselines' view. Lattice `U` (uniform scalar) > `A` (affine in the
//!   thread index: base + stride x thread) > `V`, finalised for one launch shape. UV (Xiang et
//!   al.) eliminates non-memory instructions with only uniform sources; DAC-IDEAL (Wang & Lin)
//!   executes every affine or uniform instruction once per TB.
//!
//! Both analyses are flow-insensitive over registers (a register's class is the meet over its
//! definitions) and iterate to a fixpoint from the optimistic top. Control dependence (the
//! program-dependence graph's control edges) enters as *sync dependence*: a register defined
//! inside the region of a conditional branch (the blocks between the branch and its immediate
//! post-dominator) and live into that post-dominator merges values of the two paths, so it takes
//! the branch predicate's class. Values used only inside the region keep their class: warps
//! that execute them with a full active mask compute the same values, and warps with SIMD
//! divergence never skip (document 003 §5.3). Only the kernel's own body is analysed; `call`
//! results are `V`.

use crate::cfg::Cfg;
use crate::ir::{AddrBase, Function, Instruction, OpKind, Operand, SpecialReg, StateSpace};

/// DARSIE's 3-state dimensionality class (document 003 §5.2). Ordered `V < CR < R`; the meet
/// is the minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dim {
    /// True vector: differs between warps of a TB.
    V,
    /// Conditionally redundant: derived from `%tid.x`; redundant only for qualifying TB shapes.
    CR,
    /// Definitely redundant: the same in every warp of the TB.
    R,
}

/// The baselines' affinity class. Ordered `V < A < U`; the meet is the minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Aff {
    /// Neither uniform nor affine.
    V,
    /// Affine in the thread index (base + stride x thread) for this launch shape.
    A,
    /// One scalar for every thread of the TB.
    U,
}

/// Claim 24: whether a launch of TB shape `block` (x, y, z) promotes `CR` to `R`: a 2D TB
/// (y > 1, z = 1) whose x dimension is a power of two no larger than the warp size, so that
/// every warp holds whole rows and all warps see the same `%tid.x` vector.
pub fn promotes_cr(block: [u32; 3], warp_size: u32) -> bool {
    let [x, y, z] = block;
    y > 1 && z == 1 && x.is_power_of_two() && x <= warp_size
}

/// Whether a TB-redundant instance of `inst` may be skipped (or, for the baselines,
/// eliminated): it writes a register and has no other effect. Stores, atomics, barriers,
/// control flow, warp collectives, texture fetches, local-memory and volatile loads and
/// carry-chain arithmetic are never skipped.
pub fn eliminable(inst: &Instruction) -> bool {
    use OpKind::*;
    let op = &inst.op;
    if op.cc || matches!(op.kind, Addc | Subc | Madc) {
        return false;
    }
    let ok_kind = match op.kind {
        Ld | Ldu => !op.volatile && !matches!(op.space, Some(StateSpace::Local)),
        Add | Sub | Mul | Mad | Mul24 | Mad24 | Sad | Div | Rem | Abs | Neg | Min | Max | Popc
        | Clz | Bfind | Fns | Brev | Bfe | Bfi | Dp4a | Dp2a | Fma | Rcp | Sqrt | Rsqrt | Sin
        | Cos | Lg2 | Ex2 | Tanh | Copysign | Testp | Setp | Set | Selp | Slct | And | Or | Xor
        | Not | Cnot | Lop3 | Shl | Shr | Shf | Prmt | Mov | Cvt | Cvta => true,
        _ => false,
    };
    ok_kind && !dests(inst).is_empty()
}

/// Destination registers of `inst` (operand 0 for register-writing instructions).
fn dests(inst: &Instruction) -> Vec<u32> {
    use OpKind::*;
    if matches!(
        inst.op.kind,
        St | Red
            | Prefetch
            | Prefetchu
            | Bra
            | Brx
            | Call
            | Ret
            | Exit
            | Bar
            | Barrier
            | Membar
            | Fence
            | Trap
            | Brkpt
            | Nanosleep
            | Pmevent
            | Sust
    ) {
        return Vec::new();
    }
    let mut v = Vec::new();
    match inst.operands.first() {
        Some(Operand::Reg(r)) => v.push(r.0),
        Some(Operand::PredPair(a, b)) => v.extend([a.0, b.0]),
        Some(Operand::Vec(es)) => {
            for e in es {
                if let Operand::Reg(r) = e {
                    v.push(r.0);
                }
            }
        }
        _ => {}
    }
    v
}

/// Register sources of operand `o` (registers, address bases, vector elements).
fn operand_regs(o: &Operand, out: &mut Vec<u32>) {
    match o {
        Operand::Reg(r) | Operand::NotReg(r) => out.push(r.0),
        Operand::Addr {
            base: AddrBase::Reg(r),
            ..
        } => out.push(r.0),
        Operand::Vec(es) | Operand::List(es) => {
            for e in es {
                operand_regs(e, out);
            }
        }
        _ => {}
    }
}

/// Source operands of `inst` (every operand after the destination, or all for instructions
/// without a destination), plus the guard predicate.
fn sources(inst: &Instruction) -> (Vec<&Operand>, Option<u32>) {
    let skip = usize::from(!dests(inst).is_empty());
    (
        inst.operands.iter().skip(skip).collect(),
        inst.guard.map(|g| g.reg.0),
    )
}

/// Sync-dependence data of a function: for every conditional branch, the predicate register
/// and the registers its divergent region merges at the immediate post-dominator.
struct SyncDeps {
    /// (predicate register, registers that take its class).
    joins: Vec<(u32, Vec<u32>)>,
}

impl SyncDeps {
    fn build(f: &Function) -> SyncDeps {
        let cfg = Cfg::build(f);
        let nb = cfg.blocks.len();
        let nr = f.regs.len();
        if nb == 0 {
            return SyncDeps { joins: Vec::new() };
        }
        // Liveness: use/def per block, then live-in by backward iteration.
        let mut uses = vec![vec![false; nr]; nb];
        let mut defs = vec![vec![false; nr]; nb];
        for (b, blk) in cfg.blocks.iter().enumerate() {
            for inst in &f.insts[blk.start as usize..blk.end as usize] {
                let mut srcs = Vec::new();
                let (ops, guard) = sources(inst);
                for o in ops {
                    operand_regs(o, &mut srcs);
                }
                srcs.extend(guard);
                for r in srcs {
                    if (r as usize) < nr && !defs[b][r as usize] {
                        uses[b][r as usize] = true;
                    }
                }
                for d in dests(inst) {
                    if (d as usize) < nr && inst.guard.is_none() {
                        defs[b][d as usize] = true;
                    }
                }
            }
        }
        let mut live_in = uses.clone();
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..nb).rev() {
                let mut out = vec![false; nr];
                for &s in &cfg.blocks[b].succs {
                    for (o, &l) in out.iter_mut().zip(&live_in[s as usize]) {
                        *o |= l;
                    }
                }
                for r in 0..nr {
                    let v = uses[b][r] || (out[r] && !defs[b][r]);
                    if v && !live_in[b][r] {
                        live_in[b][r] = true;
                        changed = true;
                    }
                }
            }
        }
        let ipdom = cfg.ipdom();
        let mut joins = Vec::new();
        for (b, blk) in cfg.blocks.iter().enumerate() {
            let last = &f.insts[blk.end as usize - 1];
            let Some(g) = last.guard else { continue };
            if !matches!(last.op.kind, OpKind::Bra | OpKind::Brx) || blk.succs.len() < 2 {
                continue;
            }
            let Some(p) = ipdom[b] else { continue };
            // Region: blocks reachable from the successors without passing the post-dominator.
            let mut seen = vec![false; nb];
            let mut stack: Vec<u32> = blk.succs.iter().copied().filter(|&s| s != p).collect();
            while let Some(x) = stack.pop() {
                if seen[x as usize] {
                    continue;
                }
                seen[x as usize] = true;
                for &s in &cfg.blocks[x as usize].succs {
                    if s != p && !seen[s as usize] {
                        stack.push(s);
                    }
                }
            }
            let mut regs = Vec::new();
            for x in (0..nb).filter(|&x| seen[x]) {
                let xb = &cfg.blocks[x];
                for inst in &f.insts[xb.start as usize..xb.end as usize] {
                    for d in dests(inst) {
                        if (d as usize) < nr && live_in[p as usize][d as usize] {
                            regs.push(d);
                        }
                    }
                }
            }
            regs.sort_unstable();
            regs.dedup();
            if !regs.is_empty() {
                joins.push((g.reg.0, regs));
            }
        }
        SyncDeps { joins }
    }
}

/// A lattice analysis: the class of an instruction's result from its operands.
trait Analysis {
    /// The lattice value (meet = minimum).
    type L: Copy + Ord;
    /// Optimistic start.
    const TOP: Self::L;
    /// Unknown / per-thread.
    const BOTTOM: Self::L;
    /// Class of a special-register read.
    fn special(&self, s: SpecialReg) -> Self::L;
    /// Class of `inst`'s result given the classes of its source operands and of its guard.
    fn transfer(&self, inst: &Instruction, srcs: &[Self::L], guard: Self::L) -> Self::L;
}

/// Solves an analysis over `f`: per-instruction classes.
fn solve<A: Analysis>(f: &Function, an: &A) -> Vec<A::L> {
    let nr = f.regs.len();
    let sync = SyncDeps::build(f);
    let mut reg = vec![A::TOP; nr];
    let mut inst_cls = vec![A::TOP; f.insts.len()];
    loop {
        let mut changed = false;
        for (i, inst) in f.insts.iter().enumerate() {
            let (ops, _) = sources(inst);
            let srcs: Vec<A::L> = ops.iter().map(|o| operand_class(o, &reg, an)).collect();
            let guard = inst.guard.map_or(A::TOP, |g| {
                reg.get(g.reg.0 as usize).copied().unwrap_or(A::BOTTOM)
            });
            let c = an.transfer(inst, &srcs, guard).min(inst_cls[i]);
            inst_cls[i] = c;
            for d in dests(inst) {
                if let Some(slot) = reg.get_mut(d as usize) {
                    if c < *slot {
                        *slot = c;
                        changed = true;
                    }
                }
            }
        }
        for (p, regs) in &sync.joins {
            let pc = reg.get(*p as usize).copied().unwrap_or(A::BOTTOM);
            for &r in regs {
                if pc < reg[r as usize] {
                    reg[r as usize] = pc;
                    changed = true;
                }
            }
        }
        if !changed {
            return inst_cls;
        }
    }
}

fn operand_class<A: Analysis>(o: &Operand, reg: &[A::L], an: &A) -> A::L {
    let r = |id: u32| reg.get(id as usize).copied().unwrap_or(A::BOTTOM);
    match o {
        Operand::Reg(x) | Operand::NotReg(x) => r(x.0),
        Operand::PredPair(a, b) => r(a.0).min(r(b.0)),
        Operand::Special(s) => an.special(*s),
        Operand::Imm(_)
        | Operand::F32(_)
        | Operand::F64(_)
        | Operand::Symbol(_)
        | Operand::SymbolOffset(..)
        | Operand::Label(_)
        | Operand::Sink => A::TOP,
        Operand::Addr { base, .. } => match base {
            AddrBase::Reg(x) => r(x.0),
            AddrBase::Symbol(_) | AddrBase::Imm => A::TOP,
        },
        Operand::Vec(es) | Operand::List(es) => es
            .iter()
            .map(|e| operand_class(e, reg, an))
            .min()
            .unwrap_or(A::TOP),
    }
}

/// Kinds whose result is per-thread whatever the operands (atomics, collectives, texture,
/// calls, surface loads, carry chains).
fn always_vector(k: OpKind) -> bool {
    use OpKind::*;
    matches!(
        k,
        Atom | Red
            | Vote
            | Shfl
            | Match
            | Activemask
            | Redux
            | Call
            | Tex
            | Tld4
            | Txq
            | Suld
            | Addc
            | Subc
            | Madc
    )
}

/// DARSIE's R / CR / V analysis.
struct DarsieAnalysis;

impl Analysis for DarsieAnalysis {
    type L = Dim;
    const TOP: Dim = Dim::R;
    const BOTTOM: Dim = Dim::V;
    fn special(&self, s: SpecialReg) -> Dim {
        match s {
            SpecialReg::Tid(0) => Dim::CR,
            SpecialReg::Ntid(_) | SpecialReg::Ctaid(_) | SpecialReg::Nctaid(_) => Dim::R,
            _ => Dim::V,
        }
    }
    fn transfer(&self, inst: &Instruction, srcs: &[Dim], guard: Dim) -> Dim {
        let op = &inst.op;
        if always_vector(op.kind) || op.cc {
            return Dim::V;
        }
        if matches!(op.kind, OpKind::Ld | OpKind::Ldu) {
            match op.space {
                // Kernel parameters: one value per launch.
                Some(StateSpace::Param) => return guard,
                Some(StateSpace::Local) => return Dim::V,
                _ if op.volatile => return Dim::V,
                _ => {}
            }
        }
        // The weakest class of any source; a load takes its address's class.
        srcs.iter().copied().fold(guard, Dim::min)
    }
}

/// Result of DARSIE's compiler pass over one kernel (document 003 §5.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dimensionality {
    /// Class of every instruction's result (before launch-time finalisation), by PTX index.
    pub class: Vec<Dim>,
    /// Whether each instruction may be skipped when TB-redundant ([`eliminable`]).
    pub eliminable: Vec<bool>,
    /// Whether each instruction is a load (the skip table's IsLoad bit, §5.5).
    pub is_load: Vec<bool>,
}

impl Dimensionality {
    /// Runs the pass over the body of `f`.
    pub fn analyse(f: &Function) -> Dimensionality {
        let class = solve(f, &DarsieAnalysis);
        Dimensionality {
            class,
            eliminable: f.insts.iter().map(eliminable).collect(),
            is_load: f
                .insts
                .iter()
                .map(|i| matches!(i.op.kind, OpKind::Ld | OpKind::Ldu))
                .collect(),
        }
    }

    /// Launch-time finalisation for TB shape `block`: `CR` becomes `R` when [`promotes_cr`],
    /// else `V`. Returns the class of each instruction after finalisation.
    pub fn finalize(&self, block: [u32; 3], warp_size: u32) -> Vec<Dim> {
        let promote = promotes_cr(block, warp_size);
        self.class
            .iter()
            .map(|&c| match c {
                Dim::CR if promote => Dim::R,
                Dim::CR => Dim::V,
                c => c,
            })
            .collect()
    }

    /// The 1-bit SASS marking after finalisation: the instructions a follower warp may skip
    /// (TB-redundant and [`eliminable`]).
    pub fn skippable(&self, block: [u32; 3], warp_size: u32) -> Vec<bool> {
        self.finalize(block, warp_size)
            .iter()
            .zip(&self.eliminable)
            .map(|(&c, &e)| e && c == Dim::R)
            .collect()
    }
}

/// The affinity analysis for one launch shape (UV and DAC-IDEAL baselines).
#[derive(Debug, Clone, Copy)]
struct AffineAnalysis {
    block: [u32; 3],
    warp: u32,
}

impl Analysis for AffineAnalysis {
    type L = Aff;
    const TOP: Aff = Aff::U;
    const BOTTOM: Aff = Aff::V;
    fn special(&self, s: SpecialReg) -> Aff {
        let [x, y, z] = self.block;
        let one_d = y == 1 && z == 1;
        match s {
            SpecialReg::Ntid(_) | SpecialReg::Ctaid(_) | SpecialReg::Nctaid(_) => Aff::U,
            // Consecutive lanes hold consecutive tid.x when a warp spans part of one row.
            SpecialReg::Tid(0) if one_d || x % self.warp == 0 => Aff::A,
            // tid.y is constant within a warp and steps by one per warp of whole rows.
            SpecialReg::Tid(1) if x % self.warp == 0 && z == 1 => Aff::A,
            SpecialReg::Laneid => Aff::A,
            _ => Aff::V,
        }
    }
    fn transfer(&self, inst: &Instruction, cls: &[Aff], guard: Aff) -> Aff {
        use OpKind::*;
        let op = &inst.op;
        if always_vector(op.kind) || op.cc {
            return Aff::V;
        }
        let load = matches!(op.kind, Ld | Ldu);
        if load && (op.volatile || matches!(op.space, Some(StateSpace::Local))) {
            return Aff::V;
        }
        let all = cls.iter().copied().fold(guard, Aff::min);
        if all == Aff::U {
            // Only a uniform address gives a uniform loaded value.
            return Aff::U;
        }
        if all == Aff::V || guard != Aff::U || load {
            return Aff::V;
        }
        // Some source is affine, none is vector: integer affine arithmetic keeps it affine.
        if op.ty.is_some_and(|t| t.is_float()) {
            return Aff::V;
        }
        let u = |i: usize| cls.get(i).copied() == Some(Aff::U);
        let aff = match op.kind {
            Add | Sub | Neg | Mov | Cvt | Cvta => true,
            Mul | Mul24 | Mad | Mad24 => u(0) || u(1),
            Shl => u(1),
            _ => false,
        };
        if aff {
            Aff::A
        } else {
            Aff::V
        }
    }
}

/// The baselines' affinity classes of every instruction of `f` for a launch of TB shape `block`.
pub fn affinity(f: &Function, block: [u32; 3], warp_size: u32) -> Vec<Aff> {
    solve(
        f,
        &AffineAnalysis {
            block,
            warp: warp_size,
        },
    )
}

/// Instructions UV (Uniform Vector, Xiang et al. ICS'13) eliminates at issue: uniform sources
/// only, not memory (document 003 §5.6).
pub fn uv_eliminable(f: &Function, block: [u32; 3], warp_size: u32) -> Vec<bool> {
    affinity(f, block, warp_size)
        .iter()
        .zip(&f.insts)
        .map(|(&a, i)| {
            a == Aff::U && eliminable(i) && !matches!(i.op.kind, OpKind::Ld | OpKind::Ldu)
        })
        .collect()
}

/// Instructions DAC-IDEAL (Wang & Lin ISCA'17, idealised) executes once per TB: uniform or
/// affine results, including loads from uniform addresses; loads from affine addresses give
/// unstructured data and stay (document 003 §5.6).
pub fn dac_eliminable(f: &Function, block: [u32; 3], warp_size: u32) -> Vec<bool> {
    affinity(f, block, warp_size)
        .iter()
        .zip(&f.insts)
        .map(|(&a, i)| {
            let load = matches!(i.op.kind, OpKind::Ld | OpKind::Ldu);
            eliminable(i) && (a == Aff::U || (a == Aff::A && !load))
        })
        .collect()
}
