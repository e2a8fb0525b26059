mod a {
    def_macro::def!("tests/ui/defs/S_EXAMPLE.1.def", colour = true);
}
mod b {
    def_macro::def!("tests/ui/defs/S_EXAMPLE.1.def", serde = "yes");
}
mod c {
    def_macro::def!("tests/ui/defs/S_EXAMPLE.1.def", strict = true, strict = false);
}
mod d {
    def_macro::def!("tests/ui/defs/S_EXAMPLE.1.def", runtime = "not a path");
}
mod e {
    def_macro::def!();
}

fn main() {}
