//! Memory layout of a module: global, constant and texture variables placed in device memory.

use super::*;

/// Module-level layout shared by all kernels of a module.
#[derive(Debug, Default)]
pub struct ModuleLayout {
    /// Address (in its own space) of every module-scope variable.
    pub symbols: HashMap<String, (Space, u64)>,
    /// Constant bank.
    pub const_bank: Vec<u8>,
    /// End of module-scope static shared variables.
    pub shared_end: u64,
    /// Dynamic (`extern .shared` unsized) alignment.
    pub dyn_align: u32,
}

pub(super) fn align_up(v: u64, a: u64) -> u64 {
    let a = a.max(1);
    v.div_ceil(a) * a
}

pub(super) fn var_align(v: &Variable) -> u64 {
    (v.align.max(v.ty.size()) as u64).max(1)
}

/// Lays out module-scope variables: allocates `.global` ones in `mem`, builds the constant bank,
/// assigns shared offsets, and writes initialisers (symbol addresses included).
pub fn layout_module(m: &Module, mem: &mut GlobalMem) -> Result<ModuleLayout, String> {
    let mut l = ModuleLayout {
        dyn_align: 16,
        ..Default::default()
    };
    let mut const_end = 0u64;
    let mut dyn_shared = Vec::new();
    for v in &m.globals {
        let size = v.size_bytes();
        let a = var_align(v);
        match v.space {
            StateSpace::Global => {
                let addr = mem
                    .alloc(size.max(1), &v.name)
                    .ok_or_else(|| format!("cannot allocate global variable `{}`", v.name))?;
                l.symbols.insert(v.name.clone(), (Space::Global, addr));
            }
            StateSpace::Const => {
                const_end = align_up(const_end, a);
                l.symbols.insert(v.name.clone(), (Space::Const, const_end));
                const_end += size;
            }
            StateSpace::Shared | StateSpace::SharedCluster => {
                if size == 0 {
                    dyn_shared.push(v.name.clone());
                    l.dyn_align = l.dyn_align.max(a as u32);
                } else {
                    l.shared_end = align_up(l.shared_end, a);
                    l.symbols
                        .insert(v.name.clone(), (Space::Shared, l.shared_end));
                    l.shared_end += size;
                }
            }
            // Texture references and other declarations have no storage here.
            _ => {}
        }
    }
    for name in dyn_shared {
        // Resolved per kernel: marked with u64::MAX and replaced by the kernel's static end.
        l.symbols.insert(name, (Space::Shared, u64::MAX));
    }
    l.const_bank = vec![0u8; const_end as usize];
    // Initialisers.
    for v in &m.globals {
        if v.init.is_empty() {
            continue;
        }
        let Some(&(space, base)) = l.symbols.get(&v.name) else {
            continue;
        };
        let esize = v.ty.size();
        let mut bytes = Vec::with_capacity(v.init.len() * esize as usize);
        for item in &v.init {
            let bits: u64 = match item {
                InitItem::Int(i) => *i as u64,
                InitItem::Float(f) => match v.ty {
                    ScalarType::F32 => (*f as f32).to_bits() as u64,
                    ScalarType::F64 => f.to_bits(),
                    _ => *f as i64 as u64,
                },
                InitItem::Symbol {
                    name,
                    offset,
                    generic,
                } => {
                    let &(sp, a) = l.symbols.get(name).ok_or_else(|| {
                        format!(
                            "{}:{}: initialiser of `{}` names unknown symbol `{name}`",
                            m.file, v.loc.line, v.name
                        )
                    })?;
                    let a = if *generic {
                        a + window_base(sp.mem_space())
                    } else {
                        a
                    };
                    a.wrapping_add(*offset as u64)
                }
            };
            bytes.extend_from_slice(&bits.to_le_bytes()[..esize as usize]);
        }
        match space {
            Space::Global => {
                let n = bytes.len().min(v.size_bytes() as usize) as u64;
                mem.slice_mut(base, n)
                    .map_err(|_| format!("initialiser of `{}` does not fit", v.name))?
                    .copy_from_slice(&bytes[..n as usize]);
            }
            Space::Const => {
                let n = bytes.len().min(v.size_bytes() as usize);
                l.const_bank[base as usize..base as usize + n].copy_from_slice(&bytes[..n]);
            }
            // Shared variables cannot be initialised in PTX; ignore.
            _ => {}
        }
    }
    Ok(l)
}
