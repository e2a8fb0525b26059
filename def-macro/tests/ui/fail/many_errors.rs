mod packet {
    def_macro::def!("tests/ui/defs/S_MANY_ERRORS.1.def");
}

fn main() {}
