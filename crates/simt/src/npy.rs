//! Reading and writing NumPy `.npy` files (format version 1.0/2.0, little-endian, C order), for
//! `warpforge ptx run --arg buf:...:file:X.npy` and `--out NAME=X.npy`.

use std::fmt::Write as _;

/// Element types supported in `.npy` files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    /// `<u1`
    U8,
    /// `<i1`
    I8,
    /// `<u2`
    U16,
    /// `<i2`
    I16,
    /// `<u4`
    U32,
    /// `<i4`
    I32,
    /// `<u8`
    U64,
    /// `<i8`
    I64,
    /// `<f4`
    F32,
    /// `<f8`
    F64,
}

impl Dtype {
    /// The NumPy descriptor string.
    pub fn descr(self) -> &'static str {
        match self {
            Dtype::U8 => "|u1",
            Dtype::I8 => "|i1",
            Dtype::U16 => "<u2",
            Dtype::I16 => "<i2",
            Dtype::U32 => "<u4",
            Dtype::I32 => "<i4",
            Dtype::U64 => "<u8",
            Dtype::I64 => "<i8",
            Dtype::F32 => "<f4",
            Dtype::F64 => "<f8",
        }
    }
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Dtype::U8 | Dtype::I8 => 1,
            Dtype::U16 | Dtype::I16 => 2,
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 4,
            Dtype::U64 | Dtype::I64 | Dtype::F64 => 8,
        }
    }
    fn from_descr(d: &str) -> Option<Dtype> {
        let body = d.trim_start_matches(['<', '|', '=']);
        Some(match body {
            "u1" => Dtype::U8,
            "i1" => Dtype::I8,
            "u2" => Dtype::U16,
            "i2" => Dtype::I16,
            "u4" => Dtype::U32,
            "i4" => Dtype::I32,
            "u8" => Dtype::U64,
            "i8" => Dtype::I64,
            "f4" => Dtype::F32,
            "f8" => Dtype::F64,
            _ => return None,
        })
    }
}

/// Serialises a 1-D array of `dtype` whose raw little-endian bytes are `data`.
pub fn write(dtype: Dtype, data: &[u8]) -> Vec<u8> {
    let n = data.len() / dtype.size();
    let mut header = String::new();
    let _ = write!(
        header,
        "{{'descr': '{}', 'fortran_order': False, 'shape': ({},), }}",
        dtype.descr(),
        n
    );
    // Pad with spaces so that magic + len + header + '\n' is a multiple of 64.
    let total = 10 + header.len() + 1;
    let pad = (64 - total % 64) % 64;
    header.push_str(&" ".repeat(pad));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + data.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&data[..n * dtype.size()]);
    out
}

/// A parsed `.npy` array: element type, shape and raw little-endian bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    /// Element type.
    pub dtype: Dtype,
    /// Shape.
    pub shape: Vec<u64>,
    /// Raw bytes, C order.
    pub data: Vec<u8>,
}

impl Array {
    /// Number of elements.
    pub fn len(&self) -> u64 {
        self.shape.iter().product()
    }
    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn dict_value<'h>(h: &'h str, key: &str) -> Option<&'h str> {
    let k = format!("'{key}'");
    let i = h.find(&k)? + k.len();
    let rest = h[i..].trim_start().strip_prefix(':')?.trim_start();
    Some(rest)
}

/// Parses `.npy` bytes, validating magic, version, dtype, order and shape.
pub fn read(bytes: &[u8]) -> Result<Array, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (bad magic)".into());
    }
    let (hlen, hstart) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 => {
            if bytes.len() < 12 {
                return Err("truncated .npy header".into());
            }
            (
                u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                12,
            )
        }
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let hend = hstart + hlen;
    if bytes.len() < hend {
        return Err("truncated .npy header".into());
    }
    let h = std::str::from_utf8(&bytes[hstart..hend]).map_err(|_| "header is not text")?;
    let descr = dict_value(h, "descr").ok_or("header has no 'descr'")?;
    let descr = descr
        .strip_prefix('\'')
        .and_then(|d| d.split('\'').next())
        .ok_or("malformed 'descr'")?;
    if descr.starts_with('>') {
        return Err(format!("big-endian dtype '{descr}' is not supported"));
    }
    let dtype = Dtype::from_descr(descr).ok_or_else(|| {
        format!("unsupported dtype '{descr}' (expected one of u1 i1 u2 i2 u4 i4 u8 i8 f4 f8)")
    })?;
    let fo = dict_value(h, "fortran_order").ok_or("header has no 'fortran_order'")?;
    if fo.starts_with("True") {
        return Err("Fortran-ordered arrays are not supported".into());
    }
    let shape_s = dict_value(h, "shape").ok_or("header has no 'shape'")?;
    let shape_s = shape_s
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .ok_or("malformed 'shape'")?;
    let mut shape = Vec::new();
    for part in shape_s.split(',') {
        let p = part.trim();
        if p.is_empty() {
            continue;
        }
        shape.push(
            p.parse::<u64>()
                .map_err(|_| format!("malformed shape entry '{p}'"))?,
        );
    }
    let n: u64 = shape.iter().product();
    let need = n as usize * dtype.size();
    let data = &bytes[hend..];
    if data.len() != need {
        return Err(format!(
            "data has {} bytes, shape {:?} of {} needs {need}",
            data.len(),
            shape,
            descr
        ));
    }
    Ok(Array {
        dtype,
        shape,
        data: data.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_alignment() {
        let vals: Vec<f32> = vec![1.0, -2.5, 3.25];
        let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let f = write(Dtype::F32, &bytes);
        assert_eq!(&f[..8], b"\x93NUMPY\x01\x00");
        let hlen = u16::from_le_bytes([f[8], f[9]]) as usize;
        assert_eq!((10 + hlen) % 64, 0);
        let a = read(&f).unwrap();
        assert_eq!(a.dtype, Dtype::F32);
        assert_eq!(a.shape, vec![3]);
        assert_eq!(a.data, bytes);
    }

    #[test]
    fn rejects_bad_files() {
        assert!(read(b"hello").unwrap_err().contains("magic"));
        let mut f = write(Dtype::I32, &[0u8; 8]);
        f.pop();
        assert!(read(&f).unwrap_err().contains("needs 8"));
        let g = write(Dtype::I32, &[0u8; 8]);
        let pos = g.windows(3).position(|w| w == b"<i4").unwrap();
        let mut bad = g.clone();
        bad[pos + 1] = b'c';
        assert!(read(&bad).unwrap_err().contains("unsupported dtype"));
        // A 2-D array header written by hand.
        let mut h = "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }".to_string();
        while !(10 + h.len() + 1).is_multiple_of(64) {
            h.push(' ');
        }
        h.push('\n');
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        f.extend_from_slice(&(h.len() as u16).to_le_bytes());
        f.extend_from_slice(h.as_bytes());
        f.extend_from_slice(&[0u8; 12]);
        let a = read(&f).unwrap();
        assert_eq!(a.shape, vec![2, 3]);
        assert_eq!(a.len(), 6);
    }
}
