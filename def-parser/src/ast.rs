//! The syntax tree of a `.def` file: what the text says, with a span on every node.
//!
//! Nothing here is resolved yet: `ref` lines are kept where they stand, objects declared twice are
//! two nodes, and no offset is known. [`crate::layout`] turns this into the wire layout.

use crate::diag::Span;

/// A fixed-size field type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `bool`: one byte, non-zero is true.
    Bool,
    /// `byte`: u8.
    Byte,
    /// `int16`.
    Int16,
    /// `uint16`.
    UInt16,
    /// `int32`.
    Int32,
    /// `uint32`.
    UInt32,
    /// `int64`.
    Int64,
    /// `uint64`.
    UInt64,
    /// `float`: f32.
    Float,
    /// `double`: f64.
    Double,
    /// `angle`: i16, `raw * PI / 0x8000` radians.
    Angle,
    /// `vec3`: three f32.
    Vec3,
    /// `vec3fa`: three f32 angles.
    Vec3fa,
    /// `skillid32`: packed u32 skill id.
    SkillId32,
    /// `skillid`: packed u64 skill id.
    SkillId,
    /// `customize`: eight appearance bytes.
    Customize,
}

impl Scalar {
    /// Every scalar type, in the order FORMAT.md lists them.
    pub const ALL: [Scalar; 16] = [
        Scalar::Bool,
        Scalar::Byte,
        Scalar::Int16,
        Scalar::UInt16,
        Scalar::Int32,
        Scalar::UInt32,
        Scalar::Int64,
        Scalar::UInt64,
        Scalar::Float,
        Scalar::Double,
        Scalar::Angle,
        Scalar::Vec3,
        Scalar::Vec3fa,
        Scalar::SkillId32,
        Scalar::SkillId,
        Scalar::Customize,
    ];

    /// Bytes on the wire.
    pub fn size(self) -> usize {
        match self {
            Scalar::Bool | Scalar::Byte => 1,
            Scalar::Int16 | Scalar::UInt16 | Scalar::Angle => 2,
            Scalar::Int32 | Scalar::UInt32 | Scalar::Float | Scalar::SkillId32 => 4,
            Scalar::Int64
            | Scalar::UInt64
            | Scalar::Double
            | Scalar::SkillId
            | Scalar::Customize => 8,
            Scalar::Vec3 | Scalar::Vec3fa => 12,
        }
    }

    /// The keyword in `.def` text.
    pub fn keyword(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Byte => "byte",
            Scalar::Int16 => "int16",
            Scalar::UInt16 => "uint16",
            Scalar::Int32 => "int32",
            Scalar::UInt32 => "uint32",
            Scalar::Int64 => "int64",
            Scalar::UInt64 => "uint64",
            Scalar::Float => "float",
            Scalar::Double => "double",
            Scalar::Angle => "angle",
            Scalar::Vec3 => "vec3",
            Scalar::Vec3fa => "vec3fa",
            Scalar::SkillId32 => "skillid32",
            Scalar::SkillId => "skillid",
            Scalar::Customize => "customize",
        }
    }

    /// The scalar named by a keyword.
    pub fn from_keyword(s: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|t| t.keyword() == s)
    }
}

/// The element type of `array<T>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElemType {
    /// A fixed type.
    Scalar(Scalar),
    /// `string`.
    String,
}

/// The type of a field line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// A fixed type.
    Scalar(Scalar),
    /// `string`: NUL-terminated UTF-16LE.
    String,
    /// `bytes`: raw bytes.
    Bytes,
    /// `array`: elements with the fields of the nested lines.
    Array,
    /// `array<T>`: elements of one value each.
    ArrayOf(ElemType),
    /// `object`: groups the nested lines, takes no bytes itself.
    Object,
}

impl FieldType {
    /// Whether the field has a metadata slot (`ref`).
    pub fn is_variable(self) -> bool {
        matches!(
            self,
            FieldType::String | FieldType::Bytes | FieldType::Array | FieldType::ArrayOf(_)
        )
    }

    /// Whether nested lines may follow.
    pub fn has_children(self) -> bool {
        matches!(self, FieldType::Array | FieldType::Object)
    }
}

/// A name with its span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    /// The text.
    pub text: String,
    /// Where it stands.
    pub span: Span,
}

/// What one line declares.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// A field.
    Field {
        /// Its type.
        ty: FieldType,
        /// Span of the type (with subtype and flags).
        ty_span: Span,
        /// `[interleaved]`.
        interleaved: bool,
    },
    /// `ref NAME` (or the legacy `offset NAME`): where the metadata of `NAME` goes.
    Ref {
        /// Written as `offset NAME`.
        legacy: bool,
    },
}

/// One meaningful line and the lines nested under it.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Field or ref.
    pub kind: NodeKind,
    /// The field's name or the ref's (possibly dotted) path.
    pub name: Name,
    /// The whole line, comment excluded, trimmed.
    pub span: Span,
    /// 1-based line number.
    pub line: usize,
    /// The comment after `#`, trimmed, if any.
    pub comment: Option<String>,
    /// Nested lines (for `array` and `object`).
    pub children: Vec<Node>,
}

/// The platform part of a file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Platform {
    /// `pc`.
    Pc,
    /// `ps4`.
    Ps4,
    /// `xb1`.
    Xb1,
}

impl Platform {
    /// The name in file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Pc => "pc",
            Platform::Ps4 => "ps4",
            Platform::Xb1 => "xb1",
        }
    }

    /// Parses `pc`, `ps4` or `xb1`.
    pub fn parse(s: &str) -> Option<Platform> {
        match s {
            "pc" => Some(Platform::Pc),
            "ps4" => Some(Platform::Ps4),
            "xb1" => Some(Platform::Xb1),
            _ => None,
        }
    }
}

/// `NAME.VERSION[.PLATFORM].def`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DefName {
    /// The message name, `S_LOGIN`.
    pub name: String,
    /// The definition version.
    pub version: u32,
    /// The platform the file is for, if it is platform-specific.
    pub platform: Option<Platform>,
}

impl DefName {
    /// Parses a file name (without folders). `None` when it does not follow the grammar; see
    /// [`DefName::parse_checked`] for why.
    pub fn parse(file_name: &str) -> Option<DefName> {
        DefName::parse_checked(file_name).ok()
    }

    /// Parses a file name (without folders), saying what is wrong when it does not follow the
    /// grammar. The name is ASCII letters, digits and `_`; the version a decimal `u32` without
    /// leading zeros (`S_X.007.def` is refused: `7` and `007` would be one version); the platform
    /// one of `pc`, `ps4`, `xb1`, in lower case.
    pub fn parse_checked(file_name: &str) -> Result<DefName, FileNameError> {
        let stem = file_name
            .strip_suffix(".def")
            .ok_or(FileNameError::NotDef)?;
        let mut parts = stem.split('.');
        let name = parts.next().unwrap_or_default();
        let version = parts.next().ok_or(FileNameError::NoVersion)?;
        let platform = parts.next();
        if parts.next().is_some() {
            return Err(FileNameError::TooManyParts);
        }
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(FileNameError::BadName);
        }
        if version.is_empty() || !version.chars().all(|c| c.is_ascii_digit()) {
            return Err(FileNameError::BadVersion);
        }
        if version.len() > 1 && version.starts_with('0') {
            return Err(FileNameError::LeadingZero);
        }
        let version = version
            .parse()
            .map_err(|_| FileNameError::VersionTooLarge)?;
        let platform = match platform {
            Some(p) => Some(Platform::parse(p).ok_or(FileNameError::BadPlatform)?),
            None => None,
        };
        Ok(DefName {
            name: name.to_string(),
            version,
            platform,
        })
    }
}

/// Why a file name is not `NAME.VERSION[.PLATFORM].def`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FileNameError {
    /// It does not end in `.def`.
    #[error("it does not end in `.def`")]
    NotDef,
    /// No `.VERSION` after the name.
    #[error("it has no `.VERSION` after the name")]
    NoVersion,
    /// More than `NAME.VERSION.PLATFORM`.
    #[error("it has more parts than NAME.VERSION.PLATFORM")]
    TooManyParts,
    /// The name is empty or holds something other than ASCII letters, digits and `_`.
    #[error("the name is not ASCII letters, digits and `_`")]
    BadName,
    /// The version is not a decimal number.
    #[error("the version is not a decimal number")]
    BadVersion,
    /// The version has a leading zero.
    #[error("the version has a leading zero")]
    LeadingZero,
    /// The version does not fit in 32 bits.
    #[error("the version is larger than 4294967295")]
    VersionTooLarge,
    /// The platform is not `pc`, `ps4` or `xb1`.
    #[error("the platform is not `pc`, `ps4` or `xb1` (lower case)")]
    BadPlatform,
}

impl std::fmt::Display for DefName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.name, self.version)?;
        if let Some(p) = self.platform {
            write!(f, ".{}", p.as_str())?;
        }
        f.write_str(".def")
    }
}

/// The patch range of a header comment: `# majorPatchVersion >= A && majorPatchVersion < B`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PatchRange {
    /// Lowest patch the definition is for (inclusive).
    pub min: Option<u32>,
    /// First patch the definition is no longer for (exclusive).
    pub max: Option<u32>,
    /// The comment's span.
    pub span: Span,
}

impl PatchRange {
    /// Whether `patch` lies in the range.
    pub fn contains(&self, patch: u32) -> bool {
        self.min.is_none_or(|m| patch >= m) && self.max.is_none_or(|m| patch < m)
    }
}

impl std::fmt::Display for PatchRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.min, self.max) {
            (Some(a), Some(b)) => write!(f, "majorPatchVersion >= {a} && majorPatchVersion < {b}"),
            (Some(a), None) => write!(f, "majorPatchVersion >= {a}"),
            (None, Some(b)) => write!(f, "majorPatchVersion < {b}"),
            (None, None) => f.write_str("any patch"),
        }
    }
}

/// A parsed `.def` file.
#[derive(Debug, Clone, PartialEq)]
pub struct DefFile {
    /// The name parsed from the file name, when the file has one that follows the grammar.
    pub name: Option<DefName>,
    /// The patch-range header comment, if the file has one.
    pub patch_range: Option<PatchRange>,
    /// The top-level lines.
    pub nodes: Vec<Node>,
}

impl DefFile {
    /// Whether any `ref` line appears anywhere (explicit metadata mode).
    pub fn has_refs(&self) -> bool {
        fn any(nodes: &[Node]) -> bool {
            nodes
                .iter()
                .any(|n| matches!(n.kind, NodeKind::Ref { .. }) || any(&n.children))
        }
        any(&self.nodes)
    }
}
