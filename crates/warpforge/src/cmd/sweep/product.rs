//! Products: files a sweep derives from one point's statistics for the points that need them
//! (`[needs.VARIANT]` of a spec, see [`super::spec`]), one entry per kind in [`PRODUCTS`].
//!
//! A dependent point makes its product just before it runs: it reads the providing point's
//! record, derives the file and writes it atomically as `DIR/products/<provider id>.<make>.json`
//! (several dependents of one provider write the same bytes), then runs with `key=<that path>`.
//! A provider that has not finished `ok` fails the dependent point with a message naming it.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use serde_json::Value;
use warpforge_timing::GpuConfig;

use super::point;
use super::spec::Need;

/// A kind of product.
pub struct Product {
    /// Name used by `make = "..."`.
    pub name: &'static str,
    /// Why the provider's configuration cannot make it (`Err`), checked when the spec loads.
    check: fn(&GpuConfig) -> Result<(), String>,
    /// The file's bytes from the provider's `warpforge run --json` output.
    make: fn(&Value) -> anyhow::Result<Vec<u8>>,
}

impl Product {
    /// Whether a point configured as `cfg` can provide this product.
    pub fn check(&self, cfg: &GpuConfig) -> Result<(), String> {
        (self.check)(cfg)
    }
}

/// The registry.
pub const PRODUCTS: &[Product] = &[
    // The CAWS oracle (Lee 2017 §3.3): every warp's execution time in the provider's run, the
    // input of `core.caws.oracle`.
    Product {
        name: "caws_oracle",
        check: |c| {
            if c.sim.warp_times {
                Ok(())
            } else {
                Err("needs `sim.warp_times = true` to record the warps' execution times".into())
            }
        },
        make: |run| {
            let oracle = crate::cmd::experiment::caws::oracle_of(&run["stats"])?;
            Ok(serde_json::to_vec(&oracle)?)
        },
    },
];

/// The product named `name`.
pub fn find(name: &str) -> Option<&'static Product> {
    PRODUCTS.iter().find(|p| p.name == name)
}

/// The names of the products.
pub fn names() -> Vec<&'static str> {
    PRODUCTS.iter().map(|p| p.name).collect()
}

/// Where `need`'s product lives in sweep directory `dir`.
pub fn path(dir: &Path, need: &Need) -> PathBuf {
    dir.join("products")
        .join(format!("{}.{}.json", need.point, need.make))
}

/// Makes (or finds) `need`'s product in `dir` and returns its path; an error when the
/// provider has not finished `ok` or its statistics cannot make the product.
pub fn ensure(dir: &Path, need: &Need) -> anyhow::Result<PathBuf> {
    let out = path(dir, need);
    if out.exists() {
        return Ok(out);
    }
    let product = find(&need.make).ok_or_else(|| anyhow!("unknown product `{}`", need.make))?;
    let rec = point::read_record(dir, &need.point)
        .filter(|r| r.status == "ok")
        .ok_or_else(|| {
            anyhow!(
                "needs point {} (its `{}`), which has not finished ok",
                need.point,
                need.make
            )
        })?;
    let run = rec
        .result
        .as_ref()
        .ok_or_else(|| anyhow!("point {} has no statistics", need.point))?;
    let bytes =
        (product.make)(run).with_context(|| format!("making `{}` of {}", need.make, need.point))?;
    let parent = out.parent().expect("products/");
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    point::write_atomic(&out, &bytes)?;
    Ok(out)
}
