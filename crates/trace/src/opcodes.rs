//! SASS opcode tables as data: one TOML file per architecture under `crates/trace/opcodes/`,
//! embedded at build time, mapping each opcode's base mnemonic to the [`OpClass`] that decides its
//! functional unit and latency class (and, for memory instructions, its space).
//!
//! The unit follows from the class: `IntAlu`/`IntMul`/`IntDiv`/`FpAlu`/`FpDiv`/`Conv` issue to the
//! SP pipeline, `Dp` to the DP pipeline, `Sfu` to the SFU, `Load`/`Store`/`Atomic`/`Tex`/`Fence` to
//! the LD/ST unit; the timing model gives each class its latency (GPGPU-Sim's `op_type` plus the
//! ADD/MUL/DIV latency groups). A lookup tries the full opcode (`LDS.U.128`) first, then its base
//! mnemonic (`LDS`).

use crate::TraceError;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use warpforge_core::{MemSpace, OpClass};

/// Memory-space rule of a memory opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpaceRule {
    /// Always this space (`LDG` → global).
    Fixed(MemSpace),
    /// Generic addressing (`LD`, `ST`, `ATOM`): resolved per instruction from a space modifier
    /// (`.GLOBAL`, `.SHARED`, ... in the warpforge ISA) or from the trace header's shared and
    /// local windows.
    Generic,
}

/// What the table says about one opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpEntry {
    /// Pipeline and latency class.
    pub class: OpClass,
    /// Memory space, for memory classes.
    pub space: Option<SpaceRule>,
}

/// An opcode resolved with its modifiers: what the trace reader needs to build a `DynInst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved {
    /// Table entry.
    pub entry: OpEntry,
    /// Space named by a modifier (`.SHARED`), overriding a generic rule.
    pub space_modifier: Option<MemSpace>,
    /// Bytes per lane implied by the modifiers (`.128` → 16, `.U8` → 1), if any.
    pub width: Option<u8>,
    /// Barrier id from a `.B<n>` modifier (warpforge ISA); 0 otherwise.
    pub barrier_id: u8,
    /// Barrier thread count from a `.T<n>` modifier (warpforge ISA); 0 = whole CTA.
    pub barrier_threads: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    arch: String,
    binary_versions: Vec<u32>,
    opcodes: BTreeMap<String, String>,
}

/// One architecture's opcode table.
#[derive(Debug, Clone)]
pub struct OpcodeTable {
    arch: String,
    source: String,
    binary_versions: Vec<u32>,
    map: HashMap<String, OpEntry>,
}

/// The built-in tables: (file name, contents).
const BUILTIN: &[(&str, &str)] = &[
    ("kepler.toml", include_str!("../opcodes/kepler.toml")),
    ("pascal.toml", include_str!("../opcodes/pascal.toml")),
    ("volta.toml", include_str!("../opcodes/volta.toml")),
    ("turing.toml", include_str!("../opcodes/turing.toml")),
    ("ampere.toml", include_str!("../opcodes/ampere.toml")),
    (
        "ada-hopper.toml",
        include_str!("../opcodes/ada-hopper.toml"),
    ),
    (
        "warpforge-ptx.toml",
        include_str!("../opcodes/warpforge-ptx.toml"),
    ),
];

fn parse_class(s: &str) -> Option<OpClass> {
    Some(match s {
        "IntAlu" => OpClass::IntAlu,
        "IntMul" => OpClass::IntMul,
        "IntDiv" => OpClass::IntDiv,
        "FpAlu" => OpClass::FpAlu,
        "FpDiv" => OpClass::FpDiv,
        "Dp" => OpClass::Dp,
        "Sfu" => OpClass::Sfu,
        "Conv" => OpClass::Conv,
        "Load" => OpClass::Load,
        "Store" => OpClass::Store,
        "Atomic" => OpClass::Atomic,
        "Tex" => OpClass::Tex,
        "Branch" => OpClass::Branch,
        "Barrier" => OpClass::Barrier,
        "Fence" => OpClass::Fence,
        "WarpCollective" => OpClass::WarpCollective,
        "Exit" => OpClass::Exit,
        "Nop" => OpClass::Nop,
        _ => return None,
    })
}

fn parse_space(s: &str) -> Option<SpaceRule> {
    Some(match s {
        "Global" => SpaceRule::Fixed(MemSpace::Global),
        "Local" => SpaceRule::Fixed(MemSpace::Local),
        "Shared" => SpaceRule::Fixed(MemSpace::Shared),
        "Const" => SpaceRule::Fixed(MemSpace::Const),
        "Param" => SpaceRule::Fixed(MemSpace::Param),
        "Tex" => SpaceRule::Fixed(MemSpace::Tex),
        "Generic" => SpaceRule::Generic,
        _ => return None,
    })
}

/// The space modifier words of the warpforge ISA.
pub fn space_word(space: MemSpace) -> &'static str {
    match space {
        MemSpace::Global => "GLOBAL",
        MemSpace::Local => "LOCAL",
        MemSpace::Shared => "SHARED",
        MemSpace::Const => "CONST",
        MemSpace::Param => "PARAM",
        MemSpace::Tex => "TEXMEM",
    }
}

fn space_from_word(w: &str) -> Option<MemSpace> {
    Some(match w {
        "GLOBAL" => MemSpace::Global,
        "LOCAL" => MemSpace::Local,
        "SHARED" => MemSpace::Shared,
        "CONST" => MemSpace::Const,
        "PARAM" => MemSpace::Param,
        "TEXMEM" => MemSpace::Tex,
        _ => return None,
    })
}

impl OpcodeTable {
    /// Parses a table from TOML text; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Self, TraceError> {
        let file: TableFile = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].lines().count().max(1) as u64)
                .unwrap_or(0);
            TraceError::parse(Path::new(source), line, e.message().to_string())
        })?;
        let mut map = HashMap::new();
        for (op, value) in &file.opcodes {
            let (class_s, space_s) = match value.split_once('.') {
                Some((c, s)) => (c, Some(s)),
                None => (value.as_str(), None),
            };
            let bad = |what: &str| {
                let line = text
                    .lines()
                    .position(|l| {
                        l.trim_start().starts_with(&format!("{op} "))
                            || l.trim_start().starts_with(&format!("\"{op}\""))
                    })
                    .map(|i| i as u64 + 1)
                    .unwrap_or(0);
                TraceError::parse(
                    Path::new(source),
                    line,
                    format!("opcode `{op}`: {what} in `{value}`"),
                )
            };
            let class = parse_class(class_s).ok_or_else(|| bad("unknown class"))?;
            let space = match space_s {
                Some(s) => Some(parse_space(s).ok_or_else(|| bad("unknown memory space"))?),
                None if class.is_memory() => Some(SpaceRule::Fixed(if class == OpClass::Tex {
                    MemSpace::Tex
                } else {
                    MemSpace::Global
                })),
                None => None,
            };
            map.insert(op.clone(), OpEntry { class, space });
        }
        Ok(Self {
            arch: file.arch,
            source: source.to_string(),
            binary_versions: file.binary_versions,
            map,
        })
    }

    /// Reads a table from a file.
    pub fn from_file(path: &Path) -> Result<Self, TraceError> {
        let text = std::fs::read_to_string(path).map_err(|e| TraceError::io(path, e))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// All built-in tables.
    pub fn builtin_all() -> Vec<OpcodeTable> {
        BUILTIN
            .iter()
            .map(|(name, text)| {
                Self::parse(text, &format!("crates/trace/opcodes/{name}"))
                    .expect("built-in opcode tables are checked by the unit tests")
            })
            .collect()
    }

    /// The built-in table for a trace's `-binary version` (compute capability × 10; 0 = warpforge
    /// PTX).
    pub fn for_binary_version(version: u32) -> Option<OpcodeTable> {
        Self::builtin_all()
            .into_iter()
            .find(|t| t.binary_versions.contains(&version))
    }

    /// The built-in table named `arch` (`pascal`, `volta`, ..., `warpforge-ptx`).
    pub fn builtin(arch: &str) -> Option<OpcodeTable> {
        Self::builtin_all().into_iter().find(|t| t.arch == arch)
    }

    /// Adds (or overrides) the entries of `other`.
    pub fn extend(&mut self, other: &OpcodeTable) {
        for (k, v) in &other.map {
            self.map.insert(k.clone(), *v);
        }
        self.source = format!("{} (extended by {})", self.source, other.source);
    }

    /// Architecture name.
    pub fn arch(&self) -> &str {
        &self.arch
    }

    /// Where the table came from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Compute capabilities (× 10) the table covers.
    pub fn binary_versions(&self) -> &[u32] {
        &self.binary_versions
    }

    /// Number of opcodes.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Looks up `opcode` (full text first, then its base mnemonic) and decodes its modifiers.
    pub fn resolve(&self, opcode: &str) -> Option<Resolved> {
        let base = opcode.split('.').next().unwrap_or(opcode);
        let entry = *self.map.get(opcode).or_else(|| self.map.get(base))?;
        let mut r = Resolved {
            entry,
            space_modifier: None,
            width: None,
            barrier_id: 0,
            barrier_threads: 0,
        };
        for m in opcode.split('.').skip(1) {
            if let Some(s) = space_from_word(m) {
                r.space_modifier = Some(s);
            }
            match m {
                "128" => r.width = Some(16),
                "96" => r.width = Some(12),
                "64" => r.width = Some(8),
                "32" => r.width = Some(4),
                "16" | "U16" | "S16" => r.width = Some(2),
                "8" | "U8" | "S8" => r.width = Some(1),
                _ => {}
            }
            if let Some(n) = m.strip_prefix('W').and_then(|n| n.parse::<u8>().ok()) {
                r.width = Some(n);
            }
            if entry.class == OpClass::Barrier {
                if let Some(n) = m.strip_prefix('B').and_then(|n| n.parse().ok()) {
                    r.barrier_id = n;
                }
                if let Some(n) = m.strip_prefix('T').and_then(|n| n.parse().ok()) {
                    r.barrier_threads = n;
                }
            }
        }
        Some(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_table_parses_and_versions_do_not_overlap() {
        let tables = OpcodeTable::builtin_all();
        assert_eq!(tables.len(), BUILTIN.len());
        let mut seen = std::collections::BTreeSet::new();
        for t in &tables {
            assert!(t.len() >= 15, "{} is too small", t.arch());
            for v in t.binary_versions() {
                assert!(seen.insert(*v), "binary version {v} in two tables");
            }
        }
    }

    #[test]
    fn pascal_resolves_the_reference_trace_opcodes() {
        let t = OpcodeTable::for_binary_version(61).unwrap();
        assert_eq!(t.arch(), "pascal");
        let lds = t.resolve("LDS.U.128").unwrap();
        assert_eq!(lds.entry.class, OpClass::Load);
        assert_eq!(lds.entry.space, Some(SpaceRule::Fixed(MemSpace::Shared)));
        assert_eq!(lds.width, Some(16));
        assert_eq!(t.resolve("LDG.E.CG").unwrap().width, None);
        assert_eq!(
            t.resolve("XMAD.PSL.CBCC").unwrap().entry.class,
            OpClass::IntMul
        );
        assert_eq!(t.resolve("BAR.SYNC").unwrap().entry.class, OpClass::Barrier);
        assert_eq!(t.resolve("STG.E").unwrap().entry.class, OpClass::Store);
        assert!(t.resolve("HMMA.884").is_none());
    }

    #[test]
    fn warpforge_isa_modifiers_decode() {
        let t = OpcodeTable::for_binary_version(0).unwrap();
        let r = t.resolve("LD.SHARED.64").unwrap();
        assert_eq!(r.entry.class, OpClass::Load);
        assert_eq!(r.space_modifier, Some(MemSpace::Shared));
        assert_eq!(r.width, Some(8));
        let b = t.resolve("BAR.B3.T64").unwrap();
        assert_eq!((b.barrier_id, b.barrier_threads), (3, 64));
    }

    #[test]
    fn bad_class_is_an_error_naming_the_opcode_and_line() {
        let text = "arch = \"x\"\nbinary_versions = [1]\n[opcodes]\nFOO = \"Float\"\n";
        let e = OpcodeTable::parse(text, "extra.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("extra.toml:4") && e.contains("FOO") && e.contains("unknown class"),
            "{e}"
        );
    }

    #[test]
    fn extension_adds_opcodes() {
        let mut t = OpcodeTable::builtin("pascal").unwrap();
        let extra = OpcodeTable::parse(
            "arch = \"x\"\nbinary_versions = []\n[opcodes]\nHMMA = \"Dp\"\n",
            "extra.toml",
        )
        .unwrap();
        t.extend(&extra);
        assert_eq!(t.resolve("HMMA.884.F32").unwrap().entry.class, OpClass::Dp);
    }
}
