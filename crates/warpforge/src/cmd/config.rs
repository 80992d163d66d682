//! `warpforge config`: GPGPU-Sim config import and preset display.
//!
//! `warpforge config import gpgpusim.config [trace.config ...] -o preset.toml` reads GPGPU-Sim
//! option files (later files override earlier ones; the `.icnt` file named by
//! `-inter_config_file` is read from beside the file that names it), maps them onto the timing
//! model's configuration over a base preset, prints one warning listing the options that were not
//! carried over, and writes a preset that `--config preset.toml` accepts.

use anyhow::Context;
use std::path::PathBuf;
use warpforge_timing::GpuConfig;
use warpforge_trace::gpgpusim::mapping::{import_files, Imported};

/// Subcommands of `warpforge config`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Import GPGPU-Sim config files into a warpforge preset (TOML).
    Import(ImportArgs),
    /// Print a preset (built-in name or TOML file) as TOML.
    Show(ShowArgs),
    /// List the built-in presets.
    List,
}

/// Arguments of `warpforge config import`.
#[derive(clap::Args)]
pub struct ImportArgs {
    /// GPGPU-Sim option files, in order (e.g. gpgpusim.config trace.config).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output preset file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Preset that supplies what GPGPU-Sim configs do not describe.
    #[arg(long, default_value = "gtx480")]
    pub base: String,
}

/// Arguments of `warpforge config show`.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// Preset name or TOML file.
    pub config: String,
    /// Print only what the preset or file changes relative to its `base` (gtx480 when it names
    /// none): `key = value  # base: old` lines.
    #[arg(long)]
    pub diff: bool,
}

/// Loads a preset name or TOML file ([`GpuConfig::load`]); a file's errors name the file, the
/// line and the dotted key (`typ.toml:3: key `core.num_sms`: invalid type ...`).
pub fn load(name_or_path: &str) -> anyhow::Result<GpuConfig> {
    Ok(GpuConfig::load(name_or_path)?)
}

/// Imports GPGPU-Sim `files` over the preset `base` and prints the single warning to stderr.
pub fn import(files: &[PathBuf], base: &str) -> anyhow::Result<Imported> {
    let base_cfg = load(base).with_context(|| format!("loading base preset `{base}`"))?;
    let imported = import_files(files, base_cfg)?;
    if let Some(w) = imported.warning() {
        eprintln!("warning: {w}");
    }
    Ok(imported)
}

/// The timing configuration a command asked for: `--gpgpusim-config` files imported over
/// `--config` (default `gtx480`), or just `--config`, then the `--set` overrides.
pub fn resolve(
    config: Option<&str>,
    gpgpusim: &[PathBuf],
    sets: &[String],
) -> anyhow::Result<GpuConfig> {
    let base = config.unwrap_or("gtx480");
    let mut cfg = if gpgpusim.is_empty() {
        load(base).with_context(|| format!("loading configuration `{base}`"))?
    } else {
        import(gpgpusim, base)?.config
    };
    cfg.apply_overrides(sets)?;
    Ok(cfg)
}

/// Runs the subcommand.
pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Import(a) => {
            let imp = import(&a.files, &a.base)?;
            let mut text =
                String::from("# warpforge preset imported by `warpforge config import` from:\n");
            for f in &a.files {
                text.push_str(&format!("#   {}\n", f.display()));
            }
            text.push_str(&format!("# over the base preset `{}`.\n", a.base));
            for n in &imp.notes {
                text.push_str(&format!("# approximated: {n}\n"));
            }
            if !imp.unmodelled.is_empty() {
                text.push_str(&format!("# not modelled: {}\n", imp.unmodelled.join(" ")));
            }
            text.push('\n');
            text.push_str(&imp.config.to_toml());
            std::fs::write(&a.output, text)
                .with_context(|| format!("writing {}", a.output.display()))?;
            println!(
                "wrote {} ({} SMs, {} DRAM channels, core {} MHz)",
                a.output.display(),
                imp.config.core.num_sms,
                imp.config.dram.channels,
                imp.config.clocks.core_mhz
            );
            Ok(())
        }
        Command::Show(a) => {
            let cfg = load(&a.config)?;
            if a.diff {
                print!("{}", diff(&a.config, &cfg)?);
            } else {
                print!("{}", cfg.to_toml());
            }
            Ok(())
        }
        Command::List => {
            for n in GpuConfig::preset_names() {
                println!("{n}");
            }
            Ok(())
        }
    }
}

/// The keys `cfg` (loaded from `name`) changes relative to its base (gtx480 when it names
/// none), one `key = value  # base: old` line each, after a `# NAME over BASE` header.
pub fn diff(name: &str, cfg: &GpuConfig) -> anyhow::Result<String> {
    let (base_name, base) = match GpuConfig::load_base(name)? {
        Some(b) => (b.name.clone(), b),
        None => ("gtx480 (no base named)".to_string(), load("gtx480")?),
    };
    let old: std::collections::BTreeMap<String, String> = base.keys().into_iter().collect();
    let mut out = String::new();
    let mut n = 0;
    for (k, v) in cfg.keys() {
        match old.get(&k) {
            Some(o) if *o == v => {}
            Some(o) => {
                out.push_str(&format!("{k} = {v}  # base: {o}\n"));
                n += 1;
            }
            None => {
                out.push_str(&format!("{k} = {v}  # not in base\n"));
                n += 1;
            }
        }
    }
    Ok(format!(
        "# {name} over {base_name}: {n} key{} changed\n{out}",
        if n == 1 { "" } else { "s" }
    ))
}
