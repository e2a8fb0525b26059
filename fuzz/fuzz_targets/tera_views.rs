#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some((i, opts, packet)) = wire_defs_fuzz::split(data) {
        (wire_defs_fuzz::DEFS[i].views)(packet, opts);
    }
});
