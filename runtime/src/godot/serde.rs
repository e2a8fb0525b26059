//! serde support: `to_variant` / `from_variant` between Rust types and [`Variant`](super::Variant).
