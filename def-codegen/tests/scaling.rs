//! Code generation takes time linear in the definition: fields of one level (whose idents were
//! made again for every field) and strings of one level (whose `level_len` was one sum nested
//! one level per term, which overflowed prettyplease's stack at some tens of thousands).

#[path = "../../runtime/tests/support/scaling.rs"]
mod scaling;

use def_parser::{Layout, Mode, compile_str};

fn layout(text: &str) -> Layout {
    compile_str("S_SCALE.1.def", text, Mode::Compatible)
        .expect("compiles")
        .layout
}

fn generate(l: &Layout) {
    def_codegen::generate(l, "S_SCALE.1.def", &Default::default()).expect("generates");
}

#[test]
fn fields_at_one_level() {
    scaling::assert_linear(
        "generate fields",
        150,
        |n| layout(&(0..n).map(|i| format!("int32 f{i}\n")).collect::<String>()),
        generate,
    );
}

#[test]
fn names_that_collide_after_case_conversion() {
    // `a-`, `a.`, `a+-`, ... are distinct `.def` names that all become the ident `a_`: each new
    // one searched for its suffix from `_2` (1.25 s for 2 000 names, 148 s for 20 000).
    let punct: Vec<char> = "-.+*~!@$%^&=?/|;:,".chars().collect();
    let name = |mut i: usize| {
        let mut s = String::from("a");
        loop {
            s.push(punct[i % punct.len()]);
            i /= punct.len();
            if i == 0 {
                break s;
            }
        }
    };
    scaling::assert_linear(
        "generate colliding names",
        150,
        |n| {
            layout(
                &(0..n)
                    .map(|i| format!("int32 {}\n", name(i)))
                    .collect::<String>(),
            )
        },
        generate,
    );
}

#[test]
fn many_strings_at_one_level_generate_on_a_small_stack() {
    // 2 048 variable fields (the most a level may have): the old `a + b + ...` nested 2 048
    // deep. A 2 MiB thread, as tests and build scripts get.
    let l = layout(
        &(0..def_parser::layout::MAX_MEMBERS)
            .map(|i| format!("string s{i}\n"))
            .collect::<String>(),
    );
    let code = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || def_codegen::generate(&l, "S_SCALE.1.def", &Default::default()))
        .expect("thread")
        .join()
        .expect("no stack overflow")
        .expect("generates");
    assert!(code.contains("__n += "), "long sums are statements");
    syn::parse_file(&code).expect("parses");
}
