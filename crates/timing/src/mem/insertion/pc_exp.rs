//! Static per-PC insertion exponents, the characterisation study of Lee 2017 §5.1 Figure 5.5
//! (spec 000 §5.1, claim 19): instruction `IDX` inserts one miss in `2^N` and bypasses the
//! others; every other instruction inserts every miss. Configured as
//! `l1d.insertion = "pc_exp:IDX=N[,IDX=N...]"` with `IDX` the table index of the load
//! ([`super::pc_index`]: instruction index mod 128) and `N` in 0..=7. The insertion pattern is
//! counted (2^N - 1 bypasses, then an insertion), as Ctrl-C's; the document's sweep is
//! probabilistic, which inserts at the same rate.

use super::{pc_index, Insertion, MissInfo};

/// The policy: an exponent and a bypass count per table entry.
#[derive(Debug, Clone)]
pub struct PcExp {
    exp: Vec<u8>,
    byp: Vec<u8>,
}

impl Default for PcExp {
    fn default() -> Self {
        Self {
            exp: vec![0; 128],
            byp: vec![0; 128],
        }
    }
}

impl Insertion for PcExp {
    fn bypass(&mut self, miss: &MissInfo) -> bool {
        let i = pc_index(miss.pc);
        if (self.byp[i] as u32) < (1u32 << self.exp[i]) - 1 {
            self.byp[i] += 1;
            true
        } else {
            self.byp[i] = 0;
            false
        }
    }

    fn configure(&mut self, args: &str) -> Result<(), String> {
        for item in args.split(',') {
            let (i, n) = item
                .split_once('=')
                .ok_or_else(|| format!("`{item}` is not IDX=N"))?;
            let i: usize = i
                .trim()
                .parse()
                .ok()
                .filter(|&i| i < 128)
                .ok_or_else(|| format!("`{i}` is not a table index 0..=127"))?;
            let n: u8 = n
                .trim()
                .parse()
                .ok()
                .filter(|&n| n <= 7)
                .ok_or_else(|| format!("`{n}` is not an exponent 0..=7"))?;
            self.exp[i] = n;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_configured_pc_bypasses_at_its_rate() {
        let mut p = PcExp::default();
        p.configure("3=2, 5=0").unwrap();
        let m = |i: u64| MissInfo {
            pc: i * 8,
            line: 0,
            warp: 0,
            critical: false,
        };
        let got: Vec<bool> = (0..8).map(|_| p.bypass(&m(3))).collect();
        assert_eq!(got, [true, true, true, false, true, true, true, false]);
        assert!((0..8).all(|_| !p.bypass(&m(5)) && !p.bypass(&m(4))));
        assert!(p.configure("3").is_err());
        assert!(p.configure("128=1").is_err());
        assert!(p.configure("3=8").is_err());
    }
}
