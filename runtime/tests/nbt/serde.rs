//! serde: derived structs to NBT and back, and reading a real file into a struct.
#![cfg(all(feature = "nbt", feature = "serde"))]

use crate::support;

use def_runtime::nbt::serde_nbt::{
    IntArray, LongArray, from_bytes, from_tag, from_view, to_bytes, to_tag,
};
use def_runtime::nbt::{Edition, ReadOptions, Tag, TagType, nbt};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq)]
enum Mode {
    Survival,
    Custom(i32),
    Spectating { target: String },
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Player {
    name: String,
    health: f32,
    alive: bool,
    level: u8,
    pos: Vec<f64>,
    inventory: Vec<Item>,
    heightmap: LongArray,
    biomes: IntArray,
    nickname: Option<String>,
    mode: Mode,
    other: Mode,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Item {
    id: String,
    #[serde(rename = "Count")]
    count: i8,
}

fn player() -> Player {
    Player {
        name: "Steve".into(),
        health: 20.0,
        alive: true,
        level: 200,
        pos: vec![1.5, 64.0, -3.25],
        inventory: vec![Item {
            id: "minecraft:stone".into(),
            count: 3,
        }],
        heightmap: LongArray(vec![1, 2, 3]),
        biomes: IntArray(vec![]),
        nickname: None,
        mode: Mode::Custom(7),
        other: Mode::Spectating {
            target: "Alex".into(),
        },
    }
}

#[test]
fn struct_round_trips_through_every_flavour() {
    let p = player();
    for ed in [Edition::Java, Edition::Bedrock, Edition::BedrockNetwork] {
        let bytes = to_bytes(&p, ed).unwrap();
        let back: Player = from_bytes(&bytes, ReadOptions::new(ed)).unwrap();
        assert_eq!(back, p);
    }
}

#[test]
fn mapping_is_as_documented() {
    let t = to_tag(&player()).unwrap();
    let c = t.as_compound().unwrap();
    let ty = |k: &str| c.get(k).map(Tag::tag_type);
    assert_eq!(ty("health"), Some(TagType::Float));
    assert_eq!(ty("alive"), Some(TagType::Byte));
    assert_eq!(ty("level"), Some(TagType::Short));
    assert_eq!(ty("heightmap"), Some(TagType::LongArray));
    assert_eq!(ty("biomes"), Some(TagType::IntArray));
    assert_eq!(ty("nickname"), None);
    assert_eq!(
        c.get("pos")
            .and_then(Tag::as_list)
            .map(|l| l.element_type()),
        Some(TagType::Double)
    );
    // Field order is declaration order.
    let keys: Vec<String> = c.iter().map(|(k, _)| k.to_string()).collect();
    assert_eq!(keys[..3], ["name", "health", "alive"]);
}

#[test]
fn tree_serializes_back_to_itself() {
    let t = nbt!({ "a": 1i8, "b": [1i32, 2i32], "c": (vec![5i64]), "d": { "e": "f" } });
    assert_eq!(to_tag(&t).unwrap(), t);
}

#[test]
fn wrong_shape_is_an_error_not_a_panic() {
    let t = nbt!({ "id": 5i32 });
    assert!(from_tag::<Item>(&t).is_err());
    assert!(to_tag(&vec![Tag::Int(1), Tag::Byte(2)]).is_err());
}

#[test]
fn read_a_real_player_file() {
    #[derive(Deserialize)]
    struct Pos {
        #[serde(rename = "Pos")]
        pos: Vec<f64>,
        #[serde(rename = "Health")]
        health: f32,
    }
    let Some(file) = support::shared("nbt-samples/simdnbt__complex_player.dat") else {
        return;
    };
    let raw = std::fs::read(file).unwrap();
    let f = def_runtime::nbt::NbtFile::decode(&raw, Default::default()).unwrap();
    let p: Pos = from_tag(&f.roots[0].tag).unwrap();
    assert_eq!(p.pos.len(), 3);
    assert!(p.health > 0.0);
}

#[test]
fn a_sub_value_deserialises_in_place_with_borrowed_strings() {
    // The first inventory slot of a real player file, reached by a path: no clone of the tree,
    // and `id` borrows the stored (ASCII) string. Expected values are the sample's JSON dump.
    #[derive(Deserialize)]
    struct Slot<'a> {
        id: &'a str,
        #[serde(rename = "Damage")]
        damage: i16,
        #[serde(rename = "Count")]
        count: i8,
    }
    let Some(file) = support::shared("nbt-samples/simdnbt__complex_player.dat") else {
        return;
    };
    let raw = std::fs::read(file).unwrap();
    let f = def_runtime::nbt::NbtFile::decode(&raw, Default::default()).unwrap();
    let root = f.root().unwrap();
    let slot: Slot = from_view(root.get_path("Inventory[0]").unwrap()).unwrap();
    assert_eq!(
        (slot.id, slot.damage, slot.count),
        ("minecraft:diamond_sword", 1196, 1)
    );
    let inv: Vec<Slot> = from_view(root.get_path("Inventory").unwrap()).unwrap();
    assert_eq!(inv[0].id, "minecraft:diamond_sword");
    let stored = root
        .get_path("Inventory[0].id")
        .unwrap()
        .as_string()
        .unwrap();
    assert_eq!(
        inv[0].id.as_ptr(),
        stored.as_mutf8().as_ptr(),
        "borrowed, not copied"
    );
}

#[test]
fn serde_errors_carry_the_tag_path() {
    // A real player file read into a type whose `Inventory` elements want a string `Count`:
    // the error names the element and the key, in the path syntax lookups read.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Slot {
        #[serde(rename = "Count")]
        count: String,
    }
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Player {
        #[serde(rename = "Inventory")]
        inventory: Vec<Slot>,
    }
    let Some(file) = support::shared("nbt-samples/simdnbt__complex_player.dat") else {
        return;
    };
    let raw = std::fs::read(file).unwrap();
    let f = def_runtime::nbt::NbtFile::decode(&raw, Default::default()).unwrap();
    let e = from_tag::<Player>(&f.roots[0].tag).unwrap_err();
    assert!(
        matches!(e.kind(), def_runtime::nbt::NbtErrorKind::Serde(_)),
        "{e}"
    );
    assert_eq!(e.path().to_string(), "Inventory[0].Count", "{e}");
    assert!(f.roots[0].tag.get_path(&e.path().to_string()).is_ok());

    // Writing: a list element of another tag type than the first.
    #[derive(Serialize)]
    struct Mixed {
        a: Vec<Vec<Tag>>,
    }
    let m = Mixed {
        a: vec![vec![], vec![Tag::Int(1), Tag::Byte(2)]],
    };
    let e = to_tag(&m).unwrap_err();
    assert_eq!(e.path().to_string(), "a[1]", "{e}");
}
