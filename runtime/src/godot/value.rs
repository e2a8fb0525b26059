//! The Variant value model: one Rust enum covering every type of Godot 3.x and 4.x.
//!
//! The model is version independent: [`Variant`] uses Godot 4 names and holds the union of both
//! type lists; the [`Version`] chosen by the caller decides the type ids on the wire and which
//! variants are encodable (a Godot 4-only type cannot be written for Godot 3).
//!
//! Godot 3 name mapping: `REAL` → [`Variant::Float`], `QUAT` → [`Variant::Quaternion`],
//! `TRANSFORM` → [`Variant::Transform3D`], `_RID` → [`Variant::Rid`],
//! `POOL_BYTE_ARRAY` → [`Variant::PackedByteArray`], `POOL_INT_ARRAY` → [`Variant::PackedInt32Array`],
//! `POOL_REAL_ARRAY` → [`Variant::PackedFloat32Array`], `POOL_*_ARRAY` → `Packed*Array`.
//!
//! Floating-point components of math types are stored as [`Real`] (`f64`) so that values from
//! double-precision Godot 4 builds fit; values read from single-precision encodings are widened
//! bit-exactly (NaN payloads included) and narrowed back on encode. [`Color`] and
//! [`Variant::PackedFloat32Array`] are `f32` because the wire always carries `f32` for them.
//!
//! Equality ([`PartialEq`]) is *bit identity* of floats: `NaN == NaN` when the bits match and
//! `0.0 != -0.0`. That is the equality that matters for a wire format (same value ⇒ same bytes);
//! Godot's own dictionary-key equality is in [`Variant::godot_key_eq`].

use std::fmt;

pub use super::gstring::GString;

/// Which engine generation wrote (or will read) the bytes. Nothing on the wire says so.
///
/// Godot 4's minor version matters: three wire generations exist (SPEC.md §9.3), and
/// `Godot4 { minor }` picks one. 4.0–4.1: no typed-container fields, `VARIANT_MAX` 38; 4.2:
/// typed Arrays; 4.3: `PackedVector4Array` (id 38, `VARIANT_MAX` 39); 4.4 and later: typed
/// Dictionaries. Decoding reads what that generation writes (an older decoder ignores the header
/// bits of newer typed containers, as the engine does); encoding writes what it reads: a typed
/// container the target has no field for is written as the plain container that engine writes,
/// and a type it lacks (`PackedVector4Array` before 4.3) is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// Godot 3.x (type ids 0–26; behaviour of 3.2.3, checked against the real engine).
    Godot3,
    /// Godot 4.`minor` (type ids 0–38). Minors above 4 behave as 4.4.
    Godot4 {
        /// The minor version: 0 for 4.0, 2 for 4.2, …
        minor: u8,
    },
}

impl Version {
    /// Godot 4.0 and 4.1: no typed-container fields, no `PackedVector4Array`.
    pub const GODOT_4_0: Version = Version::Godot4 { minor: 0 };
    /// Godot 4.2: typed Arrays, no `PackedVector4Array`.
    pub const GODOT_4_2: Version = Version::Godot4 { minor: 2 };
    /// Godot 4.3: typed Arrays and `PackedVector4Array`, no typed Dictionaries.
    pub const GODOT_4_3: Version = Version::Godot4 { minor: 3 };
    /// Godot 4.4 and later: typed Dictionaries too (the newest generation).
    pub const GODOT_4_4: Version = Version::Godot4 { minor: 4 };

    /// Whether this is a Godot 4 version (type ids of 4.x).
    #[inline]
    pub const fn is_godot4(self) -> bool {
        matches!(self, Version::Godot4 { .. })
    }

    /// Whether Array headers carry an element type (4.2+).
    #[inline]
    pub const fn typed_arrays(self) -> bool {
        matches!(self, Version::Godot4 { minor } if minor >= 2)
    }

    /// Whether Dictionary headers carry key and value types (4.4+).
    #[inline]
    pub const fn typed_dictionaries(self) -> bool {
        matches!(self, Version::Godot4 { minor } if minor >= 4)
    }

    /// Whether `PackedVector4Array` (id 38) exists (4.3+).
    #[inline]
    pub const fn has_packed_vector4(self) -> bool {
        matches!(self, Version::Godot4 { minor } if minor >= 3)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Version::Godot3 => f.write_str("Godot 3"),
            Version::Godot4 { minor: 0 | 1 } => f.write_str("Godot 4.0-4.1"),
            Version::Godot4 { minor: m @ (2 | 3) } => write!(f, "Godot 4.{m}"),
            Version::Godot4 { .. } => f.write_str("Godot 4.4+"),
        }
    }
}

/// Floating-point component type of math values (`real_t`); wide enough for double builds.
pub type Real = f64;

/// Bit-identity comparison of two floats (see the module docs).
fn same_f64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

fn same_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits()
}

macro_rules! real_struct {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident),+ $(,)? } = $n:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $name {
            $($(#[$fdoc])* pub $field: Real,)+
        }

        impl $name {
            /// Number of components on the wire.
            pub const COMPONENTS: usize = $n;

            /// The components in wire order.
            pub fn to_array(&self) -> [Real; $n] {
                [$(self.$field),+]
            }

            /// Builds the value from components in wire order.
            pub fn from_array(a: [Real; $n]) -> Self {
                let [$($field),+] = a;
                Self { $($field),+ }
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.to_array().iter().zip(other.to_array().iter()).all(|(a, b)| same_f64(*a, *b))
            }
        }
        impl Eq for $name {}
    };
}

macro_rules! array_struct {
    ($(#[$doc:meta])* $name:ident = $n:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $name(pub [Real; $n]);

        impl $name {
            /// Number of components on the wire.
            pub const COMPONENTS: usize = $n;

            /// The components in wire order.
            pub fn to_array(&self) -> [Real; $n] {
                self.0
            }

            /// Builds the value from components in wire order.
            pub fn from_array(a: [Real; $n]) -> Self {
                Self(a)
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self([0.0; $n])
            }
        }

        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.0.iter().zip(other.0.iter()).all(|(a, b)| same_f64(*a, *b))
            }
        }
        impl Eq for $name {}
    };
}

real_struct!(
    /// `Vector2`.
    Vector2 {
        /// x
        x,
        /// y
        y
    } = 2
);
real_struct!(
    /// `Vector3`.
    Vector3 {
        /// x
        x,
        /// y
        y,
        /// z
        z
    } = 3
);
real_struct!(
    /// `Vector4` (Godot 4).
    Vector4 {
        /// x
        x,
        /// y
        y,
        /// z
        z,
        /// w
        w
    } = 4
);
real_struct!(
    /// `Rect2`: position then size.
    Rect2 {
        /// position.x
        x,
        /// position.y
        y,
        /// size.x
        w,
        /// size.y
        h
    } = 4
);
real_struct!(
    /// `Plane`: normal then distance.
    Plane {
        /// normal.x
        nx,
        /// normal.y
        ny,
        /// normal.z
        nz,
        /// d
        d
    } = 4
);
real_struct!(
    /// `Quaternion` (Godot 3 `Quat`).
    #[doc(alias = "Quat")]
    Quaternion {
        /// x
        x,
        /// y
        y,
        /// z
        z,
        /// w
        w
    } = 4
);
real_struct!(
    /// `AABB`: position then size.
    Aabb {
        /// position.x
        x,
        /// position.y
        y,
        /// position.z
        z,
        /// size.x
        w,
        /// size.y
        h,
        /// size.z
        d
    } = 6
);
array_struct!(
    /// `Transform2D`: `x.x, x.y, y.x, y.y, origin.x, origin.y` (axis vectors in order).
    Transform2D = 6
);
array_struct!(
    /// `Basis`: 9 components **row-major** (`rows[i][j]`), as on the wire.
    Basis = 9
);
array_struct!(
    /// `Transform3D` (Godot 3 `Transform`): the row-major basis (9) then origin x, y, z.
    #[doc(alias = "Transform")]
    Transform3D = 12
);
array_struct!(
    /// `Projection` (Godot 4): 16 components **column-major** (column 0 x, y, z, w, then column 1 …).
    Projection = 16
);

/// `Color`: r, g, b, a; always `f32` on the wire, in every version and build.
#[derive(Debug, Clone, Copy, Default)]
pub struct Color {
    /// red
    pub r: f32,
    /// green
    pub g: f32,
    /// blue
    pub b: f32,
    /// alpha
    pub a: f32,
}

impl Color {
    /// The components in wire order.
    pub fn to_array(&self) -> [f32; 4] {
        [self.r, self.g, self.b, self.a]
    }

    /// Builds a color from r, g, b, a.
    pub fn from_array([r, g, b, a]: [f32; 4]) -> Self {
        Color { r, g, b, a }
    }
}

impl PartialEq for Color {
    fn eq(&self, other: &Self) -> bool {
        self.to_array()
            .iter()
            .zip(other.to_array().iter())
            .all(|(a, b)| same_f32(*a, *b))
    }
}
impl Eq for Color {}

/// `Vector2i` (Godot 4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Vector2i {
    /// x
    pub x: i32,
    /// y
    pub y: i32,
}

/// `Vector3i` (Godot 4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Vector3i {
    /// x
    pub x: i32,
    /// y
    pub y: i32,
    /// z
    pub z: i32,
}

/// `Vector4i` (Godot 4).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Vector4i {
    /// x
    pub x: i32,
    /// y
    pub y: i32,
    /// z
    pub z: i32,
    /// w
    pub w: i32,
}

/// `Rect2i` (Godot 4): position then size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Rect2i {
    /// position.x
    pub x: i32,
    /// position.y
    pub y: i32,
    /// size.x
    pub w: i32,
    /// size.y
    pub h: i32,
}

/// `NodePath` in the wire's structured form: names, subnames, absolute flag.
///
/// `"/root/a:b:c"` has names `root, a`, subnames `b, c` and is absolute. Decoding the obsolete
/// "property" flag (bit 1) appends its extra string to `subnames`, as the engine does; this type
/// therefore never re-encodes that flag.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct NodePath {
    /// Node names (the `/`-separated part).
    pub names: Vec<GString>,
    /// Subnames (the `:`-separated property part).
    pub subnames: Vec<GString>,
    /// Whether the path starts with `/`.
    pub absolute: bool,
}

impl NodePath {
    /// Parses the textual form (`"/root/a:b:c"`, `"../x"`, `":prop"`), as `NodePath(String)` does
    /// for ordinary paths. Empty segments are dropped.
    pub fn parse(text: &str) -> NodePath {
        let absolute = text.starts_with('/');
        let mut parts = text.split(':');
        let names = parts
            .next()
            .unwrap_or("")
            .split('/')
            .filter(|s| !s.is_empty())
            .map(GString::from)
            .collect();
        let subnames = parts.filter(|s| !s.is_empty()).map(GString::from).collect();
        NodePath {
            names,
            subnames,
            absolute,
        }
    }

    /// True for the empty path (no names, no subnames); the engine decodes such a path as empty
    /// even when the absolute bit is set.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.subnames.is_empty()
    }
}

impl fmt::Display for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.absolute {
            f.write_str("/")?;
        }
        for (i, s) in self.names.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            write!(f, "{s}")?;
        }
        for s in &self.subnames {
            write!(f, ":{s}")?;
        }
        Ok(())
    }
}

/// An Object as the wire carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Object {
    /// A null or freed object. Encoded as a bare NIL header (as the engine does since 3.2.x);
    /// decoded from an as-id object with id 0 or a full object with an empty class name.
    Null,
    /// An `EncodedObjectAsID`: the process-local instance id (`var2bytes(obj)` without full objects).
    Id(u64),
    /// A full object (`var2bytes(obj, true)`): class name and stored properties in list order.
    /// Only decoded when the caller allows objects, as the engine does.
    Full(Box<FullObject>),
}

/// The body of a full object.
#[derive(Debug)]
pub struct FullObject {
    /// Engine class name, e.g. `"Reference"`.
    pub class: String,
    /// `(name, value)` pairs in the order written.
    pub properties: Vec<(String, Variant)>,
}

/// A `Signal` (Godot 4): signal name and the id of the object that owns it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Signal {
    /// Signal name.
    pub name: String,
    /// Instance id of the owning object.
    pub object: u64,
}

/// Element (or key/value) type of a Godot 4 typed container (`Array[int]`, `Dictionary[K, V]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum ContainerType {
    /// Untyped (`Array`, `Variant`); nothing extra on the wire.
    #[default]
    Untyped,
    /// A builtin Variant type, e.g. `Array[int]`.
    Builtin(VariantType),
    /// A native or global class name, e.g. `Array[Node]`. Without full objects the engine writes
    /// and reads the class name `"EncodedObjectAsID"` instead.
    Class(String),
    /// A script, by its `res://` path.
    Script(String),
}

impl ContainerType {
    /// The 2-bit container-type kind of the header (0 untyped, 1 builtin, 2 class, 3 script).
    pub fn kind(&self) -> u32 {
        match self {
            ContainerType::Untyped => 0,
            ContainerType::Builtin(_) => 1,
            ContainerType::Class(_) => 2,
            ContainerType::Script(_) => 3,
        }
    }
}

/// An `Array`, optionally typed (Godot 4.2+).
#[derive(Debug, Default)]
pub struct Array {
    /// Element type; always [`ContainerType::Untyped`] for Godot 3.
    pub element_type: ContainerType,
    /// The elements.
    pub items: Vec<Variant>,
}

impl Array {
    /// An untyped array.
    pub fn new(items: Vec<Variant>) -> Self {
        Array {
            element_type: ContainerType::Untyped,
            items,
        }
    }
}

impl From<Vec<Variant>> for Array {
    fn from(items: Vec<Variant>) -> Self {
        Array::new(items)
    }
}

/// A `Dictionary` in insertion order, optionally typed on either side (Godot 4.4+).
///
/// Keys are kept as a list: decoding collapses duplicate keys exactly as the engine does (the
/// first position is kept, the later value wins; see [`Variant::godot_key_eq`]), while a value you
/// build yourself is written as given.
#[derive(Debug, Default)]
pub struct Dictionary {
    /// Key type; [`ContainerType::Untyped`] unless typed.
    pub key_type: ContainerType,
    /// Value type; [`ContainerType::Untyped`] unless typed.
    pub value_type: ContainerType,
    /// `(key, value)` pairs in insertion order.
    pub entries: Vec<(Variant, Variant)>,
}

impl Dictionary {
    /// An untyped dictionary.
    pub fn new(entries: Vec<(Variant, Variant)>) -> Self {
        Dictionary {
            key_type: ContainerType::Untyped,
            value_type: ContainerType::Untyped,
            entries,
        }
    }

    /// The value of the first entry whose key is a String or StringName equal to `key`.
    pub fn get(&self, key: &str) -> Option<&Variant> {
        self.entries.iter().find_map(|(k, v)| match k {
            Variant::String(s) | Variant::StringName(s) if s == key => Some(v),
            _ => None,
        })
    }
}

/// Any Godot value (see the module docs for names, precision and equality).
///
/// Variants wider than 24 bytes are boxed so that a `Variant` stays small: decoding then needs
/// at most a small constant factor more memory than the input.
#[derive(Debug, Clone, Default)]
pub enum Variant {
    /// `null`.
    #[default]
    Nil,
    /// `bool`.
    Bool(bool),
    /// `int` (64-bit; written as 32-bit when it fits).
    Int(i64),
    #[doc(alias = "real")]
    /// `float` (Godot 3 `REAL`; a double, written as `f32` when that is exact).
    Float(f64),
    /// `String` (a [`GString`]: lossless for every string Godot 3 accepts).
    String(GString),
    /// `Vector2`.
    Vector2(Vector2),
    /// `Vector2i` (Godot 4).
    Vector2i(Vector2i),
    /// `Rect2`.
    Rect2(Box<Rect2>),
    /// `Rect2i` (Godot 4).
    Rect2i(Rect2i),
    /// `Vector3`.
    Vector3(Vector3),
    /// `Vector3i` (Godot 4).
    Vector3i(Vector3i),
    /// `Transform2D`.
    Transform2D(Box<Transform2D>),
    /// `Vector4` (Godot 4).
    Vector4(Box<Vector4>),
    /// `Vector4i` (Godot 4).
    Vector4i(Vector4i),
    /// `Plane`.
    Plane(Box<Plane>),
    #[doc(alias = "Quat")]
    /// `Quaternion` (Godot 3 `Quat`).
    Quaternion(Box<Quaternion>),
    /// `AABB`.
    Aabb(Box<Aabb>),
    /// `Basis`.
    Basis(Box<Basis>),
    #[doc(alias = "Transform")]
    /// `Transform3D` (Godot 3 `Transform`).
    Transform3D(Box<Transform3D>),
    /// `Projection` (Godot 4).
    Projection(Box<Projection>),
    /// `Color`.
    Color(Color),
    /// `StringName` (Godot 4).
    StringName(GString),
    /// `NodePath`.
    NodePath(Box<NodePath>),
    /// `RID`: the id in Godot 4; Godot 3 carries no data (decodes to 0, any id encodes to nothing).
    Rid(u64),
    /// `Object`.
    Object(Object),
    /// `Callable` (Godot 4): the wire carries only the type, it decodes to an empty Callable.
    Callable,
    /// `Signal` (Godot 4).
    Signal(Box<Signal>),
    /// `Dictionary`.
    Dictionary(Box<Dictionary>),
    /// `Array`.
    Array(Box<Array>),
    #[doc(alias = "PoolByteArray")]
    /// `PackedByteArray` (Godot 3 `PoolByteArray`).
    PackedByteArray(Vec<u8>),
    #[doc(alias = "PoolIntArray")]
    /// `PackedInt32Array` (Godot 3 `PoolIntArray`).
    PackedInt32Array(Vec<i32>),
    /// `PackedInt64Array` (Godot 4).
    PackedInt64Array(Vec<i64>),
    #[doc(alias = "PoolRealArray")]
    /// `PackedFloat32Array` (Godot 3 `PoolRealArray`).
    PackedFloat32Array(Vec<f32>),
    /// `PackedFloat64Array` (Godot 4).
    PackedFloat64Array(Vec<f64>),
    #[doc(alias = "PoolStringArray")]
    /// `PackedStringArray` (Godot 3 `PoolStringArray`).
    PackedStringArray(Vec<GString>),
    #[doc(alias = "PoolVector2Array")]
    /// `PackedVector2Array` (Godot 3 `PoolVector2Array`).
    PackedVector2Array(Vec<Vector2>),
    #[doc(alias = "PoolVector3Array")]
    /// `PackedVector3Array` (Godot 3 `PoolVector3Array`).
    PackedVector3Array(Vec<Vector3>),
    #[doc(alias = "PoolColorArray")]
    /// `PackedColorArray` (Godot 3 `PoolColorArray`).
    PackedColorArray(Vec<Color>),
    /// `PackedVector4Array` (Godot 4.3+).
    PackedVector4Array(Vec<Vector4>),
}

macro_rules! variant_eq {
    ($($name:ident),+) => {
        /// Structural equality with bit identity for floats (see the module docs).
        impl PartialEq for Variant {
            fn eq(&self, other: &Self) -> bool {
                use Variant as V;
                match (self, other) {
                    (V::Nil, V::Nil) | (V::Callable, V::Callable) => true,
                    (V::Float(a), V::Float(b)) => same_f64(*a, *b),
                    (V::PackedFloat32Array(a), V::PackedFloat32Array(b)) => {
                        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_f32(*x, *y))
                    }
                    (V::PackedFloat64Array(a), V::PackedFloat64Array(b)) => {
                        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_f64(*x, *y))
                    }
                    $((V::$name(a), V::$name(b)) => a == b,)+
                    _ => false,
                }
            }
        }
        impl Eq for Variant {}
    };
}

variant_eq!(
    Bool,
    Int,
    String,
    Vector2,
    Vector2i,
    Rect2,
    Rect2i,
    Vector3,
    Vector3i,
    Transform2D,
    Vector4,
    Vector4i,
    Plane,
    Quaternion,
    Aabb,
    Basis,
    Transform3D,
    Projection,
    Color,
    StringName,
    NodePath,
    Rid,
    Object,
    Signal,
    Dictionary,
    Array,
    PackedByteArray,
    PackedInt32Array,
    PackedInt64Array,
    PackedStringArray,
    PackedVector2Array,
    PackedVector3Array,
    PackedColorArray,
    PackedVector4Array
);

macro_rules! variant_types {
    ($($name:ident = $g3:expr, $g4:expr, $text:literal;)+) => {
        /// The type of a [`Variant`], independent of version; [`VariantType::id`] gives the wire id.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum VariantType {
            $(
                #[doc = concat!("`", $text, "`")]
                $name,
            )+
        }

        impl VariantType {
            /// Every type, in Godot 4 id order.
            pub const ALL: &'static [VariantType] = &[$(VariantType::$name),+];

            /// The wire id of this type in `version`, or `None` if the version lacks the type.
            pub const fn id(self, version: Version) -> Option<u8> {
                let (g3, g4): (Option<u8>, u8) = match self {
                    $(VariantType::$name => ($g3, $g4),)+
                };
                match version {
                    Version::Godot3 => g3,
                    Version::Godot4 { .. } if g4 == 38 && !version.has_packed_vector4() => None,
                    Version::Godot4 { .. } => Some(g4),
                }
            }

            /// The type with wire id `id` in `version`, or `None` if `id >= VARIANT_MAX`.
            pub fn from_id(id: u32, version: Version) -> Option<VariantType> {
                let table = match version {
                    Version::Godot3 => &G3_IDS,
                    Version::Godot4 { .. } => &G4_IDS,
                };
                table.get(id as usize).copied().flatten().filter(|t| t.id(version).is_some())
            }

            /// The Godot 4 name (`"PackedByteArray"`, `"Transform3D"`, …).
            pub fn name(self) -> &'static str {
                match self {
                    $(VariantType::$name => $text,)+
                }
            }
        }
    };
}

variant_types! {
    Nil = Some(0), 0, "Nil";
    Bool = Some(1), 1, "bool";
    Int = Some(2), 2, "int";
    Float = Some(3), 3, "float";
    String = Some(4), 4, "String";
    Vector2 = Some(5), 5, "Vector2";
    Vector2i = None, 6, "Vector2i";
    Rect2 = Some(6), 7, "Rect2";
    Rect2i = None, 8, "Rect2i";
    Vector3 = Some(7), 9, "Vector3";
    Vector3i = None, 10, "Vector3i";
    Transform2D = Some(8), 11, "Transform2D";
    Vector4 = None, 12, "Vector4";
    Vector4i = None, 13, "Vector4i";
    Plane = Some(9), 14, "Plane";
    Quaternion = Some(10), 15, "Quaternion";
    Aabb = Some(11), 16, "AABB";
    Basis = Some(12), 17, "Basis";
    Transform3D = Some(13), 18, "Transform3D";
    Projection = None, 19, "Projection";
    Color = Some(14), 20, "Color";
    StringName = None, 21, "StringName";
    NodePath = Some(15), 22, "NodePath";
    Rid = Some(16), 23, "RID";
    Object = Some(17), 24, "Object";
    Callable = None, 25, "Callable";
    Signal = None, 26, "Signal";
    Dictionary = Some(18), 27, "Dictionary";
    Array = Some(19), 28, "Array";
    PackedByteArray = Some(20), 29, "PackedByteArray";
    PackedInt32Array = Some(21), 30, "PackedInt32Array";
    PackedInt64Array = None, 31, "PackedInt64Array";
    PackedFloat32Array = Some(22), 32, "PackedFloat32Array";
    PackedFloat64Array = None, 33, "PackedFloat64Array";
    PackedStringArray = Some(23), 34, "PackedStringArray";
    PackedVector2Array = Some(24), 35, "PackedVector2Array";
    PackedVector3Array = Some(25), 36, "PackedVector3Array";
    PackedColorArray = Some(26), 37, "PackedColorArray";
    PackedVector4Array = None, 38, "PackedVector4Array";
}

const fn id_table(version: Version) -> [Option<VariantType>; 39] {
    let mut table = [None; 39];
    let mut i = 0;
    while i < VariantType::ALL.len() {
        let t = VariantType::ALL[i];
        if let Some(id) = t.id(version) {
            table[id as usize] = Some(t);
        }
        i += 1;
    }
    table
}

static G3_IDS: [Option<VariantType>; 39] = id_table(Version::Godot3);
static G4_IDS: [Option<VariantType>; 39] = id_table(Version::GODOT_4_4);

impl VariantType {
    /// `VARIANT_MAX` of the version: 27 for Godot 3, 38 for Godot 4.0–4.2, 39 for Godot 4.3+.
    pub const fn variant_max(version: Version) -> u32 {
        match version {
            Version::Godot3 => 27,
            Version::Godot4 { .. } if !version.has_packed_vector4() => 38,
            Version::Godot4 { .. } => 39,
        }
    }

    /// Looks a type up by its Godot 4 name or a Godot 3 alias (`"Quat"`, `"Transform"`,
    /// `"PoolByteArray"`, `"real"`, …); case-insensitive.
    pub fn from_name(name: &str) -> Option<VariantType> {
        let lower = name.to_ascii_lowercase();
        let alias = match lower.as_str() {
            "null" | "nil" => Some(VariantType::Nil),
            "real" => Some(VariantType::Float),
            "quat" => Some(VariantType::Quaternion),
            "transform" => Some(VariantType::Transform3D),
            "_rid" => Some(VariantType::Rid),
            "poolbytearray" => Some(VariantType::PackedByteArray),
            "poolintarray" => Some(VariantType::PackedInt32Array),
            "poolrealarray" => Some(VariantType::PackedFloat32Array),
            "poolstringarray" => Some(VariantType::PackedStringArray),
            "poolvector2array" => Some(VariantType::PackedVector2Array),
            "poolvector3array" => Some(VariantType::PackedVector3Array),
            "poolcolorarray" => Some(VariantType::PackedColorArray),
            _ => None,
        };
        alias.or_else(|| {
            VariantType::ALL
                .iter()
                .copied()
                .find(|t| t.name().eq_ignore_ascii_case(name))
        })
    }
}

impl fmt::Display for VariantType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Variant {
    /// The type of this value.
    pub fn variant_type(&self) -> VariantType {
        use VariantType as T;
        match self {
            Variant::Nil => T::Nil,
            Variant::Bool(_) => T::Bool,
            Variant::Int(_) => T::Int,
            Variant::Float(_) => T::Float,
            Variant::String(_) => T::String,
            Variant::Vector2(_) => T::Vector2,
            Variant::Vector2i(_) => T::Vector2i,
            Variant::Rect2(_) => T::Rect2,
            Variant::Rect2i(_) => T::Rect2i,
            Variant::Vector3(_) => T::Vector3,
            Variant::Vector3i(_) => T::Vector3i,
            Variant::Transform2D(_) => T::Transform2D,
            Variant::Vector4(_) => T::Vector4,
            Variant::Vector4i(_) => T::Vector4i,
            Variant::Plane(_) => T::Plane,
            Variant::Quaternion(_) => T::Quaternion,
            Variant::Aabb(_) => T::Aabb,
            Variant::Basis(_) => T::Basis,
            Variant::Transform3D(_) => T::Transform3D,
            Variant::Projection(_) => T::Projection,
            Variant::Color(_) => T::Color,
            Variant::StringName(_) => T::StringName,
            Variant::NodePath(_) => T::NodePath,
            Variant::Rid(_) => T::Rid,
            Variant::Object(_) => T::Object,
            Variant::Callable => T::Callable,
            Variant::Signal(_) => T::Signal,
            Variant::Dictionary(_) => T::Dictionary,
            Variant::Array(_) => T::Array,
            Variant::PackedByteArray(_) => T::PackedByteArray,
            Variant::PackedInt32Array(_) => T::PackedInt32Array,
            Variant::PackedInt64Array(_) => T::PackedInt64Array,
            Variant::PackedFloat32Array(_) => T::PackedFloat32Array,
            Variant::PackedFloat64Array(_) => T::PackedFloat64Array,
            Variant::PackedStringArray(_) => T::PackedStringArray,
            Variant::PackedVector2Array(_) => T::PackedVector2Array,
            Variant::PackedVector3Array(_) => T::PackedVector3Array,
            Variant::PackedColorArray(_) => T::PackedColorArray,
            Variant::PackedVector4Array(_) => T::PackedVector4Array,
        }
    }

    /// An untyped Array value.
    pub fn array(items: Vec<Variant>) -> Variant {
        Variant::Array(Box::new(Array::new(items)))
    }

    /// An untyped Dictionary value.
    pub fn dictionary(entries: Vec<(Variant, Variant)>) -> Variant {
        Variant::Dictionary(Box::new(Dictionary::new(entries)))
    }

    /// A String value.
    pub fn string(s: impl Into<GString>) -> Variant {
        Variant::String(s.into())
    }

    /// Whether two values are the same Dictionary key for the engine (decoding collapses such
    /// keys). Same type — except that in Godot 4 a String and a StringName with the same text
    /// are the same key. Floats: `0.0` and `-0.0` collide and NaN equals NaN, except inside a
    /// Godot 3 `PoolRealArray` key, which compares its elements with IEEE `==`. Arrays compare element by element; Dictionaries by content in Godot 4 and by
    /// identity in Godot 3 (two decoded dictionaries are never the same key); objects by id
    /// (full objects are new instances, never equal). The Godot 3 rules were measured against
    /// the 3.2.3 engine.
    pub fn godot_key_eq(&self, other: &Variant, version: Version) -> bool {
        key_eq(self, other, version)
    }
}

fn feq64(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

fn feq32(a: f32, b: f32) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

fn all_feq(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| feq64(*x, *y))
}

/// Key equality without recursion for arrays (explicit stack); Godot 4 dictionaries compare
/// entry by entry, order-independently.
fn key_eq(a: &Variant, b: &Variant, version: Version) -> bool {
    use Variant as V;
    // Fast path without the explicit stack's allocation: most keys are not arrays.
    if !matches!((a, b), (V::Array(_), V::Array(_))) {
        return key_eq_one(a, b, version, &mut Vec::new());
    }
    let mut pending = vec![(a, b)];
    while let Some((a, b)) = pending.pop() {
        if !key_eq_one(a, b, version, &mut pending) {
            return false;
        }
    }
    true
}

/// Compares one pair; an array pair pushes its element pairs onto `pending` instead.
fn key_eq_one<'v>(
    a: &'v Variant,
    b: &'v Variant,
    version: Version,
    pending: &mut Vec<(&'v Variant, &'v Variant)>,
) -> bool {
    use Variant as V;
    let g3 = version == Version::Godot3;
    match (a, b) {
        (V::Array(x), V::Array(y)) => {
            if x.items.len() != y.items.len() {
                return false;
            }
            pending.extend(x.items.iter().zip(&y.items));
            true
        }
        (V::Dictionary(_), V::Dictionary(_)) if g3 => false,
        (V::Dictionary(x), V::Dictionary(y)) => {
            x.entries.len() == y.entries.len()
                && deeper(|| same_entries(&x.entries, &y.entries, version))
        }
        (V::String(x) | V::StringName(x), V::String(y) | V::StringName(y))
            if !g3 || a.variant_type() == b.variant_type() =>
        {
            x == y
        }
        (V::Float(x), V::Float(y)) => feq64(*x, *y),
        (V::PackedFloat32Array(x), V::PackedFloat32Array(y)) if g3 => x == y,
        (V::PackedFloat32Array(x), V::PackedFloat32Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| feq32(*p, *q))
        }
        (V::PackedFloat64Array(x), V::PackedFloat64Array(y)) => all_feq(x, y),
        (V::Vector2(x), V::Vector2(y)) => all_feq(&x.to_array(), &y.to_array()),
        (V::Vector3(x), V::Vector3(y)) => all_feq(&x.to_array(), &y.to_array()),
        (V::Vector4(x), V::Vector4(y)) => all_feq(&x.to_array(), &y.to_array()),
        (V::Rect2(x), V::Rect2(y)) => all_feq(&x.to_array(), &y.to_array()),
        (V::Plane(x), V::Plane(y)) => all_feq(&x.to_array(), &y.to_array()),
        (V::Quaternion(x), V::Quaternion(y)) => all_feq(&x.to_array(), &y.to_array()),
        (V::Aabb(x), V::Aabb(y)) => all_feq(&x.to_array(), &y.to_array()),
        (V::Transform2D(x), V::Transform2D(y)) => all_feq(&x.0, &y.0),
        (V::Basis(x), V::Basis(y)) => all_feq(&x.0, &y.0),
        (V::Transform3D(x), V::Transform3D(y)) => all_feq(&x.0, &y.0),
        (V::Projection(x), V::Projection(y)) => all_feq(&x.0, &y.0),
        (V::Color(x), V::Color(y)) => x
            .to_array()
            .iter()
            .zip(y.to_array().iter())
            .all(|(p, q)| feq32(*p, *q)),
        (V::PackedVector2Array(x), V::PackedVector2Array(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| all_feq(&p.to_array(), &q.to_array()))
        }
        (V::PackedVector3Array(x), V::PackedVector3Array(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| all_feq(&p.to_array(), &q.to_array()))
        }
        (V::PackedVector4Array(x), V::PackedVector4Array(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| all_feq(&p.to_array(), &q.to_array()))
        }
        (V::PackedColorArray(x), V::PackedColorArray(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|(p, q)| {
                    p.to_array()
                        .iter()
                        .zip(q.to_array().iter())
                        .all(|(s, t)| feq32(*s, *t))
                })
        }
        (V::Object(Object::Full(_)), _) | (_, V::Object(Object::Full(_))) => false,
        _ => a == b,
    }
}

/// Runs one level of the recursion through Dictionary keys (hashing and comparing a Godot 4
/// Dictionary recurse into its entries, up to the decoder's 1 024 levels), switching to a fresh
/// heap-allocated stack segment when less than 64 KiB is left: 1 000 nested Dictionary keys of
/// 17 entries each overflowed a 64 KiB thread stack. A few instructions when there is room.
/// The decoder drops a duplicate key, or a replaced value, through it too (dropping recurses).
pub(crate) fn deeper<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(64 << 10, 1 << 20, f)
}

/// Whether every entry of `x` has an equal entry (key and value) in `y`. Entries of `y` are
/// found by key hash, so that two large dictionaries compare in linear time.
fn same_entries(x: &[(Variant, Variant)], y: &[(Variant, Variant)], version: Version) -> bool {
    let matches = |(k, v): &(Variant, Variant), (k2, v2): &(Variant, Variant)| {
        key_eq(k, k2, version) && key_eq(v, v2, version)
    };
    if y.len() <= 8 {
        return x.iter().all(|e| y.iter().any(|e2| matches(e, e2)));
    }
    let mut by_hash: std::collections::HashMap<u64, Vec<usize>> = std::collections::HashMap::new();
    for (j, (k, _)) in y.iter().enumerate() {
        by_hash.entry(key_hash(k, version)).or_default().push(j);
    }
    x.iter().all(|e| {
        by_hash
            .get(&key_hash(&e.0, version))
            .is_some_and(|js| js.iter().any(|&j| matches(e, &y[j])))
    })
}

/// A hash consistent with [`Variant::godot_key_eq`] (equal keys hash alike), used to collapse
/// duplicate keys in linear time. Every type hashes its value, not only its type (a dictionary of
/// 160 000 Color keys, all in one bucket, took minutes); floats are hashed with 0.0 and -0.0
/// merged and one NaN for all, the classes `godot_key_eq` puts together. Array contents are hashed
/// without recursion; a Godot 4 Dictionary adds an order-independent sum of its entries' hashes.
pub(crate) fn key_hash(v: &Variant, version: Version) -> u64 {
    use std::hash::{Hash, Hasher};
    let fnorm = |x: f64| -> u64 {
        if x.is_nan() {
            0x7ff8_0000_0000_0000
        } else if x == 0.0 {
            0
        } else {
            x.to_bits()
        }
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut pending = Vec::new();
    let mut next = Some(v);
    while let Some(v) = next.take().or_else(|| pending.pop()) {
        let tag = match v {
            Variant::StringName(_) if version.is_godot4() => VariantType::String,
            _ => v.variant_type(),
        };
        tag.hash(&mut h);
        match v {
            Variant::String(s) | Variant::StringName(s) => s.hash(&mut h),
            Variant::Float(x) => fnorm(*x).hash(&mut h),
            Variant::Bool(b) => b.hash(&mut h),
            Variant::Int(i) => i.hash(&mut h),
            Variant::Rid(i) => i.hash(&mut h),
            Variant::Object(Object::Id(i)) => i.hash(&mut h),
            Variant::Vector2i(x) => x.hash(&mut h),
            Variant::Vector3i(x) => x.hash(&mut h),
            Variant::Vector4i(x) => x.hash(&mut h),
            Variant::Rect2i(x) => x.hash(&mut h),
            Variant::Vector2(x) => x.to_array().map(fnorm).hash(&mut h),
            Variant::Vector3(x) => x.to_array().map(fnorm).hash(&mut h),
            Variant::Vector4(x) => x.to_array().map(fnorm).hash(&mut h),
            Variant::Rect2(x) => x.to_array().map(fnorm).hash(&mut h),
            Variant::Plane(x) => x.to_array().map(fnorm).hash(&mut h),
            Variant::Quaternion(x) => x.to_array().map(fnorm).hash(&mut h),
            Variant::Aabb(x) => x.to_array().map(fnorm).hash(&mut h),
            Variant::Transform2D(x) => x.0.map(fnorm).hash(&mut h),
            Variant::Basis(x) => x.0.map(fnorm).hash(&mut h),
            Variant::Transform3D(x) => x.0.map(fnorm).hash(&mut h),
            Variant::Projection(x) => x.0.map(fnorm).hash(&mut h),
            // f32 to f64 keeps NaN, zero and every other value apart, so `fnorm` fits `feq32`.
            Variant::Color(c) => c.to_array().map(|x| fnorm(x as f64)).hash(&mut h),
            Variant::NodePath(p) => p.hash(&mut h),
            Variant::Signal(s) => s.hash(&mut h),
            // Godot 3 compares `PoolRealArray` keys with IEEE `==` (NaN is never equal): any
            // hash suits NaN there, and `fnorm` merges 0.0 and -0.0 as both versions do.
            Variant::PackedFloat32Array(a) => {
                a.len().hash(&mut h);
                a.iter().for_each(|x| fnorm(*x as f64).hash(&mut h));
            }
            Variant::PackedFloat64Array(a) => {
                a.len().hash(&mut h);
                a.iter().for_each(|x| fnorm(*x).hash(&mut h));
            }
            Variant::PackedVector2Array(a) => {
                a.len().hash(&mut h);
                a.iter().for_each(|v| v.to_array().map(fnorm).hash(&mut h));
            }
            Variant::PackedVector3Array(a) => {
                a.len().hash(&mut h);
                a.iter().for_each(|v| v.to_array().map(fnorm).hash(&mut h));
            }
            Variant::PackedVector4Array(a) => {
                a.len().hash(&mut h);
                a.iter().for_each(|v| v.to_array().map(fnorm).hash(&mut h));
            }
            Variant::PackedColorArray(a) => {
                a.len().hash(&mut h);
                a.iter()
                    .for_each(|c| c.to_array().map(|x| fnorm(x as f64)).hash(&mut h));
            }
            Variant::PackedByteArray(b) => b.hash(&mut h),
            Variant::PackedInt32Array(a) => a.hash(&mut h),
            Variant::PackedInt64Array(a) => a.hash(&mut h),
            Variant::PackedStringArray(a) => a.hash(&mut h),
            Variant::Array(a) => {
                a.items.len().hash(&mut h);
                pending.extend(a.items.iter());
            }
            Variant::Dictionary(d) => {
                d.entries.len().hash(&mut h);
                if version.is_godot4() {
                    let sum = deeper(|| {
                        d.entries.iter().fold(0u64, |acc, (k, v)| {
                            acc.wrapping_add(
                                key_hash(k, version) ^ key_hash(v, version).rotate_left(17),
                            )
                        })
                    });
                    sum.hash(&mut h);
                }
            }
            _ => {}
        }
    }
    h.finish()
}

// Dropping a value recurses once per nesting level (the compiler's drop glue); each container
// level drops its contents on a stack grown on demand, so that a value as deep as the engine
// allows (or deeper, when built by hand) drops on any thread.
impl Drop for Array {
    fn drop(&mut self) {
        if !self.items.is_empty() {
            let items = std::mem::take(&mut self.items);
            deeper(move || drop(items));
        }
    }
}

impl Drop for Dictionary {
    fn drop(&mut self) {
        if !self.entries.is_empty() {
            let entries = std::mem::take(&mut self.entries);
            deeper(move || drop(entries));
        }
    }
}

impl Drop for FullObject {
    fn drop(&mut self) {
        if !self.properties.is_empty() {
            let properties = std::mem::take(&mut self.properties);
            deeper(move || drop(properties));
        }
    }
}

// Cloning and comparing recurse once per nesting level too: through `deeper` as dropping does.
macro_rules! deep_clone_eq {
    ($($ty:ident { $($field:ident),+ })+) => {$(
        impl Clone for $ty {
            fn clone(&self) -> Self {
                deeper(|| $ty { $($field: self.$field.clone()),+ })
            }
        }

        impl PartialEq for $ty {
            fn eq(&self, other: &Self) -> bool {
                deeper(|| true $(&& self.$field == other.$field)+)
            }
        }

        impl Eq for $ty {}
    )+};
}

deep_clone_eq! {
    Array { element_type, items }
    Dictionary { key_type, value_type, entries }
    FullObject { class, properties }
}
