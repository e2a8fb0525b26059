mod packet {
    def_macro::def!("tests/ui/defs/S_UNKNOWN_TYPE.1.def");
}

fn main() {}
