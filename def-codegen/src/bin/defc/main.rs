//! `defc`: check, decode, encode and generate from TERA `.def` files; Godot and NBT tools.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[cfg(feature = "godot")]
mod godot;
#[cfg(feature = "nbt")]
mod nbt;

/// Command-line front end of the toolkit.
#[derive(Parser)]
#[command(name = "defc", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Godot binary Variant tools.
    #[cfg(feature = "godot")]
    #[command(subcommand)]
    Godot(godot::Cmd),
    /// Minecraft NBT tools.
    #[cfg(feature = "nbt")]
    #[command(subcommand)]
    Nbt(nbt::Cmd),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        #[cfg(feature = "godot")]
        Command::Godot(cmd) => godot::run(cmd),
        #[cfg(feature = "nbt")]
        Command::Nbt(cmd) => nbt::run(cmd),
    }
}
