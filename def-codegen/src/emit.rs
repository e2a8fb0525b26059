//! From a resolved [`Layout`] to Rust items: one struct per level and object, a [`Level`] impl
//! per level that reads and writes it with static offsets and one bounds check per run of fixed
//! fields, and a `Packet` impl for the root. Emission is a pure function of the layout and the
//! options.
//!
//! [`Level`]: https://docs.rs/def-runtime (the runtime's `tera::wire::Level`)

use def_parser::ast::{ElemType, Scalar};
use def_parser::layout::{Decl, Fixed, Layout, Level, Member, MemberKind, MetaKind, Step};
use proc_macro2::Literal;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::naming;

/// Whether and how generated types implement serde.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Serde {
    /// No serde.
    #[default]
    Off,
    /// Always.
    On,
    /// Behind `#[cfg_attr(feature = "NAME", ...)]` of the crate that includes the code.
    Feature(String),
}

/// What [`emit`] generates.
#[derive(Debug, Clone)]
pub struct EmitOptions {
    /// Path to the runtime crate (default `::def_runtime`).
    pub runtime: String,
    /// serde derives in the tera-vectors JSON form.
    pub serde: Serde,
    /// serde: missing fields take their defaults instead of failing.
    pub serde_default: bool,
    /// Extra attributes on types: `(path, attribute)`; see [`crate::Config::type_attribute`].
    pub type_attributes: Vec<(String, String)>,
    /// Extra attributes on fields: `(path, attribute)`.
    pub field_attributes: Vec<(String, String)>,
    /// Carry `.def` lines and comments into doc comments.
    pub comments: bool,
}

impl Default for EmitOptions {
    fn default() -> Self {
        EmitOptions {
            runtime: "::def_runtime".into(),
            serde: Serde::Off,
            serde_default: false,
            type_attributes: Vec::new(),
            field_attributes: Vec::new(),
            comments: true,
        }
    }
}

/// An identifier from text that may carry `r#`.
pub(crate) fn ident(s: &str) -> syn::Ident {
    match s.strip_prefix("r#") {
        Some(raw) => syn::Ident::new_raw(raw, Span::call_site()),
        None => syn::Ident::new(s, Span::call_site()),
    }
}

/// Whether attribute path `pat` selects the item at `path` (`S_LOGIN`, `S_LOGIN.servants`, ...):
/// `.` selects everything; otherwise `pat` must equal `path` or be a dotted prefix of it.
fn matches(pat: &str, path: &str) -> bool {
    pat == "." || pat == path || (path.starts_with(pat) && path[pat.len()..].starts_with('.'))
}

fn attrs(list: &[(String, String)], path: &str) -> Vec<TokenStream> {
    list.iter()
        .filter(|(p, _)| matches(p, path))
        .filter_map(|(_, a)| a.parse::<TokenStream>().ok())
        .collect()
}

/// A doc line with `text` in a code span (nothing in it is read as Markdown or a link).
fn code_span(text: &str) -> String {
    let ticks = if text.contains('`') { "``" } else { "`" };
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

fn decl_docs(decls: &[Decl]) -> Vec<String> {
    decls
        .iter()
        .map(|d| format!(" Line {}: {}", d.line, code_span(&d.text)))
        .collect()
}

struct Gen<'a> {
    o: &'a EmitOptions,
    rt: TokenStream,
    items: Vec<TokenStream>,
}

/// Rust type of a scalar.
fn scalar_ty(rt: &TokenStream, s: Scalar) -> TokenStream {
    match s {
        Scalar::Bool => quote!(bool),
        Scalar::Byte => quote!(u8),
        Scalar::Int16 => quote!(i16),
        Scalar::UInt16 => quote!(u16),
        Scalar::Int32 => quote!(i32),
        Scalar::UInt32 => quote!(u32),
        Scalar::Int64 => quote!(i64),
        Scalar::UInt64 => quote!(u64),
        Scalar::Float => quote!(f32),
        Scalar::Double => quote!(f64),
        Scalar::Angle => quote!(#rt::Angle),
        Scalar::Vec3 => quote!(#rt::Vec3),
        Scalar::Vec3fa => quote!(#rt::Vec3fa),
        Scalar::SkillId32 => quote!(#rt::SkillId32),
        Scalar::SkillId => quote!(#rt::SkillId),
        Scalar::Customize => quote!(#rt::Customize),
    }
}

/// The most terms of `level_len` written as one sum; more are added up one statement each.
const MAX_SUM_TERMS: usize = 32;

/// Per-level naming: field idents of each member list, decode locals of each slot.
struct Names {
    /// For each slot: the access path from `self` (field idents).
    access: Vec<Vec<syn::Ident>>,
    /// For each slot: the local variable used while decoding.
    local: Vec<syn::Ident>,
}

/// Field idents of a member list (deduplicated).
fn member_idents(members: &[Member]) -> Vec<String> {
    let mut v: Vec<String> = members
        .iter()
        .map(|m| naming::field_ident(&m.name))
        .collect();
    naming::dedupe(&mut v);
    v
}

fn level_names(level: &Level) -> Names {
    let mut access = Vec::new();
    let mut locals = Vec::new();
    // The idents of each member list, made once: made for every slot, they cost time quadratic in
    // the number of fields (10 000 fields took 52 s).
    let mut lists: std::collections::HashMap<*const Member, Vec<String>> =
        std::collections::HashMap::new();
    for info in &level.slots {
        let mut members = &level.members;
        let mut path = Vec::new();
        for &i in &info.path {
            let ids = lists
                .entry(members.as_ptr())
                .or_insert_with(|| member_idents(members));
            path.push(ids[i].clone());
            if let MemberKind::Object(m) = &members[i].kind {
                members = m;
            }
        }
        locals.push(
            path.iter()
                .map(|p| p.trim_start_matches("r#").to_string())
                .collect::<Vec<_>>()
                .join("_"),
        );
        access.push(path.iter().map(|p| ident(p)).collect());
    }
    // Locals: the joined path, unique, and never a generated name or keyword.
    let mut fixed: Vec<String> = locals
        .iter()
        .map(|l| {
            let l = if l.starts_with("__") {
                format!("f{l}")
            } else {
                l.clone()
            };
            naming::field_ident(&l)
        })
        .collect();
    // Slots of one member share one local (a scalar declared twice reads the last).
    let mut seen: std::collections::HashMap<Vec<usize>, String> = std::collections::HashMap::new();
    let mut out = Vec::new();
    let mut taken = std::collections::HashSet::new();
    // Per base, the suffix to try next (as `naming::dedupe`): linear in colliding names.
    let mut next: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, info) in level.slots.iter().enumerate() {
        if let Some(l) = seen.get(&info.path) {
            out.push(l.clone());
            continue;
        }
        let mut l = std::mem::take(&mut fixed[i]);
        if !taken.insert(l.clone()) {
            let base = l;
            let k = next.entry(base.clone()).or_insert(2);
            loop {
                l = format!("{base}_{k}");
                *k += 1;
                if taken.insert(l.clone()) {
                    break;
                }
            }
        }
        seen.insert(info.path.clone(), l.clone());
        out.push(l);
    }
    Names {
        access,
        local: out.iter().map(|s| ident(s)).collect(),
    }
}

impl Gen<'_> {
    fn serde_attr(&self) -> Option<TokenStream> {
        let rt = &self.rt;
        let krate = format!("{}::__private::serde", self.o.runtime);
        let default = if self.o.serde_default {
            quote!(, default)
        } else {
            quote!()
        };
        let derive =
            quote!(derive(#rt::__private::serde::Serialize, #rt::__private::serde::Deserialize));
        let serde = quote!(serde(crate = #krate #default));
        match &self.o.serde {
            Serde::Off => None,
            // Two attributes: `#[derive(..), serde(..)]` is not an attribute (only `cfg_attr` takes
            // a list).
            Serde::On => Some(quote!(#[#derive] #[#serde])),
            Serde::Feature(f) => Some(quote!(#[cfg_attr(feature = #f, #derive, #serde)])),
        }
    }

    fn field_serde(&self, m: &Member, ident_text: &str) -> TokenStream {
        if self.o.serde == Serde::Off {
            return quote!();
        }
        let mut parts = Vec::new();
        if ident_text.trim_start_matches("r#") != m.name {
            let n = &m.name;
            parts.push(quote!(rename = #n));
        }
        let with = match &m.kind {
            MemberKind::Scalar(Scalar::Float) => Some("f32_as_f64"),
            MemberKind::ArrayOf(ElemType::Scalar(Scalar::Float)) => Some("vec_f32_as_f64"),
            MemberKind::Bytes => Some("bytes_hex"),
            _ => None,
        };
        if let Some(w) = with {
            let p = format!("{}::__private::{w}", self.o.runtime);
            parts.push(quote!(with = #p));
        }
        if parts.is_empty() {
            quote!()
        } else {
            quote!(#[serde(#(#parts),*)])
        }
    }

    /// Declares the struct for `members` (a level or an object) and the types of its members;
    /// returns nothing, pushing items.
    fn declare(&mut self, members: &[Member], ty: &str, def_path: &str, doc: Vec<String>) {
        let rt = self.rt.clone();
        let idents = member_idents(members);
        let mut fields = Vec::new();
        for (m, id) in members.iter().zip(&idents) {
            let sub_path = format!("{def_path}.{}", m.name);
            let sub_ty = format!("{ty}{}", naming::pascal(&m.name));
            let fty = match &m.kind {
                MemberKind::Scalar(s) => scalar_ty(&rt, *s),
                MemberKind::String => quote!(#rt::TeraString),
                MemberKind::Bytes => quote!(#rt::__private::Vec<u8>),
                MemberKind::ArrayOf(ElemType::String) => {
                    quote!(#rt::__private::Vec<#rt::TeraString>)
                }
                MemberKind::ArrayOf(ElemType::Scalar(s)) => {
                    let t = scalar_ty(&rt, *s);
                    quote!(#rt::__private::Vec<#t>)
                }
                MemberKind::Array(level) => {
                    self.level(
                        level,
                        &sub_ty,
                        &sub_path,
                        vec![format!(" An element of `{sub_path}`.")],
                    );
                    let t = format_ident!("{}", sub_ty);
                    quote!(#rt::__private::Vec<#t>)
                }
                MemberKind::Object(inner) => {
                    self.declare(
                        inner,
                        &sub_ty,
                        &sub_path,
                        vec![format!(" The object `{sub_path}`.")],
                    );
                    let t = format_ident!("{}", sub_ty);
                    quote!(#t)
                }
            };
            let mut docs = if self.o.comments {
                decl_docs(&m.decls)
            } else {
                vec![]
            };
            if m.slots.len() > 1 {
                docs.push(String::new());
                docs.push(" Declared more than once: decoding keeps the last value, encoding writes this value into every place (as the reference does).".into());
            }
            let id = ident(id);
            let serde = self.field_serde(m, &id.to_string());
            let extra = attrs(&self.o.field_attributes, &sub_path);
            fields.push(quote! {
                #(#[doc = #docs])*
                #serde
                #(#extra)*
                pub #id: #fty,
            });
        }
        let name = format_ident!("{}", ty);
        let serde = self.serde_attr();
        let extra = attrs(&self.o.type_attributes, def_path);
        self.items.push(quote! {
            #(#[doc = #doc])*
            #[derive(Debug, Clone, PartialEq, Default)]
            #serde
            #(#extra)*
            pub struct #name {
                #(#fields)*
            }
        });
    }

    fn level(&mut self, level: &Level, ty: &str, def_path: &str, doc: Vec<String>) {
        self.declare(&level.members, ty, def_path, doc);
        let rt = self.rt.clone();
        let p = quote!(#rt::__private);
        let names = level_names(level);
        let name = format_ident!("{}", ty);
        let fixed_size = Literal::usize_unsuffixed(level.fixed_size);

        // decode
        let mut dec = Vec::new();
        // encode
        let mut enc = Vec::new();
        // length
        let mut len = vec![quote!(#fixed_size)];
        let mut run_no = 0usize;
        for step in &level.steps {
            match step {
                Step::Fixed(run) => {
                    let n = Literal::usize_unsuffixed(run.size);
                    let b = format_ident!("__b{}", run_no);
                    let at = format_ident!("__at{}", run_no);
                    run_no += 1;
                    let names_list: Vec<TokenStream> = run
                        .fields
                        .iter()
                        .map(|(off, f)| {
                            let s = level.slot_name(f.slot());
                            let off = Literal::usize_unsuffixed(*off);
                            quote!((#off, #s))
                        })
                        .collect();
                    dec.push(quote!(let #b = __r.run::<#n>(&[#(#names_list),*])?;));
                    enc.push(quote!(let (#at, #b) = __w.run::<#n>();));
                    for (off, f) in &run.fields {
                        let at_start = *off == 0;
                        let off = &Literal::usize_unsuffixed(*off);
                        let local = &names.local[f.slot()];
                        match *f {
                            Fixed::Meta { slot, kind } => {
                                let ctor = match kind {
                                    MetaKind::Array => quote!(array),
                                    MetaKind::Bytes => quote!(bytes),
                                    MetaKind::String => quote!(string),
                                };
                                dec.push(quote!(let #local = #p::Meta::#ctor(#b, #off);));
                                let slot_local = format_ident!(
                                    "__slot_{}",
                                    names.local[slot].to_string().trim_start_matches("r#")
                                );
                                // No `+ 0`: clippy's identity_op would fire in users' builds.
                                let place = if at_start {
                                    quote!(#at)
                                } else {
                                    quote!(#at + #off)
                                };
                                enc.push(quote!(let #slot_local = #p::Slot(#place);));
                            }
                            Fixed::Value { slot, ty } => {
                                let t = scalar_ty(&rt, ty);
                                // A scalar declared twice: only the last place is read (as the reference).
                                if level.slot_member(slot).slots.last() == Some(&slot) {
                                    dec.push(quote!(let #local: #t = #p::get(#b, #off);));
                                }
                                let acc = &names.access[slot];
                                enc.push(quote!(#p::put(#b, #off, &self.#(#acc).*);));
                            }
                        }
                    }
                }
                Step::Var(slot) => {
                    let (d, e, l) = self.var(level, &names, *slot);
                    dec.push(d);
                    enc.push(e);
                    len.push(l);
                }
                Step::Interleaved(slots) => {
                    let mut chains = Vec::new();
                    let mut bodies = Vec::new();
                    let mut ends = Vec::new();
                    let mut lens = Vec::new();
                    for (k, &slot) in slots.iter().enumerate() {
                        let (d, _, l) = self.var(level, &names, slot);
                        dec.push(d);
                        len.push(l);
                        let c = format_ident!("__chain{}", k);
                        let slot_local = format_ident!(
                            "__slot_{}",
                            names.local[slot].to_string().trim_start_matches("r#")
                        );
                        let acc = &names.access[slot];
                        chains.push(quote!(let mut #c = #p::Chain::new(#slot_local);));
                        lens.push(quote!(self.#(#acc).*.len()));
                        let body = match &level.slot_member(slot).kind {
                            MemberKind::Array(_) => quote!(#p::Level::encode_level(__e, __w);),
                            MemberKind::ArrayOf(ElemType::String) => {
                                quote!(__w.string_element(__e);)
                            }
                            _ => quote!(__w.put(__e);),
                        };
                        bodies.push(quote! {
                            if let ::core::option::Option::Some(__e) = self.#(#acc).*.get(__i) {
                                __w.element(&mut #c);
                                #body
                            }
                        });
                        ends.push(quote!(__w.end_chain(#c);));
                    }
                    enc.push(quote! {
                        #(#chains)*
                        // Trait methods by full path: the code must compile under `#![no_implicit_prelude]`.
                        let __longest = ::core::iter::Iterator::max(::core::iter::IntoIterator::into_iter([#(#lens),*])).unwrap_or(0);
                        for __i in 0..__longest {
                            #(#bodies)*
                        }
                        #(#ends)*
                    });
                }
            }
        }
        let construct = self.construct(&level.members, ty, &names);
        let is_fixed = level.is_fixed_size();
        let len_expr = if is_fixed {
            quote!(#fixed_size)
        } else if len.len() <= MAX_SUM_TERMS {
            quote!(#(#len)+*)
        } else {
            // `a + b + ...` nests one level per term: prettyplease (and rustc) recurse that deep
            // and overflow the stack at some tens of thousands of variable fields.
            let (first, rest) = (&len[0], &len[1..]);
            quote!({
                let mut __n: usize = #first;
                #(__n += #rest;)*
                __n
            })
        };
        let uses_w = !level.steps.is_empty();
        let w_arg = if uses_w { quote!(__w) } else { quote!(_w) };
        let r_arg = if level.steps.is_empty() {
            quote!(_r)
        } else {
            quote!(__r)
        };
        self.items.push(quote! {
            impl #p::Level for #name {
                const FIXED_SIZE: usize = #fixed_size;

                fn decode_into<'s>(#r_arg: &mut #p::Reader<'_>, __out: #p::Place<'s, Self>) -> ::core::result::Result<#p::Filled<'s>, #rt::DecodeError> {
                    #(#dec)*
                    ::core::result::Result::Ok(__out.write(#construct))
                }

                fn encode_level(&self, #w_arg: &mut #p::Writer) {
                    #(#enc)*
                }

                fn level_len(&self) -> usize {
                    #len_expr
                }
            }
        });
    }

    /// Decode, encode and length of one variable field.
    fn var(
        &mut self,
        level: &Level,
        names: &Names,
        slot: usize,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let rt = &self.rt;
        let p = quote!(#rt::__private);
        let local = &names.local[slot];
        let acc = &names.access[slot];
        let field = level.slot_name(slot);
        let slot_local = format_ident!("__slot_{}", local.to_string().trim_start_matches("r#"));
        let m = level.slot_member(slot);
        let (read, write, len) = match &m.kind {
            MemberKind::String => (
                quote!(__r.string(#local)),
                quote!(__w.string(#slot_local, &self.#(#acc).*);),
                quote!(#p::string_len(&self.#(#acc).*)),
            ),
            MemberKind::Bytes => (
                quote!(__r.bytes(#local)),
                quote!(__w.bytes(#slot_local, &self.#(#acc).*);),
                quote!(self.#(#acc).*.len()),
            ),
            MemberKind::Array(_) => (
                quote!(__r.array(#local)),
                quote!(__w.array(#slot_local, &self.#(#acc).*);),
                quote!(#p::array_len(&self.#(#acc).*)),
            ),
            MemberKind::ArrayOf(ElemType::String) => (
                quote!(__r.array_of_strings(#local)),
                quote!(__w.array_of_strings(#slot_local, &self.#(#acc).*);),
                quote!(#p::strings_len(&self.#(#acc).*)),
            ),
            MemberKind::ArrayOf(ElemType::Scalar(s)) => {
                let size = Literal::usize_unsuffixed(4 + s.size());
                (
                    quote!(__r.array_of(#local)),
                    quote!(__w.array_of(#slot_local, &self.#(#acc).*);),
                    quote!(self.#(#acc).*.len() * #size),
                )
            }
            _ => unreachable!("variable fields only"),
        };
        (
            quote!(let #local = #read.map_err(|e| e.in_field(#field))?;),
            write,
            len,
        )
    }

    /// `Type { field: local, obj: ObjType { ... } }`
    fn construct(&self, members: &[Member], ty: &str, names: &Names) -> TokenStream {
        let idents = member_idents(members);
        let name = format_ident!("{}", ty);
        let mut fields = Vec::new();
        for (m, id) in members.iter().zip(&idents) {
            let id = ident(id);
            match &m.kind {
                MemberKind::Object(inner) => {
                    let sub = format!("{ty}{}", naming::pascal(&m.name));
                    let v = self.construct(inner, &sub, names);
                    fields.push(quote!(#id: #v));
                }
                _ => {
                    let local = &names.local[m.slots[0]];
                    if *local == id {
                        fields.push(quote!(#id));
                    } else {
                        fields.push(quote!(#id: #local));
                    }
                }
            }
        }
        quote!(#name { #(#fields),* })
    }
}

/// The items for one definition: its structs, their `Level` impls and the `Packet` impl.
pub fn emit(layout: &Layout, file_name: &str, o: &EmitOptions) -> TokenStream {
    let rt: TokenStream = o.runtime.parse().unwrap_or_else(|_| quote!(::def_runtime));
    let (pname, version) = layout.name.as_ref().map_or_else(
        || (file_name.trim_end_matches(".def").to_string(), 0),
        |n| (n.name.clone(), n.version),
    );
    let ty = naming::pascal(&pname);
    let mut g = Gen {
        o,
        rt: rt.clone(),
        items: Vec::new(),
    };
    let mut doc = vec![format!(" `{pname}` version {version}, from `{file_name}`.")];
    if let Some(r) = &layout.patch_range {
        doc.push(String::new());
        doc.push(format!(" Patches: {}.", code_span(&r.to_string())));
    }
    doc.push(String::new());
    let fixed = layout.root.fixed_size;
    if layout.root.is_fixed_size() {
        doc.push(format!(
            " Layout: a fixed body of {fixed} bytes after the header."
        ));
    } else {
        doc.push(format!(" Layout: {fixed} bytes of fixed fields after the header; strings, bytes and arrays follow inline in declaration order."));
    }
    g.level(&layout.root, &ty, &pname, doc);
    let name = format_ident!("{}", ty);
    let version_lit = Literal::u32_unsuffixed(version);
    let items = g.items;
    quote! {
        #(#items)*

        impl #rt::Packet for #name {
            const NAME: &'static str = #pname;
            const VERSION: u32 = #version_lit;
        }
    }
}

/// [`emit`], formatted as a file, with the `@generated` header.
pub fn generate(layout: &Layout, file_name: &str, o: &EmitOptions) -> Result<String, syn::Error> {
    let tokens = emit(layout, file_name, o);
    let file: syn::File = syn::parse2(tokens)?;
    Ok(format!(
        "// @generated by def-codegen from {file_name}; do not edit.\n{}",
        prettyplease::unparse(&file)
    ))
}
