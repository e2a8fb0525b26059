//! The special value types of the `.def` language, each holding its exact wire value.
//!
//! The reference hands JavaScript a converted view (radians, a decomposed skill id); these types
//! keep the raw value, so that decode then encode is lossless, and offer the reference's view
//! through methods. The conversions follow LAYOUT.md to the bit.

/// `PI / 0x8000` in f64, the reference's factor from raw angle units to radians.
pub const ANGLE_TO_RADIANS: f64 = 0.00009587379924285257;
/// `0x8000 / PI` in f64, the reference's factor from radians to raw angle units.
pub const RADIANS_TO_ANGLE: f64 = 10430.378350470453;

/// `angle`: a signed 16-bit angle, `0x8000` units to a half turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Angle(pub i16);

impl Angle {
    /// The angle in radians, as the reference computes it.
    pub fn radians(self) -> f64 {
        self.0 as f64 * ANGLE_TO_RADIANS
    }

    /// From radians, as the reference writes it: truncated toward zero, wrapped to 16 bits;
    /// except that the radians of an angle ([`Angle::radians`]) always give that angle back.
    /// The reference's truncation loses a unit on eight of the 65,536 angles (±10,719, ±20,893,
    /// ±20,981, ±21,438), whose radians multiply back to just under the whole number; those
    /// radians are exactly the next angle out's, and that angle is what they are written as.
    pub fn from_radians(rad: f64) -> Angle {
        let truncated = js_to_int32(rad * RADIANS_TO_ANGLE) as i16;
        let next_out = truncated.wrapping_add(if rad < 0.0 { -1 } else { 1 });
        if Angle(next_out).radians() == rad {
            Angle(next_out)
        } else {
            Angle(truncated)
        }
    }
}

/// JavaScript's `ToInt32`: truncate, wrap modulo 2^32 (NaN and infinities become 0).
///
/// Computed from the bits (`f64::trunc` and `rem_euclid` need `std`, and the crate builds
/// without it): the magnitude is `mantissa · 2^e`; its integer part's low 32 bits, negated for a
/// negative value, are the result.
pub(crate) fn js_to_int32(v: f64) -> i32 {
    let bits = v.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0x7ff {
        return 0;
    }
    let fraction = bits & ((1 << 52) - 1);
    let mantissa = if exp == 0 {
        fraction
    } else {
        fraction | 1 << 52
    };
    let e = exp.max(1) - 1075;
    let magnitude = match e {
        // Bits shifted past the 64th do not reach the low 32.
        0..=63 => mantissa << e,
        64.. => 0,
        -52..=-1 => mantissa >> -e,
        _ => 0,
    };
    let low = magnitude as u32;
    (if bits >> 63 != 0 {
        low.wrapping_neg()
    } else {
        low
    }) as i32
}

/// `vec3`: a position.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec3 {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
    /// z.
    pub z: f32,
}

/// `vec3fa`: three angles stored as f32 in raw angle units.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Vec3fa {
    /// x, raw.
    pub x: f32,
    /// y, raw.
    pub y: f32,
    /// z, raw.
    pub z: f32,
}

impl Vec3fa {
    /// The three components in radians, as the reference computes them.
    pub fn radians(self) -> [f64; 3] {
        [self.x, self.y, self.z].map(|c| c as f64 * ANGLE_TO_RADIANS)
    }

    /// From radians, as the reference writes it (`f32(value * 0x8000 / PI)`).
    pub fn from_radians(r: [f64; 3]) -> Vec3fa {
        let [x, y, z] = r.map(|c| (c * RADIANS_TO_ANGLE) as f32);
        Vec3fa { x, y, z }
    }
}

/// `skillid`: a packed 64-bit skill id. The raw value is kept; the methods give the reference's
/// decomposition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct SkillId(pub u64);

impl SkillId {
    /// Bits 28..32: 1 = action, 2 = reaction.
    pub fn kind(self) -> u32 {
        ((self.0 >> 28) & 0xf) as u32
    }
    /// Bit 32: an NPC skill.
    pub fn npc(self) -> bool {
        (self.0 >> 32) & 1 == 1
    }
    /// Bits 33..64.
    pub fn reserved(self) -> u32 {
        (self.0 >> 33) as u32
    }
    /// The skill id: the low 16 bits for an NPC action, the low 28 otherwise.
    pub fn id(self) -> u32 {
        if self.npc() && self.kind() == 1 {
            (self.0 & 0xffff) as u32
        } else {
            (self.0 & 0xfff_ffff) as u32
        }
    }
    /// The hunting zone of an NPC action (bits 16..28), 0 otherwise.
    pub fn hunting_zone_id(self) -> u32 {
        if self.npc() && self.kind() == 1 {
            ((self.0 >> 16) & 0xfff) as u32
        } else {
            0
        }
    }
    /// Packs the parts as the reference's writer does (only the low bit of `reserved` is kept).
    pub fn from_parts(
        id: u32,
        hunting_zone_id: u32,
        kind: u32,
        npc: bool,
        reserved: u32,
    ) -> SkillId {
        let low = if npc && kind == 1 {
            (id as u64 & 0xffff) | ((hunting_zone_id as u64 & 0xfff) << 16)
        } else {
            id as u64 & 0xfff_ffff
        };
        SkillId(
            low | ((kind as u64 & 0xf) << 28)
                | ((npc as u64) << 32)
                | ((reserved as u64 & 1) << 33),
        )
    }
}

/// `skillid32`: a packed 32-bit skill id (patch 73 and before).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct SkillId32(pub u32);

impl SkillId32 {
    /// Bits 26..30.
    pub fn kind(self) -> u32 {
        (self.0 >> 26) & 0xf
    }
    /// Bit 30.
    pub fn npc(self) -> bool {
        (self.0 >> 30) & 1 == 1
    }
    /// Bit 31.
    pub fn reserved(self) -> u32 {
        self.0 >> 31
    }
    /// The low 16 bits for an NPC action, the low 26 otherwise.
    pub fn id(self) -> u32 {
        if self.npc() && self.kind() == 1 {
            self.0 & 0xffff
        } else {
            self.0 & 0x3ff_ffff
        }
    }
    /// Bits 16..26 for an NPC action, 0 otherwise.
    pub fn hunting_zone_id(self) -> u32 {
        if self.npc() && self.kind() == 1 {
            (self.0 >> 16) & 0x3ff
        } else {
            0
        }
    }
    /// Packs the parts as the reference's writer does.
    pub fn from_parts(
        id: u32,
        hunting_zone_id: u32,
        kind: u32,
        npc: bool,
        reserved: u32,
    ) -> SkillId32 {
        let low = if npc && kind == 1 {
            (id & 0xffff) | ((hunting_zone_id & 0x3ff) << 16)
        } else {
            id & 0x3ff_ffff
        };
        SkillId32(low | ((kind & 0xf) << 26) | ((npc as u32) << 30) | ((reserved & 1) << 31))
    }
}

/// `customize`: eight appearance bytes, from the low byte up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Customize {
    /// Byte 0.
    pub unk: u8,
    /// Byte 1.
    pub skin_color: u8,
    /// Byte 2.
    pub face_style: u8,
    /// Byte 3.
    pub face_decal: u8,
    /// Byte 4.
    pub hair_style: u8,
    /// Byte 5.
    pub hair_color: u8,
    /// Byte 6.
    pub voice: u8,
    /// Byte 7.
    pub tattoos: u8,
}

impl Customize {
    /// The eight bytes in wire order.
    pub fn to_bytes(self) -> [u8; 8] {
        [
            self.unk,
            self.skin_color,
            self.face_style,
            self.face_decal,
            self.hair_style,
            self.hair_color,
            self.voice,
            self.tattoos,
        ]
    }
    /// From the eight bytes in wire order.
    pub fn from_bytes(b: [u8; 8]) -> Customize {
        let [
            unk,
            skin_color,
            face_style,
            face_decal,
            hair_style,
            hair_color,
            voice,
            tattoos,
        ] = b;
        Customize {
            unk,
            skin_color,
            face_style,
            face_decal,
            hair_style,
            hair_color,
            voice,
            tattoos,
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;

    /// Every angle's radians give the angle back; the reference's plain truncation does so for
    /// all but the eight angles `from_radians` names (counted here from the two factors alone).
    #[test]
    fn every_angle_survives_its_radians() {
        let mut lossy = vec![];
        for raw in i16::MIN..=i16::MAX {
            let rad = super::Angle(raw).radians();
            assert_eq!(super::Angle::from_radians(rad).0, raw, "{raw}");
            if super::js_to_int32(rad * super::RADIANS_TO_ANGLE) as i16 != raw {
                lossy.push(raw);
            }
        }
        assert_eq!(
            lossy,
            [-21438, -20981, -20893, -10719, 10719, 20893, 20981, 21438]
        );
    }

    /// The bit-level `ToInt32` against the definition (truncate, then the Euclidean remainder
    /// modulo 2^32), on values around every power of two, at the wrap points, and random bits.
    #[test]
    fn to_int32_agrees_with_the_definition() {
        fn reference(v: f64) -> i32 {
            if !v.is_finite() {
                return 0;
            }
            (v.trunc().rem_euclid(4294967296.0) as u64 as u32) as i32
        }
        let mut values = vec![
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
        ];
        for p in -1074..=1023 {
            let x = 2f64.powi(p);
            for v in [x, x * 1.5, x * 0.75, x + 1.0, x - 1.0, x + 0.5] {
                values.extend([v, -v]);
            }
        }
        for w in [
            2147483647.0,
            2147483648.0,
            4294967295.0,
            4294967296.0,
            4294967297.5,
        ] {
            values.extend([w, -w, w + 0.999, -w - 0.999]);
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            values.push(f64::from_bits(seed));
        }
        for v in values {
            assert_eq!(
                super::js_to_int32(v),
                reference(v),
                "{v:e} ({:#x})",
                v.to_bits()
            );
        }
    }
}
