//! `defc` as a user runs it: one test binary, a module per command, one way to run the tool
//! ([`run`]) and one loader of the shared data (`support`, the runtime tests' own).

#[path = "../../../runtime/tests/support/mod.rs"]
mod support;

mod run;

mod annotate;
mod check;
mod explain;
mod generate;
mod godot;
mod guess;
mod hostile_text;
mod nbt;
mod proxy;
mod scaling;
