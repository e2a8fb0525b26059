//! Bytes to text for `.def` files and maps: UTF-8 only, and when the bytes are not UTF-8 an error
//! that says at which byte and, when it can tell, which encoding the file seems to be in; and
//! [`read_file`], which reads only regular files (a FIFO or a device named `x.def` would block or
//! never end).

use std::fmt;
use std::io;
use std::path::Path;

/// Bytes that are not UTF-8: where the first bad byte is, and a guess at the encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotUtf8 {
    /// Byte offset of the first byte that is not part of a UTF-8 character.
    pub offset: usize,
    /// That byte.
    pub byte: u8,
    /// What the file seems to be, when that can be told (`UTF-16LE (byte-order mark FF FE)`).
    pub guess: Option<&'static str>,
}

impl fmt::Display for NotUtf8 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not UTF-8 text: byte 0x{:02X} at byte offset {}",
            self.byte, self.offset
        )?;
        match self.guess {
            Some(g) => write!(f, "; the file looks like {g}: save it as UTF-8"),
            None => f.write_str("; save the file as UTF-8"),
        }
    }
}

impl std::error::Error for NotUtf8 {}

/// A guess at the encoding of bytes that are not UTF-8.
fn guess(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0xFF, 0xFE]) {
        return Some("UTF-16LE (it begins with the byte-order mark FF FE)");
    }
    if bytes.starts_with(&[0xFE, 0xFF]) {
        return Some("UTF-16BE (it begins with the byte-order mark FE FF)");
    }
    // ASCII text in UTF-16 has a NUL in every other byte.
    let head = &bytes[..bytes.len().min(512)];
    let zeros = |parity: usize| {
        head.iter()
            .skip(parity)
            .step_by(2)
            .filter(|&&b| b == 0)
            .count()
    };
    let pairs = head.len() / 2;
    if pairs >= 2 && zeros(1) * 4 >= pairs * 3 {
        return Some("UTF-16LE (every other byte is NUL)");
    }
    if pairs >= 2 && zeros(0) * 4 >= pairs * 3 {
        return Some("UTF-16BE (every other byte is NUL)");
    }
    Some("a legacy 8-bit encoding (Latin-1 or Windows-1252, for example)")
}

/// The bytes as UTF-8 text, or where and why they are not.
pub fn decode(bytes: Vec<u8>) -> Result<String, NotUtf8> {
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let bytes = e.into_bytes();
        NotUtf8 {
            offset,
            byte: bytes[offset],
            guess: guess(&bytes),
        }
    })
}

/// Why [`read_file`] failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read, or is not a regular file.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The file is not UTF-8 text.
    #[error("{0}")]
    NotUtf8(#[from] NotUtf8),
}

/// Whether `path` (symbolic links followed) is a regular file; an `InvalidInput` error saying
/// what it is if not.
pub fn check_regular(path: &Path) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        return Ok(());
    }
    let what = if meta.is_dir() {
        "a folder"
    } else {
        "a FIFO, socket or device"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("not a regular file ({what})"),
    ))
}

/// The text of `path`, which must be a regular file (symbolic links followed) holding UTF-8.
pub fn read_file(path: &Path) -> Result<String, ReadError> {
    check_regular(path)?;
    Ok(decode(std::fs::read(path)?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_where_and_what() {
        let e = decode(b"int32 a\n\xE9t\xE9 b\n".to_vec()).unwrap_err();
        assert_eq!((e.offset, e.byte), (8, 0xE9));
        assert!(e.to_string().contains("byte offset 8"), "{e}");
        assert!(e.to_string().contains("Latin-1"), "{e}");
        let utf16: Vec<u8> = "int32 a\n"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        let mut bom = vec![0xFF, 0xFE];
        bom.extend(&utf16);
        let e = decode(bom).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.to_string().contains("UTF-16LE"), "{e}");
        // Without a byte-order mark, UTF-16 is valid UTF-8 (NUL is ASCII) unless a byte is
        // not: a non-ASCII letter.
        let utf16: Vec<u8> = "int32 é\n"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        let e = decode(utf16).unwrap_err();
        assert_eq!(e.offset, 12);
        assert!(e.to_string().contains("every other byte is NUL"), "{e}");
        assert_eq!(decode(b"ok".to_vec()).unwrap(), "ok");
    }
}
