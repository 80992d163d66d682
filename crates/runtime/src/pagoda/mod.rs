//! Pagoda (placeholder while LAX is built).
/// Workload hook.
pub mod workload {
    /// Task cost hook.
    pub trait TaskCostSource {}
    /// x
    pub const TASKS_DEFAULT: usize = 1;
}
