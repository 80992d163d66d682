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
    check_memory(&cfg)?;
    Ok(cfg)
}

static MAX_MEMORY: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Sets the `--max-memory` bound in bytes (0: the host's memory).
pub fn set_max_memory(bytes: u64) {
    MAX_MEMORY.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// Parses a byte size: `4096`, `512M`, `16G`, `1.5GiB` (K, M, G, T are powers of 1024).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("`{s}`: expected a size such as 512M or 16G"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        u => return Err(format!("`{s}`: unknown unit `{u}` (K, M, G or T)")),
    };
    let b = v * mult as f64;
    if b.is_nan() || b < 1.0 || b >= u64::MAX as f64 {
        return Err(format!("`{s}`: out of range"));
    }
    Ok(b as u64)
}

/// The memory a simulation may use by default, in bytes: half the host's physical memory
/// (`MemTotal`), or what is available now (`MemAvailable`) when that is less; the simulated
/// machine shares the host with the workload's data and with other processes.
pub fn host_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    };
    let total = field("MemTotal:")? / 2;
    Some(field("MemAvailable:").map_or(total, |a| a.min(total)))
}

/// Refuses a machine whose estimated memory ([`warpforge_timing::budget::estimate`]) exceeds
/// `--max-memory`, or the host's memory when that is not given; the error names the estimate
/// and the key that drives it.
pub fn check_memory(cfg: &GpuConfig) -> anyhow::Result<()> {
    use warpforge_timing::budget::{estimate, human};
    let set = MAX_MEMORY.load(std::sync::atomic::Ordering::Relaxed);
    let (limit, what) = if set > 0 {
        (set, "the --max-memory bound")
    } else {
        match host_memory() {
            Some(h) => (
                h,
                "the default bound (half the host's memory, or what is available)",
            ),
            None => return Ok(()),
        }
    };
    let e = estimate(cfg);
    if e.total() <= limit {
        return Ok(());
    }
    let d = e.driver();
    anyhow::bail!(
        "the simulated machine needs an estimated {} of memory, above {what} ({}): mostly `{}` \
         ({}); lower `{}`{}",
        human(e.total()),
        human(limit),
        d.key,
        d.what,
        d.key,
        if set > 0 {
            " or raise --max-memory"
        } else {
            " (or pass --max-memory to set the bound)"
        }
    )
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
            warpforge_core::output::write_atomic(&a.output, text)
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
