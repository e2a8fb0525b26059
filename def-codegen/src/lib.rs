//! Code generation for TERA `.def` files.
