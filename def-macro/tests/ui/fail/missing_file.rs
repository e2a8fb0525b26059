mod packet {
    def_macro::def!("tests/ui/defs/S_NOPE.1.def");
}

fn main() {}
