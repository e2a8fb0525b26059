//! `defc godot`: placeholder until the godot codec lands.

use std::process::ExitCode;

/// `defc godot` subcommands.
#[derive(clap::Subcommand)]
pub enum Cmd {
    /// Not yet available.
    Todo,
}

/// Runs one `defc godot` subcommand.
pub fn run(_cmd: Cmd) -> ExitCode {
    eprintln!("defc godot: not implemented yet");
    ExitCode::FAILURE
}
