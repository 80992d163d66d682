//! Whole-or-nothing output files: every file warpforge writes is written to a temporary file in
//! the destination's folder and renamed over the destination once complete, so a reader (or a
//! run killed with SIGKILL mid-write) sees the old file or the new one, never a half-written one.
//!
//! A temporary file left by a killed process is named `.NAME.tmpPID-N` beside the destination;
//! it is never mistaken for the output.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static SEQ: AtomicU64 = AtomicU64::new(0);

/// A file being written: bytes go to a temporary file beside `path`; [`AtomicFile::commit`]
/// renames it into place, dropping it uncommitted removes it.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<io::BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `path` (the folder must exist).
    pub fn create(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let name = path.file_name().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a file path", path.display()),
            )
        })?;
        let dir = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let tmp = dir.join(format!(
            ".{}.tmp{}-{}",
            name.to_string_lossy(),
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let file = File::create(&tmp)?;
        Ok(Self {
            path,
            tmp,
            file: Some(io::BufWriter::new(file)),
        })
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes, syncs and renames the temporary file over the destination.
    pub fn commit(mut self) -> io::Result<()> {
        let f = self.file.take().expect("not yet committed");
        let r = f
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all())
            .and_then(|_| std::fs::rename(&self.tmp, &self.path));
        if r.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        r
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.as_mut().expect("not committed").write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `path` whole or not at all (see [`AtomicFile`]).
pub fn write_atomic(path: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes.as_ref())?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_replaces_drop_discards() {
        let dir = std::env::temp_dir().join(format!("wf-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("out.json");
        write_atomic(&p, "old").unwrap();
        {
            let mut f = AtomicFile::create(&p).unwrap();
            f.write_all(b"new, unfinished").unwrap();
            f.flush().unwrap();
            // Not committed: the destination still holds the old text.
            assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        }
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old");
        write_atomic(&p, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        // No temporary file is left behind either way.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(write_atomic(dir.join("missing/x"), "x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
