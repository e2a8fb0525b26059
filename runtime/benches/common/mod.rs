//! What the runtime's benchmarks share: the public vectors as one TERA stream.

/// The packets of `tera-vectors/public.jsonl` back to back (`../shared`, or `WIRE_SHARED_DIR`).
pub fn public_stream() -> Vec<u8> {
    let dir = std::env::var_os("WIRE_SHARED_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared").into());
    let text = std::fs::read_to_string(dir.join("tera-vectors/public.jsonl"))
        .expect("public vectors (set WIRE_SHARED_DIR)");
    let mut out = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        out.extend(hex::decode(v["hex"].as_str().unwrap()).unwrap());
    }
    out
}
