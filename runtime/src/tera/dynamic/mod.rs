//! The dynamic codec: a `.def` loaded at run time, compiled to an execution plan, and packets
//! decoded to a compact [`Record`] (or to JSON) and encoded from either.
//!
//! Loading a definition compiles its [`Layout`] (the form code generation works from, so the two
//! agree by construction on where every byte goes) into a plan: per level, the fields numbered in
//! value order, and the wire order as ops whose offsets within each run of fixed fields are
//! precomputed. Running the plan reads and writes through the wire reader and writer that
//! generated code calls. A decoded packet is a [`Record`]: every value of the packet in one buffer (its
//! runs of fixed fields as on the wire, its strings, bytes and elements after them), names left
//! to the definition, read in place as [`ValueRef`]s; [`Record::to_json`] is its JSON view, the
//! objects TERA Toolbox logs (the form of the tera-vectors), and [`Record::to_values`] its owned
//! [`Value`]s, to change and make a record of again ([`Definition::record`]). A whole protocol (every definition,
//! the opcode map, the current versions) loads with [`Protocol::load`].

mod json;
mod plan;
mod protocol;
mod record;
mod run;
mod value;

use std::path::Path;
use std::sync::Arc;

use def_parser::layout::Layout;
use def_parser::{LoadError, Mode, Report};

use super::error::{DecodeError, EncodeError, EncodeErrorKind};
use super::wire::Options;
use crate::path::{PathSegment, ValuePath};

use plan::LevelPlan;

pub use protocol::{Decoded, LoadOptions, Message, Protocol, ProtocolError};
pub use record::{ArrayRef, Record, RecordRef, ValueRef};
pub use value::{Array, Records, Value};

/// What the encoder does with a member that the JSON leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Missing {
    /// Report it.
    #[default]
    Error,
    /// Write the default: 0, 0.0, false, empty.
    Default,
}

/// A definition loaded at run time.
#[derive(Debug, Clone)]
pub struct Definition {
    layout: Layout,
    plan: Arc<LevelPlan>,
    name: String,
    version: u32,
}

impl Definition {
    /// Reads and compiles a `.def` file.
    pub fn from_file(path: &Path, mode: Mode) -> Result<Self, LoadError> {
        def_parser::load(path, mode).map(|c| Self::from_layout(c.layout))
    }

    /// Compiles `.def` text; `file` names it (its last component is the file name).
    pub fn from_text(file: &str, text: &str, mode: Mode) -> Result<Self, Report> {
        def_parser::compile_str(file, text, mode).map(|c| Self::from_layout(c.layout))
    }

    /// Compiles a resolved layout.
    pub fn from_layout(layout: Layout) -> Self {
        let (name, version) = layout
            .name
            .as_ref()
            .map_or((String::from("?"), 0), |n| (n.name.clone(), n.version));
        Definition {
            plan: Arc::new(LevelPlan::compile(&layout.root)),
            layout,
            name,
            version,
        }
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The message name (`?` for a layout without one).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The definition's version (0 for a layout without a name).
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The dotted names of the packet's fields (`reaction.loc`), in the order of a record's
    /// values.
    pub fn fields(&self) -> impl ExactSizeIterator<Item = &str> {
        self.plan.fields.iter().map(|f| &*f.name)
    }

    /// The place of the field with dotted name `name` in a record.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.plan.field(name)
    }

    /// Decodes a whole packet (header included).
    pub fn decode(&self, bytes: &[u8], opts: Options) -> Result<Record, DecodeError> {
        super::packet::decode_whole(bytes, opts, |r| run::decode_record(&self.plan, r))
            .map(|data| Record {
                plan: self.plan.clone(),
                data,
            })
            .map_err(|e| e.in_packet(self.name.clone(), self.version))
    }

    /// Decodes a whole packet to JSON: [`Definition::decode`], then [`Definition::to_json`].
    pub fn decode_json(
        &self,
        bytes: &[u8],
        opts: Options,
    ) -> Result<serde_json::Value, DecodeError> {
        self.decode(bytes, opts).map(|r| self.to_json(&r))
    }

    /// The JSON object of a record (a value NaN is `null`, as serde_json has no NaN): the
    /// record's own [`Record::to_json`], whichever definition made it.
    pub fn to_json(&self, record: &Record) -> serde_json::Value {
        record.to_json()
    }

    /// The record of these values, one per field in the order of [`Definition::fields`]; an
    /// error names the first value that is not of its field's type.
    pub fn record(&self, values: &[Value]) -> Result<Record, EncodeError> {
        let data = run::build_record(&self.plan, values).map_err(|e| self.named(e))?;
        Ok(Record {
            plan: self.plan.clone(),
            data,
        })
    }

    /// The record of a JSON object, under the policy of the typed JSON form (see docs/usage.md,
    /// "What JSON is accepted"); `missing` says what a member left out becomes.
    pub fn from_json(
        &self,
        value: &serde_json::Value,
        missing: Missing,
    ) -> Result<Record, EncodeError> {
        let obj = value
            .as_object()
            .ok_or_else(|| self.named(err(&At::Root, "expected a JSON object for the packet")))?;
        let mut out = Vec::with_capacity(self.plan.fields.len());
        json::collect(
            &self.plan,
            &self.plan.tree,
            obj,
            &mut out,
            missing,
            &At::Root,
        )
        .map_err(|e| self.named(e))?;
        self.record(&out)
    }

    /// Encodes JSON to a whole packet with `opcode` in its header: [`Definition::from_json`],
    /// then [`Definition::encode_record`].
    pub fn encode(
        &self,
        value: &serde_json::Value,
        opcode: u16,
        opts: Options,
        missing: Missing,
    ) -> Result<Vec<u8>, EncodeError> {
        self.encode_record(&self.from_json(value, missing)?, opcode, opts)
    }

    /// Encodes a record to a whole packet with `opcode` in its header.
    pub fn encode_record(
        &self,
        record: &Record,
        opcode: u16,
        opts: Options,
    ) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(64);
        self.encode_record_into(record, opcode, opts, &mut out)?;
        Ok(out)
    }

    /// Appends the packet of a record to `out` (left as it was on error). A record of this
    /// definition (or a clone of it) is written as it is; one of another definition is first
    /// rebuilt from its values ([`Definition::record`]), whose types must then be this one's.
    pub fn encode_record_into(
        &self,
        record: &Record,
        opcode: u16,
        opts: Options,
        out: &mut Vec<u8>,
    ) -> Result<(), EncodeError> {
        let rebuilt;
        let record = if Arc::ptr_eq(&record.plan, &self.plan) {
            record
        } else {
            rebuilt = self.record(&record.to_values())?;
            &rebuilt
        };
        super::packet::encode_whole(opcode, opts, out, &mut |w| {
            run::encode_level(&self.plan, &record.data, 0, w);
            Ok(())
        })
        .map_err(|e| self.named(e))
    }

    /// `e` with this definition's name and version.
    #[cold]
    fn named(&self, e: EncodeError) -> EncodeError {
        e.in_packet(self.name.clone(), self.version)
    }
}

/// Where a value belongs (`servants[2].name`), rendered only when there is an error: made for
/// every value, the path text cost time proportional to the names above it (a field under an
/// array with a name of a megabyte copied that megabyte for every element).
#[derive(Clone, Copy)]
enum At<'a> {
    /// The packet.
    Root,
    /// Member `.1` of `.0` (a dotted name through objects).
    Key(&'a At<'a>, &'a str),
    /// Element `.1` of `.0`.
    Index(&'a At<'a>, usize),
}

impl At<'_> {
    fn path(&self) -> ValuePath {
        let mut path = ValuePath::default();
        let mut at = self;
        loop {
            match *at {
                At::Root => return path,
                At::Key(parent, key) => {
                    path.push_outer(PathSegment::Field(key.to_owned().into()));
                    at = parent;
                }
                At::Index(parent, i) => {
                    path.push_outer(PathSegment::Index(i));
                    at = parent;
                }
            }
        }
    }
}

/// The value at `at` cannot be encoded: `message` says why.
#[cold]
fn err(at: &At<'_>, message: impl Into<String>) -> EncodeError {
    EncodeError::at(EncodeErrorKind::Invalid(message.into()), at.path())
}

/// The value leaves out the member at `at`.
#[cold]
fn absent(at: &At<'_>) -> EncodeError {
    EncodeError::at(EncodeErrorKind::Missing, at.path())
}
