//! GPGPU-Sim cache strings, decoded field by field:
//!
//! `[<type>:]<nsets>:<line>:<assoc>,<rep>:<wr>:<alloc>:<wr_alloc>[:<set_index>],<mshr>:<entries>:<merge>,<miss_queue>[:<fifo>][,<data_port_width>]`
//!
//! e.g. `N:128:64:4,L:R:m:N:L,A:32:8,8:0,32` or `none`. `type` is `N` (normal) or `S` (sectored,
//! 4 × 32-byte sectors per line); `rep` L(RU)/F(IFO); `wr` R(ead-only)/B(ack)/T(hrough)/E(vict)/
//! L(ocal write-back, global write-through); `alloc` m (on miss)/f (on fill)/s (streaming);
//! `wr_alloc` N(o)/W(rite allocate)/F(etch on write)/L(azy fetch on read); `set_index`
//! L(inear)/H(ash)/P (IPOLY)/X (bitwise XOR)/C(ustom); `mshr` A(ssociative)/S(ector)/F, T (texture
//! FIFO).

/// A decoded cache string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheConfig {
    /// Sectored (`S`): lines of 4 × 32-byte sectors.
    pub sectored: bool,
    /// Number of sets.
    pub sets: u32,
    /// Line size in bytes.
    pub line_bytes: u32,
    /// Ways per set.
    pub assoc: u32,
    /// Replacement policy letter (`L`, `F`).
    pub replacement: char,
    /// Write policy letter (`R`, `B`, `T`, `E`, `L`).
    pub write_policy: char,
    /// Allocation policy letter (`m`, `f`, `s`).
    pub alloc: char,
    /// Write-allocate policy letter (`N`, `W`, `F`, `L`).
    pub write_alloc: char,
    /// Set-index function letter (`L`, `H`, `P`, `X`, `C`); `L` when absent.
    pub set_index: char,
    /// MSHR type letter (`A`, `S`, `F`, `T`).
    pub mshr_type: char,
    /// MSHR entries.
    pub mshr_entries: u32,
    /// Maximum requests merged per MSHR entry.
    pub mshr_max_merge: u32,
    /// Miss queue length.
    pub miss_queue: u32,
    /// Result FIFO entries (texture caches), if given.
    pub result_fifo: Option<u32>,
    /// Data port width in bytes, if given.
    pub data_port_width: Option<u32>,
}

impl CacheConfig {
    /// Capacity in bytes.
    pub fn size_bytes(&self) -> u64 {
        u64::from(self.sets) * u64::from(self.line_bytes) * u64::from(self.assoc)
    }

    /// Decodes a cache string; `Ok(None)` for `none`. The error names the field that is wrong.
    pub fn parse(s: &str) -> Result<Option<Self>, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("none") {
            return Ok(None);
        }
        let groups: Vec<&str> = s.split(',').collect();
        if !(4..=5).contains(&groups.len()) {
            return Err(format!(
                "expected 4 or 5 comma-separated groups `<geometry>,<policies>,<mshr>,<queues>[,<port>]`, found {}",
                groups.len()
            ));
        }
        let num = |g: usize, name: &str, v: &str| -> Result<u32, String> {
            v.trim().parse().map_err(|_| {
                format!(
                    "group {} field `{name}`: expected a number, found `{v}`",
                    g + 1
                )
            })
        };
        let letter = |g: usize, name: &str, v: &str, allowed: &str| -> Result<char, String> {
            let mut c = v.trim().chars();
            match (c.next(), c.next()) {
                (Some(ch), None) if allowed.contains(ch) => Ok(ch),
                _ => Err(format!(
                    "group {} field `{name}`: expected one of {}, found `{v}`",
                    g + 1,
                    allowed
                        .chars()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join("/")
                )),
            }
        };
        // Group 1: [type:]sets:line:assoc
        let g1: Vec<&str> = groups[0].split(':').collect();
        let (sectored, geo) = match g1.len() {
            4 => (letter(0, "type", g1[0], "NS")? == 'S', &g1[1..]),
            3 => (false, &g1[..]),
            n => {
                return Err(format!(
                    "group 1 `<type>:<nsets>:<line>:<assoc>`: expected 3 or 4 fields, found {n}"
                ))
            }
        };
        let sets = num(0, "nsets", geo[0])?;
        let line_bytes = num(0, "line size", geo[1])?;
        let assoc = num(0, "assoc", geo[2])?;
        if sets == 0 || assoc == 0 || line_bytes == 0 {
            return Err("group 1: nsets, line size and assoc must be non-zero".into());
        }
        if !line_bytes.is_power_of_two() {
            return Err(format!(
                "group 1 field `line size`: {line_bytes} is not a power of two"
            ));
        }
        if sectored && line_bytes % 32 != 0 {
            return Err(format!(
                "group 1 field `line size`: a sectored cache needs a multiple of 32 bytes, found {line_bytes}"
            ));
        }
        // Group 2: rep:wr:alloc:wr_alloc[:set_index]
        let g2: Vec<&str> = groups[1].split(':').collect();
        if !(4..=5).contains(&g2.len()) {
            return Err(format!(
                "group 2 `<rep>:<wr>:<alloc>:<wr_alloc>[:<set_index>]`: expected 4 or 5 fields, found {}",
                g2.len()
            ));
        }
        let replacement = letter(1, "replacement", g2[0], "LF")?;
        let write_policy = letter(1, "write policy", g2[1], "RBTEL")?;
        let alloc = letter(1, "allocation", g2[2], "mfs")?;
        let write_alloc = letter(1, "write allocate", g2[3], "NWFL")?;
        let set_index = match g2.get(4) {
            Some(v) => letter(1, "set index function", v, "LHPXC")?,
            None => 'L',
        };
        // Group 3: mshr:entries:merge
        let g3: Vec<&str> = groups[2].split(':').collect();
        if g3.len() != 3 {
            return Err(format!(
                "group 3 `<mshr>:<entries>:<max_merge>`: expected 3 fields, found {}",
                g3.len()
            ));
        }
        let mshr_type = letter(2, "mshr type", g3[0], "ASFT")?;
        let mshr_entries = num(2, "mshr entries", g3[1])?;
        let mshr_max_merge = num(2, "mshr max merge", g3[2])?;
        // Group 4: miss_queue[:fifo]
        let g4: Vec<&str> = groups[3].split(':').collect();
        if !(1..=2).contains(&g4.len()) {
            return Err(format!(
                "group 4 `<miss_queue>[:<result_fifo>]`: expected 1 or 2 fields, found {}",
                g4.len()
            ));
        }
        let miss_queue = num(3, "miss queue", g4[0])?;
        let result_fifo = g4.get(1).map(|v| num(3, "result fifo", v)).transpose()?;
        let data_port_width = groups
            .get(4)
            .map(|v| num(4, "data port width", v))
            .transpose()?;
        Ok(Some(Self {
            sectored,
            sets,
            line_bytes,
            assoc,
            replacement,
            write_policy,
            alloc,
            write_alloc,
            set_index,
            mshr_type,
            mshr_entries,
            mshr_max_merge,
            miss_queue,
            result_fifo,
            data_port_width,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_the_issue_example_field_by_field() {
        let c = CacheConfig::parse("N:128:64:4,L:R:m:N:L,A:32:8,8:0,32")
            .unwrap()
            .unwrap();
        assert!(!c.sectored);
        assert_eq!((c.sets, c.line_bytes, c.assoc), (128, 64, 4));
        assert_eq!(c.size_bytes(), 32 * 1024);
        assert_eq!(
            (
                c.replacement,
                c.write_policy,
                c.alloc,
                c.write_alloc,
                c.set_index
            ),
            ('L', 'R', 'm', 'N', 'L')
        );
        assert_eq!(
            (c.mshr_type, c.mshr_entries, c.mshr_max_merge),
            ('A', 32, 8)
        );
        assert_eq!(
            (c.miss_queue, c.result_fifo, c.data_port_width),
            (8, Some(0), Some(32))
        );
    }

    #[test]
    fn short_forms_and_none() {
        assert_eq!(CacheConfig::parse("none").unwrap(), None);
        let c = CacheConfig::parse("64:128:6,L:L:m:N,A:32:8,8")
            .unwrap()
            .unwrap();
        assert_eq!(
            (c.sets, c.assoc, c.set_index, c.data_port_width),
            (64, 6, 'L', None)
        );
        let c = CacheConfig::parse("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32")
            .unwrap()
            .unwrap();
        assert!(c.sectored);
        assert_eq!(c.size_bytes(), 32 * 1024);
    }

    #[test]
    fn errors_name_the_field() {
        let e = CacheConfig::parse("N:128:x:4,L:R:m:N:L,A:32:8,8").unwrap_err();
        assert!(e.contains("line size") && e.contains("`x`"), "{e}");
        let e = CacheConfig::parse("N:128:64:4,Q:R:m:N:L,A:32:8,8").unwrap_err();
        assert!(e.contains("group 2 field `replacement`"), "{e}");
        let e = CacheConfig::parse("N:128:64:4,L:R:m:N:L,A:32,8").unwrap_err();
        assert!(e.contains("group 3"), "{e}");
        let e = CacheConfig::parse("N:128:64:4").unwrap_err();
        assert!(e.contains("groups"), "{e}");
        let e = CacheConfig::parse("N:128:96:4,L:R:m:N:L,A:32:8,8").unwrap_err();
        assert!(e.contains("power of two"), "{e}");
    }
}
