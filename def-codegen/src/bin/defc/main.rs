//! `defc`: check, decode, encode and generate from TERA `.def` files; Godot and NBT tools.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod godot;
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
    #[command(subcommand)]
    Godot(godot::Cmd),
    /// Minecraft NBT tools.
    #[command(subcommand)]
    Nbt(nbt::Cmd),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Godot(cmd) => godot::run(cmd),
        Command::Nbt(cmd) => nbt::run(cmd),
    }
}
