//! Reading the generator's inputs (`.def` files, opcode maps, `deprecated.json`): regular files
//! only, so that a FIFO or a device named `x.def` is refused instead of blocking or reading
//! without end, and UTF-8 only, with the byte offset and a guess at the encoding when not.

use std::io;
use std::path::Path;

use crate::config::Error;

/// Whether `path` (symbolic links followed) is a regular file; an error naming it if not.
pub(crate) fn check_regular(path: &Path) -> Result<(), Error> {
    let meta = std::fs::metadata(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
    if meta.is_file() {
        Ok(())
    } else {
        let what = if meta.is_dir() {
            "a folder"
        } else {
            "a FIFO, socket or device"
        };
        Err(Error::Io(
            path.to_path_buf(),
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("not a regular file ({what})"),
            ),
        ))
    }
}

/// The text of the regular file `path`.
pub(crate) fn read_text(path: &Path) -> Result<String, Error> {
    check_regular(path)?;
    let bytes = std::fs::read(path).map_err(|e| Error::Io(path.to_path_buf(), e))?;
    def_parser::text::decode(bytes).map_err(|e| Error::NotUtf8(path.to_path_buf(), e))
}
