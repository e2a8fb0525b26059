//! Zero-copy reader (in progress).
