//! The 3D rendering half of document 004 (Rai & Chaudhuri, "Using Criticality of GPU Accesses in
//! Memory Management for CPU-GPU Heterogeneous Multi-Core Processors").
//!
//! - [`pipeline`]: the closed-loop queueing model of Figure 6 (FE, ZS ×16, SH, CW ×16, BT) with
//!   finite queues and back-pressure; every unit issues its access streams ([`stream`]) into a
//!   memory side ([`mem::GpuMemory`]), so memory latency feeds back into frame time (sections 2.1-2.2).
//! - [`counters`] and [`bottleneck`]: request-flow counters, classification bits and Algorithms 1
//!   and 2, which give the per-access criticality bit (sections 2.3-2.6).
//! - [`estimator`]: the render-target-plane frame-rate estimator (section 4).
//! - [`title`] and [`generator`]: per-title synthetic frame profiles for the 14 titles of Table 2
//!   (section 10.3 substitutes; the document's Attila traces are not available).
//! - [`shared`]: the pipeline on the CPU-GPU machine's shared LLC/DRAM (`warpforge_hetero`).
//! - [`sim`]: runs frames of a title against a memory side and collects the statistics.

pub mod bottleneck;
pub mod cache;
pub mod counters;
pub mod estimator;
pub mod generator;
pub mod mem;
pub mod mix;
pub mod pipeline;
pub mod scene;
pub mod shared;
pub mod sim;
pub mod stream;
pub mod title;
