//! Hooks on the packets of a connection, in TERA Toolbox's manner: a hook names a message (or
//! every message), gets the packet as bytes or as its generated type, and says whether it
//! changed it, silenced it, or let it pass.
//!
//! * [`Dispatch::raw`]: a hook on the bytes of one message (it may change them; it can make a
//!   zero-copy view over them to read or patch fields in place); [`Dispatch::all`]: on every
//!   packet.
//! * [`Dispatch::hook`]: a hook on a message type of a generated protocol (`T: Packet`); the
//!   packet is decoded once for the hooks of that type that follow one another, and encoded
//!   again only when a hook returns [`Action::Modified`]. Packets no hook wants are neither
//!   decoded nor copied.
//! * A protocol loaded at run time (feature `dynamic`): [`Dispatch::for_protocol`] over a
//!   `dynamic::Protocol`, and `Dispatch::hook_json`, a hook by message name and version on
//!   the packet's JSON object (the tera-vectors form, as Toolbox's mods get it), decoded and
//!   encoded under the same rules as typed hooks. Raw and wildcard hooks work over both maps.
//! * Each hook has an order (lower first, ties in the order of registration), a [`Filter`] on
//!   fake, modified and silenced packets and on the direction (Toolbox's defaults: no fake and
//!   no silenced packets), and may fire once. [`Dispatch::unhook`] removes one by its handle.
//! * Fake packets: [`Context::send`] inside a hook, [`Dispatch::send`] outside. They go through
//!   the hooks as fake packets, then wait in [`Dispatch::take_sent`], which the connection
//!   writes before the packet it is handling.
//!
//! A hook that panics, or whose message does not decode, is reported once
//! ([`Dispatch::take_failures`]) and the packet goes on as the hooks before it left it; the
//! connection goes on. Registering a hook for a message the protocol's map does not have is an
//! error at registration.
//!
//! ```
//! use def_runtime::Options;
//! use def_runtime::tera::dispatch::{Action, Direction, Dispatch, Handled, HookOptions};
//! use def_runtime::tera::protocol::OpcodeMap;
//!
//! const MAP: OpcodeMap = OpcodeMap::new(&[("S_PING", 0x1234)], &[(0x1234, "S_PING")], &[]);
//! let mut dispatch = Dispatch::new(MAP, Options::new());
//! dispatch.raw("S_PING", HookOptions::new(), |_, bytes| {
//!     bytes[4] = 7; // the first byte after the header
//!     Action::Modified
//! })?;
//! let handled = dispatch.handle(Direction::ToClient, &[5, 0, 0x34, 0x12, 1]);
//! assert_eq!(handled, Handled::Replace(vec![5, 0, 0x34, 0x12, 7]));
//! // Other opcodes pass untouched, without a copy.
//! assert_eq!(dispatch.handle(Direction::ToClient, &[5, 0, 0x35, 0x12, 1]), Handled::Forward);
//! # Ok::<(), def_runtime::tera::dispatch::DispatchError>(())
//! ```

use std::any::Any;
use std::boxed::Box;
use std::collections::BTreeMap;
use std::fmt;
use std::format;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::string::{String, ToString};
use std::vec::Vec;

#[cfg(feature = "dynamic")]
use super::dynamic::{Missing, Protocol};
use super::protocol::OpcodeMap;
use super::{Options, Packet, whole_opcode};
#[cfg(feature = "dynamic")]
use std::sync::Arc;

/// Which way a packet travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the client to the server (`C_` messages).
    ToServer,
    /// From the server to the client (`S_` messages).
    ToClient,
}

/// What a hook did with the packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Nothing to write: changes a raw hook made to its bytes are dropped. (A typed hook's
    /// changes stay in the message the later hooks of its type share, as in Toolbox, and are
    /// written if one of them returns `Modified`.)
    Pass,
    /// It changed the packet: later hooks and the peer get the change.
    Modified,
    /// The packet is not forwarded (later hooks whose filter takes silenced packets still see it).
    Silence,
}

/// Which packets a hook sees; `None` takes both. The default is Toolbox's: real packets only
/// (`fake: Some(false)`), not silenced ones (`silenced: Some(false)`), modified or not, both
/// directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter {
    /// Fake packets (sent by hooks or by [`Dispatch::send`]).
    pub fake: Option<bool>,
    /// Packets an earlier hook modified.
    pub modified: Option<bool>,
    /// Packets an earlier hook silenced.
    pub silenced: Option<bool>,
    /// Packets from the server (`Some(true)`) or from the client.
    pub incoming: Option<bool>,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            fake: Some(false),
            modified: None,
            silenced: Some(false),
            incoming: None,
        }
    }
}

impl Filter {
    fn takes(&self, p: &State) -> bool {
        let ok = |want: Option<bool>, is: bool| want.is_none_or(|w| w == is);
        ok(self.fake, p.fake)
            && ok(self.modified, p.modified)
            && ok(self.silenced, p.silenced)
            && ok(self.incoming, p.direction == Direction::ToClient)
    }
}

/// A hook's order, filter, and whether it fires once.
#[derive(Clone, Copy, Debug, Default)]
pub struct HookOptions {
    order: i32,
    filter: Filter,
    once: bool,
}

impl HookOptions {
    /// Order 0, the default filter, every time.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lower runs first; hooks of one order run in the order they were registered.
    pub fn order(mut self, order: i32) -> Self {
        self.order = order;
        self
    }

    /// Which packets the hook sees.
    pub fn filter(mut self, filter: Filter) -> Self {
        self.filter = filter;
        self
    }

    /// Removed after the first packet it sees.
    pub fn once(mut self) -> Self {
        self.once = true;
        self
    }
}

/// A registered hook, for [`Dispatch::unhook`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HookId(u64);

/// What a hook is told about the packet, and where it sends fake packets.
#[derive(Debug)]
pub struct Context<'a> {
    state: &'a State,
    sent: &'a mut Vec<(Direction, Vec<u8>)>,
}

impl Context<'_> {
    /// Which way the packet travels.
    pub fn direction(&self) -> Direction {
        self.state.direction
    }

    /// Whether it is a fake packet.
    pub fn is_fake(&self) -> bool {
        self.state.fake
    }

    /// Whether an earlier hook modified it.
    pub fn is_modified(&self) -> bool {
        self.state.modified
    }

    /// Whether an earlier hook silenced it.
    pub fn is_silenced(&self) -> bool {
        self.state.silenced
    }

    /// Sends a fake packet (a whole packet, header included) `direction`: it goes through the
    /// hooks as a fake packet once this packet's hooks are done, and is written before it.
    pub fn send(&mut self, direction: Direction, packet: Vec<u8>) {
        self.sent.push((direction, packet));
    }
}

/// What to do with a packet once its hooks ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handled {
    /// Forward the packet as it came.
    Forward,
    /// Forward these bytes instead.
    Replace(Vec<u8>),
    /// Do not forward it.
    Silence,
}

/// A hook that failed: it panicked, or its message did not decode. Reported once per hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookFailure {
    /// The hook.
    pub hook: HookId,
    /// The message it hooks (`*` for every message).
    pub message: String,
    /// What happened.
    pub what: String,
}

impl fmt::Display for HookFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "hook {} on {}: {}",
            self.hook.0,
            crate::clip::Clip(&self.message, crate::clip::NAME),
            crate::clip::Clip(&self.what, crate::clip::PATH)
        )
    }
}

/// A hook could not be registered.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DispatchError {
    /// The protocol's map has no message of this name.
    UnknownMessage {
        /// The name asked for.
        name: String,
    },
    /// A protocol loaded at run time has no definition of the message in this version (`None`:
    /// no current one).
    NoDefinition {
        /// The message.
        name: String,
        /// The version asked for; `None` for the current one.
        version: Option<u32>,
    },
}

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DispatchError::UnknownMessage { name } => write!(
                f,
                "the protocol has no message {}",
                crate::clip::Clip(name, crate::clip::NAME)
            ),
            DispatchError::NoDefinition {
                name,
                version: Some(v),
            } => write!(
                f,
                "the protocol has no definition of {} version {v}",
                crate::clip::Clip(name, crate::clip::NAME)
            ),
            DispatchError::NoDefinition {
                name,
                version: None,
            } => write!(
                f,
                "the protocol has no current definition of {}",
                crate::clip::Clip(name, crate::clip::NAME)
            ),
        }
    }
}

impl std::error::Error for DispatchError {}

type RawFn = Box<dyn FnMut(&mut Context<'_>, &mut Vec<u8>) -> Action + Send>;
type TypedFn = Box<dyn FnMut(&mut Context<'_>, &mut dyn Any) -> Action + Send>;
type DecodeFn = Box<dyn Fn(&[u8], Options) -> Result<Box<dyn Any + Send>, String> + Send>;
type EncodeFn = Box<dyn Fn(&dyn Any, u16, Options) -> Result<Vec<u8>, String> + Send>;

/// What a decoded message is: the hooks of one opcode that follow one another and have the same
/// shape share one decoded message.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A generated type (its type name).
    Type(&'static str),
    /// The JSON object of a definition loaded at run time (its version).
    #[cfg(feature = "dynamic")]
    Json(u32),
}

enum Kind {
    Raw(RawFn),
    Typed {
        shape: Shape,
        decode: DecodeFn,
        encode: EncodeFn,
        call: TypedFn,
    },
}

/// The protocol's names and opcodes: a generated crate's constant map, or a protocol loaded at
/// run time. Looked up when a hook is registered and when a hooked packet is decoded, never on
/// the path of a packet no hook wants.
enum Names {
    Static(OpcodeMap),
    #[cfg(feature = "dynamic")]
    Dynamic(Arc<Protocol>),
}

impl Names {
    fn opcode(&self, name: &str) -> Option<u16> {
        match self {
            Names::Static(m) => m.opcode(name),
            #[cfg(feature = "dynamic")]
            Names::Dynamic(p) => p.opcode_of(name),
        }
    }

    fn name(&self, opcode: u16) -> Option<&str> {
        match self {
            Names::Static(m) => m.name(opcode),
            #[cfg(feature = "dynamic")]
            Names::Dynamic(p) => p.name_of(opcode),
        }
    }

    fn options(&self, opcode: u16, options: Options) -> Options {
        match self {
            Names::Static(m) => m.options(opcode, options),
            #[cfg(feature = "dynamic")]
            Names::Dynamic(p) => options.padding(p.message(opcode).is_some_and(|m| m.padding)),
        }
    }
}

struct Hook {
    meta: Meta,
    options: HookOptions,
    kind: Kind,
}

/// Who a hook is, for its failure report, which is made once.
struct Meta {
    id: u64,
    message: String,
    reported: bool,
}

impl Meta {
    /// Reports the hook's failure, the first time only.
    fn report(&mut self, failures: &mut Vec<HookFailure>, what: String) {
        if !self.reported {
            self.reported = true;
            failures.push(HookFailure {
                hook: HookId(self.id),
                message: self.message.clone(),
                what,
            });
        }
    }
}

/// The word of the hooked-opcode bitmap that holds `op`, and `op`'s bit in it.
fn bit(op: u16) -> (usize, u64) {
    (usize::from(op >> 6), 1 << (op & 63))
}

/// The packet being handled.
#[derive(Debug)]
struct State {
    direction: Direction,
    fake: bool,
    modified: bool,
    silenced: bool,
}

/// Fake packets handled per call at most: a hook that answers every fake packet with another
/// would otherwise never end.
const MAX_FAKES_PER_CALL: usize = 1024;

/// The hooks of a connection over one protocol's opcode map. See the module docs.
pub struct Dispatch {
    names: Names,
    options: Options,
    by_opcode: BTreeMap<u16, Vec<Hook>>,
    /// A bit per opcode with hooks, so that a packet no hook wants costs one load.
    hooked: Box<[u64; 1024]>,
    every: Vec<Hook>,
    next_id: u64,
    failures: Vec<HookFailure>,
    sent: Vec<(Direction, Vec<u8>)>,
}

impl fmt::Debug for Dispatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dispatch")
            .field("hooked_opcodes", &self.by_opcode.len())
            .field("hooks_on_every_packet", &self.every.len())
            .finish_non_exhaustive()
    }
}

impl Dispatch {
    /// No hooks yet, over `map` (the protocol's, `MAP` of a generated crate); typed hooks decode
    /// and encode with `options` and the map's padding.
    pub fn new(map: OpcodeMap, options: Options) -> Self {
        Self::over(Names::Static(map), options)
    }

    /// No hooks yet, over a protocol loaded at run time: hooks name its messages, typed and JSON
    /// hooks decode with `options` and the padding of the protocol's message.
    #[cfg(feature = "dynamic")]
    pub fn for_protocol(protocol: Arc<Protocol>, options: Options) -> Self {
        Self::over(Names::Dynamic(protocol), options)
    }

    fn over(names: Names, options: Options) -> Self {
        Dispatch {
            names,
            options,
            by_opcode: BTreeMap::new(),
            hooked: Box::new([0; 1024]),
            every: Vec::new(),
            next_id: 0,
            failures: Vec::new(),
            sent: Vec::new(),
        }
    }

    fn add(
        &mut self,
        opcode: Option<u16>,
        message: String,
        options: HookOptions,
        kind: Kind,
    ) -> HookId {
        let id = self.next_id;
        self.next_id += 1;
        let hook = Hook {
            meta: Meta {
                id,
                message,
                reported: false,
            },
            options,
            kind,
        };
        let list = match opcode {
            Some(op) => {
                let (word, b) = bit(op);
                self.hooked[word] |= b;
                self.by_opcode.entry(op).or_default()
            }
            None => &mut self.every,
        };
        // Sorted by (order, id); a new hook has the highest id.
        let at = list.partition_point(|h| h.options.order <= options.order);
        list.insert(at, hook);
        HookId(id)
    }

    fn message(&self, name: &str) -> Result<(u16, String), DispatchError> {
        let opcode = self
            .names
            .opcode(name)
            .ok_or_else(|| DispatchError::UnknownMessage {
                name: name.to_string(),
            })?;
        let name = self.names.name(opcode).unwrap_or("?").to_string();
        Ok((opcode, name))
    }

    /// Hooks the bytes of message `name` (header included). The hook may change them (any
    /// length) and return [`Action::Modified`].
    pub fn raw(
        &mut self,
        name: &str,
        options: HookOptions,
        hook: impl FnMut(&mut Context<'_>, &mut Vec<u8>) -> Action + Send + 'static,
    ) -> Result<HookId, DispatchError> {
        let (opcode, message) = self.message(name)?;
        Ok(self.add(Some(opcode), message, options, Kind::Raw(Box::new(hook))))
    }

    /// Hooks the bytes of every packet.
    pub fn all(
        &mut self,
        options: HookOptions,
        hook: impl FnMut(&mut Context<'_>, &mut Vec<u8>) -> Action + Send + 'static,
    ) -> HookId {
        self.add(None, String::from("*"), options, Kind::Raw(Box::new(hook)))
    }

    /// Hooks message type `T` of the protocol (by its name, `T::NAME`), decoded.
    pub fn hook<T: Packet + Send + 'static>(
        &mut self,
        options: HookOptions,
        mut hook: impl FnMut(&mut Context<'_>, &mut T) -> Action + Send + 'static,
    ) -> Result<HookId, DispatchError> {
        let (opcode, message) = self.message(T::NAME)?;
        let call: TypedFn = Box::new(move |cx, any| match any.downcast_mut::<T>() {
            Some(t) => hook(cx, t),
            None => Action::Pass,
        });
        let decode: DecodeFn = Box::new(|b, o| {
            T::decode(b, o)
                .map(|t| Box::new(t) as Box<dyn Any + Send>)
                .map_err(|e| e.to_string())
        });
        let encode: EncodeFn = Box::new(|any, op, o| match any.downcast_ref::<T>() {
            Some(t) => t.encode(op, o).map_err(|e| e.to_string()),
            None => Err(String::from("not the hooked type")),
        });
        let kind = Kind::Typed {
            shape: Shape::Type(core::any::type_name::<T>()),
            decode,
            encode,
            call,
        };
        Ok(self.add(Some(opcode), message, options, kind))
    }

    /// Hooks message `name` of a protocol loaded at run time ([`Dispatch::for_protocol`]) as its
    /// JSON object (the tera-vectors form): decoded with the definition of `version`, or with
    /// the message's current one for `None` (Toolbox's `'*'`). A hook that changed the object
    /// returns [`Action::Modified`] and the object is encoded again with that definition (a
    /// member left out is an error, reported as the hook's failure). The hooks of one message
    /// and version that follow one another share one decoded object.
    ///
    /// An error when the protocol has no message `name`, no definition of it in `version`, or
    /// (`None`) no current one; and over a generated crate's map (made by [`Dispatch::new`]),
    /// which has no definitions, always [`DispatchError::NoDefinition`].
    #[cfg(feature = "dynamic")]
    pub fn hook_json(
        &mut self,
        name: &str,
        version: Option<u32>,
        options: HookOptions,
        mut hook: impl FnMut(&mut Context<'_>, &mut serde_json::Value) -> Action + Send + 'static,
    ) -> Result<HookId, DispatchError> {
        let (opcode, message) = self.message(name)?;
        let no_definition = || DispatchError::NoDefinition {
            name: message.clone(),
            version,
        };
        let Names::Dynamic(protocol) = &self.names else {
            return Err(no_definition());
        };
        let definition = match version {
            None => protocol.message(opcode).map(|m| &m.definition),
            Some(v) => protocol.definition(&message, v),
        }
        .ok_or_else(no_definition)?
        .clone();
        let shape = Shape::Json(definition.version());
        let call: TypedFn = Box::new(move |cx, any| match any.downcast_mut() {
            Some(v) => hook(cx, v),
            None => Action::Pass,
        });
        let d = Arc::new(definition);
        let e = d.clone();
        let decode: DecodeFn = Box::new(move |b, o| {
            d.decode_json(b, o)
                .map(|v| Box::new(v) as Box<dyn Any + Send>)
                .map_err(|e| e.to_string())
        });
        let encode: EncodeFn = Box::new(move |any, op, o| match any.downcast_ref() {
            Some(v) => e
                .encode(v, op, o, Missing::Error)
                .map_err(|e| e.to_string()),
            None => Err(String::from("not a JSON object")),
        });
        let kind = Kind::Typed {
            shape,
            decode,
            encode,
            call,
        };
        Ok(self.add(Some(opcode), message, options, kind))
    }

    /// Removes a hook; whether it was there.
    pub fn unhook(&mut self, id: HookId) -> bool {
        let mut found = false;
        for list in self.by_opcode.values_mut().chain([&mut self.every]) {
            let before = list.len();
            list.retain(|h| h.meta.id != id.0);
            found |= list.len() != before;
        }
        let hooked = &mut self.hooked;
        self.by_opcode.retain(|&op, l| {
            if l.is_empty() {
                let (word, b) = bit(op);
                hooked[word] &= !b;
            }
            !l.is_empty()
        });
        found
    }

    /// Sends a fake packet `direction` from outside the hooks: it goes through the hooks as a
    /// fake packet now and, unless silenced, waits in [`Dispatch::take_sent`].
    pub fn send(&mut self, direction: Direction, packet: Vec<u8>) {
        self.run_fakes(vec![(direction, packet)]);
    }

    /// The fake packets to write, in order: the connection writes them before the packet it
    /// just handled.
    pub fn take_sent(&mut self) -> std::vec::Drain<'_, (Direction, Vec<u8>)> {
        self.sent.drain(..)
    }

    /// The hooks that failed since the last call, each reported once.
    pub fn take_failures(&mut self) -> Vec<HookFailure> {
        core::mem::take(&mut self.failures)
    }

    /// Runs the hooks of `packet` (a whole packet, header included) travelling `direction`.
    #[inline]
    pub fn handle(&mut self, direction: Direction, packet: &[u8]) -> Handled {
        if let [_, _, a, b, ..] = *packet
            && self.every.is_empty()
        {
            let (word, mask) = bit(u16::from_le_bytes([a, b]));
            if self.hooked[word] & mask == 0 {
                return Handled::Forward;
            }
        }
        self.handle_hooked(direction, packet)
    }

    fn handle_hooked(&mut self, direction: Direction, packet: &[u8]) -> Handled {
        let mut fakes = Vec::new();
        let handled = self.run(direction, packet, false, &mut fakes);
        if !fakes.is_empty() {
            self.run_fakes(fakes);
        }
        handled
    }

    fn run_fakes(&mut self, mut queue: Vec<(Direction, Vec<u8>)>) {
        let mut done = 0;
        while !queue.is_empty() {
            let batch = core::mem::take(&mut queue);
            for (direction, packet) in batch {
                done += 1;
                if done > MAX_FAKES_PER_CALL {
                    self.failures.push(HookFailure {
                        hook: HookId(u64::MAX),
                        message: String::from("*"),
                        what: format!(
                            "more than {MAX_FAKES_PER_CALL} fake packets from one packet: the rest are dropped"
                        ),
                    });
                    return;
                }
                match self.run(direction, &packet, true, &mut queue) {
                    Handled::Forward => self.sent.push((direction, packet)),
                    Handled::Replace(b) => self.sent.push((direction, b)),
                    Handled::Silence => {}
                }
            }
        }
    }

    fn run(
        &mut self,
        direction: Direction,
        packet: &[u8],
        fake: bool,
        sent: &mut Vec<(Direction, Vec<u8>)>,
    ) -> Handled {
        let Ok(opcode) = whole_opcode(packet) else {
            return Handled::Forward;
        };
        let none = &mut Vec::new();
        let hooks = match self.by_opcode.get_mut(&opcode) {
            Some(l) => l,
            None if self.every.is_empty() => return Handled::Forward,
            None => none,
        };
        let options = self.names.options(opcode, self.options);
        let mut state = State {
            direction,
            fake,
            modified: false,
            silenced: false,
        };
        // The packet's bytes once a hook changed them, and the message the typed hooks of one
        // type share, decoded from them.
        let mut bytes: Option<Vec<u8>> = None;
        let mut decoded: Option<(Shape, Box<dyn Any + Send>)> = None;
        let mut fired_once = Vec::new();
        let (mut i, mut j) = (0, 0);
        let every = &mut self.every;
        let failures = &mut self.failures;
        loop {
            // The next hook of the two lists by (order, id).
            let take_every = match (hooks.get(i), every.get(j)) {
                (None, None) => break,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(a), Some(b)) => (b.options.order, b.meta.id) < (a.options.order, a.meta.id),
            };
            let hook = if take_every {
                j += 1;
                &mut every[j - 1]
            } else {
                i += 1;
                &mut hooks[i - 1]
            };
            if !hook.options.filter.takes(&state) {
                continue;
            }
            if hook.options.once {
                fired_once.push(hook.meta.id);
            }
            let mut cx_sent = Vec::new();
            let action = match &mut hook.kind {
                Kind::Raw(f) => {
                    // The bytes as the hooks before left them (a typed hook that modified its
                    // message wrote it back at once).
                    let current = bytes.as_deref().unwrap_or(packet);
                    let mut buf = current.to_vec();
                    let mut cx = Context {
                        state: &state,
                        sent: &mut cx_sent,
                    };
                    match catch_unwind(AssertUnwindSafe(|| f(&mut cx, &mut buf))) {
                        Ok(Action::Modified) => {
                            bytes = Some(buf);
                            decoded = None;
                            Action::Modified
                        }
                        Ok(a) => a,
                        Err(p) => {
                            hook.meta.report(failures, panic_text(&p));
                            Action::Pass
                        }
                    }
                }
                Kind::Typed {
                    shape,
                    decode,
                    encode,
                    call,
                } => {
                    // Another type's changes are written before this type reads the bytes.
                    if decoded.as_ref().is_some_and(|(t, _)| t != shape) {
                        decoded = None;
                    }
                    if decoded.is_none() {
                        let current = bytes.as_deref().unwrap_or(packet);
                        match decode(current, options) {
                            Ok(obj) => decoded = Some((*shape, obj)),
                            Err(e) => {
                                hook.meta.report(failures, format!("does not decode: {e}"));
                                continue;
                            }
                        }
                    }
                    let (_, obj) = decoded.as_mut().expect("decoded above");
                    let mut cx = Context {
                        state: &state,
                        sent: &mut cx_sent,
                    };
                    match catch_unwind(AssertUnwindSafe(|| call(&mut cx, obj.as_mut()))) {
                        Ok(Action::Modified) => match encode(obj.as_ref(), opcode, options) {
                            Ok(b) => {
                                bytes = Some(b);
                                Action::Modified
                            }
                            Err(e) => {
                                hook.meta.report(failures, format!("does not encode: {e}"));
                                decoded = None;
                                Action::Pass
                            }
                        },
                        Ok(a) => a,
                        Err(p) => {
                            hook.meta.report(failures, panic_text(&p));
                            // Its half-made changes are dropped: read again from the bytes.
                            decoded = None;
                            Action::Pass
                        }
                    }
                }
            };
            sent.append(&mut cx_sent);
            match action {
                Action::Modified => state.modified = true,
                Action::Silence => state.silenced = true,
                Action::Pass => {}
            }
        }
        if !fired_once.is_empty() {
            hooks.retain(|h| !fired_once.contains(&h.meta.id));
            every.retain(|h| !fired_once.contains(&h.meta.id));
            if hooks.is_empty() {
                self.by_opcode.remove(&opcode);
                let (word, b) = bit(opcode);
                self.hooked[word] &= !b;
            }
        }
        if state.silenced {
            Handled::Silence
        } else {
            match bytes {
                Some(b) if state.modified && b != packet => Handled::Replace(b),
                _ => Handled::Forward,
            }
        }
    }
}

fn panic_text(p: &Box<dyn Any + Send>) -> String {
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| String::from("(no message)"));
    format!("panicked: {msg}")
}
