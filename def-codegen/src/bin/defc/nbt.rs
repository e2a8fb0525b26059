//! `defc nbt`: placeholder until the nbt codec lands.

use std::process::ExitCode;

/// `defc nbt` subcommands.
#[derive(clap::Subcommand)]
pub enum Cmd {
    /// Not yet available.
    Todo,
}

/// Runs one `defc nbt` subcommand.
pub fn run(_cmd: Cmd) -> ExitCode {
    eprintln!("defc nbt: not implemented yet");
    ExitCode::FAILURE
}
