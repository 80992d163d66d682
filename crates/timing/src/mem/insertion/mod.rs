//! Insertion / bypass policies of a cache (spec 000 §8.1 item 3): on a read miss the cache asks
//! whether to allocate the line or send the request to the next level without allocating (the
//! bypass path). Ctrl-C and CACP plug in here later.
//!
//! Adding a policy: one file implementing [`Insertion`], one row in the `policies!` call below.

mod always;
mod bypass_all;

/// What the cache tells the policy about a read miss.
#[derive(Debug, Clone, Copy)]
pub struct MissInfo {
    /// PC of the load.
    pub pc: u64,
    /// Line address (byte address / line size).
    pub line: u64,
    /// Warp slot that missed.
    pub warp: u32,
}

/// An insertion / bypass decision point.
pub trait Insertion {
    /// Whether this read miss should bypass the cache (not allocate).
    fn bypass(&mut self, miss: &MissInfo) -> bool;
    /// A line was evicted; `reused` says whether it was hit after its fill.
    fn on_evict(&mut self, _line: u64, _reused: bool) {}
    /// Whether stores skip the cache altogether (no lookup: the cache is off for global
    /// accesses, GPGPU-Sim `-gpgpu_gmem_skip_L1D`); selective load-bypass policies keep `false`.
    fn skips_stores(&self) -> bool {
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
            /// The policy `name`.
            pub fn new(name: &str) -> Option<Policy> {
                match name { $( $name => Some(Policy::$variant(<$ty>::default())), )* _ => None }
            }
        }
        impl Insertion for Policy {
            #[inline]
            fn bypass(&mut self, m: &MissInfo) -> bool {
                match self { $( Policy::$variant(p) => p.bypass(m), )* }
            }
            #[inline]
            fn on_evict(&mut self, line: u64, reused: bool) {
                match self { $( Policy::$variant(p) => p.on_evict(line, reused), )* }
            }
            #[inline]
            fn skips_stores(&self) -> bool {
                match self { $( Policy::$variant(p) => p.skips_stores(), )* }
            }
        }
    };
}

policies! {
    "always" => Always(always::Always), "allocate every miss";
    "bypass_all" => BypassAll(bypass_all::BypassAll), "never allocate on a read miss (L1D off)";
}

/// Whether `name` is registered.
pub fn find(name: &str) -> Option<&'static str> {
    INSERTIONS.iter().find(|r| r.0 == name).map(|r| r.0)
}

/// Registered names.
pub fn names() -> Vec<&'static str> {
    INSERTIONS.iter().map(|r| r.0).collect()
}
