mod packet {
    def_macro::def!("tests/ui/defs/S_CHILD_OF_SCALAR.1.def");
}

fn main() {}
