//! Cache replacement policies (spec 000 §8.1 item 3: LRU, 2-bit RRIP, and the SHiP and CACP
//! predictors of §4.5). The cache owns the tags; a policy owns only its per-line state and
//! answers "which ways may this line use" and "which of these ways goes". Every call carries the
//! access ([`MissInfo`]: PC, line, warp, the CPL criticality bit), which signature- and
//! criticality-based policies read and the others ignore.
//!
//! Adding a policy: one file implementing [`Replacement`], one row in the `policies!` call below
//! (2 edits); `l1d.replacement = "name"` selects it.

mod cacp;
mod ccbp;
mod lru;
mod ship;
mod srrip;

use super::insertion::MissInfo;
use crate::config::CacheConfig;

/// A replacement policy over `sets x ways` lines.
pub trait Replacement {
    /// The ways of `set` that a line allocated for `acc` may occupy (bit `w` = way `w`; default
    /// every way). A partitioning policy (CACP) confines a line to its partition.
    fn ways_for(&self, _set: usize, _acc: &MissInfo) -> u64 {
        u64::MAX
    }
    /// The ways of `set` that a line allocated for `acc` may take as well when every way of
    /// [`Replacement::ways_for`] is reserved by a fill in flight (default none: the allocation
    /// fails). A partitioning policy may name the other partition (`l1d.partition_fallback`).
    fn fallback_ways(&self, _set: usize, _acc: &MissInfo) -> u64 {
        0
    }
    /// Chooses the victim among `candidates` (bit `w` = way `w` may be evicted; never empty) to
    /// make room for `acc`; the chosen line is evicted.
    fn victim(&mut self, set: usize, candidates: u64, acc: &MissInfo) -> usize;
    /// Line (`set`, `way`) was hit by `acc`.
    fn on_hit(&mut self, _set: usize, _way: usize, _acc: &MissInfo) {}
    /// Line (`set`, `way`) was filled (allocated) for `acc`.
    fn on_fill(&mut self, _set: usize, _way: usize, _acc: &MissInfo) {}
    /// Whether `way` belongs to the partition a partitioning policy reserves for lines
    /// predicted critical (CACP's critical ways, spec 000 §4.5); counted per fill in
    /// `CacheStats::critical_fills`. Default: no such partition.
    fn in_critical_partition(&self, _way: usize) -> bool {
        false
    }
    /// Whether the policy reads the criticality bit of [`MissInfo`] (CPL, spec 000 §4.3): the
    /// SM runs CPL only when some policy reads it or `sim.cpl` asks for its statistics, and the
    /// bit is `false` otherwise. Default: no.
    fn reads_criticality(&self) -> bool {
        false
    }
}

macro_rules! policies {
    ($($name:literal => $variant:ident($ty:path), $doc:literal;)*) => {
        /// The registered policies, statically dispatched.
        pub enum Policy { $( #[doc = $doc] $variant($ty), )* }
        /// Registry: (name, description).
        pub const REPLACEMENTS: &[(&str, &str)] = &[$(($name, $doc)),*];
        impl Policy {
            /// The policy `name` for the cache `c` (`c.sets x c.ways` lines).
            pub fn new(name: &str, c: &CacheConfig) -> Option<Policy> {
                match name { $( $name => Some(Policy::$variant(<$ty>::new(c))), )* _ => None }
            }
        }
        impl Replacement for Policy {
            #[inline]
            fn ways_for(&self, set: usize, a: &MissInfo) -> u64 {
                match self { $( Policy::$variant(p) => p.ways_for(set, a), )* }
            }
            #[inline]
            fn fallback_ways(&self, set: usize, a: &MissInfo) -> u64 {
                match self { $( Policy::$variant(p) => p.fallback_ways(set, a), )* }
            }
            #[inline]
            fn victim(&mut self, set: usize, c: u64, a: &MissInfo) -> usize {
                match self { $( Policy::$variant(p) => p.victim(set, c, a), )* }
            }
            #[inline]
            fn on_hit(&mut self, set: usize, way: usize, a: &MissInfo) {
                match self { $( Policy::$variant(p) => p.on_hit(set, way, a), )* }
            }
            #[inline]
            fn on_fill(&mut self, set: usize, way: usize, a: &MissInfo) {
                match self { $( Policy::$variant(p) => p.on_fill(set, way, a), )* }
            }
            #[inline]
            fn in_critical_partition(&self, way: usize) -> bool {
                match self { $( Policy::$variant(p) => p.in_critical_partition(way), )* }
            }
            fn reads_criticality(&self) -> bool {
                match self { $( Policy::$variant(p) => p.reads_criticality(), )* }
            }
        }
    };
}

policies! {
    "lru" => Lru(lru::Lru), "least recently used";
    "srrip" => Srrip(srrip::Srrip), "static re-reference interval prediction, 2-bit RRPV, insert at 2";
    "ship" => Ship(ship::Ship), "SHiP: 2-bit RRIP inserting at 3 when the (PC xor line address) signature predicts no reuse, else 2";
    "cacp" => Cacp(cacp::Cacp), "CACP (Lee 2017 §4.2.3): critical / non-critical way partitions chosen by CCBP, SHiP-RRIP in each";
}

/// Whether `name` is registered.
pub fn find(name: &str) -> Option<&'static str> {
    REPLACEMENTS.iter().find(|r| r.0 == name).map(|r| r.0)
}

/// Registered names.
pub fn names() -> Vec<&'static str> {
    REPLACEMENTS.iter().map(|r| r.0).collect()
}

/// A cache configuration of `sets x ways` lines for policy tests, with the line-address
/// signature (`pc_line`: every line of a test its own signature; tests of the signature
/// itself set it explicitly).
#[cfg(test)]
pub(crate) fn test_config(sets: u32, ways: u32) -> CacheConfig {
    let mut c = crate::GpuConfig::preset("gtx480").unwrap().l1d;
    c.sets = sets;
    c.ways = ways;
    c.signature = "pc_line".into();
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: MissInfo = MissInfo {
        pc: 0,
        line: 0,
        warp: 0,
        critical: false,
    };

    #[test]
    fn lru_evicts_least_recent() {
        let mut p = Policy::new("lru", &test_config(1, 4)).unwrap();
        for w in 0..4 {
            p.on_fill(0, w, &A);
        }
        p.on_hit(0, 0, &A);
        assert_eq!(p.victim(0, 0b1111, &A), 1);
        assert_eq!(p.victim(0, 0b1101, &A), 2);
    }

    #[test]
    fn srrip_protects_reused_lines_and_ages_others() {
        let mut p = Policy::new("srrip", &test_config(1, 4)).unwrap();
        for w in 0..4 {
            p.on_fill(0, w, &A);
        }
        p.on_hit(0, 0, &A);
        p.on_hit(0, 2, &A);
        // Ways 1 and 3 were inserted at RRPV 2, aged to 3 first; way 1 is found first.
        assert_eq!(p.victim(0, 0b1111, &A), 1);
        // Among reused lines only, aging must still find a victim.
        assert_eq!(p.victim(0, 0b0101, &A), 0);
        assert!(Policy::new("random", &test_config(1, 4)).is_none());
    }
}
