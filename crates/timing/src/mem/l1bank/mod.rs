//! L1D bank arbitration (issue 14 item 3; `l1d.bank_arbiter`): which of a memory instruction's
//! transactions the LD/ST unit hands to a banked L1D (`l1d.banks` banks of `l1d.bank_bytes`) in
//! one core cycle. An arbiter names the banks a transaction occupies and whether a transaction
//! whose banks are taken ends the cycle (in order) or lets later ones go ahead.

mod first_sector;
mod sectors;

pub use first_sector::FirstSector;
pub use sectors::Sectors;

use super::coalesce::Txn;

/// The bank geometry an arbiter works on.
#[derive(Debug, Clone, Copy)]
pub struct Banks {
    /// Banks (at most 64).
    pub banks: u32,
    /// Interleaving unit, bytes (power of two).
    pub bank_bytes: u64,
    /// Sector size of the transactions, bytes.
    pub sector_bytes: u64,
}

impl Banks {
    /// The bank of byte address `addr`.
    #[inline]
    pub fn of(&self, addr: u64) -> u32 {
        ((addr / self.bank_bytes) % self.banks as u64) as u32
    }
}

/// An arbitration rule.
pub trait BankArbiter {
    /// The banks transaction `t` occupies (bit `b` = bank `b`).
    fn banks(&self, t: &Txn, g: &Banks) -> u64;
    /// Whether a transaction whose banks are taken ends the cycle (later transactions of the
    /// instruction wait too) rather than letting later ones go ahead.
    fn in_order(&self) -> bool;
}

macro_rules! arbiters {
    ($($name:literal => $variant:ident($ty:ident), $doc:literal;)*) => {
        /// The registered arbiters, statically dispatched.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Arbiter { $( #[doc = $doc] $variant($ty), )* }
        /// Registry: (name, description).
        pub const ARBITERS: &[(&str, &str)] = &[$(($name, $doc)),*];
        impl Arbiter {
            /// The arbiter called `name`.
            pub fn new(name: &str) -> Option<Arbiter> {
                match name { $( $name => Some(Arbiter::$variant($ty)), )* _ => None }
            }
        }
        impl BankArbiter for Arbiter {
            #[inline]
            fn banks(&self, t: &Txn, g: &Banks) -> u64 {
                match self { $( Arbiter::$variant(a) => a.banks(t, g), )* }
            }
            #[inline]
            fn in_order(&self) -> bool {
                match self { $( Arbiter::$variant(a) => a.in_order(), )* }
            }
        }
    };
}

arbiters! {
    "first_sector" => FirstSector(FirstSector),
        "GPGPU-Sim's: a transaction occupies the bank of its first sector; the first one whose bank is taken ends the cycle (BK_CONF)";
    "sectors" => Sectors(Sectors),
        "a transaction occupies the banks of all its sectors (the data it reads or writes); one whose banks are taken waits and later ones go ahead";
}

/// Names of the registered arbiters.
pub fn names() -> Vec<&'static str> {
    ARBITERS.iter().map(|(n, _)| *n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn txn(line_addr: u64, sectors: u8) -> Txn {
        Txn {
            line_addr,
            sectors,
            lanes: 1,
        }
    }

    #[test]
    fn first_sector_takes_one_bank_sectors_take_every_sector_bank() {
        let g = Banks {
            banks: 4,
            bank_bytes: 32,
            sector_bytes: 32,
        };
        let (f, s) = (
            Arbiter::new("first_sector").unwrap(),
            Arbiter::new("sectors").unwrap(),
        );
        // A whole line: one bank for GPGPU-Sim's rule, all four 32-byte banks for the data.
        assert_eq!(f.banks(&txn(0x1000, 0b1111), &g), 0b0001);
        assert_eq!(s.banks(&txn(0x1000, 0b1111), &g), 0b1111);
        // Sectors 1 and 3 of a line.
        assert_eq!(f.banks(&txn(0x1000, 0b1010), &g), 0b0010);
        assert_eq!(s.banks(&txn(0x1000, 0b1010), &g), 0b1010);
        // 8 banks of 32 bytes: an odd line's sectors are banks 4-7.
        let g8 = Banks { banks: 8, ..g };
        assert_eq!(s.banks(&txn(0x1080, 0b0011), &g8), 0b0011_0000);
        // Banks narrower than a sector: a sector covers several.
        let g4 = Banks {
            banks: 32,
            bank_bytes: 4,
            ..g
        };
        assert_eq!(s.banks(&txn(0x1000, 0b0010), &g4), 0xff00);
        assert!(f.in_order() && !s.in_order());
        assert!(Arbiter::new("random").is_none());
        assert_eq!(names(), ["first_sector", "sectors"]);
    }
}
