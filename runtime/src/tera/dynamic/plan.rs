//! A definition's layout compiled to an execution plan: per level, its fields numbered in value
//! order, the JSON shape over them, the wire order as a list of ops whose offsets within each
//! run of fixed fields are precomputed (as generated code has them), and where each field lies
//! in a [`Record`](super::Record)'s image of the level.

use std::sync::Arc;

use def_parser::ast::{ElemType, Scalar};
use def_parser::layout::{Fixed as FixedItem, Level, Member, MemberKind, MetaKind, Step};

/// One level (the packet body or an object-array's element), compiled.
#[derive(Debug, Clone)]
pub(super) struct LevelPlan {
    /// The leaf members, depth-first through objects: a record's values are in this order.
    pub fields: Vec<Field>,
    /// The value shape over the fields (the JSON object's keys, in the reference's order).
    pub tree: Vec<Node>,
    /// The JSON object of the shape with every value `null`, cloned to make a record's JSON
    /// (see [`super::json::template`]); `None` if the shape repeats a key.
    pub json: Option<Box<serde_json::Map<String, serde_json::Value>>>,
    /// The wire order.
    pub ops: Vec<Op>,
    /// Metadata slots of the level's variable fields.
    pub metas: usize,
    /// The first field that is not a scalar (`fields.len()` if none): where dropping an
    /// element's values starts (see [`super::Records`]).
    pub owning: usize,
    /// Bytes of all fixed runs.
    pub fixed_size: usize,
    /// Bytes of one image of the level in a record: its runs as on the wire, one after the
    /// other, then an [entry](super::record) of 8 bytes per variable field (see
    /// [`Field::place`]).
    pub image: usize,
    /// The scalars declared twice: each other declaration's place in the image, set from the
    /// one decoding keeps, so that an image holds the same bytes however it was made.
    pub dups: Box<[Dup]>,
}

/// A second declaration of a scalar: `size` bytes at `to` in the image copied from `from`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Dup {
    pub to: u32,
    pub from: u32,
    pub size: u32,
}

/// A leaf member.
#[derive(Debug, Clone)]
pub(super) struct Field {
    /// Its key in its object.
    pub key: Box<str>,
    /// Its dotted name from the level (`reaction.loc`), for errors.
    pub name: Box<str>,
    /// What it holds.
    pub kind: Kind,
    /// Where it lies in an image of its level: a scalar's bytes as on the wire, or a variable
    /// field's entry.
    pub place: usize,
}

/// What a field holds.
#[derive(Debug, Clone)]
pub(super) enum Kind {
    /// A fixed-size value.
    Scalar(Scalar),
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `array<T>` of a fixed type.
    Array(Scalar),
    /// `array<string>`.
    Strings,
    /// `array` of objects (shared with the field's [`VarRef`]).
    Objects(Arc<LevelPlan>),
}

/// One key of the value shape.
#[derive(Debug, Clone)]
pub(super) enum Node {
    /// A field, by number.
    Field(usize),
    /// An `object`: a key whose value groups members.
    Object(Box<str>, Vec<Node>),
}

/// One step of the wire order.
#[derive(Debug, Clone)]
pub(super) enum Op {
    /// Fixed fields, read and written as one block.
    Run(Run),
    /// The data of a variable field, inline.
    Var(VarRef),
    /// Arrays written element by element in turn.
    Interleaved(Box<[VarRef]>),
}

/// A variable field and its metadata slot.
#[derive(Debug, Clone, Copy)]
pub(super) struct VarRef {
    pub field: usize,
    pub meta: usize,
}

/// A run of fixed fields.
#[derive(Debug, Clone)]
pub(super) struct Run {
    pub size: usize,
    /// Where the run lies in an image of its level.
    pub base: usize,
    /// Every piece, in wire order (what building an image writes).
    pub items: Box<[Item]>,
    /// Where each item starts in the run (for the field a short packet cuts off).
    pub starts: Box<[usize]>,
    /// The metadata in the run, which decoding reads (and clears in the image: an image holds
    /// values, and a packet's offsets are not).
    pub meta_reads: Box<[MetaRead]>,
    /// Where the run has a `bool`: decoding makes its byte 0 or 1 in the image (any byte other
    /// than 0 reads as true, and true is written as 1).
    pub bools: Box<[u32]>,
}

/// Metadata that decoding reads: its kind, its offset in the run and its slot.
#[derive(Debug, Clone, Copy)]
pub(super) struct MetaRead {
    pub kind: MetaKind,
    pub at: u32,
    pub meta: u32,
}

/// One fixed piece of a run, at `at` bytes into it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Item {
    /// A scalar of field `field`; `keep`: the value decoding keeps (the last declaration of a
    /// scalar declared twice, as the reference reads it).
    Value {
        at: usize,
        ty: Scalar,
        field: usize,
        keep: bool,
    },
    /// The metadata of variable field `field`, in metadata slot `meta`.
    Meta {
        at: usize,
        kind: MetaKind,
        field: usize,
        meta: usize,
    },
}

impl Item {
    /// The field it belongs to.
    pub fn field(self) -> usize {
        match self {
            Item::Value { field, .. } | Item::Meta { field, .. } => field,
        }
    }
}

impl LevelPlan {
    /// The number of the field with dotted name `name`.
    pub fn field(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| &*f.name == name)
    }

    /// Compiles a resolved level.
    pub fn compile(level: &Level) -> LevelPlan {
        let mut fields = Vec::new();
        let mut slot_field = vec![(usize::MAX, false); level.slots.len()];
        let tree = shape(&level.members, "", &mut fields, &mut slot_field);
        let mut meta_of = vec![usize::MAX; level.slots.len()];
        let mut metas = 0;
        let var = |slot: usize, meta_of: &[usize]| VarRef {
            field: slot_field[slot].0,
            meta: meta_of[slot],
        };
        let mut image = 0;
        let mut ops = Vec::with_capacity(level.steps.len());
        for step in &level.steps {
            ops.push(match step {
                Step::Fixed(run) => {
                    let items: Box<[Item]> = run
                        .fields
                        .iter()
                        .map(|&(at, f)| match f {
                            FixedItem::Value { slot, ty } => Item::Value {
                                at,
                                ty,
                                field: slot_field[slot].0,
                                keep: slot_field[slot].1,
                            },
                            FixedItem::Meta { slot, kind } => {
                                meta_of[slot] = metas;
                                metas += 1;
                                Item::Meta {
                                    at,
                                    kind,
                                    field: slot_field[slot].0,
                                    meta: meta_of[slot],
                                }
                            }
                        })
                        .collect();
                    let meta_reads = items
                        .iter()
                        .filter_map(|i| match *i {
                            Item::Meta { at, kind, meta, .. } => Some(MetaRead {
                                kind,
                                at: at as u32,
                                meta: meta as u32,
                            }),
                            Item::Value { .. } => None,
                        })
                        .collect();
                    let bools = items
                        .iter()
                        .filter_map(|i| match *i {
                            Item::Value {
                                at,
                                ty: Scalar::Bool,
                                ..
                            } => Some(at as u32),
                            _ => None,
                        })
                        .collect();
                    let base = image;
                    image += run.size;
                    Op::Run(Run {
                        size: run.size,
                        base,
                        starts: run.fields.iter().map(|f| f.0).collect(),
                        items,
                        meta_reads,
                        bools,
                    })
                }
                Step::Var(slot) => Op::Var(var(*slot, &meta_of)),
                Step::Interleaved(slots) => {
                    Op::Interleaved(slots.iter().map(|&s| var(s, &meta_of)).collect())
                }
            });
        }
        let dups = place_fields(&mut fields, &ops, &mut image);
        LevelPlan {
            json: super::json::template(&tree, &fields).map(Box::new),
            image,
            dups,
            owning: fields
                .iter()
                .position(|f| !matches!(f.kind, Kind::Scalar(_)))
                .unwrap_or(fields.len()),
            fields,
            tree,
            ops,
            metas,
            fixed_size: level.fixed_size,
        }
    }
}

/// Sets each field's place in an image whose runs take the first `image` bytes: a scalar's is
/// where the declaration decoding keeps lies in its run; a variable field's entry comes after
/// the runs. Gives the scalars' other declarations, and grows `image` to its whole size.
///
/// Every scalar is in a run in the layouts the resolver makes; one that were not would get
/// bytes of its own after the entries, left zero, rather than a place shared with another.
fn place_fields(fields: &mut [Field], ops: &[Op], image: &mut usize) -> Box<[Dup]> {
    const NONE: usize = usize::MAX;
    fields.iter_mut().for_each(|f| f.place = NONE);
    let mut others = Vec::new();
    for op in ops {
        let Op::Run(run) = op else { continue };
        for item in run.items.iter() {
            if let Item::Value {
                at,
                field,
                keep,
                ty,
            } = *item
            {
                match keep {
                    true => fields[field].place = run.base + at,
                    false => others.push((run.base + at, field, ty.size())),
                }
            }
        }
    }
    for f in fields.iter_mut() {
        if !matches!(f.kind, Kind::Scalar(_)) {
            f.place = *image;
            *image += super::record::ENTRY;
        }
    }
    for f in fields.iter_mut() {
        if let (NONE, Kind::Scalar(ty)) = (f.place, &f.kind) {
            f.place = *image;
            *image += ty.size();
        }
    }
    others
        .into_iter()
        .map(|(to, field, size)| Dup {
            to: to as u32,
            from: fields[field].place as u32,
            size: size as u32,
        })
        .collect()
}

/// The value shape of `members`, numbering their leaves into `fields` depth-first and noting
/// each slot's field (and whether it is the occurrence decoding keeps) in `slot_field`.
fn shape(
    members: &[Member],
    prefix: &str,
    fields: &mut Vec<Field>,
    slot_field: &mut [(usize, bool)],
) -> Vec<Node> {
    members
        .iter()
        .map(|m| {
            let name = if prefix.is_empty() {
                m.name.clone()
            } else {
                format!("{prefix}.{}", m.name)
            };
            let kind = match &m.kind {
                MemberKind::Object(inner) => {
                    let inner = shape(inner, &name, fields, slot_field);
                    return Node::Object(m.name.as_str().into(), inner);
                }
                MemberKind::Scalar(ty) => Kind::Scalar(*ty),
                MemberKind::String => Kind::String,
                MemberKind::Bytes => Kind::Bytes,
                MemberKind::ArrayOf(ElemType::Scalar(ty)) => Kind::Array(*ty),
                MemberKind::ArrayOf(ElemType::String) => Kind::Strings,
                MemberKind::Array(level) => Kind::Objects(Arc::new(LevelPlan::compile(level))),
            };
            let field = fields.len();
            for (i, &slot) in m.slots.iter().enumerate() {
                slot_field[slot] = (field, i + 1 == m.slots.len());
            }
            fields.push(Field {
                key: m.name.as_str().into(),
                name: name.into(),
                kind,
                place: 0,
            });
            Node::Field(field)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{Kind, LevelPlan, Op};

    fn plan(text: &str) -> LevelPlan {
        let d =
            super::super::Definition::from_text("T_TEST.1.def", text, def_parser::Mode::Compatible)
                .expect("compiles");
        (*d.plan).clone()
    }

    /// Every field of every level has its own bytes within the image (a scalar its size, a
    /// variable field an entry), and the runs lie one after the other from its start.
    #[test]
    fn places_are_disjoint_and_within_the_image() {
        fn check(p: &LevelPlan) {
            let mut taken = vec![false; p.image];
            let mut runs = 0;
            for op in &p.ops {
                if let Op::Run(r) = op {
                    assert_eq!(r.base, runs);
                    runs += r.size;
                }
            }
            for f in &p.fields {
                let size = match &f.kind {
                    Kind::Scalar(ty) => ty.size(),
                    _ => super::super::record::ENTRY,
                };
                assert!(f.place + size <= p.image, "{} out of the image", f.name);
                for b in &mut taken[f.place..f.place + size] {
                    assert!(!*b, "{} overlaps", f.name);
                    *b = true;
                }
                if let Kind::Objects(elem) = &f.kind {
                    check(elem);
                }
            }
        }
        let p = plan(
            "string name\nint32 a\nint32 a\nobject o\n- vec3 loc\n- bool b\n\
             array<int32> ids\narray items\n- string s\n- int64 x\n- array<string> t\n\
             - array deeper\n- - int16 y\nbytes raw\nskillid id\n",
        );
        check(&p);
        // The second `a` is a copy of the first's place (the one decoding keeps is the last).
        assert_eq!(p.dups.len(), 1);
    }
}
