//! HeteroPDP (document 000, Chapter 6): choosing the CPU (CMP) or the GPU as the execution
//! target of an OpenCL kernel, alone or co-located with native CPU applications that share the
//! host memory.
//!
//! * [`platform`]: the two targets (the document-002 model in CPU mode for the CMP, the
//!   document-002 GPU model plus PCIe transfers for the GPU) and the shared-memory interference
//!   model (processor sharing of the cores, working-set-proportional LLC sharing, M/M/1 host
//!   DRAM) that gives the ground-truth alone and co-located times;
//! * [`corunner`]: native CPU co-runner profiles (SPEC CPU2006-like, Table 6.2);
//! * [`features`]: the Table 6.4 features from the instruction analyser;
//! * [`regression`]: the four regression models (Eq 6.5) and the K-fold pruning;
//! * [`nested`]: the nested co-located model (alone model × regressed interference slowdown);
//! * [`scale`]: training runs at scaled global work sizes;
//! * [`bubble`]: the Bubble-up table of each co-runner;
//! * [`metrics`]: Eqs 6.1–6.4 and 6.6;
//! * [`decide`]: the decision rule of §6.5.

pub mod bubble;
pub mod corunner;
pub mod decide;
pub mod features;
pub mod metrics;
pub mod nested;
pub mod platform;
pub mod regression;
pub mod scale;
pub mod train;
