//! The one door from the new `defc` tools (annotate, diff, guess) into the dynamic codec: a
//! packet decoded to JSON. When the codec's entry point changes, only this function does.

use def_runtime::Options;
use def_runtime::tera::DecodeError;
use def_runtime::tera::dynamic::Definition;
use serde_json::Value;

/// Decodes a whole packet (header included) with `def` to its JSON form.
pub fn decode_json(def: &Definition, bytes: &[u8], opts: Options) -> Result<Value, DecodeError> {
    def.decode_json(bytes, opts)
}
