//! Memory accesses of the executor: address-space classification, loads and stores through the
//! environment's memories, atomics, and per-lane address recording.

use super::*;

/// Memory-access helpers over the spaces of one CTA/warp.
pub(super) struct Mem<'e, 'a> {
    pub(super) env: &'e mut Env<'a>,
}

pub(super) enum Acc {
    Global(u64),
    Shared(u64),
    Local(u64),
    Const(u64),
    KParam(u64),
    FParam(u64),
}

pub(super) fn classify(space: Space, addr: u64) -> (Acc, MemSpace) {
    match space {
        Space::Global => (Acc::Global(addr), MemSpace::Global),
        Space::Shared => (Acc::Shared(addr), MemSpace::Shared),
        Space::Local => (Acc::Local(addr), MemSpace::Local),
        Space::Const => (Acc::Const(addr), MemSpace::Const),
        Space::Param => {
            if addr >= FPARAM_TAG {
                (Acc::FParam(addr - FPARAM_TAG), MemSpace::Param)
            } else {
                (Acc::KParam(addr), MemSpace::Param)
            }
        }
        Space::Generic => match resolve_generic(addr) {
            (MemSpace::Global, a) => (Acc::Global(a), MemSpace::Global),
            (MemSpace::Shared, a) => (Acc::Shared(a), MemSpace::Shared),
            (MemSpace::Local, a) => (Acc::Local(a), MemSpace::Local),
            (MemSpace::Const, a) => (Acc::Const(a), MemSpace::Const),
            (_, a) => (Acc::KParam(a), MemSpace::Param),
        },
    }
}

impl Mem<'_, '_> {
    pub(super) fn load(
        &mut self,
        shared: &[u8],
        warp: &Warp,
        lane: usize,
        acc: &Acc,
        size: u32,
    ) -> Result<u64, String> {
        let code = self.env.code;
        match *acc {
            Acc::Global(a) => self
                .env
                .gmem
                .load(a, size)
                .map_err(|f| self.env.global_fault(f, "load")),
            Acc::Shared(a) => flat_load(shared, a, size).ok_or_else(|| {
                format!("shared load of {size} bytes at offset {a} is beyond the CTA's {} bytes of shared memory", shared.len())
            }),
            Acc::Local(a) => {
                let lb = code.local_bytes as u64;
                if a + size as u64 > lb {
                    return Err(format!("local load of {size} bytes at offset {a} is beyond the thread's {lb} bytes of local memory"));
                }
                flat_load(&warp.local, lane as u64 * lb + a, size).ok_or_else(|| "local load out of range".to_string())
            }
            Acc::Const(a) => flat_load(self.env.cbank, a, size).ok_or_else(|| {
                format!("constant load of {size} bytes at offset {a} is beyond the module's {} bytes of constant memory", self.env.cbank.len())
            }),
            Acc::KParam(a) => flat_load(self.env.params, a, size).ok_or_else(|| {
                format!("parameter load at offset {a} is beyond the kernel's {} bytes of parameters", self.env.params.len())
            }),
            Acc::FParam(a) => {
                let fb = code.fparam_bytes as u64;
                if a + size as u64 > fb {
                    return Err(format!("function-parameter load at offset {a} out of range"));
                }
                flat_load(&warp.fparam, lane as u64 * fb + a, size).ok_or_else(|| "parameter load out of range".to_string())
            }
        }
    }

    pub(super) fn store(
        &mut self,
        shared: &mut [u8],
        warp: &mut Warp,
        lane: usize,
        acc: &Acc,
        size: u32,
        v: u64,
    ) -> Result<(), String> {
        let code = self.env.code;
        match *acc {
            Acc::Global(a) => self
                .env
                .gmem
                .store(a, size, v)
                .map_err(|f| self.env.global_fault(f, "store")),
            Acc::Shared(a) => {
                let n = shared.len();
                flat_store(shared, a, size, v).ok_or_else(|| {
                    format!("shared store of {size} bytes at offset {a} is beyond the CTA's {n} bytes of shared memory")
                })
            }
            Acc::Local(a) => {
                let lb = code.local_bytes as u64;
                if a + size as u64 > lb {
                    return Err(format!("local store of {size} bytes at offset {a} is beyond the thread's {lb} bytes of local memory"));
                }
                flat_store(&mut warp.local, lane as u64 * lb + a, size, v)
                    .ok_or_else(|| "local store out of range".to_string())
            }
            Acc::Const(_) => Err("store to constant memory".into()),
            Acc::KParam(_) => Err("store to kernel parameter space".into()),
            Acc::FParam(a) => {
                let fb = code.fparam_bytes as u64;
                if a + size as u64 > fb {
                    return Err(format!(
                        "function-parameter store at offset {a} out of range"
                    ));
                }
                flat_store(&mut warp.fparam, lane as u64 * fb + a, size, v)
                    .ok_or_else(|| "parameter store out of range".to_string())
            }
        }
    }
}

/// Extends a loaded value of type `t` the way PTX writes it into a register.
#[inline(always)]
pub(super) fn load_ext(v: u64, t: ScalarType) -> u64 {
    if t.is_signed() && t.size() < 8 {
        sext(v, bits(t)) as u64
    } else {
        v
    }
}

/// `atom.min` (`min` true) or `atom.max` of `old` and `b` as values of type `t`: signed,
/// `.f32` (IEEE `min`/`max`: a NaN operand yields the other) or unsigned.
pub(super) fn atom_extreme(t: ScalarType, old: u64, b: u64, min: bool) -> u64 {
    let n = bits(t);
    if t.is_signed() {
        let (x, y) = (sext(old, n), sext(b, n));
        trunc(if min { x.min(y) } else { x.max(y) } as u64, n)
    } else if t == ScalarType::F32 {
        let (x, y) = (f32::from_bits(old as u32), f32::from_bits(b as u32));
        (if min { x.min(y) } else { x.max(y) }).to_bits() as u64
    } else {
        let (x, y) = (trunc(old, n), trunc(b, n));
        if min {
            x.min(y)
        } else {
            x.max(y)
        }
    }
}

pub(super) fn atom_apply(op: AtomOp, t: ScalarType, old: u64, b: u64, c: u64) -> u64 {
    let n = bits(t);
    match op {
        AtomOp::Add => match t {
            ScalarType::F32 => {
                (f32::from_bits(old as u32) + f32::from_bits(b as u32)).to_bits() as u64
            }
            ScalarType::F64 => (f64::from_bits(old) + f64::from_bits(b)).to_bits(),
            _ => trunc(old.wrapping_add(b), n),
        },
        AtomOp::Min => atom_extreme(t, old, b, true),
        AtomOp::Max => atom_extreme(t, old, b, false),
        AtomOp::Inc => {
            let (o, b) = (trunc(old, n), trunc(b, n));
            if o >= b {
                0
            } else {
                o + 1
            }
        }
        AtomOp::Dec => {
            let (o, b) = (trunc(old, n), trunc(b, n));
            if o == 0 || o > b {
                b
            } else {
                o - 1
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => trunc(b, n),
        AtomOp::Cas => {
            if trunc(old, n) == trunc(b, n) {
                trunc(c, n)
            } else {
                trunc(old, n)
            }
        }
        AtomOp::Popc => old,
    }
}

/// Removes `gone` lanes from stack entries `from..` and pops emptied/reconverged entries.
/// The address lane `l` of memory instruction `inst` accesses (base register + offset) and how
/// it resolves; in trace mode the address goes to `addrs[l]` and the first resolved state space
/// to `space`.
#[inline(always)]
pub(super) fn lane_address<const TRACE: bool>(
    regs: &Regs,
    inst: &DInst,
    l: usize,
    addrs: &mut [u64; WARP_SIZE],
    space: &mut Option<MemSpace>,
) -> (u64, Acc) {
    let addr = rd(regs, inst.s[0], l).wrapping_add(inst.addr_off as u64);
    let (acc, msp) = classify(inst.space, addr);
    if TRACE {
        addrs[l] = addr;
        space.get_or_insert(msp);
    }
    (addr, acc)
}

/// Trace mode: stores a memory instruction's per-lane addresses in `out` and, when the
/// generic addresses resolved to a state space, that space (of the first active lane).
#[inline]
pub(super) fn record_addrs(out: &mut DynInst, addrs: &[u64; WARP_SIZE], space: Option<MemSpace>) {
    if let Some(mem) = out.mem.as_mut() {
        mem.addrs = *addrs;
        if let Some(s) = space {
            mem.space = s;
        }
    }
}
