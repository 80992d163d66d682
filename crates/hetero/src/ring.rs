//! The bidirectional ring (spec 004 Table 1: single-cycle hops). Stops, in ring order: the CPU
//! cores, the GPU, the first half of the LLC banks, memory controller 0, the second half of the
//! banks, then the other controllers [INTERP: the document gives no layout]. Latency only: link
//! contention is not modelled \[INTERP\].

use crate::config::HeteroConfig;
use crate::req::Source;

/// Ring geometry.
#[derive(Debug, Clone)]
pub struct Ring {
    stops: u32,
    hop: u32,
    cores: u32,
    bank_stop: Vec<u32>,
    mc_stop: Vec<u32>,
}

impl Ring {
    /// The ring of `c`.
    pub fn new(c: &HeteroConfig) -> Self {
        let cores = c.cpu.cores;
        let banks = c.ring.llc_banks;
        let chans = c.dram.channels;
        let mut next = cores + 1;
        let mut bank_stop = Vec::new();
        let mut mc_stop = Vec::new();
        for b in 0..banks {
            if b == banks / 2 {
                mc_stop.push(next);
                next += 1;
            }
            bank_stop.push(next);
            next += 1;
        }
        while (mc_stop.len() as u32) < chans {
            mc_stop.push(next);
            next += 1;
        }
        Self {
            stops: next,
            hop: c.ring.hop_cycles,
            cores,
            bank_stop,
            mc_stop,
        }
    }

    fn stop_of(&self, s: Source) -> u32 {
        match s {
            Source::Cpu(i) => (i as u32).min(self.cores - 1),
            Source::Gpgpu | Source::Gfx(_) => self.cores,
        }
    }

    fn cycles(&self, a: u32, b: u32) -> u64 {
        let d = a.abs_diff(b);
        (d.min(self.stops - d) * self.hop) as u64
    }

    /// LLC bank of a block (low bits of the block number).
    pub fn bank_of(&self, line: u64) -> usize {
        (line % self.bank_stop.len() as u64) as usize
    }

    /// Cycles between a requester and an LLC bank (either direction).
    pub fn to_bank(&self, s: Source, bank: usize) -> u64 {
        self.cycles(self.stop_of(s), self.bank_stop[bank])
    }

    /// Cycles between an LLC bank and a memory controller.
    pub fn bank_to_mc(&self, bank: usize, ch: usize) -> u64 {
        self.cycles(self.bank_stop[bank], self.mc_stop[ch])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hops_take_the_short_way_round() {
        let c = HeteroConfig::preset("hetero").unwrap();
        let r = Ring::new(&c);
        // 4 cores + GPU + 8 banks + 2 MCs = 15 stops.
        assert_eq!(r.stops, 15);
        assert_eq!(r.to_bank(Source::Cpu(0), 0), 5);
        // Core 0 (stop 0) to the last bank (stop 13) goes backwards: 2 hops.
        assert_eq!(r.to_bank(Source::Cpu(0), 7), 2);
        assert_eq!(r.to_bank(Source::Gpgpu, 0), 1);
        assert_eq!(r.to_bank(Source::Gfx(3), 0), 1);
        assert!(r.bank_to_mc(3, 0) == 1 && r.bank_to_mc(4, 0) == 1);
    }
}
