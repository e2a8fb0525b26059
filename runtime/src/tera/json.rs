//! serde support in the JSON form of the tera-vectors (the form TERA Toolbox logs): angles in
//! radians, `vec3fa` scaled to radians, skill ids decomposed, `customize` by name, `bytes` as
//! lowercase hex, `float` as the f64 of its value.

use alloc::string::String;
use core::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use super::fields::{Fields, Source, deserialize_struct};
use super::values::{Angle, Customize, SkillId, SkillId32, Vec3, Vec3fa};

impl Serialize for Angle {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.radians())
    }
}

impl<'de> Deserialize<'de> for Angle {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Angle::from_radians(f64::deserialize(d)?))
    }
}

/// The JSON object of a vector: `{"x", "y", "z"}`.
#[derive(Default)]
struct Xyz {
    x: f64,
    y: f64,
    z: f64,
}

impl Serialize for Xyz {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Xyz", 3)?;
        st.serialize_field("x", &self.x)?;
        st.serialize_field("y", &self.y)?;
        st.serialize_field("z", &self.z)?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for Xyz {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_struct(d)
    }
}

impl Fields for Xyz {
    const NAME: &'static str = "Xyz";
    const FIELDS: &'static [&'static str] = &["x", "y", "z"];
    const DEFAULT: bool = false;
    fn field<'de, S: Source<'de>>(&mut self, i: usize, src: &mut S) -> Result<(), S::Error> {
        match i {
            0 => self.x = src.value()?,
            1 => self.y = src.value()?,
            _ => self.z = src.value()?,
        }
        Ok(())
    }
}

impl Serialize for Vec3 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Xyz {
            x: self.x as f64,
            y: self.y as f64,
            z: self.z as f64,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Vec3 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Xyz::deserialize(d)?;
        Ok(Vec3 {
            x: v.x as f32,
            y: v.y as f32,
            z: v.z as f32,
        })
    }
}

impl Serialize for Vec3fa {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let [x, y, z] = self.radians();
        Xyz { x, y, z }.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Vec3fa {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Xyz::deserialize(d)?;
        Ok(Vec3fa::from_radians([v.x, v.y, v.z]))
    }
}

/// The JSON object of a skill id: its parts, named as the reference names them.
#[derive(Default)]
struct SkillParts {
    id: u32,
    hunting_zone_id: u32,
    kind: u32,
    npc: bool,
    reserved: u32,
}

impl Serialize for SkillParts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("SkillParts", 5)?;
        st.serialize_field("id", &self.id)?;
        st.serialize_field("huntingZoneId", &self.hunting_zone_id)?;
        st.serialize_field("type", &self.kind)?;
        st.serialize_field("npc", &self.npc)?;
        st.serialize_field("reserved", &self.reserved)?;
        st.end()
    }
}

impl<'de> Deserialize<'de> for SkillParts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_struct(d)
    }
}

impl Fields for SkillParts {
    const NAME: &'static str = "SkillParts";
    const FIELDS: &'static [&'static str] = &["id", "huntingZoneId", "type", "npc", "reserved"];
    const DEFAULT: bool = false;
    fn field<'de, S: Source<'de>>(&mut self, i: usize, src: &mut S) -> Result<(), S::Error> {
        match i {
            0 => self.id = src.value()?,
            1 => self.hunting_zone_id = src.value()?,
            2 => self.kind = src.value()?,
            3 => self.npc = src.value()?,
            _ => self.reserved = src.value()?,
        }
        Ok(())
    }
}

/// `SkillId` and `SkillId32` have the same parts (different widths on the wire), so the same
/// JSON object.
macro_rules! skill_serde {
    ($($t:ident),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                SkillParts {
                    id: self.id(),
                    hunting_zone_id: self.hunting_zone_id(),
                    kind: self.kind(),
                    npc: self.npc(),
                    reserved: self.reserved(),
                }
                .serialize(s)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let p = SkillParts::deserialize(d)?;
                Ok($t::from_parts(p.id, p.hunting_zone_id, p.kind, p.npc, p.reserved))
            }
        }
    )*};
}
skill_serde!(SkillId, SkillId32);

const CUSTOMIZE_KEYS: [&str; 8] = [
    "unk",
    "skinColor",
    "faceStyle",
    "faceDecal",
    "hairStyle",
    "hairColor",
    "voice",
    "tattoos",
];

impl Serialize for Customize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Customize", 8)?;
        for (k, v) in CUSTOMIZE_KEYS.iter().zip(self.to_bytes()) {
            st.serialize_field(k, &v)?;
        }
        st.end()
    }
}

impl<'de> Deserialize<'de> for Customize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Customize;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object with the eight customize bytes")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Customize, A::Error> {
                let mut b = [0u8; 8];
                let mut seen = [false; 8];
                while let Some(k) = m.next_key::<String>()? {
                    match CUSTOMIZE_KEYS.iter().position(|c| *c == k) {
                        Some(i) => {
                            b[i] = m.next_value()?;
                            seen[i] = true;
                        }
                        None => {
                            m.next_value::<de::IgnoredAny>()?;
                        }
                    }
                }
                if let Some(i) = seen.iter().position(|s| !s) {
                    return Err(de::Error::missing_field(CUSTOMIZE_KEYS[i]));
                }
                Ok(Customize::from_bytes(b))
            }
        }
        d.deserialize_struct("Customize", &CUSTOMIZE_KEYS, V)
    }
}
