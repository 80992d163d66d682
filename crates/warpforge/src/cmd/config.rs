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
}

/// Loads a preset name or TOML file like [`GpuConfig::load`]; when a file's values do not have
/// the types of the configuration's fields, the error names the file, the line and the dotted
/// key (`typ.toml:3: key `core.num_sms`: invalid type ...`) instead of the file alone.
pub fn load(name_or_path: &str) -> anyhow::Result<GpuConfig> {
    let err = match GpuConfig::load(name_or_path) {
        Ok(c) => return Ok(c),
        Err(e) => e,
    };
    if err.key == name_or_path && name_or_path.ends_with(".toml") {
        if let Ok(text) = std::fs::read_to_string(name_or_path) {
            if let Some((key, line)) = locate_type_error(&text) {
                let at = line.map(|l| format!(":{l}")).unwrap_or_default();
                anyhow::bail!("{name_or_path}{at}: key `{key}`: {}", err.reason);
            }
        }
        anyhow::bail!("{name_or_path}: {}", err.reason);
    }
    Err(err.into())
}

/// The first key of the TOML `text` whose value's type differs from that of the same key in
/// the preset it inherits from (default `gtx480`), with its 1-based line when it can be found.
fn locate_type_error(text: &str) -> Option<(String, Option<usize>)> {
    let user: toml::Value = toml::from_str(text).ok()?;
    let parent = user
        .get("inherits")
        .and_then(|v| v.as_str())
        .unwrap_or("gtx480");
    let reference = toml::Value::try_from(GpuConfig::preset(parent).ok()?).ok()?;
    let mut path = Vec::new();
    let key = mismatch(&user, &reference, &mut path)?;
    let line = key_line(text, &key);
    Some((key.join("."), line))
}

/// Depth-first search for a leaf of `user` whose TOML type differs from `reference`'s.
fn mismatch(
    user: &toml::Value,
    reference: &toml::Value,
    path: &mut Vec<String>,
) -> Option<Vec<String>> {
    use toml::Value as V;
    match (user, reference) {
        (V::Table(u), V::Table(r)) => {
            for (k, v) in u {
                if path.is_empty() && k == "inherits" {
                    continue;
                }
                let Some(rv) = r.get(k) else { continue };
                path.push(k.clone());
                if let Some(found) = mismatch(v, rv, path) {
                    return Some(found);
                }
                path.pop();
            }
            None
        }
        (V::Integer(_), V::Float(_)) => None,
        (u, r) if std::mem::discriminant(u) != std::mem::discriminant(r) => Some(path.clone()),
        _ => None,
    }
}

/// The 1-based line of `key` (dotted path split in parts) in the TOML `text`: a `leaf = ...`
/// line under the `[table]` header naming the rest of the path.
fn key_line(text: &str, key: &[String]) -> Option<usize> {
    let (leaf, table) = key.split_last()?;
    let table = table.join(".");
    let mut current = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(h) = line.strip_prefix('[') {
            current = h.trim_end_matches(']').trim().to_string();
            continue;
        }
        let Some((k, _)) = line.split_once('=') else {
            continue;
        };
        let k = k.trim();
        // A dotted key on the line itself (`core.num_sms = ...`) is also accepted.
        let full = if current.is_empty() {
            k.to_string()
        } else {
            format!("{current}.{k}")
        };
        if full == format!("{table}.{leaf}").trim_start_matches('.') {
            return Some(i + 1);
        }
    }
    None
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
            print!("{}", cfg.to_toml());
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
