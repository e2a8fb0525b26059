//! Hex text of byte strings, one rule for the JSON forms of every format: lowercase out; in,
//! either case, with ASCII whitespace between digits ignored, and an error that names the byte
//! offset of the digit at fault.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Lowercase hex of `b`.
pub(crate) fn encode(b: &[u8]) -> String {
    const D: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 * b.len());
    for x in b {
        s.push(D[usize::from(x >> 4)] as char);
        s.push(D[usize::from(x & 15)] as char);
    }
    s
}

/// The bytes of hex `text`; the error says where and why (`at byte 7: 'g' is not a hex digit`).
pub(crate) fn decode(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high: Option<(u8, usize)> = None;
    for (at, &c) in text.as_bytes().iter().enumerate() {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            c if c.is_ascii_whitespace() => continue,
            _ => {
                // `at` starts a character: every byte before it was ASCII.
                let ch = text[at..].chars().next().unwrap_or('\u{fffd}');
                return Err(format!("at byte {at}: {ch:?} is not a hex digit"));
            }
        };
        match high.take() {
            None => high = Some((d, at)),
            Some((h, _)) => out.push(h << 4 | d),
        }
    }
    match high {
        Some((_, at)) => Err(format!(
            "at byte {at}: odd number of hex digits (this last one has no pair)"
        )),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ways() {
        assert_eq!(encode(&[0x00, 0xab, 0x7f]), "00ab7f");
        assert_eq!(decode("00AB 7f\n").unwrap(), [0x00, 0xab, 0x7f]);
        assert!(decode("").unwrap().is_empty());
        assert_eq!(
            decode("0g").unwrap_err(),
            "at byte 1: 'g' is not a hex digit"
        );
        assert_eq!(
            decode("aé").unwrap_err(),
            "at byte 1: 'é' is not a hex digit"
        );
        assert!(
            decode("abc")
                .unwrap_err()
                .starts_with("at byte 2: odd number")
        );
    }
}
