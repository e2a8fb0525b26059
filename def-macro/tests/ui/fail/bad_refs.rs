mod packet {
    def_macro::def!("tests/ui/defs/S_BAD_REFS.1.def");
}

fn main() {}
