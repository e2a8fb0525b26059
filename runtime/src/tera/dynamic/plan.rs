//! A definition's layout compiled to an execution plan: per level, its fields numbered in value
//! order, the JSON shape over them, and the wire order as a list of ops whose offsets within
//! each run of fixed fields are precomputed, as generated code has them.

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
    /// The fields whose places hold [`EMPTY`](super::run) before decoding fills them: the
    /// variable fields (a failed read leaves its place as it was, and the place is dropped), or
    /// every field if the plan does not write each field exactly once (see [`writes_once`]).
    /// The other places start uninitialised and are written by the run that reads them.
    pub prefill: Box<[u32]>,
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
#[derive(Debug, Clone)]
pub(super) struct VarRef {
    pub field: usize,
    pub meta: usize,
    /// The code that reads the field, made for its kind (see [`super::run::VarRead`]).
    pub read: super::run::VarRead,
    /// An object-array's element plan, at hand (not behind the field's entry).
    pub elem: Option<Arc<LevelPlan>>,
}

/// A run of fixed fields.
#[derive(Debug, Clone)]
pub(super) struct Run {
    pub size: usize,
    /// Every piece, in wire order (what encoding writes).
    pub items: Box<[Item]>,
    /// Where each item starts in the run (for the field a short packet cuts off).
    pub starts: Box<[usize]>,
    /// What decoding reads: the values it keeps, then the metadata, each without the other's
    /// branches.
    pub reads: Box<[Read]>,
    pub meta_reads: Box<[MetaRead]>,
}

/// Scalars that decoding keeps: `n` of type `ty`, one after the other in the run from `at` and
/// in consecutive fields from `field` (`int32 a`, `int32 b`, ... is one read, by one `step` made
/// for that type and count).
#[derive(Debug, Clone, Copy)]
pub(super) struct Read {
    pub ty: Scalar,
    pub at: u32,
    pub field: u32,
    pub n: u32,
    /// The code that reads this group and then hands on to the next (see [`super::run::Step`]).
    pub step: super::run::Step,
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
            read: super::run::var_read(&fields[slot_field[slot].0].kind),
            elem: match &fields[slot_field[slot].0].kind {
                Kind::Objects(elem) => Some(elem.clone()),
                _ => None,
            },
        };
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
                    let mut reads: Vec<Read> = Vec::new();
                    for i in items.iter() {
                        let Item::Value {
                            at,
                            ty,
                            field,
                            keep: true,
                        } = *i
                        else {
                            continue;
                        };
                        let (at, field) = (at as u32, field as u32);
                        match reads.last_mut() {
                            Some(r)
                                if r.ty == ty
                                    && r.at + r.n * ty.size() as u32 == at
                                    && r.field + r.n == field =>
                            {
                                r.n += 1
                            }
                            _ => reads.push(Read {
                                ty,
                                at,
                                field,
                                n: 1,
                                step: super::run::step_for(ty, 1),
                            }),
                        }
                    }
                    for r in &mut reads {
                        r.step = super::run::step_for(r.ty, r.n);
                    }
                    let reads = reads.into_boxed_slice();
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
                    Op::Run(Run {
                        size: run.size,
                        starts: run.fields.iter().map(|f| f.0).collect(),
                        items,
                        reads,
                        meta_reads,
                    })
                }
                Step::Var(slot) => Op::Var(var(*slot, &meta_of)),
                Step::Interleaved(slots) => {
                    Op::Interleaved(slots.iter().map(|&s| var(s, &meta_of)).collect())
                }
            });
        }
        let prefill = if writes_once(&fields, &ops) {
            (0..fields.len())
                .filter(|&f| !matches!(fields[f].kind, Kind::Scalar(_)))
                .map(|f| f as u32)
                .collect()
        } else {
            (0..fields.len() as u32).collect()
        };
        LevelPlan {
            json: super::json::template(&tree, &fields).map(Box::new),
            prefill,
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

/// Whether decoding with `ops` writes every field exactly once: each scalar by one kept read that
/// lies within its run, each other field by one variable op. True of every layout the resolver
/// makes; checked here so that starting from uninitialised places rests on the plan, not on that
/// belief.
fn writes_once(fields: &[Field], ops: &[Op]) -> bool {
    // Per field: scalar reads, variable ops.
    let mut writes = vec![(0u32, 0u32); fields.len()];
    for op in ops {
        match op {
            Op::Run(run) => {
                for r in run.reads.iter() {
                    if r.at as usize + r.n as usize * r.ty.size() > run.size {
                        return false;
                    }
                    for f in r.field..r.field + r.n {
                        writes[f as usize].0 += 1;
                    }
                }
            }
            Op::Var(v) => writes[v.field].1 += 1,
            Op::Interleaved(vars) => vars.iter().for_each(|v| writes[v.field].1 += 1),
        }
    }
    writes.iter().zip(fields).all(|(&w, f)| match f.kind {
        Kind::Scalar(_) => w == (1, 0),
        _ => w == (0, 1),
    })
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
            });
            Node::Field(field)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{Kind, LevelPlan, Op};

    fn plan(text: &str) -> LevelPlan {
        super::super::Definition::from_text("T_TEST.1.def", text, def_parser::Mode::Compatible)
            .expect("compiles")
            .plan
    }

    /// The fields a plan prefills: its variable fields, at every level, when each field is
    /// written once (a scalar declared twice is read from one declaration).
    #[test]
    fn only_variable_fields_are_prefilled() {
        let p = plan(
            "string name\nint32 a\nint32 a\nobject o\n- vec3 loc\n- bool b\n\
             array<int32> ids\narray items\n- string s\n- int64 x\n- int16 y\nbytes raw\n",
        );
        let variable = |p: &LevelPlan| -> Vec<u32> {
            (0..p.fields.len() as u32)
                .filter(|&f| !matches!(p.fields[f as usize].kind, Kind::Scalar(_)))
                .collect()
        };
        assert_eq!(&*p.prefill, &variable(&p)[..]);
        assert!(p.prefill.len() < p.fields.len());
        let elem = p
            .fields
            .iter()
            .find_map(|f| match &f.kind {
                Kind::Objects(e) => Some(e),
                _ => None,
            })
            .expect("an object-array");
        assert_eq!(&*elem.prefill, &variable(elem)[..]);
    }

    /// A plan that would leave a place unwritten or write one twice prefills every field
    /// instead (decoding then never reads an uninitialised place).
    #[test]
    fn a_plan_that_misses_a_field_prefills_all() {
        let mut p = plan("int32 a\nint32 b\nstring s\n");
        assert!(super::writes_once(&p.fields, &p.ops));
        let Op::Run(run) = &mut p.ops[0] else {
            panic!("a run first")
        };
        // One read fewer: field `b` would not be written.
        let mut reads = run.reads.to_vec();
        reads.iter_mut().for_each(|r| r.n = 1);
        run.reads = reads.into_boxed_slice();
        assert!(!super::writes_once(&p.fields, &p.ops));
        // A read past its run.
        let mut q = plan("int32 a\nint32 b\n");
        let Op::Run(run) = &mut q.ops[0] else {
            panic!("a run first")
        };
        let mut reads = run.reads.to_vec();
        reads[0].at += 4;
        run.reads = reads.into_boxed_slice();
        assert!(!super::writes_once(&q.fields, &q.ops));
        // A variable field read twice.
        let mut t = plan("string s\n");
        let v = t.ops.iter().find_map(|o| match o {
            Op::Var(v) => Some(v.clone()),
            _ => None,
        });
        t.ops.push(Op::Var(v.expect("a variable op")));
        assert!(!super::writes_once(&t.fields, &t.ops));
    }
}
