//! Reading the generator's inputs (`.def` files, opcode maps, `deprecated.json`): regular files
//! only, so that a FIFO or a device named `x.def` is refused instead of blocking or reading
//! without end, and UTF-8 only, with the byte offset and a guess at the encoding when not
//! ([`def_parser::text::read_file`]).

use std::path::Path;

use def_parser::text::{ReadError, read_file};

use crate::config::Error;

/// Whether `path` (symbolic links followed) is a regular file; an error naming it if not.
pub(crate) fn check_regular(path: &Path) -> Result<(), Error> {
    def_parser::text::check_regular(path).map_err(|e| Error::Io(path.to_path_buf(), e))
}

/// The text of the regular file `path`.
pub(crate) fn read_text(path: &Path) -> Result<String, Error> {
    read_file(path).map_err(|e| match e {
        ReadError::Io(e) => Error::Io(path.to_path_buf(), e),
        ReadError::NotUtf8(e) => Error::NotUtf8(path.to_path_buf(), e),
    })
}
