#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| wire_defs_fuzz::check_codegen(data));
