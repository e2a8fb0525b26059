//! Zero-copy views: what generated view types (`s_login::v14::view::SLogin`) are made of.
//!
//! A view borrows a packet's bytes and reads a field only when asked: a fixed field at its offset
//! in O(1), a string as a borrowed [`Utf16Str`] (compared with `&str`, converted on demand), an
//! array as an iterator that follows the `here`/`next` chain one element at a time. A view over
//! `&mut [u8]` changes fixed fields in place, so that a proxy patches a number and forwards the
//! same buffer.
//!
//! # Checked on access, not validated up front
//!
//! Making a view checks only what every fixed accessor then reads without a check: the header
//! (and in strict mode that its length is the packet's) and that the fixed fields at static
//! offsets fit in the packet, O(1). Everything behind an offset (strings, bytes, array elements)
//! is checked when it is read, with the decoder's checks in the decoder's order: an offset in the
//! body and in the packet, a terminated string, a count that fits, a chain that moves forward
//! (so no loop), `here` equal to the element's offset in strict mode. No input can make a view
//! panic or loop, and no accessor allocates.
//!
//! Validating the whole packet once would have made every later access infallible, but it walks
//! every string and element: for the largest packets that is most of what a full decode costs
//! (without the allocations), while a proxy that looks at one field of a 4 KiB `S_ITEMLIST`
//! wants to pay for that field only. The proxy benchmark (`protocol-defs/benches/proxy.rs`)
//! measures both: a view plus one fixed field, and a view that walks everything.
//!
//! When a decode of the same bytes succeeds, every accessor agrees with it (the `tera_views`
//! fuzz target checks this). A view does not check what it does not read: a packet the decoder
//! refuses can still give values for the fields that are fine. A fixed field that follows
//! variable data at its level (its place depends on that data's length; one definition of the
//! corpus, `I_INPUT_COMMAND.1`) has no accessor: read it from `to_owned()`.

pub(crate) mod parts;

pub use parts::{Elements, ElementsMut, Fixeds, Strings, Utf16Str};
