//! TERA packet runtime: what generated code links against.
