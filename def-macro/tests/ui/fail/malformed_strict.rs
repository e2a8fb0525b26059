mod packet {
    def_macro::def!("tests/ui/defs/S_MALFORMED.1.def", strict = true);
}

fn main() {}
