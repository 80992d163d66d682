//! Insertion / bypass policies of a cache (spec 000 §8.1 item 3): on a read miss the cache asks
//! whether to allocate the line or send the request to the next level without allocating (the
//! bypass path), and tells the policy about every line that leaves (evicted by replacement or
//! invalidated by a write) with its reuse bit and the PC that inserted it.
//!
//! Adding a policy: one file implementing [`Insertion`] and `Default`, one row in the
//! `policies!` call below. A policy with parameters reads them from the text after a colon in
//! its configured name (`l1d.insertion = "name:ARGS"`, see [`Insertion::configure`]).
//!
//! The cache asks [`Insertion::bypass`] once per miss: an access refused for lack of resources
//! (reservation failure) and retried keeps the decision it got (see `l1.rs`).

mod always;
mod bypass_all;
pub mod ctrlc;
mod pc_bypass;
pub mod pc_exp;

pub use super::cache::Evicted;

/// What the cache tells a policy about an access: the read miss an insertion policy decides
/// on, and the access a replacement policy sees at a hit, a fill or a victim choice.
#[derive(Debug, Clone, Copy, Default)]
pub struct MissInfo {
    /// PC of the load (byte address in the kernel's code; 0 for accesses without one).
    pub pc: u64,
    /// Line address (byte address / line size).
    pub line: u64,
    /// Warp slot that missed.
    pub warp: u32,
    /// The request comes from a warp that the SM's criticality prediction (CPL, spec 000 §4.3)
    /// ranks critical (`core.cpl_critical`: by default the slowest warp of its thread block,
    /// [`crate::core::cpl::Cpl::is_critical`]). Computed when CPL runs (a policy's
    /// `reads_criticality`, or `sim.cpl`), else `false`; policies that do not use criticality
    /// ignore it.
    pub critical: bool,
}

impl MissInfo {
    /// An access known only by its line (fills and hits of caches without a requesting warp).
    pub fn line_only(line: u64) -> MissInfo {
        MissInfo {
            line,
            ..MissInfo::default()
        }
    }
}

/// An insertion / bypass decision point.
pub trait Insertion {
    /// Whether this read miss should bypass the cache (not allocate).
    fn bypass(&mut self, miss: &MissInfo) -> bool;
    /// A line left the cache (replacement victim or write-evict invalidation); `ev.reused`
    /// says whether it was hit after its fill, `ev.pc` which load inserted it.
    fn on_evict(&mut self, _ev: &Evicted) {}
    /// Whether stores skip the cache altogether (no lookup: the cache is off for global
    /// accesses, GPGPU-Sim `-gpgpu_gmem_skip_L1D`); selective load-bypass policies keep `false`.
    fn skips_stores(&self) -> bool {
        false
    }
    /// Applies the parameters written after the colon of `name:ARGS`; policies without
    /// parameters refuse any.
    fn configure(&mut self, args: &str) -> Result<(), String> {
        Err(format!("takes no parameters (got `{args}`)"))
    }
    /// Whether the policy reads the criticality bit of [`MissInfo`] (CPL, spec 000 §4.3): the
    /// SM runs CPL only when some policy reads it or `sim.cpl` asks for its statistics, and the
    /// bit is `false` otherwise. Default: no (none of the registered policies does).
    fn reads_criticality(&self) -> bool {
        false
    }
}

macro_rules! policies {
    ($($name:literal => $variant:ident($ty:path), $doc:literal;)*) => {
        /// The registered policies, statically dispatched.
        pub enum Policy { $( #[doc = $doc] $variant($ty), )* }
        /// Registry: (name, description).
        pub const INSERTIONS: &[(&str, &str)] = &[$(($name, $doc)),*];
        impl Policy {
            /// The policy configured as `spec` (`name` or `name:ARGS`), or why not.
            pub fn parse(spec: &str) -> Result<Policy, String> {
                let (name, args) = match spec.split_once(':') {
                    Some((n, a)) => (n, Some(a)),
                    None => (spec, None),
                };
                let mut p = match name {
                    $( $name => Policy::$variant(<$ty>::default()), )*
                    _ => return Err(format!(
                        "unknown insertion policy `{name}` (known: {})", names().join(", "))),
                };
                if let Some(a) = args {
                    p.configure(a).map_err(|e| format!("insertion policy `{name}`: {e}"))?;
                }
                Ok(p)
            }
            /// The policy `spec` (`name` or `name:ARGS`), if valid.
            pub fn new(spec: &str) -> Option<Policy> {
                Self::parse(spec).ok()
            }
        }
        impl Insertion for Policy {
            #[inline]
            fn bypass(&mut self, m: &MissInfo) -> bool {
                match self { $( Policy::$variant(p) => p.bypass(m), )* }
            }
            #[inline]
            fn on_evict(&mut self, ev: &Evicted) {
                match self { $( Policy::$variant(p) => p.on_evict(ev), )* }
            }
            #[inline]
            fn skips_stores(&self) -> bool {
                match self { $( Policy::$variant(p) => p.skips_stores(), )* }
            }
            fn configure(&mut self, args: &str) -> Result<(), String> {
                match self { $( Policy::$variant(p) => p.configure(args), )* }
            }
            fn reads_criticality(&self) -> bool {
                match self { $( Policy::$variant(p) => p.reads_criticality(), )* }
            }
        }
    };
}

policies! {
    "always" => Always(always::Always), "allocate every miss";
    "bypass_all" => BypassAll(bypass_all::BypassAll), "never allocate on a read miss (L1D off)";
    "ctrlc" => CtrlC(ctrlc::CtrlC), "Ctrl-C: per-PC control-loop insertion rate 1/2^AGG (Lee 2017 Ch. 5)";
    "pc_bypass" => PcBypass(pc_bypass::PcBypass), "PC-based all-or-nothing adaptive bypassing (Lee 2017 §5.3.1)";
    "pc_exp" => PcExp(pc_exp::PcExp), "static per-PC insertion exponents `pc_exp:IDX=N,..` (Lee 2017 Fig. 5.5)";
}

/// The registered name of `spec` (`name` or `name:ARGS`), if it is registered.
pub fn find(spec: &str) -> Option<&'static str> {
    let name = spec.split_once(':').map_or(spec, |(n, _)| n);
    INSERTIONS.iter().find(|r| r.0 == name).map(|r| r.0)
}

/// Registered names.
pub fn names() -> Vec<&'static str> {
    INSERTIONS.iter().map(|r| r.0).collect()
}

/// Index of a load PC in a 128-entry per-instruction table: the low 7 bits of the instruction
/// index (`pc / 8`, the simulator's PC stride), spec 000 §5.2 `PC[6:0]` (digest: index with
/// instruction-index bits, not byte-offset bits, to avoid aliasing).
#[inline]
pub fn pc_index(pc: u64) -> usize {
    ((pc >> 3) & 0x7f) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_names_and_arguments() {
        assert!(Policy::parse("always").is_ok());
        let err = |s: &str| Policy::parse(s).err().unwrap_or_default();
        assert!(err("always:3").contains("no parameters"));
        assert!(err("nope").contains("known: always"));
        assert_eq!(find("pc_exp:3=5"), Some("pc_exp"));
        assert!(Policy::parse("pc_exp:3=5,7=2").is_ok());
        assert!(Policy::parse("pc_exp:3=9").is_err());
    }
}
