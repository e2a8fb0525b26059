//! The resolved wire layout of a definition: the one form that generated code and the dynamic
//! codec both work from.
//!
//! A [`Level`] is the root or one element of an object-array (LAYOUT.md, "A level"). It has two
//! views of the same fields:
//! * [`Level::members`], the value shape: what a decoded packet holds, in the reference reader's
//!   key order, with objects declared twice merged into one and a scalar declared twice kept as one
//!   member with two occurrences;
//! * [`Level::steps`], the wire order: runs of fixed-size fields (metadata slots included) with
//!   their offsets, and the variable-length data between them.
//!
//! Each leaf value has a *slot* number within its level; both views refer to values by slot.

use std::collections::{HashMap, HashSet};

use crate::ast::{DefFile, DefName, ElemType, FieldType, Node, NodeKind, PatchRange, Scalar};
use crate::diag::{Code, Diagnostic, LineIndex, Severity, Span};
use crate::parse::Mode;

/// A definition, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// From the file name.
    pub name: Option<DefName>,
    /// From the header comment.
    pub patch_range: Option<PatchRange>,
    /// Whether the file places its metadata with `ref` lines.
    pub explicit_refs: bool,
    /// The packet body.
    pub root: Level,
}

/// Where one `.def` line declared a member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decl {
    /// 1-based line number.
    pub line: usize,
    /// The line as written (without leading dashes), comment included.
    pub text: String,
    /// The comment alone.
    pub comment: Option<String>,
}

/// The kind of value a member holds.
#[derive(Debug, Clone, PartialEq)]
pub enum MemberKind {
    /// A fixed-size value.
    Scalar(Scalar),
    /// `string`.
    String,
    /// `bytes`.
    Bytes,
    /// `array`: a list of levels.
    Array(Box<Level>),
    /// `array<T>`.
    ArrayOf(ElemType),
    /// `object`: named group of members, no bytes of its own.
    Object(Vec<Member>),
}

/// One key of a decoded value.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The name as written in the `.def` (also the JSON key).
    pub name: String,
    /// What it holds.
    pub kind: MemberKind,
    /// The slots of this member's value: one for most, one per declaration for a scalar declared
    /// twice (the reference reads the last and writes the same value into all); none for objects.
    pub slots: Vec<usize>,
    /// The lines that declared it.
    pub decls: Vec<Decl>,
    /// For `array` and `array<T>`: written interleaved with its neighbours.
    pub interleaved: bool,
}

/// The metadata of a variable-length field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MetaKind {
    /// `uint16 count`, `uint16 offset`.
    Array,
    /// `uint16 offset`, `uint16 count`.
    Bytes,
    /// `uint16 offset`.
    String,
}

impl MetaKind {
    /// Bytes on the wire.
    pub fn size(self) -> usize {
        match self {
            MetaKind::String => 2,
            _ => 4,
        }
    }
}

/// One fixed-size piece of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fixed {
    /// The metadata slot of the variable field in `slot`.
    Meta {
        /// The variable field.
        slot: usize,
        /// Which metadata.
        kind: MetaKind,
    },
    /// A scalar value.
    Value {
        /// Its slot.
        slot: usize,
        /// Its type.
        ty: Scalar,
    },
}

impl Fixed {
    /// Bytes on the wire.
    pub fn size(self) -> usize {
        match self {
            Fixed::Meta { kind, .. } => kind.size(),
            Fixed::Value { ty, .. } => ty.size(),
        }
    }
    /// The slot it reads or writes.
    pub fn slot(self) -> usize {
        match self {
            Fixed::Meta { slot, .. } | Fixed::Value { slot, .. } => slot,
        }
    }
}

/// Consecutive fixed-size fields, read and written as one block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// Offset of the run from the start of the level's body, when no variable data comes before it.
    /// The root's body starts after the header (4 bytes, or 12 with padding); an element's body
    /// starts after its `here` and `next` (4 bytes into the element).
    pub offset: Option<usize>,
    /// Total bytes.
    pub size: usize,
    /// The fields with their offsets from the start of the run.
    pub fields: Vec<(usize, Fixed)>,
}

/// One step of a level's wire order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Fixed-size fields.
    Fixed(Run),
    /// The data of the variable field in this slot, written inline.
    Var(usize),
    /// Arrays written element by element in turn (`[interleaved]`), by slot.
    Interleaved(Vec<usize>),
}

/// Where a slot's value lives in the member tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotInfo {
    /// Member indices from the level down through objects.
    pub path: Vec<usize>,
    /// Which declaration of a scalar declared more than once (0 for the first).
    pub occurrence: usize,
}

/// The root or an element of an object-array.
#[derive(Debug, Clone, PartialEq)]
pub struct Level {
    /// The value shape.
    pub members: Vec<Member>,
    /// The wire order.
    pub steps: Vec<Step>,
    /// For each slot, its member.
    pub slots: Vec<SlotInfo>,
    /// Bytes of all fixed runs: the least the body can take.
    pub fixed_size: usize,
}

impl Level {
    /// The member that holds `slot`.
    pub fn slot_member(&self, slot: usize) -> &Member {
        let mut members = &self.members;
        let path = &self.slots[slot].path;
        for &i in &path[..path.len() - 1] {
            match &members[i].kind {
                MemberKind::Object(m) => members = m,
                _ => unreachable!("slot paths go through objects only"),
            }
        }
        &members[path[path.len() - 1]]
    }

    /// The dotted name of `slot` from the level (`reaction.loc`).
    pub fn slot_name(&self, slot: usize) -> String {
        let mut members = &self.members;
        let mut out = String::new();
        for &i in &self.slots[slot].path {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&members[i].name);
            if let MemberKind::Object(m) = &members[i].kind {
                members = m;
            }
        }
        out
    }

    /// Whether the level's size depends on its values (it has variable data).
    pub fn is_fixed_size(&self) -> bool {
        self.steps.iter().all(|s| matches!(s, Step::Fixed(_)))
    }
}

/// Most members (fields, arrays, objects) one level or one `object` may have. Each becomes one
/// generated struct, and rustc's derives of `PartialEq` and `PartialOrd` nest an expression
/// per field: rustc 1.9x with its 8 MiB stack compiles 4 096 `int32` fields with both and
/// overflows its stack at 6 000 with `PartialEq` alone, so the limit keeps a factor of two
/// below what was seen to compile. A packet (65 535 bytes, at least one byte per member) could
/// hold 65 531; the corpus's widest level has 155.
pub const MAX_MEMBERS: usize = 2048;

struct Resolver<'a> {
    text: &'a str,
    index: LineIndex,
    mode: Mode,
    explicit: bool,
    diagnostics: Vec<Diagnostic>,
}

impl Resolver<'_> {
    fn diag(
        &mut self,
        severity: Severity,
        code: Code,
        span: Span,
        message: String,
        expected: Option<String>,
    ) {
        let severity = if self.mode == Mode::Strict {
            Severity::Error
        } else {
            severity
        };
        let (line, column) = self.index.locate(self.text, span.start);
        self.diagnostics.push(Diagnostic {
            severity,
            code,
            message: crate::diag::shorten_spans(message),
            expected,
            span,
            line,
            column,
        });
    }

    /// An error ([`Code::TooWide`]) at the first member past [`MAX_MEMBERS`] of the level's
    /// list and of each of its objects' lists.
    fn check_width(&mut self, members: &[Member], nodes: &[Node]) {
        fn span_of(nodes: &[Node], line: usize) -> Option<Span> {
            nodes.iter().find_map(|n| {
                if n.line == line {
                    Some(n.span)
                } else {
                    span_of(&n.children, line)
                }
            })
        }
        let mut lists = vec![members];
        while let Some(list) = lists.pop() {
            if let Some(first) = list.get(MAX_MEMBERS) {
                let line = first.decls.first().map_or(0, |d| d.line);
                let span = span_of(nodes, line).unwrap_or_default();
                self.diag(
                    Severity::Error,
                    Code::TooWide,
                    span,
                    format!(
                        "more than {MAX_MEMBERS} members ({}) in one level or object: the code \
                         generated for it would not compile",
                        list.len()
                    ),
                    Some(format!(
                        "at most {MAX_MEMBERS}: split the fields into objects"
                    )),
                );
            }
            lists.extend(list.iter().filter_map(|m| match &m.kind {
                MemberKind::Object(ms) => Some(ms.as_slice()),
                _ => None,
            }));
        }
    }

    fn decl(&self, n: &Node) -> Decl {
        let body = self.text[n.span.start..n.span.end]
            .trim_start_matches(|c| c == '-' || crate::line::is_space(c));
        let text = match &n.comment {
            Some(c) => format!("{body} # {c}"),
            None => body.to_string(),
        };
        Decl {
            line: n.line,
            text,
            comment: n.comment.clone(),
        }
    }

    /// Builds the member tree of one level (objects inline) and assigns slots. `list` is the
    /// [`Names`] number of `out`.
    #[allow(clippy::too_many_arguments)]
    fn members<'n>(
        &mut self,
        nodes: &'n [Node],
        list: usize,
        prefix: &[usize],
        out: &mut Vec<Member>,
        slots: &mut Vec<SlotInfo>,
        node_slot: &mut HashMap<*const Node, usize>,
        names: &mut Names<'n>,
    ) {
        for n in nodes {
            let NodeKind::Field {
                ty, interleaved, ..
            } = n.kind
            else {
                continue;
            };
            let existing = names.find(list, &n.name.text);
            match (ty, existing) {
                (FieldType::Object, Some(i)) => {
                    let decl = self.decl(n);
                    if let MemberKind::Object(_) = out[i].kind {
                        out[i].decls.push(decl);
                        let mut path = prefix.to_vec();
                        path.push(i);
                        let MemberKind::Object(mut inner) =
                            std::mem::replace(&mut out[i].kind, MemberKind::Bytes)
                        else {
                            unreachable!()
                        };
                        let inner_list = names.objects[&(list, i)];
                        self.members(
                            &n.children,
                            inner_list,
                            &path,
                            &mut inner,
                            slots,
                            node_slot,
                            names,
                        );
                        out[i].kind = MemberKind::Object(inner);
                    } else {
                        self.diag(
                            Severity::Error,
                            Code::NameClash,
                            n.name.span,
                            format!(
                                "`{}` is declared before as a field that is not an object",
                                n.name.text
                            ),
                            None,
                        );
                    }
                }
                (FieldType::Scalar(s), Some(i)) if out[i].kind == MemberKind::Scalar(s) => {
                    self.diag(
                        Severity::Warning,
                        Code::DuplicateField,
                        n.name.span,
                        format!("`{}` is declared twice at this level; the reference reads the last and writes one value into both", n.name.text),
                        None,
                    );
                    let slot = slots.len();
                    let mut path = prefix.to_vec();
                    path.push(i);
                    slots.push(SlotInfo {
                        path,
                        occurrence: out[i].slots.len(),
                    });
                    out[i].slots.push(slot);
                    out[i].decls.push(self.decl(n));
                    node_slot.insert(n as *const Node, slot);
                }
                (_, Some(_)) => {
                    self.diag(
                        Severity::Error,
                        Code::NameClash,
                        n.name.span,
                        format!(
                            "`{}` is declared twice at this level with different types",
                            n.name.text
                        ),
                        None,
                    );
                }
                (_, None) => {
                    let index = out.len();
                    names.index.insert((list, &n.name.text), index);
                    let mut path = prefix.to_vec();
                    path.push(index);
                    let kind = match ty {
                        FieldType::Object => {
                            let inner_list = names.new_object(list, index);
                            let mut inner = Vec::new();
                            self.members(
                                &n.children,
                                inner_list,
                                &path,
                                &mut inner,
                                slots,
                                node_slot,
                                names,
                            );
                            MemberKind::Object(inner)
                        }
                        FieldType::Scalar(s) => MemberKind::Scalar(s),
                        FieldType::String => MemberKind::String,
                        FieldType::Bytes => MemberKind::Bytes,
                        FieldType::ArrayOf(e) => MemberKind::ArrayOf(e),
                        FieldType::Array => MemberKind::Array(Box::new(self.level(&n.children))),
                    };
                    let own_slot = if ty == FieldType::Object {
                        vec![]
                    } else {
                        let slot = slots.len();
                        slots.push(SlotInfo {
                            path,
                            occurrence: 0,
                        });
                        node_slot.insert(n as *const Node, slot);
                        vec![slot]
                    };
                    out.push(Member {
                        name: n.name.text.clone(),
                        kind,
                        slots: own_slot,
                        decls: vec![self.decl(n)],
                        interleaved,
                    });
                }
            }
        }
    }

    /// Resolves the dotted path of a ref line, from the member list `list`, to the slot of a
    /// variable field of the level. One hash look-up per part of the path.
    fn ref_target(
        members: &[Member],
        names: &Names<'_>,
        list: usize,
        path: &str,
    ) -> Option<(usize, MetaKind)> {
        let mut list = list;
        let mut parts = path.split('.').peekable();
        while let Some(part) = parts.next() {
            let i = names.find(list, part)?;
            let m = names.member(members, list, i);
            let last = parts.peek().is_none();
            match (&m.kind, last) {
                (MemberKind::Object(_), false) => list = names.objects[&(list, i)],
                (MemberKind::String, true) => return Some((m.slots[0], MetaKind::String)),
                (MemberKind::Bytes, true) => return Some((m.slots[0], MetaKind::Bytes)),
                (MemberKind::Array(_) | MemberKind::ArrayOf(_), true) => {
                    return Some((m.slots[0], MetaKind::Array));
                }
                _ => return None,
            }
        }
        None
    }

    /// The reference compiles a level into one JavaScript function that declares variables
    /// named after the path of each object and variable field, dots made `_`
    /// (`offset_result_o_b` for `o.b` and for `o_b`): two such paths that meet, with a variable
    /// kind in common, make it refuse the definition. A warning at the later of them. The paths
    /// are spelled out, so hostile text (a long object name over many lines) is checked only up
    /// to [`JS_PATH_BUDGET`] bytes of paths per level.
    fn js_variable_clashes(&mut self, nodes: &[Node]) {
        /// Each line with its path and which of the variables `tmpelem_`, `offset_`, `count_`
        /// and `tmpoffset_` it declares (bits 0 to 3); false when the budget ran out.
        fn walk<'n>(
            nodes: &'n [Node],
            prefix: &str,
            budget: &mut usize,
            out: &mut Vec<(&'n Node, String, u8)>,
        ) -> bool {
            for n in nodes {
                let NodeKind::Field { ty, .. } = n.kind else {
                    continue;
                };
                let vars = match ty {
                    FieldType::Scalar(_) => continue,
                    FieldType::Object => 1,
                    FieldType::Array => 1 | 2 | 4 | 8,
                    FieldType::ArrayOf(_) => 2 | 4 | 8,
                    FieldType::String => 2,
                    FieldType::Bytes => 2 | 4,
                };
                let len = prefix.len() + n.name.text.len();
                let Some(left) = budget.checked_sub(len) else {
                    return false;
                };
                *budget = left;
                let path = format!("{prefix}{}", n.name.text);
                if ty == FieldType::Object && !walk(&n.children, &format!("{path}."), budget, out) {
                    return false;
                }
                out.push((n, path, vars));
            }
            true
        }
        let mut found = Vec::new();
        let mut budget = JS_PATH_BUDGET;
        if !walk(nodes, "", &mut budget, &mut found) {
            return;
        }
        // For each variable name, the first path that declared each kind of variable with it.
        let mut first: HashMap<String, [Option<String>; 4]> = HashMap::new();
        for (n, path, vars) in found {
            let key = path.replace('.', "_");
            let kinds = first.entry(key.clone()).or_default();
            let other = (0..4)
                .filter(|b| vars & (1 << b) != 0)
                .find_map(|b| kinds[b].as_ref().filter(|p| **p != path).cloned());
            for (b, kind) in kinds.iter_mut().enumerate() {
                if vars & (1 << b) != 0 && kind.is_none() {
                    *kind = Some(path.clone());
                }
            }
            if let Some(other) = other {
                self.diag(
                    Severity::Warning,
                    Code::JsVariableClash,
                    n.name.span,
                    format!("`{path}` and `{other}` are one variable (`{key}`) in the JavaScript the reference generates; it refuses the definition"),
                    Some("names that stay apart when `.` is read as `_`".into()),
                );
            }
        }
    }

    fn level(&mut self, nodes: &[Node]) -> Level {
        self.js_variable_clashes(nodes);
        let mut members = Vec::new();
        let mut slots = Vec::new();
        let mut node_slot = HashMap::new();
        let mut names = Names::default();
        self.members(
            nodes,
            Names::ROOT,
            &[],
            &mut members,
            &mut slots,
            &mut node_slot,
            &mut names,
        );
        self.check_width(&members, nodes);

        // Wire order: a flat list of pieces, then grouped into steps.
        enum Piece {
            Fixed(Fixed),
            /// `list` numbers the member list (level or one `object` line) the field stands in,
            /// `index` its place there: interleaved arrays are written together only when they
            /// are neighbours in one list, as the reference's writer does.
            Var {
                slot: usize,
                interleaved: bool,
                list: usize,
                index: usize,
            },
        }
        let mut pieces: Vec<Piece> = Vec::new();
        if !self.explicit {
            // Implicit: all metadata of the level first, in declaration order.
            fn walk<'n>(nodes: &'n [Node], out: &mut Vec<&'n Node>) {
                for n in nodes {
                    if let NodeKind::Field { ty, .. } = n.kind {
                        if ty == FieldType::Object {
                            walk(&n.children, out);
                        } else {
                            out.push(n);
                        }
                    }
                }
            }
            let mut fields = Vec::new();
            walk(nodes, &mut fields);
            for n in &fields {
                if let Some(&slot) = node_slot.get(&(*n as *const Node))
                    && let NodeKind::Field { ty, .. } = n.kind
                    && ty.is_variable()
                {
                    let kind = match ty {
                        FieldType::String => MetaKind::String,
                        FieldType::Bytes => MetaKind::Bytes,
                        _ => MetaKind::Array,
                    };
                    pieces.push(Piece::Fixed(Fixed::Meta { slot, kind }));
                }
            }
        }
        // Fields (and, in explicit mode, refs) in declaration order, objects inline.
        let mut placed: HashSet<usize> = HashSet::new();
        let mut written: HashSet<usize> = HashSet::new();
        // Each open list: its number, its lines with their places, and the place of the last
        // interleaved array seen in it.
        let mut stack: Vec<ListWalk> = vec![(0, nodes.iter().enumerate(), None)];
        let mut lists = 1;
        // The enclosing objects, each as the member list its dotted name leads to from the
        // level (`None` if it leads to no object): a ref inside them first tries the path
        // `object.names.ref`, read as one dotted path from the level, then its own text alone.
        let mut scope: Vec<Option<usize>> = Vec::new();
        while let Some((list, lines, last_interleaved)) = stack.last_mut() {
            let Some((index, n)) = lines.next() else {
                stack.pop();
                scope.pop();
                continue;
            };
            let list = *list;
            if let NodeKind::Field {
                ty: FieldType::Array | FieldType::ArrayOf(_),
                interleaved: true,
                ..
            } = n.kind
            {
                if last_interleaved.is_some_and(|last| last + 1 != index) {
                    self.diag(
                        Severity::Warning,
                        Code::InterleavedApart,
                        n.name.span,
                        format!("`[interleaved]` array `{}` does not follow the previous interleaved array of its level or object; the reference refuses the definition (\"Interleaved arrays must be consecutive fields!\")", n.name.text),
                        Some("interleaved arrays as consecutive lines, with no other line between them".into()),
                    );
                }
                *last_interleaved = Some(index);
            }
            match n.kind {
                NodeKind::Ref { .. } => {
                    if !scope.is_empty() {
                        self.diag(
                            Severity::Warning,
                            Code::RefInObject,
                            n.span,
                            format!("`ref {}` inside an object: the reference looks for refs among the lines of the level only and refuses the definition", n.name.text),
                            Some("the ref line outside the object, naming the field by its path (`ref object.field`)".into()),
                        );
                    }
                    // A ref inside an object may name its field relative to the object.
                    let relative =
                        scope.last().copied().flatten().and_then(|list| {
                            Self::ref_target(&members, &names, list, &n.name.text)
                        });
                    let target = relative
                        .or_else(|| Self::ref_target(&members, &names, Names::ROOT, &n.name.text));
                    match target {
                        None => self.diag(
                            Severity::Error,
                            Code::RefToNothing,
                            n.name.span,
                            format!("`ref {}` names no string, bytes or array field of this level", n.name.text),
                            Some("the name (or dotted path through objects) of a variable-length field declared at the same depth".into()),
                        ),
                        Some((slot, kind)) => {
                            if written.contains(&slot) {
                                self.diag(Severity::Error, Code::RefAfterField, n.span, format!("`ref {}` comes after the field it names", n.name.text), Some("the ref line before the field".into()));
                            } else if !placed.insert(slot) {
                                self.diag(Severity::Error, Code::DuplicateRef, n.span, format!("second `ref` line for `{}`", n.name.text), None);
                            } else {
                                pieces.push(Piece::Fixed(Fixed::Meta { slot, kind }));
                            }
                        }
                    }
                }
                NodeKind::Field {
                    ty, interleaved, ..
                } => {
                    if ty == FieldType::Object {
                        let outer = match scope.last() {
                            Some(list) => *list,
                            None => Some(Names::ROOT),
                        };
                        scope
                            .push(outer.and_then(|l| names.object_path(&members, l, &n.name.text)));
                        stack.push((lists, n.children.iter().enumerate(), None));
                        lists += 1;
                        continue;
                    }
                    let Some(&slot) = node_slot.get(&(n as *const Node)) else {
                        continue;
                    };
                    match ty {
                        FieldType::Scalar(s) => {
                            pieces.push(Piece::Fixed(Fixed::Value { slot, ty: s }))
                        }
                        _ => {
                            if self.explicit && !placed.contains(&slot) {
                                self.diag(
                                    Severity::Error,
                                    Code::MissingRef,
                                    n.name.span,
                                    format!("`{}` has no `ref` line, but this file places its metadata explicitly", n.name.text),
                                    Some(format!("a line `ref {}` before it, at the same depth", n.name.text)),
                                );
                            }
                            if interleaved && ty == FieldType::ArrayOf(ElemType::String) {
                                self.diag(
                                    Severity::Warning,
                                    Code::InterleavedStrings,
                                    n.name.span,
                                    format!("interleaved `array<string>` `{}`: the reference cannot write it and refuses the definition", n.name.text),
                                    Some("`array<string>` without `[interleaved]`".into()),
                                );
                            }
                            written.insert(slot);
                            pieces.push(Piece::Var {
                                slot,
                                interleaved,
                                list,
                                index,
                            });
                        }
                    }
                }
            }
        }

        // Group into steps with static offsets.
        let mut steps: Vec<Step> = Vec::new();
        let mut offset = Some(0usize);
        let mut fixed_size = 0;
        let mut i = 0;
        while i < pieces.len() {
            match &pieces[i] {
                Piece::Fixed(_) => {
                    let mut run = Run {
                        offset,
                        size: 0,
                        fields: Vec::new(),
                    };
                    while let Some(Piece::Fixed(f)) = pieces.get(i) {
                        run.fields.push((run.size, *f));
                        run.size += f.size();
                        i += 1;
                    }
                    offset = offset.map(|o| o + run.size);
                    fixed_size += run.size;
                    steps.push(Step::Fixed(run));
                }
                &Piece::Var {
                    slot,
                    interleaved: true,
                    list,
                    index,
                } => {
                    let mut group = vec![slot];
                    let mut next = index + 1;
                    i += 1;
                    while let Some(&Piece::Var {
                        slot,
                        interleaved: true,
                        list: l,
                        index: k,
                    }) = pieces.get(i)
                        && l == list
                        && k == next
                    {
                        group.push(slot);
                        next += 1;
                        i += 1;
                    }
                    offset = None;
                    steps.push(if group.len() == 1 {
                        Step::Var(group[0])
                    } else {
                        Step::Interleaved(group)
                    });
                }
                Piece::Var { slot, .. } => {
                    offset = None;
                    steps.push(Step::Var(*slot));
                    i += 1;
                }
            }
        }
        Level {
            members,
            steps,
            slots,
            fixed_size,
        }
    }
}

/// Bytes of object and field paths per level checked for [`Code::JsVariableClash`] (hostile
/// text beyond it is not checked; real definitions use a few hundred).
const JS_PATH_BUDGET: usize = 1 << 20;

/// One open list of the wire-order walk: its number, its lines with their places, and the place
/// of the last interleaved array seen in it.
type ListWalk<'n> = (
    usize,
    std::iter::Enumerate<std::slice::Iter<'n, Node>>,
    Option<usize>,
);

/// The names of one level's member lists, for look-ups in constant time: the level itself is
/// list [`Names::ROOT`], each object member gets a number of its own.
#[derive(Default)]
struct Names<'n> {
    /// (list, name) to the member's index in that list.
    index: HashMap<(usize, &'n str), usize>,
    /// (list, index of an object member) to the object's own list.
    objects: HashMap<(usize, usize), usize>,
    /// (list) to the path of member indices that leads to it from the level.
    paths: Vec<Vec<usize>>,
}

impl<'n> Names<'n> {
    const ROOT: usize = 0;

    fn find(&self, list: usize, name: &str) -> Option<usize> {
        self.index.get(&(list, name)).copied()
    }

    /// Numbers the list of the new object member `index` of `list`.
    fn new_object(&mut self, list: usize, index: usize) -> usize {
        if self.paths.is_empty() {
            self.paths.push(Vec::new());
        }
        let mut path = self.paths[list].clone();
        path.push(index);
        self.paths.push(path);
        let id = self.paths.len() - 1;
        self.objects.insert((list, index), id);
        id
    }

    /// Member `i` of `list`, found through the objects on the list's path.
    fn member<'m>(&self, members: &'m [Member], list: usize, i: usize) -> &'m Member {
        let mut ms = members;
        for &k in self.paths.get(list).map_or(&[][..], Vec::as_slice) {
            match &ms[k].kind {
                MemberKind::Object(inner) => ms = inner,
                _ => unreachable!("list paths go through objects only"),
            }
        }
        &ms[i]
    }

    /// The list that the dotted `path` leads to from `list`, if every part names an object.
    fn object_path(&self, members: &[Member], list: usize, path: &str) -> Option<usize> {
        let mut list = list;
        for part in path.split('.') {
            let i = self.find(list, part)?;
            match self.member(members, list, i).kind {
                MemberKind::Object(_) => list = self.objects[&(list, i)],
                _ => return None,
            }
        }
        Some(list)
    }
}

/// Resolves a parsed file. `text` is the file's text (for diagnostics). Returns the layout unless
/// there were errors, and all diagnostics of this stage.
pub fn resolve(file: &DefFile, text: &str, mode: Mode) -> (Option<Layout>, Vec<Diagnostic>) {
    let mut r = Resolver {
        text,
        index: LineIndex::new(text),
        mode,
        explicit: file.has_refs(),
        diagnostics: Vec::new(),
    };
    let root = r.level(&file.nodes);
    let ok = !r.diagnostics.iter().any(Diagnostic::is_error);
    let layout = ok.then(|| Layout {
        name: file.name.clone(),
        patch_range: file.patch_range,
        explicit_refs: r.explicit,
        root,
    });
    r.diagnostics.sort_by_key(|d| d.span.start);
    (layout, r.diagnostics)
}
