//! What `defc` writes to a terminal, a file or a pipe, under the workspace's one rule for text
//! from the input (`def_text`): control, format and bidirectional characters of a `.def`, a map,
//! a packet, an NBT or Godot value never reach the output raw.
//!
//! * Messages ([`message`]) escape them as `\u{1b}` line by line (the line breaks are the
//!   message's own) and cut a line longer than [`LINE_MAX`] bytes with its length.
//! * JSON ([`json`], [`InertJson`]) writes them as JSON escapes (`\u009b`, `\u202e`): the same
//!   data, read back by any JSON reader, and nothing a terminal acts on.
//! * A value shown in a table ([`value`]) is its JSON text, escaped as messages are.

use std::io::{self, Write};

use serde_json::Value;

/// Longest line of a message, in bytes of shown text: a rendered diagnostic's lines are shorter,
/// so only a message quoting input without its own bound is cut.
pub const LINE_MAX: usize = 4096;

/// `msg` with every line shown by the rule (hidden characters escaped, cut after
/// [`LINE_MAX`] bytes).
pub fn message(msg: &str) -> String {
    let mut out = String::with_capacity(msg.len().min(1 << 16));
    for (i, line) in msg.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&def_text::shown(line, LINE_MAX).to_string());
    }
    out
}

/// A JSON value as one cell of a table: its JSON text, hidden characters escaped.
pub fn value(v: &Value) -> String {
    def_text::escaped(&v.to_string()).to_string()
}

/// Whether a character of serde_json's output is written as a JSON escape: a hidden character
/// other than the line feed (serde_json escapes control characters inside strings itself, so a
/// raw line feed in its output is pretty-printing).
fn needs_json_escape(c: char) -> bool {
    c != '\n' && def_text::is_hidden(c)
}

/// Appends `s` (serde_json output) with its hidden characters as JSON escapes.
fn push_json(out: &mut String, s: &str) {
    let mut plain = 0;
    for (i, c) in s.char_indices() {
        if needs_json_escape(c) {
            out.push_str(&s[plain..i]);
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
            plain = i + c.len_utf8();
        }
    }
    out.push_str(&s[plain..]);
}

/// serde_json's output `text` with every hidden character written as a JSON escape. Outside
/// strings serde_json writes only ASCII, so the result is the same JSON value.
pub fn json(text: String) -> String {
    if !text.chars().any(needs_json_escape) {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 64);
    push_json(&mut out, &text);
    out
}

/// A writer for serde_json's streamed output that writes hidden characters as JSON escapes, as
/// [`json`] does, without holding the text.
pub struct InertJson<W: Write> {
    inner: W,
    /// The start of a UTF-8 character cut between two writes.
    carry: Vec<u8>,
    buf: String,
}

impl<W: Write> InertJson<W> {
    /// Writes into `inner`.
    pub fn new(inner: W) -> Self {
        InertJson {
            inner,
            carry: Vec::new(),
            buf: String::new(),
        }
    }

    /// The writer, after what is carried (bytes that are no whole character) is written as it is.
    pub fn finish(mut self) -> io::Result<W> {
        let carry = std::mem::take(&mut self.carry);
        self.inner.write_all(&carry)?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for InertJson<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let joined;
        let bytes: &[u8] = if self.carry.is_empty() {
            data
        } else {
            self.carry.extend_from_slice(data);
            joined = std::mem::take(&mut self.carry);
            &joined
        };
        let (text, rest) = match std::str::from_utf8(bytes) {
            Ok(t) => (t, &[][..]),
            Err(e) if e.error_len().is_none() => {
                let (a, b) = bytes.split_at(e.valid_up_to());
                (std::str::from_utf8(a).unwrap_or_default(), b)
            }
            // Not UTF-8 (serde_json never writes that): passed on as it is.
            Err(_) => {
                self.inner.write_all(bytes)?;
                return Ok(data.len());
            }
        };
        self.buf.clear();
        push_json(&mut self.buf, text);
        self.inner.write_all(self.buf.as_bytes())?;
        self.carry = rest.to_vec();
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_keep_the_value() {
        let v = serde_json::json!({"a\u{1b}": "x\u{9b}y\u{202e}z\u{e0041}\n"});
        let text = json(serde_json::to_string_pretty(&v).unwrap());
        assert!(!text.chars().any(needs_json_escape), "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v);
        // Streamed, one byte at a time: the same text.
        let mut w = InertJson::new(Vec::new());
        for b in serde_json::to_string_pretty(&v).unwrap().bytes() {
            w.write_all(&[b]).unwrap();
        }
        assert_eq!(String::from_utf8(w.finish().unwrap()).unwrap(), text);
    }

    #[test]
    fn messages_escape_each_line_and_keep_the_breaks() {
        assert_eq!(message("a\u{1b}b\nc\u{7}"), "a\\u{1b}b\nc\\u{7}");
        let long = "x".repeat(10_000);
        assert_eq!(
            message(&long),
            format!("{}…(10000 bytes)", &long[..LINE_MAX])
        );
    }
}
