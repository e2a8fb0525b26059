//! Fields named after Rust keywords, and a scalar declared twice, keep their `.def` names in the
//! JSON form and follow the reference's rules (LAYOUT.md: one key, written into both places, the
//! last one read).
use def_runtime::{Options, Packet};

mod s_keywords {
    def_macro::def!("tests/ui/defs/S_KEYWORDS.1.def", serde = true);
}
mod c_dup {
    def_macro::def!("tests/ui/defs/C_DUP.1.def", serde = true);
}

fn main() {
    // Keywords: `type` and `continue` are raw identifiers, `self` cannot be one.
    let k = s_keywords::SKeywords {
        r#type: 5,
        self_: -1,
        r#continue: "hi".into(),
    };
    // header: length 15, opcode 1; meta: offset of `continue` = 9; type 5; self -1;
    // "hi" as UTF-16LE and the terminator at 9.
    let bytes: [u8; 15] = [
        0x0f, 0x00, 0x01, 0x00, 0x09, 0x00, 0x05, 0xff, 0xff, 0x68, 0x00, 0x69, 0x00, 0x00, 0x00,
    ];
    assert_eq!(k.encode(1, Options::new()).unwrap(), bytes);
    assert_eq!(
        s_keywords::SKeywords::decode(&bytes, Options::new().strict(true)).unwrap(),
        k
    );
    let json = serde_json::to_string(&k).unwrap();
    assert_eq!(json, r#"{"type":5,"self":-1,"continue":"hi"}"#);
    assert_eq!(
        serde_json::from_str::<s_keywords::SKeywords>(&json).unwrap(),
        k
    );

    // `unk3` twice: one field, written into both places.
    let d: c_dup::CDup = serde_json::from_str(r#"{"unk3":9,"from":2}"#).unwrap();
    let bytes: [u8; 14] = [
        0x0e, 0x00, 0x02, 0x00, 0x09, 0x00, 0x00, 0x00, 0x02, 0x00, 0x09, 0x00, 0x00, 0x00,
    ];
    assert_eq!(d.encode(2, Options::new()).unwrap(), bytes);
    // Reading keeps the last place's value.
    let differing: [u8; 14] = [
        0x0e, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x09, 0x00, 0x00, 0x00,
    ];
    let read = c_dup::CDup::decode(&differing, Options::new()).unwrap();
    assert_eq!(
        serde_json::to_string(&read).unwrap(),
        r#"{"unk3":9,"from":2}"#
    );
}
