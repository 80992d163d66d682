//! `bp`: back propagation (Rodinia backprop; CAWA Non-sens set, Ctrl-C, Table 3.2).
//!
//! `bp_layerforward` (16x16 CTAs, shared-memory tree reduction with 4 barrier steps and halving
//! active rows) then the host finishes the tiny hidden/output layers and computes the deltas, then
//! `bp_adjust_weights` (streaming read-modify-write of two weight arrays), as the original does.
//!
//! Check: the hidden-unit sums (CTA partials summed on the host) and the updated weights match
//! CPU f64 values within 1e-4 relative; the weight reference uses the deltas the host derived
//! from the device's sums, so each kernel is checked on its own inputs.

use rand::Rng;
use warpforge_core::Dim3;
use warpforge_simt::{Device, KernelArg as A};

use crate::common::{by_size, compare_f32, load, rng, shape};
use crate::{check_or_return, Check, Size, Workload, WorkloadError, WorkloadInfo};

const PTX: &str = include_str!("../../bp/kernel.ptx");
const HID: usize = 16;
const ETA: f32 = 0.3;
const MOMENTUM: f32 = 0.3;

/// The back-propagation workload.
pub struct Bp;

fn inputs(size: Size) -> usize {
    by_size(size, 512, 16384, 65536)
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl Workload for Bp {
    fn info(&self) -> WorkloadInfo {
        WorkloadInfo {
            name: "bp",
            application: "Back Propagation (Rodinia)",
            suite: "Rodinia",
            sets: "latency, CAWA (Non-sens), Ctrl-C",
            kernels: &["bp_layerforward", "bp_adjust_weights"],
            behaviour: "coalesced streaming, shared tree reduction (4 barriers, halving rows)",
        }
    }

    fn input(&self, size: Size) -> String {
        format!("{} input nodes, {HID} hidden, 1 output", inputs(size))
    }

    fn run(&self, dev: &mut Device, size: Size) -> Result<Check, WorkloadError> {
        let n = inputs(size);
        let mut r = rng("bp", size);
        let input: Vec<f32> = (0..n).map(|_| r.gen_range(0.0..1.0)).collect();
        let w: Vec<f32> = (0..n * HID).map(|_| r.gen_range(-0.05..0.05)).collect();
        let oldw: Vec<f32> = (0..n * HID).map(|_| r.gen_range(-0.01..0.01)).collect();
        let w2: Vec<f64> = (0..HID).map(|_| r.gen_range(-1.0..1.0)).collect();
        let target = 0.1f64;
        let m = load(dev, PTX, "bp")?;
        let din = dev.alloc_copy(&input)?;
        let dw = dev.alloc_copy(&w)?;
        let dold = dev.alloc_copy(&oldw)?;
        let blocks = n / HID;
        let dpart = dev.malloc((4 * blocks * HID) as u64)?;
        let cfg = shape(
            Dim3::new(1, blocks as u32, 1),
            Dim3::new(HID as u32, HID as u32, 1),
        );
        dev.launch(
            m,
            "bp_layerforward",
            cfg,
            &[A::Ptr(din), A::Ptr(dw), A::Ptr(dpart)],
        )?;
        let part = dev.read::<f32>(dpart, blocks * HID)?;
        let mut sums = [0f64; HID];
        for p in part.chunks(HID) {
            for (s, &v) in sums.iter_mut().zip(p) {
                *s += v as f64;
            }
        }
        let want: Vec<f32> = (0..HID)
            .map(|j| {
                (0..n)
                    .map(|i| w[i * HID + j] as f64 * input[i] as f64)
                    .sum::<f64>() as f32
            })
            .collect();
        let got: Vec<f32> = sums.iter().map(|&v| v as f32).collect();
        check_or_return!(
            "layerforward",
            compare_f32("hidden sum", &got, &want, 1e-4, 1e-4)
        );
        // Host part: hidden activations, output, deltas (as the original).
        let hidden: Vec<f64> = sums.iter().map(|&s| sigmoid(s)).collect();
        let out = sigmoid(hidden.iter().zip(&w2).map(|(h, w)| h * w).sum());
        let delta_o = out * (1.0 - out) * (target - out);
        let delta: Vec<f32> = hidden
            .iter()
            .zip(&w2)
            .map(|(&h, &w)| (h * (1.0 - h) * delta_o * w) as f32)
            .collect();
        let ddelta = dev.alloc_copy(&delta)?;
        let args = [A::Ptr(ddelta), A::Ptr(din), A::Ptr(dw), A::Ptr(dold)];
        dev.launch(m, "bp_adjust_weights", cfg, &args)?;
        let (mut want_w, mut want_old) = (w.clone(), oldw.clone());
        for i in 0..n {
            for j in 0..HID {
                let idx = i * HID + j;
                let d = ETA as f64 * delta[j] as f64 * input[i] as f64
                    + MOMENTUM as f64 * oldw[idx] as f64;
                want_w[idx] = (w[idx] as f64 + d) as f32;
                want_old[idx] = d as f32;
            }
        }
        let got_w = dev.read::<f32>(dw, n * HID)?;
        let got_old = dev.read::<f32>(dold, n * HID)?;
        check_or_return!(
            "adjust_weights",
            compare_f32("weights", &got_w, &want_w, 1e-4, 1e-7),
            compare_f32("momentum", &got_old, &want_old, 1e-4, 1e-7),
        );
        Ok(Check::Passed)
    }
}
