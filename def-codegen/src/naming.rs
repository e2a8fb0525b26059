//! Rust names for `.def` names: type names from message names and paths, field names in
//! snake_case with keywords escaped. One place, tested exhaustively, so that no definition can
//! produce a name that does not compile.

/// Keywords that `r#` can escape.
const RAW_OK: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// Keywords that cannot be raw identifiers; they get a trailing underscore.
const RAW_NOT_OK: &[&str] = &["crate", "self", "Self", "super", "_"];

/// `camelCase` or `PascalCase` or `SNAKE_CASE` to `snake_case` (no escaping).
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() {
                let prev = i.checked_sub(1).map(|j| chars[j]);
                let next = chars.get(i + 1);
                let boundary = match prev {
                    Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                    Some(p) if p.is_ascii_uppercase() => {
                        next.is_some_and(|n| n.is_ascii_lowercase())
                    }
                    _ => false,
                };
                if boundary && !out.ends_with('_') && !out.is_empty() {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// A field name as a Rust identifier's text: snake_case, `r#` for keywords, `_` suffix where
/// `r#` is not allowed.
pub fn field_ident(name: &str) -> String {
    let s = snake(name);
    if RAW_NOT_OK.contains(&s.as_str()) {
        format!("{s}_")
    } else if RAW_OK.contains(&s.as_str()) {
        format!("r#{s}")
    } else {
        s
    }
}

/// `S_LOGIN` to `SLogin`; `animSeq` to `AnimSeq`.
pub fn pascal(name: &str) -> String {
    let mut out = String::new();
    for part in name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
    {
        let all_upper = part.chars().all(|c| !c.is_ascii_lowercase());
        let mut cs = part.chars();
        if let Some(f) = cs.next() {
            out.push(f.to_ascii_uppercase());
            if all_upper {
                out.extend(cs.map(|c| c.to_ascii_lowercase()));
            } else {
                out.extend(cs);
            }
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    if RAW_NOT_OK.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// `S_LOGIN` to `s_login` (module names).
pub fn module(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    field_ident(&s)
}

/// Gives each name of a list a unique form by appending `_2`, `_3`, ... (the first free one).
pub fn dedupe(names: &mut [String]) {
    let mut seen = std::collections::HashSet::new();
    // Per base, the suffix to try next: every smaller one is taken (names are only added), so
    // the search resumes there instead of at 2, and n names that collide cost linear time.
    let mut next: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for n in names.iter_mut() {
        if !seen.insert(n.clone()) {
            let k = next.entry(n.clone()).or_insert(2);
            while !seen.insert(format!("{n}_{k}")) {
                *k += 1;
            }
            *n = format!("{n}_{k}");
            *k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_cases() {
        assert_eq!(snake("templateId"), "template_id");
        assert_eq!(snake("huntingZoneID"), "hunting_zone_id");
        assert_eq!(snake("HPValue"), "hp_value");
        assert_eq!(snake("unk1"), "unk1");
        assert_eq!(snake("x"), "x");
        assert_eq!(snake("1st"), "_1st");
        assert_eq!(snake("a-b"), "a_b");
        assert_eq!(snake("S_LOGIN"), "s_login");
    }

    #[test]
    fn every_keyword_is_a_valid_ident() {
        for k in RAW_OK.iter().chain(RAW_NOT_OK) {
            let id = field_ident(k);
            assert!(syn::parse_str::<syn::Ident>(&id).is_ok(), "{k} -> {id}");
        }
        assert_eq!(field_ident("type"), "r#type");
        assert_eq!(field_ident("continue"), "r#continue");
        assert_eq!(field_ident("self"), "self_");
        assert_eq!(field_ident("Self"), "self_");
    }

    #[test]
    fn pascal_cases() {
        assert_eq!(pascal("S_LOGIN"), "SLogin");
        assert_eq!(pascal("animSeq"), "AnimSeq");
        assert_eq!(pascal("C_START_INSTANCE_SKILL"), "CStartInstanceSkill");
        assert_eq!(pascal("Self"), "Self_");
    }

    #[test]
    fn dedupes() {
        let mut v = vec!["a".to_string(), "a".into(), "a_2".into(), "a".into()];
        dedupe(&mut v);
        assert_eq!(v, ["a", "a_2", "a_2_2", "a_3"]);
    }
}
