//! Parser for TERA `.def` files.
