//! Where instructions live in the simulated address space, so that L1I misses travel to the L2
//! slice and DRAM row that own them (GPGPU-Sim fetches at `pc + PROGRAM_MEM_START`, 0xF000_0000,
//! and sends instruction-cache misses through the interconnect like data misses).
//!
//! Decision (the research digests are silent): each kernel gets its own 1 MiB code window in
//! `[CODE_BASE, CODE_BASE + CODE_SLOTS * CODE_SLOT_BYTES)` = `[0xF000_0000, 0x1_3000_0000)`,
//! chosen by an FNV-1a hash of the kernel name, so two kernels' code does not alias and the
//! same kernel launched again finds its code in the L2. The window lies below every data window
//! of the functional front end (global 0x7f00_0000_0000, shared/local/const/param windows at
//! 0x1000_0000_0000 and above) and below CUDA's global addresses in Accel-Sim traces
//! (0x7f..), so instruction lines never alias data lines. A PC of 1 MiB or more wraps within
//! the window (no kernel of the suite comes close).

/// Start of the code region, bytes (GPGPU-Sim `PROGRAM_MEM_START`).
pub const CODE_BASE: u64 = 0xF000_0000;
/// Bytes of one kernel's code window.
pub const CODE_SLOT_BYTES: u64 = 1 << 20;
/// Number of code windows.
pub const CODE_SLOTS: u64 = 1024;

// The code region ends below the functional front end's lowest data window (shared, 0x1000_0000_0000).
const _: () = assert!(CODE_BASE + CODE_SLOTS * CODE_SLOT_BYTES <= 0x1000_0000_0000);

/// The base address of the code window of kernel `name` (deterministic: FNV-1a of the name).
pub fn code_base(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    CODE_BASE + (h % CODE_SLOTS) * CODE_SLOT_BYTES
}

/// The byte address of the instruction at `pc` in the code window at `base`.
#[inline]
pub fn code_addr(base: u64, pc: u64) -> u64 {
    base + (pc % CODE_SLOT_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_disjoint_from_data_and_stable() {
        let a = code_base("vecAdd");
        assert_eq!(a, code_base("vecAdd"));
        assert_eq!(a % CODE_SLOT_BYTES, 0);
        assert!((CODE_BASE..CODE_BASE + CODE_SLOTS * CODE_SLOT_BYTES).contains(&a));
        assert_ne!(code_base("vecAdd"), code_base("matmul"));
        assert_eq!(code_addr(a, 0x10), a + 0x10);
        assert_eq!(code_addr(a, CODE_SLOT_BYTES + 8), a + 8);
    }
}
