//! From a resolved [`Layout`] to Rust items: one struct per level and object, a [`Level`] impl
//! per level that reads and writes it with static offsets and one bounds check per run of fixed
//! fields, and a `Packet` impl for the root. Emission is a pure function of the layout and the
//! options.
//!
//! [`Level`]: https://docs.rs/def-runtime (the runtime's `Level` trait, which generated code reaches through `__private`)

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
    /// Zero-copy view types beside the structs, in a module `view` of each definition's module
    /// (see [`crate::Config::views`]).
    pub views: bool,
    /// With `views`: a hidden `__check` per view type that compares every accessor with the
    /// decoder's value (for the fuzz target; [`crate::Config::view_checks`]).
    #[doc(hidden)]
    pub view_checks: bool,
    /// With `views`: the `view` modules only with this feature of the crate that includes the
    /// code (`#[cfg(feature = "NAME")]`).
    pub views_feature: Option<String>,
    /// The padding the protocol fixes for this message (the `Packet` impl's `PADDING`): `None`
    /// when the code is generated without a protocol, and the caller's options decide.
    pub padding: Option<bool>,
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
            views: false,
            view_checks: false,
            views_feature: None,
            padding: None,
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

/// The attributes of `list` that select `path`. Every one parses: [`emit`] checks them first.
fn attrs(list: &[(String, String)], path: &str) -> Vec<TokenStream> {
    list.iter()
        .filter(|(p, _)| matches(p, path))
        .filter_map(|(_, a)| attribute_tokens(a).ok())
        .collect()
}

impl EmitOptions {
    /// Checks the options that hold Rust text: the runtime path must be a Rust path
    /// (`::def_runtime`, `crate::rt`), and each type or field attribute one or more outer
    /// attributes (`#[derive(Eq)]`) and nothing else. [`crate::Config`] and the `def!` macro report
    /// what this returns; [`emit`] refuses options that fail it.
    pub fn check(&self) -> Result<(), String> {
        runtime_tokens(&self.runtime)?;
        let all = self.type_attributes.iter().map(|a| ("type", a));
        for (kind, (path, attr)) in all.chain(self.field_attributes.iter().map(|a| ("field", a))) {
            attribute_tokens(attr).map_err(|e| format!("{kind} attribute for `{path}`: {e}"))?;
        }
        Ok(())
    }
}

/// The runtime path as tokens, if it is a Rust path.
fn runtime_tokens(path: &str) -> Result<TokenStream, String> {
    syn::parse_str::<syn::Path>(path)
        .map(|p| quote!(#p))
        .map_err(|_| {
            format!(
                "runtime path `{path}` is not a Rust path (such as `::def_runtime` or `crate::rt`)"
            )
        })
}

/// An attribute string as tokens, if it is one or more outer attributes and nothing else.
fn attribute_tokens(text: &str) -> Result<TokenStream, String> {
    let attrs = syn::parse::Parser::parse_str(syn::Attribute::parse_outer, text)
        .map_err(|e| format!("`{text}` is not an attribute such as `#[derive(Eq)]` ({e})"))?;
    if attrs.is_empty() {
        return Err(format!(
            "`{text}` is not an attribute such as `#[derive(Eq)]`"
        ));
    }
    Ok(quote!(#(#attrs)*))
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

/// User text in a code span of a doc line, made safe for a comment ([`naming::doc_text`]).
fn doc_span(text: &str) -> String {
    code_span(&naming::doc_text(text))
}

fn decl_docs(decls: &[Decl]) -> Vec<String> {
    decls
        .iter()
        .map(|d| format!(" Line {}: {}", d.line, doc_span(&d.text)))
        .collect()
}

struct Gen<'a> {
    o: &'a EmitOptions,
    rt: TokenStream,
    items: Vec<TokenStream>,
    /// The runtime path as seen from the `view` module, and its items (with `EmitOptions::views`).
    view_rt: TokenStream,
    view_items: Vec<TokenStream>,
    /// The root struct's type name.
    root: String,
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

/// Per-level naming: the access path and decode local of each slot.
struct Names {
    /// For each slot: the access path from `self` (field idents).
    access: Vec<Vec<syn::Ident>>,
    /// For each slot: the local variable used while decoding.
    local: Vec<syn::Ident>,
}

fn level_names(level: &Level, names: &naming::StructNames) -> Names {
    let access = level
        .slots
        .iter()
        .map(|info| {
            let mut n = names;
            let mut path = Vec::new();
            for &i in &info.path {
                path.push(ident(&n.fields[i].ident));
                if let Some(inner) = &n.fields[i].nested {
                    n = inner;
                }
            }
            path
        })
        .collect();
    Names {
        access,
        local: naming::level_locals(level, names)
            .iter()
            .map(|s| ident(s))
            .collect(),
    }
}

/// The encode local holding the metadata place of `slot` (`__` and a number: never a field's).
fn slot_local(slot: usize) -> syn::Ident {
    format_ident!("__slot{}", slot)
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

    /// `#[serde(..)]` with `inner` inside, or its `cfg_attr` form when serde is behind a feature:
    /// every serde attribute goes through here, so none escapes the feature.
    fn serde_field_attr(&self, inner: TokenStream) -> TokenStream {
        match &self.o.serde {
            Serde::Off => quote!(),
            Serde::On => quote!(#[serde(#inner)]),
            Serde::Feature(f) => quote!(#[cfg_attr(feature = #f, serde(#inner))]),
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
            MemberKind::String => Some("tera_string"),
            MemberKind::ArrayOf(ElemType::String) => Some("vec_tera_string"),
            _ => None,
        };
        if let Some(w) = with {
            let p = format!("{}::__private::{w}", self.o.runtime);
            parts.push(quote!(with = #p));
        }
        if parts.is_empty() {
            quote!()
        } else {
            self.serde_field_attr(quote!(#(#parts),*))
        }
    }

    /// Whether the struct at `def_path` keeps serde's derive: when a type or field attribute of
    /// the options names serde (`#[serde(skip)]`, `#[cfg_attr(.., serde(..))]`), which only the
    /// derive reads.
    fn serde_derived(&self, def_path: &str, members: &[Member]) -> bool {
        let names_serde = |list: &[(String, String)], path: &str| {
            list.iter()
                .any(|(p, a)| matches(p, path) && a.contains("serde"))
        };
        names_serde(&self.o.type_attributes, def_path)
            || members
                .iter()
                .any(|m| names_serde(&self.o.field_attributes, &format!("{def_path}.{}", m.name)))
    }

    /// Serialize, Deserialize and the runtime's `Fields` for a struct, in the JSON form of the
    /// tera-vectors: the `.def` names as keys, in declaration order; `float` as f64 and `bytes` as
    /// hex (the runtime's `F64` and `Hex`). Written out instead of derived: the same form, and a
    /// fraction of the compile time (the key lookup, duplicates and missing fields live once in
    /// the runtime's `deserialize_struct`).
    fn serde_impls(
        &self,
        name: &syn::Ident,
        fields: &[(&Member, syn::Ident)],
    ) -> Option<TokenStream> {
        let cfg = match &self.o.serde {
            Serde::Off => return None,
            Serde::On => quote!(),
            Serde::Feature(f) => quote!(#[cfg(feature = #f)]),
        };
        let rt = &self.rt;
        let p = quote!(#rt::__private);
        let name_str = name.to_string();
        let keys: Vec<&str> = fields.iter().map(|(m, _)| m.name.as_str()).collect();
        let wrapper = |m: &Member| match &m.kind {
            MemberKind::Scalar(Scalar::Float)
            | MemberKind::ArrayOf(ElemType::Scalar(Scalar::Float)) => Some(quote!(#p::F64)),
            MemberKind::Bytes => Some(quote!(#p::Hex)),
            MemberKind::String | MemberKind::ArrayOf(ElemType::String) => Some(quote!(#p::Str)),
            _ => None,
        };
        let puts = fields.iter().map(|(m, id)| {
            let key = &m.name;
            match wrapper(m) {
                Some(w) => quote!(__st.serialize_field(#key, &#w(&self.#id))?;),
                None => quote!(__st.serialize_field(#key, &self.#id)?;),
            }
        });
        // One statement per field that reads it from the source into its place.
        let reads: Vec<TokenStream> = fields
            .iter()
            .map(|(m, id)| match wrapper(m) {
                Some(w) => quote!(self.#id = __src.value::<#w<_>>()?.0),
                None => quote!(self.#id = __src.value()?),
            })
            .collect();
        let body = match reads.as_slice() {
            [] => quote!(let _ = (__i, __src);),
            [read] => quote!(if __i == 0 { #read; }),
            _ => {
                let i = (0..reads.len()).map(Literal::usize_unsuffixed);
                quote!(match __i { #(#i => #reads,)* _ => {} })
            }
        };
        let n = Literal::usize_unsuffixed(fields.len());
        let mut_st = if fields.is_empty() {
            quote!(__st)
        } else {
            quote!(mut __st)
        };
        let default = self.o.serde_default;
        Some(quote! {
            #cfg
            impl #p::serde::Serialize for #name {
                fn serialize<__S: #p::serde::Serializer>(&self, __s: __S) -> ::core::result::Result<__S::Ok, __S::Error> {
                    use #p::serde::ser::SerializeStruct as _;
                    let #mut_st = __s.serialize_struct(#name_str, #n)?;
                    #(#puts)*
                    __st.end()
                }
            }
            #cfg
            impl<'de> #p::serde::Deserialize<'de> for #name {
                fn deserialize<__D: #p::serde::Deserializer<'de>>(__d: __D) -> ::core::result::Result<Self, __D::Error> {
                    #p::deserialize_struct(__d)
                }
            }
            #cfg
            impl #p::Fields for #name {
                const NAME: &'static str = #name_str;
                const FIELDS: &'static [&'static str] = &[#(#keys),*];
                const DEFAULT: bool = #default;
                fn field<'de, __S: #p::Source<'de>>(&mut self, __i: usize, __src: &mut __S) -> ::core::result::Result<(), __S::Error> {
                    #body
                    ::core::result::Result::Ok(())
                }
            }
        })
    }

    /// Declares the struct for `members` (a level or an object) and the types of its members;
    /// returns nothing, pushing items.
    fn declare(
        &mut self,
        members: &[Member],
        names: &naming::StructNames,
        def_path: &str,
        doc: Vec<String>,
    ) {
        let rt = self.rt.clone();
        let mut fields = Vec::new();
        let mut serde_fields = Vec::new();
        let derived = self.serde_derived(def_path, members);
        for (m, f) in members.iter().zip(&names.fields) {
            let id = &f.ident;
            let sub_path = format!("{def_path}.{}", m.name);
            let sub_names = f.nested.as_ref();
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
                    let sub = sub_names.expect("an array has element names");
                    self.level(
                        level,
                        sub,
                        &sub_path,
                        vec![format!(" An element of {}.", doc_span(&sub_path))],
                    );
                    let t = format_ident!("{}", sub.ty);
                    quote!(#rt::__private::Vec<#t>)
                }
                MemberKind::Object(inner) => {
                    let sub = sub_names.expect("an object has names");
                    self.declare(
                        inner,
                        sub,
                        &sub_path,
                        vec![format!(" The object {}.", doc_span(&sub_path))],
                    );
                    let t = format_ident!("{}", sub.ty);
                    quote!(#t)
                }
            };
            let mut docs = if self.o.comments {
                decl_docs(&m.decls)
            } else {
                // Still a doc, so that a crate with `#![deny(missing_docs)]` builds.
                vec![format!(
                    " The field {} of the definition.",
                    code_span(&m.name)
                )]
            };
            if m.slots.len() > 1 {
                docs.push(String::new());
                docs.push(" Declared more than once: decoding keeps the last value, encoding writes this value into every place (as the reference does).".into());
            }
            let id = ident(id);
            let serde = if derived {
                self.field_serde(m, &id.to_string())
            } else {
                quote!()
            };
            let extra = attrs(&self.o.field_attributes, &sub_path);
            fields.push(quote! {
                #(#[doc = #docs])*
                #serde
                #(#extra)*
                pub #id: #fty,
            });
            serde_fields.push((m, id));
        }
        let name = format_ident!("{}", names.ty);
        let serde = if derived { self.serde_attr() } else { None };
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
        if !derived && let Some(impls) = self.serde_impls(&name, &serde_fields) {
            self.items.push(impls);
        }
    }

    fn level(
        &mut self,
        level: &Level,
        struct_names: &naming::StructNames,
        def_path: &str,
        doc: Vec<String>,
    ) {
        self.declare(&level.members, struct_names, def_path, doc);
        let rt = self.rt.clone();
        let p = quote!(#rt::__private);
        let names = level_names(level, struct_names);
        let name = format_ident!("{}", struct_names.ty);
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
                                let slot_local = slot_local(slot);
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
                        let slot_local = slot_local(slot);
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
        let construct = Self::construct(&level.members, struct_names, &names);
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
        if self.o.views {
            self.view_level(level, struct_names);
        }
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
        let slot_local = slot_local(slot);
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
            quote!(let #local = #read.map_err(|e| #rt::__private::in_field(e, #field))?;),
            write,
            len,
        )
    }

    /// `Type { field: local, obj: ObjType { ... } }`
    fn construct(
        members: &[Member],
        struct_names: &naming::StructNames,
        names: &Names,
    ) -> TokenStream {
        let name = format_ident!("{}", struct_names.ty);
        let mut fields = Vec::new();
        for (m, f) in members.iter().zip(&struct_names.fields) {
            let id = ident(&f.ident);
            match (&m.kind, &f.nested) {
                (MemberKind::Object(inner), Some(sub)) => {
                    let v = Self::construct(inner, sub, names);
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
/// The runtime path as seen from a definition's `view` module, one level down: a path that
/// starts with `self` or `super` moves up one more; others are unchanged.
fn view_runtime(path: &str) -> Result<TokenStream, syn::Error> {
    let mut p: syn::Path = syn::parse_str(path).map_err(|_| {
        syn::Error::new(
            Span::call_site(),
            format!("runtime path `{path}` is not a Rust path"),
        )
    })?;
    if p.leading_colon.is_none()
        && let Some(first) = p.segments.first_mut()
    {
        if first.ident == "self" {
            first.ident = syn::Ident::new("super", Span::call_site());
        } else if first.ident == "super" {
            return Ok(quote!(super::#p));
        }
    }
    Ok(quote!(#p))
}

/// What kind of struct a view type stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ViewKind {
    /// The packet body.
    Root,
    /// An element of an object-array.
    Element,
    /// An object of a level (the level's place, its own fields).
    Object,
}

impl Gen<'_> {
    /// The view types of a level (the root or an element type) and of its objects.
    fn view_level(&mut self, level: &Level, names: &naming::StructNames) {
        // Each slot's offset from the level's body start, when it is static (no variable data
        // before it at this level).
        let mut offsets = vec![None; level.slots.len()];
        let mut prefix = 0usize;
        for step in &level.steps {
            if let Step::Fixed(run) = step
                && let Some(o) = run.offset
            {
                for (off, f) in &run.fields {
                    offsets[f.slot()] = Some(o + off);
                }
                prefix = prefix.max(o + run.size);
            }
        }
        let kind = if names.ty == self.root {
            ViewKind::Root
        } else {
            ViewKind::Element
        };
        self.view_struct(&level.members, names, &offsets, prefix, kind);
    }

    /// One view type: a tuple struct over `At<B>`, its getters on `&[u8]`, its setters on
    /// `&mut [u8]`, and for an element type its `Element` impl.
    fn view_struct(
        &mut self,
        members: &[Member],
        names: &naming::StructNames,
        offsets: &[Option<usize>],
        prefix: usize,
        kind: ViewKind,
    ) {
        let rt = self.view_rt.clone();
        let v = quote!(#rt::__private::view);
        let err = quote!(#rt::DecodeError);
        let res = quote!(::core::result::Result);
        let name = format_ident!("{}", names.ty);
        let methods = naming::view_methods(names);
        let mut gets = Vec::new();
        let mut sets = Vec::new();
        let mut checks = Vec::new();
        for (i, (m, f)) in members.iter().zip(&names.fields).enumerate() {
            let fid = ident(&f.ident);
            let get = ident(&methods.get[i]);
            let set = ident(&methods.set[i]);
            let get_mut = ident(&methods.get_mut[i]);
            let doc = format!(" The field {}.", doc_span(&m.name));
            let field_name = &m.name;
            let rel = |slot: usize| offsets[slot].map(Literal::usize_unsuffixed);
            match &m.kind {
                MemberKind::Scalar(sc) => {
                    let t = scalar_ty(&rt, *sc);
                    // Decoding keeps the last place of a scalar declared twice; encoding writes
                    // every place.
                    if let Some(last) = m.slots.last().and_then(|&s| rel(s)) {
                        checks.push(quote!(__c.fixed(#field_name, self.#get(), &__o.#fid);));
                        gets.push(quote! {
                            #[doc = #doc]
                            #[inline]
                            pub fn #get(&self) -> #t {
                                self.0.get::<#t>(#last)
                            }
                        });
                    }
                    let all: Option<Vec<Literal>> = m.slots.iter().map(|&s| rel(s)).collect();
                    if let Some(all) = all {
                        let doc = format!(" Sets the field {} in place.", doc_span(&m.name));
                        sets.push(quote! {
                            #[doc = #doc]
                            #[inline]
                            pub fn #set(&mut self, value: #t) {
                                #(self.0.put::<#t>(#all, &value);)*
                            }
                        });
                    }
                }
                MemberKind::Object(inner) => {
                    let sub = f.nested.as_ref().expect("an object has names");
                    self.view_struct(inner, sub, offsets, prefix, ViewKind::Object);
                    let t = format_ident!("{}", sub.ty);
                    checks.push(quote!(self.#get().__check(&__o.#fid, __c);));
                    gets.push(quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #get(&self) -> #t<&'a [u8]> {
                            #t(self.0)
                        }
                    });
                    let doc = format!(" The object {}, to change in place.", doc_span(&m.name));
                    sets.push(quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #get_mut(&mut self) -> #t<&mut [u8]> {
                            #t(self.0.reborrow())
                        }
                    });
                }
                kind => {
                    let Some(at) = m.slots.first().and_then(|&s| rel(s)) else {
                        continue;
                    };
                    checks.push(match kind {
                        MemberKind::String => quote!(__c.string(#field_name, self.#get(), &__o.#fid);),
                        MemberKind::Bytes => quote!(__c.data(#field_name, self.#get(), &__o.#fid);),
                        MemberKind::ArrayOf(ElemType::String) => {
                            quote!(__c.strings(#field_name, self.#get(), &__o.#fid);)
                        }
                        MemberKind::ArrayOf(_) => {
                            quote!(__c.fixeds(#field_name, self.#get(), &__o.#fid);)
                        }
                        _ => quote! {
                            __c.elements(#field_name, self.#get(), &__o.#fid, |__e, __x, __c| __e.__check(__x, __c));
                        },
                    });
                    match kind {
                        MemberKind::String => gets.push(quote! {
                            #[doc = #doc]
                            #[inline]
                            pub fn #get(&self) -> #res<#v::Utf16Str<'a>, #err> {
                                self.0.string(#at).map_err(|e| #rt::__private::in_field(e, #field_name))
                            }
                        }),
                        MemberKind::Bytes => gets.push(quote! {
                            #[doc = #doc]
                            #[inline]
                            pub fn #get(&self) -> #res<&'a [u8], #err> {
                                self.0.data(#at).map_err(|e| #rt::__private::in_field(e, #field_name))
                            }
                        }),
                        MemberKind::ArrayOf(ElemType::String) => gets.push(quote! {
                            #[doc = #doc]
                            #[inline]
                            pub fn #get(&self) -> #v::Strings<'a> {
                                self.0.strings(#at)
                            }
                        }),
                        MemberKind::ArrayOf(ElemType::Scalar(sc)) => {
                            let t = scalar_ty(&rt, *sc);
                            gets.push(quote! {
                                #[doc = #doc]
                                #[inline]
                                pub fn #get(&self) -> #v::Fixeds<'a, #t> {
                                    self.0.fixeds(#at)
                                }
                            })
                        }
                        MemberKind::Array(_) => {
                            let sub = f.nested.as_ref().expect("an array has element names");
                            let t = format_ident!("{}", sub.ty);
                            gets.push(quote! {
                                #[doc = #doc]
                                #[inline]
                                pub fn #get(&self) -> #v::Elements<'a, #t<()>> {
                                    self.0.elements(#at)
                                }
                            });
                            let doc = format!(
                                " The elements of {}, to change in place.",
                                doc_span(&m.name)
                            );
                            sets.push(quote! {
                                #[doc = #doc]
                                #[inline]
                                pub fn #get_mut(&mut self) -> #v::ElementsMut<'_, #t<()>> {
                                    self.0.elements_mut(#at)
                                }
                            });
                        }
                        _ => {}
                    }
                }
            }
        }
        let owned = quote!(super::#name);
        let prefix_lit = Literal::usize_unsuffixed(prefix);
        let (ctor, to_owned) = match kind {
            ViewKind::Root => (
                quote! {
                    /// A view of a whole packet: checks its header (in strict mode, that the
                    /// header's length is the packet's) and that the fixed fields fit; every
                    /// other field is checked when it is read. The padding is the protocol's
                    /// when it fixes one for this message (`Packet::PADDING`), else `opts`'.
                    pub fn new(bytes: &'a [u8], opts: #rt::Options) -> #res<Self, #err> {
                        #v::At::root(bytes, <#owned as #rt::Packet>::options(opts), #prefix_lit)
                            .map(#name)
                    }
                },
                quote! {
                    /// The owned struct, by the full decoder.
                    pub fn to_owned(self) -> #res<#owned, #err> {
                        <#owned as #rt::Packet>::decode(self.0.bytes(), self.0.options())
                    }
                },
            ),
            ViewKind::Element => (
                quote!(),
                quote! {
                    /// The owned struct, by the full decoder.
                    pub fn to_owned(self) -> #res<#owned, #err> {
                        self.0.decode_element::<#owned>()
                    }
                },
            ),
            ViewKind::Object => (quote!(), quote!()),
        };
        let ctor_mut = if kind == ViewKind::Root {
            quote! {
                /// A view of a whole packet that changes fixed fields in place, checked as by `new`.
                pub fn new_mut(bytes: &'a mut [u8], opts: #rt::Options) -> #res<Self, #err> {
                    #v::At::root_mut(bytes, <#owned as #rt::Packet>::options(opts), #prefix_lit)
                        .map(#name)
                }
            }
        } else {
            quote!()
        };
        let doc = match kind {
            ViewKind::Root => format!(
                " A view of a packet of [`super::{}`] over its bytes `B` (`&[u8]` to read, `&mut [u8]` to change fixed fields in place).",
                names.ty
            ),
            ViewKind::Element => format!(
                " A view of an element [`super::{}`] (`B` as for the packet's view).",
                names.ty
            ),
            ViewKind::Object => format!(
                " A view of the object [`super::{}`] (`B` as for the packet's view).",
                names.ty
            ),
        };
        let check = if self.o.view_checks {
            quote! {
                /// Compares every accessor with the decoder's value (the fuzz target's check).
                #[doc(hidden)]
                pub fn __check(self, __o: &#owned, __c: &mut #v::check::Checker) {
                    let _ = (&__o, &__c);
                    #(#checks)*
                }
            }
        } else {
            quote!()
        };
        self.view_items.push(quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Copy)]
            pub struct #name<B>(#v::At<B>);

            // Getters are named after fields, which may be named like std's methods.
            #[allow(clippy::should_implement_trait, clippy::wrong_self_convention, clippy::needless_lifetimes)]
            impl<'a> #name<&'a [u8]> {
                #ctor
                #to_owned
                #check
                #(#gets)*
            }

            #[allow(clippy::should_implement_trait, clippy::wrong_self_convention, clippy::needless_lifetimes)]
            impl<'a> #name<&'a mut [u8]> {
                #ctor_mut
                /// The same view, read-only.
                pub fn view(&self) -> #name<&[u8]> {
                    #name(self.0.shared())
                }
                #(#sets)*
            }
        });
        if kind == ViewKind::Element {
            self.view_items.push(quote! {
                impl #v::Element for #name<()> {
                    type With<B> = #name<B>;
                    const SIZE: usize = 4 + <#owned as #rt::__private::Level>::FIXED_SIZE;
                    const PREFIX: usize = #prefix_lit;
                    fn wrap<B>(at: #v::At<B>) -> #name<B> {
                        #name(at)
                    }
                }
            });
        }
    }
}

/// The items for one definition: its structs, their `Level` impls and the `Packet` impl.
///
/// Fails only for options that [`EmitOptions::check`] refuses.
pub fn emit(layout: &Layout, file_name: &str, o: &EmitOptions) -> Result<TokenStream, syn::Error> {
    o.check()
        .map_err(|e| syn::Error::new(Span::call_site(), e))?;
    let rt = runtime_tokens(&o.runtime).map_err(|e| syn::Error::new(Span::call_site(), e))?;
    let (pname, version) = layout.name.as_ref().map_or_else(
        || (file_name.trim_end_matches(".def").to_string(), 0),
        |n| (n.name.clone(), n.version),
    );
    let names = naming::struct_names(&layout.root.members, &naming::type_name(&pname));
    let mut g = Gen {
        o,
        rt: rt.clone(),
        items: Vec::new(),
        view_rt: view_runtime(&o.runtime)?,
        view_items: Vec::new(),
        root: names.ty.clone(),
    };
    let mut doc = vec![format!(
        " {} version {version}, from {}.",
        doc_span(&pname),
        doc_span(file_name)
    )];
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
    g.level(&layout.root, &names, &pname, doc);
    let name = format_ident!("{}", names.ty);
    let version_lit = Literal::u32_unsuffixed(version);
    let items = g.items;
    let padding = o.padding.map(
        |p| quote!(const PADDING: ::core::option::Option<bool> = ::core::option::Option::Some(#p);),
    );
    let views = if o.views {
        let v = g.view_items;
        let doc = format!(
            " Zero-copy views of {}: each type reads the fields of the struct of the same name \
             from the packet's bytes, on demand (`def_runtime::tera::view`).",
            doc_span(&pname)
        );
        let cfg = o
            .views_feature
            .as_ref()
            .map(|f| quote!(#[cfg(feature = #f)]));
        quote! {
            #[doc = #doc]
            #cfg
            pub mod view {
                #(#v)*
            }
        }
    } else {
        quote!()
    };
    Ok(quote! {
        #(#items)*
        #views

        impl #rt::Packet for #name {
            const NAME: &'static str = #pname;
            const VERSION: u32 = #version_lit;
            #padding
        }
    })
}

/// [`emit`], formatted as a file, with the `@generated` header.
pub fn generate(layout: &Layout, file_name: &str, o: &EmitOptions) -> Result<String, syn::Error> {
    let tokens = emit(layout, file_name, o)?;
    let file: syn::File = syn::parse2(tokens)?;
    Ok(format!(
        "// @generated by def-codegen from {}; do not edit.\n{}",
        // The name is user text in a line comment: a line break in it would end the comment.
        naming::doc_text(file_name),
        prettyplease::unparse(&file)
    ))
}
