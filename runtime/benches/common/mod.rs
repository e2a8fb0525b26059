//! What the runtime's benchmarks share: the public vectors as one TERA stream, and the map of
//! the messages the hook benchmarks hook.

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

/// A map of 50 messages `HOOKED_00`.. at opcodes 65000.. (leaked: a map is `'static`), none of
/// them in the public vectors.
#[allow(dead_code)] // the framing bench hooks nothing
pub fn hooked_map() -> def_runtime::tera::protocol::OpcodeMap {
    let names: Vec<(&'static str, u16)> = (0..50)
        .map(|i| {
            let name: &'static str = Box::leak(format!("HOOKED_{i:02}").into_boxed_str());
            (name, 65000 + i)
        })
        .collect();
    let by_opcode: Vec<(u16, &'static str)> = names.iter().map(|&(n, o)| (o, n)).collect();
    def_runtime::tera::protocol::OpcodeMap::new(
        Box::leak(names.into_boxed_slice()),
        Box::leak(by_opcode.into_boxed_slice()),
        &[],
    )
}
