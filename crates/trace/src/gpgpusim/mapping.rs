//! Mapping GPGPU-Sim options onto the timing configuration (waiting for the timing crate).
