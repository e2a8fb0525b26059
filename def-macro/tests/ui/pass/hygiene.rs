//! The code generated for every snapshot fixture of def-codegen compiles inside
//! `#![no_implicit_prelude]` (it names everything by its full path), with serde on.

mod hygiene {
    #![no_implicit_prelude]

    pub mod s_simple {
        ::def_macro::def!("../def-codegen/tests/defs/S_SIMPLE.1.def", serde = true);
    }
    pub mod s_arrays {
        ::def_macro::def!("../def-codegen/tests/defs/S_ARRAYS.1.def", serde = true);
    }
    pub mod s_nested {
        ::def_macro::def!("../def-codegen/tests/defs/S_NESTED.1.def", serde = true);
    }
    pub mod s_refs {
        ::def_macro::def!("../def-codegen/tests/defs/S_REFS.1.def", serde = true);
    }
    pub mod s_interleaved {
        ::def_macro::def!(
            "../def-codegen/tests/defs/S_INTERLEAVED.1.def",
            serde = true
        );
    }
    pub mod s_strings {
        ::def_macro::def!("../def-codegen/tests/defs/S_STRINGS.1.def", serde = true);
    }
    pub mod s_bytes {
        ::def_macro::def!("../def-codegen/tests/defs/S_BYTES.1.def", serde = true);
    }
    pub mod s_special {
        ::def_macro::def!("../def-codegen/tests/defs/S_SPECIAL.1.def", serde = true);
    }
    pub mod s_keywords {
        ::def_macro::def!("tests/ui/defs/S_KEYWORDS.1.def");
    }
}

use def_runtime::{Options, Packet};

fn main() {
    // Interleaved arrays (LAYOUT.md 4): element 0 of each, then element 1 of `items`.
    // header 0..4; meta of items (count 2, offset 20) 4..8 and of crystals (count 1, offset 28)
    // 8..12; gameId 12..20; items[0] at 20: here 20, next 36, slot 1;
    // crystals[0] at 28: here 28, next 0, value -1; items[1] at 36: here 36, next 0, slot 2.
    let p = hygiene::s_interleaved::SInterleaved {
        game_id: 0x0807_0605_0403_0201,
        items: vec![
            hygiene::s_interleaved::SInterleavedItems { slot: 1 },
            hygiene::s_interleaved::SInterleavedItems { slot: 2 },
        ],
        crystals: vec![-1],
    };
    let bytes: [u8; 44] = [
        0x2c, 0x00, 0x09, 0x00, // length 44, opcode 9
        0x02, 0x00, 0x14, 0x00, // items: count 2, offset 20
        0x01, 0x00, 0x1c, 0x00, // crystals: count 1, offset 28
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // gameId
        0x14, 0x00, 0x24, 0x00, 0x01, 0x00, 0x00, 0x00, // items[0]: here 20, next 36, slot 1
        0x1c, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, // crystals[0]: here 28, next 0, -1
        0x24, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, // items[1]: here 36, next 0, slot 2
    ];
    assert_eq!(p.encode(9, Options::new()).unwrap(), bytes);
    assert_eq!(
        hygiene::s_interleaved::SInterleaved::decode(&bytes, Options::new().strict(true)).unwrap(),
        p
    );
    assert_eq!(<hygiene::s_special::SSpecial as Packet>::NAME, "S_SPECIAL");
}
