//! Running a workload functionally under an instruction observer, shared by `characterize` and
//! `predict` (and any later command that derives figures from the executed instruction stream).

use std::time::Instant;

use anyhow::Context;
use warpforge_core::InstObserver;
use warpforge_simt::{Device, LaunchHook};
use warpforge_workloads::{Check, Size, Workload};

/// Runs `w` at `size` on a fresh functional [`Device`] with `observer` installed, then hands the
/// observer to `extract`. Returns what `extract` produced, the output check and the wall time of
/// the run in seconds.
pub fn run_observed<O, R>(
    w: &dyn Workload,
    size: Size,
    observer: O,
    extract: impl FnOnce(&mut O) -> R,
) -> anyhow::Result<(R, Check, f64)>
where
    O: InstObserver + 'static,
{
    let (r, check, wall, _) = run_hooked(w, size, observer, None, extract)?;
    Ok((r, check, wall))
}

/// What [`run_hooked`] returns: the extracted result, the check, the wall time in seconds and
/// the launch hook.
pub type Hooked<R> = (R, Check, f64, Option<Box<dyn LaunchHook>>);

/// [`run_observed`] with a launch hook installed too (recording launch bundles); returns the
/// hook after the run.
pub fn run_hooked<O, R>(
    w: &dyn Workload,
    size: Size,
    observer: O,
    hook: Option<Box<dyn LaunchHook>>,
    extract: impl FnOnce(&mut O) -> R,
) -> anyhow::Result<Hooked<R>>
where
    O: InstObserver + 'static,
{
    let name = w.info().name;
    let mut dev = Device::new();
    dev.set_observer(Some(Box::new(observer)));
    dev.set_launch_hook(hook);
    let t0 = Instant::now();
    let check = w
        .run(&mut dev, size)
        .with_context(|| format!("running workload `{name}` at size {}", size.name()))?;
    let wall = t0.elapsed().as_secs_f64();
    let out = dev
        .observer_mut()
        .and_then(|o| o.as_any_mut().downcast_mut::<O>())
        .map(extract)
        .context("the instruction observer was removed during the run")?;
    Ok((out, check, wall, dev.take_launch_hook()))
}
