//! Launch hooks: what the host issues, seen from outside the device, for recording *launch
//! bundles* (issue 14 item 2: every launch of a workload, replayable on the simulator and on a
//! real GPU).

use crate::{Device, KernelArg, LaunchConfig, ModuleId};

/// One launch as the host issued it.
pub struct LaunchRecord<'a> {
    /// The module the kernel belongs to.
    pub module: ModuleId,
    /// Kernel (entry) name.
    pub kernel: &'a str,
    /// Grid, CTA shape and dynamic shared bytes.
    pub cfg: LaunchConfig,
    /// Arguments in parameter order.
    pub args: &'a [KernelArg],
}

/// Called around every launch of a [`Device`] that has it installed
/// ([`Device::set_launch_hook`]); the device is read-only for the hook.
pub trait LaunchHook: std::any::Any {
    /// Before the launch runs: memory holds the kernel's inputs.
    fn before_launch(&mut self, dev: &Device, launch: &LaunchRecord<'_>);
    /// After the launch ran (successfully).
    fn after_launch(&mut self, dev: &Device);
    /// For downcasting to the concrete hook after the run.
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}
