//! The TERA tests of the runtime, one binary: stream framing, the wire grammar against the
//! vectors, the dynamic codec (feature `dynamic`) against the public vectors, field spans,
//! hostile packets, and the proxy over loopback (feature `proxy`).

#[cfg(feature = "proxy")]
#[path = "../support/rng.rs"]
mod rng;
#[cfg(feature = "proxy")]
#[path = "../support/serve.rs"]
mod serve;
#[path = "../support/mod.rs"]
mod support;

#[cfg(feature = "std")]
mod dispatch;
mod dynamic_vectors;
mod framing;
mod grammar_wire;
mod hostile;
mod proxy;
mod session;
mod spans;
