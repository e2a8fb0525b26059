//! The world the world-scan tests and the world bench build: the sample chunks it is made of and
//! region files written by hand from the layout the `region` module documents (not our writer).
#![allow(dead_code)]

/// The uncompressed sample chunks (Java, 1.12 to 1.20), in `nbt-samples`.
pub const CHUNKS: [&str; 12] = [
    "fastanvil__1.12.chunk",
    "fastanvil__1.17.0.chunk",
    "fastanvil__1.17.1.chunk",
    "fastanvil__21w44a-test1.nbt",
    "fastanvil__etho-empty.chunk",
    "fastanvil__etho-max-heights.chunk",
    "fastanvil__etho-old-in-new.chunk",
    "fastanvil__etho-old-in-new2.chunk",
    "fastanvil__etho.chunk",
    "fastanvil__forge-1.20.1.nbt",
    "fastanvil__unicode.chunk",
    "fastnbt__chunk.nbt",
];

/// A region file from `(slot, compression id, stored bytes)`: chunks in sector order from
/// sector 2, each padded to whole sectors, the location and a timestamp (1 700 000 000 + slot)
/// in the two tables.
pub fn region_bytes(chunks: &[(usize, u8, Vec<u8>)]) -> Vec<u8> {
    let mut out = vec![0u8; 8192];
    for (slot, id, stored) in chunks {
        let sector = out.len() / 4096;
        out.extend_from_slice(&(stored.len() as u32 + 1).to_be_bytes());
        out.push(*id);
        out.extend_from_slice(stored);
        let count = (out.len() - sector * 4096).div_ceil(4096);
        out.resize((sector + count) * 4096, 0);
        let loc = ((sector as u32) << 8) | count as u32;
        out[4 * slot..4 * slot + 4].copy_from_slice(&loc.to_be_bytes());
        out[4096 + 4 * slot..4096 + 4 * slot + 4]
            .copy_from_slice(&(1_700_000_000u32 + *slot as u32).to_be_bytes());
    }
    out
}
