//! The TB-redundancy limit study (document 003 §2, Figs. 1.4 and 4.1): from a functional run,
//! the share of dynamic warp instructions whose results are the same in every warp of the TB,
//! split into the three classes of §2.2 (uniform, affine, unstructured), plus warp-level
//! uniformity and a check of DARSIE's static marking against the values.
//!
//! A dynamic instance is identified by (CTA, static instruction, per-warp execution count): the
//! k-th execution of PC p by every warp of a CTA forms one group. A group is *TB-redundant* when
//! every warp of the CTA (at least two) executed it with a full active mask and wrote the same
//! destination values; as in §2.3, instructions in diverged control flow (a partial mask, or not
//! every warp) count as non-redundant, and instructions without a destination register (stores,
//! branches, barriers) are never redundant. All but one instance of a redundant group need not
//! execute: the *removable* share, the limit a TB-level technique can reach. Classes follow the
//! values of the first warp's destinations: *uniform* (every lane equal), *affine* (lane i holds
//! base + i x stride, stride != 0, in 64- or 32-bit arithmetic), else *unstructured*.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

use serde::Serialize;
use warpforge_core::{hint, DynInst, InstObserver, KernelInfo, MemSpace, OpClass};

/// The §2.2 pattern of one register vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Pattern {
    /// Every lane holds the same scalar.
    Uniform,
    /// Lane i holds base + i x stride with stride != 0.
    Affine,
    /// Neither.
    Unstructured,
}

fn affine_with(lanes: &[u64], mask: u64) -> bool {
    if lanes.len() < 2 {
        return false;
    }
    let d = lanes[1].wrapping_sub(lanes[0]) & mask;
    d != 0
        && lanes
            .windows(2)
            .all(|w| w[1].wrapping_sub(w[0]) & mask == d)
}

/// The pattern of `lanes` (any width: the Fig. 4.2 example uses warps of 4).
pub fn pattern(lanes: &[u64]) -> Pattern {
    if lanes.iter().all(|&v| v == lanes[0]) {
        Pattern::Uniform
    } else if affine_with(lanes, u64::MAX) || affine_with(lanes, u32::MAX as u64) {
        Pattern::Affine
    } else {
        Pattern::Unstructured
    }
}

/// TB-level class of one register across the warps of a TB (document 003 §2.2, Fig. 4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TbClass {
    /// Every warp holds the same vector, of this pattern.
    Redundant(Pattern),
    /// Warps differ, but the concatenation over the TB is affine ("TB-affine", Fig. 4.2a).
    TbAffine,
    /// Warps differ.
    Vector,
}

/// Classifies one register given each warp's lanes (warps in TB order).
pub fn tb_class(warps: &[&[u64]]) -> TbClass {
    if warps.len() >= 2 && warps.iter().all(|w| *w == warps[0]) {
        return TbClass::Redundant(pattern(warps[0]));
    }
    let all: Vec<u64> = warps.iter().flat_map(|w| w.iter().copied()).collect();
    if pattern(&all) == Pattern::Affine {
        TbClass::TbAffine
    } else {
        TbClass::Vector
    }
}

/// Limit-study counts of one kernel (summed over its launches), in dynamic warp instructions.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KernelRedundancy {
    /// Launches observed.
    pub launches: u64,
    /// TB shapes launched, e.g. `16x16x1`.
    pub blocks: Vec<String>,
    /// Dynamic warp instructions.
    pub warp_insts: u64,
    /// Instances in TB-redundant groups (leaders included).
    pub tb_redundant: u64,
    /// Instances that need not execute (TB-redundant minus one per group).
    pub tb_removable: u64,
    /// Removable instances whose value is uniform.
    pub removable_uniform: u64,
    /// Removable instances whose value is affine.
    pub removable_affine: u64,
    /// Removable instances whose value is unstructured.
    pub removable_unstructured: u64,
    /// Instances writing one scalar in every active lane (warp-level redundancy, Fig. 1.4).
    pub warp_uniform: u64,
    /// Instances DARSIE's pass marks skippable after the launch's TB-shape check, executed with
    /// a full mask (document 003 §5.2).
    pub darsie_marked: u64,
    /// Of those, instances in lock-step groups (every warp, full masks) whose values differ
    /// between warps: a marking the values contradict (expected 0).
    pub darsie_contradicted: u64,
    /// Marked instances a follower could skip (marked, in a TB-redundant group, not the
    /// group's first warp).
    pub darsie_removable: u64,
    /// Dynamic shared-memory load instructions (for the share DARSIE removes).
    pub shared_loads: u64,
}

impl KernelRedundancy {
    fn add(&mut self, o: &KernelRedundancy) {
        self.warp_insts += o.warp_insts;
        self.tb_redundant += o.tb_redundant;
        self.tb_removable += o.tb_removable;
        self.removable_uniform += o.removable_uniform;
        self.removable_affine += o.removable_affine;
        self.removable_unstructured += o.removable_unstructured;
        self.warp_uniform += o.warp_uniform;
        self.darsie_marked += o.darsie_marked;
        self.darsie_contradicted += o.darsie_contradicted;
        self.darsie_removable += o.darsie_removable;
        self.shared_loads += o.shared_loads;
    }

    /// Fraction of dynamic warp instructions that are removable at TB level.
    pub fn removable_fraction(&self) -> f64 {
        ratio(self.tb_removable, self.warp_insts)
    }
}

fn ratio(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        n as f64 / d as f64
    }
}

/// One dynamic group: the k-th execution of a PC by the warps of the current CTA.
#[derive(Debug, Clone, Copy)]
struct Group {
    hash: u64,
    warps: u32,
    same: bool,
    full: bool,
    has_dst: bool,
    marked: bool,
    pattern: Pattern,
}

/// The launch being observed.
struct Launch {
    name: String,
    warps_per_cta: u32,
    promote: bool,
    cta: u32,
    counts: Vec<Vec<u32>>,
    groups: HashMap<(u32, u32), Group>,
    acc: KernelRedundancy,
}

/// The limit-study observer: install on a functional [`warpforge_simt::Device`], run a
/// workload, then read [`RedundancyStudy::kernels`].
#[derive(Default)]
pub struct RedundancyStudy {
    kernels: BTreeMap<String, KernelRedundancy>,
    cur: Option<Launch>,
}

impl RedundancyStudy {
    /// An empty study.
    pub fn new() -> Self {
        Self::default()
    }

    /// Per-kernel results so far.
    pub fn kernels(&self) -> &BTreeMap<String, KernelRedundancy> {
        &self.kernels
    }

    /// All kernels summed.
    pub fn total(&self) -> KernelRedundancy {
        let mut t = KernelRedundancy::default();
        for k in self.kernels.values() {
            t.add(k);
            t.launches += k.launches;
        }
        t
    }

    fn flush_cta(l: &mut Launch) {
        for g in l.groups.values() {
            let lockstep = g.full && g.warps == l.warps_per_cta && l.warps_per_cta >= 2;
            let red = lockstep && g.same && g.has_dst;
            if red {
                let n = g.warps as u64;
                l.acc.tb_redundant += n;
                l.acc.tb_removable += n - 1;
                match g.pattern {
                    Pattern::Uniform => l.acc.removable_uniform += n - 1,
                    Pattern::Affine => l.acc.removable_affine += n - 1,
                    Pattern::Unstructured => l.acc.removable_unstructured += n - 1,
                }
                if g.marked {
                    l.acc.darsie_removable += n - 1;
                }
            }
            if g.marked && lockstep && !g.same {
                l.acc.darsie_contradicted += g.warps as u64;
            }
        }
        l.groups.clear();
        for c in &mut l.counts {
            c.clear();
        }
    }
}

fn hash_values(mask: u32, values: &[[u64; 32]]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    mask.hash(&mut h);
    for (i, v) in values.iter().enumerate() {
        for (l, x) in v.iter().enumerate() {
            if mask >> l & 1 == 1 {
                (i, *x).hash(&mut h);
            }
        }
    }
    h.finish()
}

impl InstObserver for RedundancyStudy {
    fn on_launch(&mut self, k: &KernelInfo) {
        let b = k.block;
        let promote = warpforge_ptx::redundancy::promotes_cr([b.x, b.y, b.z], 32);
        let e = self.kernels.entry(k.name.clone()).or_default();
        e.launches += 1;
        let shape = format!("{}x{}x{}", b.x, b.y, b.z);
        if !e.blocks.contains(&shape) {
            e.blocks.push(shape);
        }
        let w = k.warps_per_cta();
        self.cur = Some(Launch {
            name: k.name.clone(),
            warps_per_cta: w,
            promote,
            cta: u32::MAX,
            counts: vec![Vec::new(); w as usize],
            groups: HashMap::new(),
            acc: KernelRedundancy::default(),
        });
    }

    fn on_inst(&mut self, _cta: u32, _warp: u32, _inst: &DynInst) {}

    fn wants_values(&self) -> bool {
        true
    }

    fn on_values(&mut self, cta: u32, warp: u32, inst: &DynInst, values: &[[u64; 32]]) {
        let Some(l) = self.cur.as_mut() else { return };
        if cta != l.cta {
            Self::flush_cta(l);
            l.cta = cta;
        }
        l.acc.warp_insts += 1;
        if inst.class == OpClass::Load && inst.mem.is_some_and(|m| m.space == MemSpace::Shared) {
            l.acc.shared_loads += 1;
        }
        let full = inst.active_mask == u32::MAX;
        let has_dst = !values.is_empty();
        let marked =
            inst.hints & hint::DARSIE_R != 0 || (l.promote && inst.hints & hint::DARSIE_CR != 0);
        if marked && full {
            l.acc.darsie_marked += 1;
        }
        if has_dst && inst.active_mask != 0 {
            let mask = inst.active_mask;
            let first = values[0][mask.trailing_zeros() as usize];
            if values.iter().all(|v| {
                v.iter()
                    .enumerate()
                    .all(|(i, &x)| mask >> i & 1 == 0 || x == first)
            }) {
                l.acc.warp_uniform += 1;
            }
        }
        let counts = &mut l.counts[warp as usize];
        let idx = inst.static_idx as usize;
        if counts.len() <= idx {
            counts.resize(idx + 1, 0);
        }
        let n = counts[idx];
        counts[idx] += 1;
        let h = hash_values(inst.active_mask, values);
        l.groups
            .entry((inst.static_idx, n))
            .and_modify(|g| {
                g.warps += 1;
                g.same &= g.hash == h;
                g.full &= full;
            })
            .or_insert_with(|| Group {
                hash: h,
                warps: 1,
                same: true,
                full,
                has_dst,
                marked: marked && full,
                pattern: values
                    .iter()
                    .map(|v| pattern(v))
                    .max_by_key(|p| *p as u8)
                    .unwrap_or(Pattern::Unstructured),
            });
    }

    fn on_launch_end(&mut self, _k: &KernelInfo) {
        if let Some(mut l) = self.cur.take() {
            Self::flush_cta(&mut l);
            if let Some(e) = self.kernels.get_mut(&l.name) {
                e.add(&l.acc);
            }
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
}
