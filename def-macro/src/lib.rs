//! The `def!` proc-macro.
