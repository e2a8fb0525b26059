//! The NBT sample set of the shared folder (`nbt-samples/`): each sample file beside its
//! independent JSON dump, whose `meta.kind` says how the file is read.
#![allow(dead_code)]

use std::path::Path;

use def_runtime::nbt::{Edition, FileOptions, RootForm};

/// The names of the dumps (`*.json`) in the sample folder, sorted.
pub fn dump_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
}

/// How a binary sample of dump kind `kind` is read; `None` for the kinds that are not one NBT
/// file (`region`, `snbt`) and for unknown kinds.
pub fn options_for(kind: &str) -> Option<FileOptions> {
    let mut o = FileOptions::default();
    match kind {
        "java" => {}
        "java-network" => o.read.root = RootForm::Nameless,
        "java-multi" => o.all_roots = true,
        "java-lenient-utf8" => o.read.lenient_utf8 = true,
        "bedrock-le" => {
            o.read.edition = Edition::Bedrock;
            o.bedrock_header = Some(false);
        }
        "bedrock-le-header" => {
            o.read.edition = Edition::Bedrock;
            o.bedrock_header = Some(true);
        }
        "bedrock-varint" => o.read.edition = Edition::BedrockNetwork,
        "bedrock-varint-multi" => {
            o.read.edition = Edition::BedrockNetwork;
            o.all_roots = true;
        }
        _ => return None,
    }
    Some(o)
}
