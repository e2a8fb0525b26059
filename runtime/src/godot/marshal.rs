//! The engine's little-endian primitive helpers (`core/io/marshalls.h`): `encode_uint16/32/64`,
//! `encode_half`, `encode_float`, `encode_double`, `encode_cstring` and their decoders, as the
//! engine's own unit tests exercise them. The Variant codec uses the 32/64-bit ones.

/// `encode_uint16`.
pub fn encode_u16(v: u16) -> [u8; 2] {
    v.to_le_bytes()
}

/// `encode_uint32`.
pub fn encode_u32(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}

/// `encode_uint64`.
pub fn encode_u64(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}

/// `encode_float` (binary32).
pub fn encode_f32(v: f32) -> [u8; 4] {
    v.to_le_bytes()
}

/// `encode_double` (binary64).
pub fn encode_f64(v: f64) -> [u8; 8] {
    v.to_le_bytes()
}

/// `encode_half`: IEEE binary16, round to nearest even.
pub fn encode_half(v: f32) -> [u8; 2] {
    f32_to_half(v).to_le_bytes()
}

/// `decode_half`.
pub fn decode_half(b: [u8; 2]) -> f32 {
    half_to_f32(u16::from_le_bytes(b))
}

/// `encode_cstring`: the UTF-8 bytes followed by a NUL.
pub fn encode_cstring(s: &str) -> Vec<u8> {
    let mut v = Vec::with_capacity(s.len() + 1);
    v.extend_from_slice(s.as_bytes());
    v.push(0);
    v
}

/// binary32 → binary16 bits (round to nearest, ties to even; overflow → inf; NaN stays NaN).
pub fn f32_to_half(v: f32) -> u16 {
    let b = v.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xFF) as i32;
    let mant = b & 0x7F_FFFF;
    if exp == 0xFF {
        let nan = if mant != 0 {
            0x200 | (mant >> 13) as u16
        } else {
            0
        };
        return sign | 0x7C00 | nan;
    }
    let e = exp - 127 + 15;
    if e >= 0x1F {
        return sign | 0x7C00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        // Subnormal half: shift the full mantissa (with its implicit 1) into place.
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let mut h = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let half = 1 << (shift - 1);
        if rem > half || (rem == half && h & 1 == 1) {
            h += 1;
        }
        return sign | h as u16;
    }
    let mut h = ((e as u32) << 10) | (mant >> 13);
    let rem = mant & 0x1FFF;
    if rem > 0x1000 || (rem == 0x1000 && h & 1 == 1) {
        h += 1; // may carry into the exponent, up to inf: still correct
    }
    sign | h as u16
}

/// binary16 bits → binary32 (exact).
pub fn half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1F);
    let mant = u32::from(h & 0x3FF);
    let bits = match (exp, mant) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: value = m × 2^-24.
            return f32::from_bits(sign)
                + (m as f32) * f32::from_bits(0x3380_0000) * if sign != 0 { -1.0 } else { 1.0 };
        }
        (0x1F, m) => sign | 0x7F80_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}
