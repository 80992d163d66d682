//! The CTA dispatcher places at most one CTA per SM per cycle, visiting the SMs round robin
//! from where the previous placement left off (GPGPU-Sim's `issue_block2core`). A rotation
//! that moved while the SMs were visited skipped SMs: the first dispatch cycle put CTAs on SMs
//! 0, 2, 5, 9, 14 and left others empty, so grids of one wave ran several CTAs on one SM.

mod common;

use common::*;
use warpforge_core::{KernelRunner, OpClass};
use warpforge_timing::{GpuConfig, TimingRunner};

/// Runs `grid` one-warp CTAs of 40 dependent ALU instructions on 15 SMs with the engine
/// window `window`; returns each CTA's (SM, first-warp start cycle), by CTA index.
fn placement(grid: u32, window: u32) -> Vec<(u16, u64)> {
    let mut c = GpuConfig::preset("gtx480").unwrap();
    c.set("core.num_sms", "15").unwrap();
    c.set("sim.window", &window.to_string()).unwrap();
    c.set("sim.warp_times", "true").unwrap();
    let mut r = TimingRunner::new(c, 1);
    let mut src = Mock::new(
        grid,
        32,
        Box::new(|_, _, i| match i {
            i if i < 40 => Some(alu(0x100 + 8 * i as u64, OpClass::IntAlu, 2, &[2])),
            40 => Some(exit(0x100 + 8 * 40)),
            _ => None,
        }),
    );
    r.run_kernel(&mut src).unwrap();
    let k = &r.kernels()[0];
    let mut p = vec![(u16::MAX, 0u64); grid as usize];
    for w in &k.warp_times {
        p[w.cta as usize] = (w.sm, w.start);
    }
    p
}

#[test]
fn one_wave_puts_one_cta_on_every_sm_in_sm_order() {
    for window in [1, 4] {
        let p = placement(15, window);
        for (cta, &(sm, start)) in p.iter().enumerate() {
            assert_eq!(
                sm as usize, cta,
                "window {window}: CTA {cta} on SM {sm} ({p:?})"
            );
            assert_eq!(
                start, p[0].1,
                "window {window}: CTA {cta} not placed in the first cycle"
            );
        }
    }
}

#[test]
fn several_waves_share_the_ctas_evenly_round_robin() {
    for window in [1, 4] {
        let p = placement(45, window);
        let mut per_sm = [0u32; 15];
        for (cta, &(sm, _)) in p.iter().enumerate() {
            // Every SM takes a CTA per cycle and all fit at once: CTA i goes to SM i mod 15.
            assert_eq!(
                sm as usize,
                cta % 15,
                "window {window}: CTA {cta} on SM {sm}"
            );
            per_sm[sm as usize] += 1;
        }
        assert!(
            per_sm.iter().all(|&n| n == 3),
            "window {window}: {per_sm:?}"
        );
    }
}
