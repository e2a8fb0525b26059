//! The reference's grammar, corner for corner: one row per shape of docs/grammar.md.
//!
//! Each row holds a small definition and what the JavaScript reference (tera-data-parser, as in
//! TERA Toolbox) did with it, recorded by running it: the layout it parsed, written as a listing
//! (one line per wire item: `meta KIND path` for a metadata slot, `TYPE path` for a field, the
//! fields of an array's elements indented under it), or the message it refused the definition
//! with. Then what we do in each mode, as diagnostics (code and line). The checks:
//! * where the reference reads a layout, compatible mode reads the same one (warnings allowed: a
//!   line the reference skips or guesses at), unless the row says why we differ;
//! * where it refuses the definition, or reads it and loses data, compatible mode warns or
//!   refuses, never silently accepts;
//! * strict mode refuses whatever compatible mode warns about.

use def_parser::diag::Code::{self, *};
use def_parser::layout::{Fixed, Level, MemberKind, MetaKind, Step};
use def_parser::{Mode, compile_str};

/// What the reference did.
#[derive(Debug)]
enum Reference {
    /// It loaded the definition with this layout.
    Reads(&'static [&'static str]),
    /// It loaded the definition with this layout, but loses a value or throws on every packet
    /// (what it did with a sample packet).
    ReadsBut(&'static [&'static str], &'static str),
    /// It refused the definition with this message.
    Refuses(&'static str),
}
use Reference::*;

/// A diagnostic we give: a warning or an error, its code and line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum D {
    W(Code, usize),
    E(Code, usize),
}
use D::*;

struct Row {
    id: &'static str,
    text: &'static str,
    reference: Reference,
    /// Compatible mode's diagnostics.
    compatible: &'static [D],
    /// Strict mode's diagnostics (all errors).
    strict: &'static [D],
    /// Where we read something other than the reference on purpose: why.
    differs: Option<&'static str>,
}

const ROWS: &[Row] = &[
    Row {
        id: "lf_and_crlf",
        text: "int32 a\r\nstring b\nint16 c\r\n",
        reference: Reads(&["meta string b", "int32 a", "string b", "int16 c"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "bare_cr_inside_a_line",
        text: "int32 a\rint32 b\nint16 c\n",
        reference: Reads(&["int16 c"]),
        compatible: &[W(MalformedLine, 1), E(BareCr, 1)],
        strict: &[E(MalformedLine, 1), E(BareCr, 1)],
        differs: Some(
            "a CR inside a line is an error in both modes (README, Decisions): the reference reads the text on both sides of it as one line, never what the author meant",
        ),
    },
    Row {
        id: "bom_at_start",
        text: "\u{feff}int32 a\n",
        reference: Reads(&["int32 a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "two_boms_at_start",
        text: "\u{feff}\u{feff}int32 a\n",
        reference: Reads(&["int32 a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "bom_between_type_and_name",
        text: "int32\u{feff}a\n",
        reference: Reads(&["int32 a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "tabs_everywhere",
        text: "\tint32\t\ta\t\n\tarray\tl\t\n-\tint16\tx\t\n",
        reference: Reads(&["meta array l", "int32 a", "array l", "  int16 x"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "vertical_tab_and_form_feed",
        text: "int32\u{b}a\u{c}\n",
        reference: Reads(&["int32 a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "no_break_and_ideographic_space",
        text: "int32\u{a0}a\nint16\u{3000}b\n",
        reference: Reads(&["int32 a", "int16 b"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "line_separator_as_space",
        text: "int32\u{2028}a\n",
        reference: Reads(&["int32 a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "next_line_char_is_no_space",
        text: "int32\u{85}a\nint16 b\n",
        reference: Reads(&["int16 b"]),
        compatible: &[W(MalformedLine, 1)],
        strict: &[E(MalformedLine, 1)],
        differs: None,
    },
    Row {
        id: "next_line_char_ends_a_name",
        text: "int32 a\u{85}\n",
        reference: Refuses("Invalid or unexpected token"),
        compatible: &[W(NameNotIdentifier, 1)],
        strict: &[E(NameNotIdentifier, 1)],
        differs: None,
    },
    Row {
        id: "empty_and_blank_lines",
        text: "\n   \n\t\nint32 a\n\n",
        reference: Reads(&["int32 a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "comment_line_and_trailing_comment",
        text: "# header\nint32 a # the a\nint16 b#tight\n",
        reference: Reads(&["int32 a", "int16 b"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "comment_eats_the_name",
        text: "int32 # a\nint16 b\n",
        reference: Reads(&["int16 b"]),
        compatible: &[W(MalformedLine, 1)],
        strict: &[E(MalformedLine, 1)],
        differs: None,
    },
    Row {
        id: "comment_after_line_separator_kept",
        text: "int32 a # x\u{2028}y\nint16 b\n",
        reference: Reads(&["int16 b"]),
        compatible: &[W(MalformedLine, 1)],
        strict: &[E(MalformedLine, 1)],
        differs: None,
    },
    Row {
        id: "comment_after_last_line_separator",
        text: "int32 a\u{2028}# x\nint16 b\n",
        reference: Reads(&["int32 a", "int16 b"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "patch_range_header",
        text: "# majorPatchVersion >= 86 && majorPatchVersion < 114\nint32 a\n",
        reference: Reads(&["int32 a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "only_comments",
        text: "# nothing\n\n# at all\n",
        reference: Reads(&[]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "malformed_one_word",
        text: "int32 a\nint32\nint16 b\n",
        reference: Reads(&["int32 a", "int16 b"]),
        compatible: &[W(MalformedLine, 2)],
        strict: &[E(MalformedLine, 2)],
        differs: None,
    },
    Row {
        id: "malformed_three_words",
        text: "int32 a b\nint16 c\n",
        reference: Reads(&["int16 c"]),
        compatible: &[W(MalformedLine, 1)],
        strict: &[E(MalformedLine, 1)],
        differs: None,
    },
    Row {
        id: "dash_forms",
        text: "array a\n-int32 b\n- int32 c\n-\tint32 d\n- array e\n--int32 f\n- - int32 g\n-  -\tint32 h\nint32 i\n",
        reference: Reads(&[
            "meta array a",
            "array a",
            "  meta array e",
            "  int32 b",
            "  int32 c",
            "  int32 d",
            "  array e",
            "    int32 f",
            "    int32 g",
            "    int32 h",
            "int32 i",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "depth_jump",
        text: "array a\n--- int32 b\n- int32 c\n",
        reference: Reads(&["meta array a", "array a", "  int32 b", "  int32 c"]),
        compatible: &[W(DepthJump, 2)],
        strict: &[E(DepthJump, 2)],
        differs: None,
    },
    Row {
        id: "depth_falls_several_levels",
        text: "array a\n- array b\n-- array c\n--- int32 d\nint32 e\n",
        reference: Reads(&[
            "meta array a",
            "array a",
            "  meta array b",
            "  array b",
            "    meta array c",
            "    array c",
            "      int32 d",
            "int32 e",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "dash_as_type",
        text: "array a\n- - b\n",
        reference: Refuses("Invalid data type \"-\" for field \"tmpelem_offset_result_a.b\"!"),
        compatible: &[E(UnknownType, 2)],
        strict: &[E(UnknownType, 2)],
        differs: None,
    },
    Row {
        id: "first_line_nested",
        text: "- int32 a\n",
        reference: Refuses("Cannot read properties of undefined (reading '1')"),
        compatible: &[E(ChildOfScalar, 1)],
        strict: &[E(ChildOfScalar, 1)],
        differs: None,
    },
    Row {
        id: "child_of_scalar",
        text: "int32 a\n- int32 b\n",
        reference: Refuses("top.push is not a function"),
        compatible: &[E(ChildOfScalar, 2)],
        strict: &[E(ChildOfScalar, 2)],
        differs: None,
    },
    Row {
        id: "child_of_string",
        text: "string a\n- int32 b\n",
        reference: Refuses("top.push is not a function"),
        compatible: &[E(ChildOfScalar, 2)],
        strict: &[E(ChildOfScalar, 2)],
        differs: None,
    },
    Row {
        id: "child_after_return_to_scalar",
        text: "array a\n- int32 x\nint32 y\n- int32 z\n",
        reference: Refuses("top.push is not a function"),
        compatible: &[E(ChildOfScalar, 4)],
        strict: &[E(ChildOfScalar, 4)],
        differs: None,
    },
    Row {
        id: "dash_in_name",
        text: "int32 -a\n",
        reference: Refuses("Unexpected token '-'"),
        compatible: &[W(NameNotIdentifier, 1)],
        strict: &[E(NameNotIdentifier, 1)],
        differs: None,
    },
    Row {
        id: "lone_dash_line",
        text: "array a\n-\nint32 b\n",
        reference: Reads(&["meta array a", "array a", "int32 b"]),
        compatible: &[W(MalformedLine, 2)],
        strict: &[E(MalformedLine, 2)],
        differs: None,
    },
    Row {
        id: "every_scalar_type",
        text: "bool a\nbyte b\nint16 c\nuint16 d\nint32 e\nuint32 f\nint64 g\nuint64 h\nfloat i\ndouble j\nangle k\nvec3 l\nvec3fa m\nskillid32 n\nskillid o\ncustomize p\nstring q\nbytes r\n",
        reference: Reads(&[
            "meta string q",
            "meta bytes r",
            "bool a",
            "byte b",
            "int16 c",
            "uint16 d",
            "int32 e",
            "uint32 f",
            "int64 g",
            "uint64 h",
            "float i",
            "double j",
            "angle k",
            "vec3 l",
            "vec3fa m",
            "skillid32 n",
            "skillid o",
            "customize p",
            "string q",
            "bytes r",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "unknown_type",
        text: "int33 a\n",
        reference: Refuses("Invalid data type \"int33\" for field \"result.a\"!"),
        compatible: &[E(UnknownType, 1)],
        strict: &[E(UnknownType, 1)],
        differs: None,
    },
    Row {
        id: "upper_case_type",
        text: "Int32 a\n",
        reference: Refuses("Invalid data type \"Int32\" for field \"result.a\"!"),
        compatible: &[E(UnknownType, 1)],
        strict: &[E(UnknownType, 1)],
        differs: None,
    },
    Row {
        id: "subtype_on_scalar",
        text: "int32<int16> a\n",
        reference: Reads(&["int32 a"]),
        compatible: &[W(SubtypeOnNonArray, 1)],
        strict: &[E(SubtypeOnNonArray, 1)],
        differs: None,
    },
    Row {
        id: "subtype_on_string_and_object",
        text: "string<int32> s\nobject<int32> o\n- int16 x\n",
        reference: Reads(&["meta string s", "string s", "int16 o.x"]),
        compatible: &[W(SubtypeOnNonArray, 1), W(SubtypeOnNonArray, 2)],
        strict: &[E(SubtypeOnNonArray, 1), E(SubtypeOnNonArray, 2)],
        differs: None,
    },
    Row {
        id: "array_of_scalar",
        text: "array<int32> a\n",
        reference: Reads(&["meta array a", "array<int32> a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "array_of_scalar_spaced",
        text: "array< int32 > a\narray<\tint16\t> b\n",
        reference: Reads(&[
            "meta array a",
            "meta array b",
            "array<int32> a",
            "array<int16> b",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "array_of_doubled_brackets",
        text: "array<<int32>> a\n",
        reference: Reads(&["meta array a", "array<int32> a"]),
        compatible: &[W(StrayBracket, 1)],
        strict: &[E(StrayBracket, 1)],
        differs: None,
    },
    Row {
        id: "array_space_before_subtype",
        text: "array <int32> a\nint16 b\n",
        reference: Reads(&["int16 b"]),
        compatible: &[W(MalformedLine, 1)],
        strict: &[E(MalformedLine, 1)],
        differs: None,
    },
    Row {
        id: "array_space_inside_subtype_name",
        text: "array<int 32> a\nint16 b\n",
        reference: Reads(&["int16 b"]),
        compatible: &[W(MalformedLine, 1)],
        strict: &[E(MalformedLine, 1)],
        differs: None,
    },
    Row {
        id: "array_of_string",
        text: "array<string> a\n",
        reference: Reads(&["meta array a", "array<string> a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "array_of_bytes",
        text: "array<bytes> a\n",
        reference: Refuses("Invalid data type \"bytes\" for array \"result.a\"!"),
        compatible: &[E(UnknownType, 1)],
        strict: &[E(UnknownType, 1)],
        differs: None,
    },
    Row {
        id: "array_of_object",
        text: "array<object> a\n",
        reference: Refuses("Invalid data type \"object\" for array \"result.a\"!"),
        compatible: &[E(UnknownType, 1)],
        strict: &[E(UnknownType, 1)],
        differs: None,
    },
    Row {
        id: "array_empty_subtype",
        text: "array<> a\n",
        reference: Refuses("Invalid data type \"array<>\" for field \"result.a\"!"),
        compatible: &[E(UnknownType, 1)],
        strict: &[E(UnknownType, 1)],
        differs: None,
    },
    Row {
        id: "array_of_scalar_with_children",
        text: "array<int32> a\n- int16 x\n- string s\nint16 b\n",
        reference: Reads(&["meta array a", "array<int32> a", "int16 b"]),
        compatible: &[W(ChildrenIgnored, 2)],
        strict: &[E(ChildrenIgnored, 2)],
        differs: None,
    },
    Row {
        id: "text_after_subtype",
        text: "array<int32>x a\n",
        reference: Refuses("Invalid data type \"array<int32>x\" for field \"result.a\"!"),
        compatible: &[E(UnknownType, 1)],
        strict: &[E(UnknownType, 1)],
        differs: None,
    },
    Row {
        id: "flags_interleaved",
        text: "array[interleaved] a\n- int32 x\narray[interleaved] b\n- int16 y\n",
        reference: Reads(&[
            "meta array a",
            "meta array b",
            "array[interleaved] a",
            "  int32 x",
            "array[interleaved] b",
            "  int16 y",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "flags_spaced",
        text: "array[ interleaved ] a\n- int32 x\narray[\tinterleaved\t] b\n- int16 y\n",
        reference: Reads(&[
            "meta array a",
            "meta array b",
            "array[interleaved] a",
            "  int32 x",
            "array[interleaved] b",
            "  int16 y",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "spaced_subtype_and_flags",
        text: "array< int32 >[ interleaved ] a\nint32 b\n",
        reference: Reads(&["meta array a", "array<int32>[interleaved] a", "int32 b"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "flags_list",
        text: "array[interleaved,sorted] a\n- int32 x\narray[sorted,interleaved] b\n- int16 y\n",
        reference: Reads(&[
            "meta array a",
            "meta array b",
            "array[interleaved] a",
            "  int32 x",
            "array[interleaved] b",
            "  int16 y",
        ]),
        compatible: &[W(UnknownFlag, 1), W(UnknownFlag, 3)],
        strict: &[E(UnknownFlag, 1), E(UnknownFlag, 3)],
        differs: None,
    },
    Row {
        id: "flags_list_with_space",
        text: "array[interleaved, sorted] a\n- int32 x\nint16 b\n",
        reference: Refuses("Cannot read properties of undefined (reading '1')"),
        compatible: &[W(MalformedLine, 1), E(ChildOfScalar, 2)],
        strict: &[E(MalformedLine, 1), E(ChildOfScalar, 2)],
        differs: None,
    },
    Row {
        id: "unknown_flag_only",
        text: "array[sorted] a\n- int32 x\n",
        reference: Reads(&["meta array a", "array a", "  int32 x"]),
        compatible: &[W(UnknownFlag, 1)],
        strict: &[E(UnknownFlag, 1)],
        differs: None,
    },
    Row {
        id: "flag_case",
        text: "array[Interleaved] a\n- int32 x\narray[Interleaved] b\n- int16 y\n",
        reference: Reads(&[
            "meta array a",
            "meta array b",
            "array a",
            "  int32 x",
            "array b",
            "  int16 y",
        ]),
        compatible: &[W(UnknownFlag, 1), W(UnknownFlag, 3)],
        strict: &[E(UnknownFlag, 1), E(UnknownFlag, 3)],
        differs: None,
    },
    Row {
        id: "flag_empty",
        text: "array[] a\n- int32 x\n",
        reference: Refuses("top.push is not a function"),
        compatible: &[E(UnknownType, 1), E(ChildOfScalar, 2)],
        strict: &[E(UnknownType, 1), E(ChildOfScalar, 2)],
        differs: None,
    },
    Row {
        id: "flag_doubled_brackets",
        text: "array[[interleaved]] a\n- int32 x\narray[[interleaved]] b\n- int16 y\n",
        reference: Reads(&[
            "meta array a",
            "meta array b",
            "array[interleaved] a",
            "  int32 x",
            "array[interleaved] b",
            "  int16 y",
        ]),
        compatible: &[W(StrayBracket, 1), W(StrayBracket, 3)],
        strict: &[E(StrayBracket, 1), E(StrayBracket, 3)],
        differs: None,
    },
    Row {
        id: "flag_trailing_comma",
        text: "array[interleaved,] a\n- int32 x\narray[,interleaved] b\n- int16 y\n",
        reference: Reads(&[
            "meta array a",
            "meta array b",
            "array[interleaved] a",
            "  int32 x",
            "array[interleaved] b",
            "  int16 y",
        ]),
        compatible: &[W(UnknownFlag, 1), W(UnknownFlag, 3)],
        strict: &[E(UnknownFlag, 1), E(UnknownFlag, 3)],
        differs: None,
    },
    Row {
        id: "flags_before_subtype",
        text: "array[interleaved]<int32> a\n",
        reference: Refuses("Invalid data type \"array[interleaved]\" for field \"result.a\"!"),
        compatible: &[E(UnknownType, 1)],
        strict: &[E(UnknownType, 1)],
        differs: None,
    },
    Row {
        id: "flag_on_scalar_and_object",
        text: "int32[interleaved] a\nobject[interleaved] o\n- int16 x\n",
        reference: Reads(&["int32 a", "int16 o.x"]),
        compatible: &[W(FlagOnNonArray, 1), W(FlagOnNonArray, 2)],
        strict: &[E(FlagOnNonArray, 1), E(FlagOnNonArray, 2)],
        differs: None,
    },
    Row {
        id: "internal_meta_type_names",
        text: "refArray a\nint32 b\n",
        reference: Reads(&["meta array a", "int32 b"]),
        compatible: &[E(UnknownType, 1)],
        strict: &[E(UnknownType, 1)],
        differs: Some(
            "`refArray`, `refBytes` and `refString` are the reference compiler's internal names for metadata slots, not types of the language (FORMAT.md)",
        ),
    },
    Row {
        id: "count_line_dropped",
        text: "count a\narray a\n- int32 x\n",
        reference: Reads(&["meta array a", "array a", "  int32 x"]),
        compatible: &[W(LegacyLine, 1)],
        strict: &[E(LegacyLine, 1)],
        differs: None,
    },
    Row {
        id: "count_line_under_scalar",
        text: "int32 a\n- count x\nint16 b\n",
        reference: Reads(&["int32 a", "int16 b"]),
        compatible: &[W(LegacyLine, 2)],
        strict: &[E(LegacyLine, 2)],
        differs: None,
    },
    Row {
        id: "count_line_between_array_and_children",
        text: "array a\ncount x\n- int32 y\n",
        reference: Reads(&["meta array a", "array a", "  int32 y"]),
        compatible: &[W(LegacyLine, 2)],
        strict: &[E(LegacyLine, 2)],
        differs: None,
    },
    Row {
        id: "count_with_subtype",
        text: "count<int32>[interleaved] a\nint32 b\n",
        reference: Reads(&["int32 b"]),
        compatible: &[W(LegacyLine, 1)],
        strict: &[E(LegacyLine, 1)],
        differs: None,
    },
    Row {
        id: "offset_is_ref",
        text: "count a\noffset a\nint32 b\narray a\n- int32 x\n",
        reference: Reads(&["meta array a", "int32 b", "array a", "  int32 x"]),
        compatible: &[W(LegacyLine, 1), W(LegacyLine, 2)],
        strict: &[E(LegacyLine, 1), E(LegacyLine, 2)],
        differs: None,
    },
    Row {
        id: "offset_deep_in_array",
        text: "ref a\narray a\n- offset s\n- string s\n",
        reference: Reads(&["meta array a", "array a", "  meta string s", "  string s"]),
        compatible: &[W(LegacyLine, 3)],
        strict: &[E(LegacyLine, 3)],
        differs: None,
    },
    Row {
        id: "ref_before_field_with_fields_between",
        text: "int32 x\nref s\nint32 a\nstring s\n",
        reference: Reads(&["int32 x", "meta string s", "int32 a", "string s"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "ref_spacing",
        text: "ref\t s\nint32 a\n  ref   b  \nstring s\nbytes b\n",
        reference: Reads(&[
            "meta string s",
            "int32 a",
            "meta bytes b",
            "string s",
            "bytes b",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "ref_with_subtype_and_flags",
        text: "ref<int32>[interleaved] s\nstring s\n",
        reference: Reads(&["meta string s", "string s"]),
        compatible: &[W(SubtypeOnNonArray, 1)],
        strict: &[E(SubtypeOnNonArray, 1)],
        differs: None,
    },
    Row {
        id: "ref_after_field",
        text: "string s\nref s\n",
        reference: Refuses("Invalid data type \"ref\" for field \"result.s\"!"),
        compatible: &[E(MissingRef, 1), E(RefAfterField, 2)],
        strict: &[E(MissingRef, 1), E(RefAfterField, 2)],
        differs: None,
    },
    Row {
        id: "ref_to_nothing",
        text: "ref t\nstring s\n",
        reference: Refuses("Invalid data type \"ref\" for field \"result.t\"!"),
        compatible: &[E(RefToNothing, 1), E(MissingRef, 2)],
        strict: &[E(RefToNothing, 1), E(MissingRef, 2)],
        differs: None,
    },
    Row {
        id: "ref_to_scalar",
        text: "ref a\nint32 a\n",
        reference: Refuses("Invalid data type \"ref\" for field \"result.a\"!"),
        compatible: &[E(RefToNothing, 1)],
        strict: &[E(RefToNothing, 1)],
        differs: None,
    },
    Row {
        id: "ref_to_object",
        text: "ref o\nobject o\n- string s\n",
        reference: Refuses("No reference specified for field \"o.s\"!"),
        compatible: &[E(RefToNothing, 1), E(MissingRef, 3)],
        strict: &[E(RefToNothing, 1), E(MissingRef, 3)],
        differs: None,
    },
    Row {
        id: "ref_twice",
        text: "ref s\nref s\nstring s\n",
        reference: Refuses("Invalid data type \"ref\" for field \"result.s\"!"),
        compatible: &[E(DuplicateRef, 2)],
        strict: &[E(DuplicateRef, 2)],
        differs: None,
    },
    Row {
        id: "ref_missing_for_a_field",
        text: "ref s\nstring s\nstring t\nint32 a\n",
        reference: Reads(&["meta string s", "string s", "meta string t", "int32 a"]),
        compatible: &[E(MissingRef, 3)],
        strict: &[E(MissingRef, 3)],
        differs: Some(
            "in explicit mode the reference turns a variable field without a ref line into a metadata slot and never reads its data (LAYOUT.md): an error in both modes",
        ),
    },
    Row {
        id: "ref_dotted_path",
        text: "ref o.s\nobject o\n- int32 a\n- string s\n",
        reference: Reads(&["meta string o.s", "int32 o.a", "string o.s"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "ref_dotted_path_two_objects",
        text: "ref o.p.s\nobject o\n- object p\n-- string s\n",
        reference: Reads(&["meta string o.p.s", "string o.p.s"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "ref_inside_object",
        text: "object o\n- ref s\n- string s\n",
        reference: Refuses("No reference specified for field \"o.s\"!"),
        compatible: &[W(RefInObject, 2)],
        strict: &[E(RefInObject, 2)],
        differs: None,
    },
    Row {
        id: "ref_inside_object_dotted",
        text: "object o\n- ref o.s\n- string s\n",
        reference: Refuses("No reference specified for field \"o.s\"!"),
        compatible: &[W(RefInObject, 2)],
        strict: &[E(RefInObject, 2)],
        differs: None,
    },
    Row {
        id: "ref_inside_object_for_level_field",
        text: "object o\n- ref s\nstring s\n",
        reference: Refuses("Invalid data type \"ref\" for field \"tmpelem_offset_result_o.s\"!"),
        compatible: &[W(RefInObject, 2)],
        strict: &[E(RefInObject, 2)],
        differs: None,
    },
    Row {
        id: "ref_in_array_element",
        text: "ref a\narray a\n- ref s\n- int32 x\n- string s\n",
        reference: Reads(&[
            "meta array a",
            "array a",
            "  meta string s",
            "  int32 x",
            "  string s",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "ref_in_array_element_dotted",
        text: "ref a\narray a\n- ref o.s\n- object o\n-- string s\n",
        reference: Reads(&[
            "meta array a",
            "array a",
            "  meta string o.s",
            "  string o.s",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "ref_at_root_for_element_field",
        text: "ref s\nref a\narray a\n- string s\n",
        reference: Refuses("Invalid data type \"ref\" for field \"result.s\"!"),
        compatible: &[E(RefToNothing, 1), E(MissingRef, 4)],
        strict: &[E(RefToNothing, 1), E(MissingRef, 4)],
        differs: None,
    },
    Row {
        id: "explicit_mode_from_a_deep_ref",
        text: "string t\nint32 x\nref a\narray a\n- ref s\n- string s\n",
        reference: Reads(&[
            "meta string t",
            "int32 x",
            "meta array a",
            "array a",
            "  meta string s",
            "  string s",
        ]),
        compatible: &[E(MissingRef, 1)],
        strict: &[E(MissingRef, 1)],
        differs: Some(
            "one ref line anywhere makes the whole file explicit; the root's `string t` has none, and the reference turns it into a metadata slot and never reads its data: an error in both modes",
        ),
    },
    Row {
        id: "explicit_mode_deep_ref_root_array_without_ref",
        text: "int32 x\narray a\n- ref s\n- string s\n",
        reference: Reads(&["int32 x", "meta array a"]),
        compatible: &[E(MissingRef, 2)],
        strict: &[E(MissingRef, 2)],
        differs: Some(
            "one ref line anywhere makes the whole file explicit; the root's `array a` has none, and the reference turns it into a metadata slot, losing the array and its elements: an error in both modes",
        ),
    },
    Row {
        id: "ref_dotted_field_name",
        text: "ref a.b\nstring a.b\n",
        reference: ReadsBut(
            &["meta string a.b", "string a.b"],
            "decoding throws: Cannot set properties of undefined (setting 'b')",
        ),
        compatible: &[
            E(RefToNothing, 1),
            W(NameNotIdentifier, 2),
            E(MissingRef, 2),
        ],
        strict: &[E(NameNotIdentifier, 2)],
        differs: Some(
            "a field name with a dot: the reference fails on every packet, we refuse the ref (a dotted ref is a path through objects)",
        ),
    },
    Row {
        id: "scalar_twice",
        text: "int32 a\nint16 b\nint32 a\n",
        reference: Reads(&["int32 a", "int16 b", "int32 a"]),
        compatible: &[W(DuplicateField, 3)],
        strict: &[E(DuplicateField, 3)],
        differs: None,
    },
    Row {
        id: "scalar_twice_other_type",
        text: "int32 a\nint16 a\n",
        reference: Reads(&["int32 a", "int16 a"]),
        compatible: &[E(NameClash, 2)],
        strict: &[E(NameClash, 2)],
        differs: Some(
            "one key with two types: the reference keeps the last value and writes both places from it; no typed field can hold it, an error in both modes",
        ),
    },
    Row {
        id: "string_twice",
        text: "string s\nstring s\n",
        reference: Refuses("Identifier 'offset_result_s' has already been declared"),
        compatible: &[E(NameClash, 2)],
        strict: &[E(NameClash, 2)],
        differs: None,
    },
    Row {
        id: "array_twice",
        text: "array a\n- int32 x\narray a\n- int32 y\n",
        reference: Refuses("Identifier 'count_result_a' has already been declared"),
        compatible: &[E(NameClash, 3)],
        strict: &[E(NameClash, 3)],
        differs: None,
    },
    Row {
        id: "object_twice",
        text: "object o\n- int32 a\nint16 b\nobject o\n- int32 c\n",
        reference: Reads(&["int32 o.a", "int16 b", "int32 o.c"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "object_then_scalar",
        text: "object a\n- int32 x\nint16 a\n",
        reference: Reads(&["int32 a.x", "int16 a"]),
        compatible: &[E(NameClash, 3)],
        strict: &[E(NameClash, 3)],
        differs: Some(
            "one key both an object and a scalar: the reference keeps the last and reads the other for nothing; no typed field can hold it, an error in both modes",
        ),
    },
    Row {
        id: "scalar_then_object",
        text: "int16 a\nobject a\n- int32 x\n",
        reference: Reads(&["int16 a", "int32 a.x"]),
        compatible: &[E(NameClash, 2)],
        strict: &[E(NameClash, 2)],
        differs: Some(
            "one key both a scalar and an object: the reference keeps the last and reads the other for nothing; no typed field can hold it, an error in both modes",
        ),
    },
    Row {
        id: "name_not_identifier",
        text: "int32 a-b\n",
        reference: Refuses("Invalid left-hand side in assignment"),
        compatible: &[W(NameNotIdentifier, 1)],
        strict: &[E(NameNotIdentifier, 1)],
        differs: None,
    },
    Row {
        id: "name_starting_with_digit",
        text: "int32 1a\n",
        reference: Refuses("Invalid or unexpected token"),
        compatible: &[W(NameNotIdentifier, 1)],
        strict: &[E(NameNotIdentifier, 1)],
        differs: None,
    },
    Row {
        id: "name_with_dot",
        text: "int32 a.b\n",
        reference: ReadsBut(
            &["int32 a.b"],
            "decoding throws: Cannot set properties of undefined (setting 'b')",
        ),
        compatible: &[W(NameNotIdentifier, 1)],
        strict: &[E(NameNotIdentifier, 1)],
        differs: None,
    },
    Row {
        id: "name_dollar_and_unicode",
        text: "int32 $a\nint32 gr\u{f6}\u{df}e\n",
        reference: Reads(&["int32 $a", "int32 gr\u{f6}\u{df}e"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "name_reserved_word",
        text: "int32 class\nint32 constructor\n",
        reference: Reads(&["int32 class", "int32 constructor"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "name_proto",
        text: "int32 __proto__\nint32 b\n",
        reference: ReadsBut(&["int32 __proto__", "int32 b"], "decodes {\"b\":8}"),
        compatible: &[W(NameNotIdentifier, 1)],
        strict: &[E(NameNotIdentifier, 1)],
        differs: None,
    },
    Row {
        id: "object_nesting",
        text: "object o\n- int32 a\n- object p\n-- string s\n- array l\n-- int16 x\nint16 b\n",
        reference: Reads(&[
            "meta string o.p.s",
            "meta array o.l",
            "int32 o.a",
            "string o.p.s",
            "array o.l",
            "  int16 x",
            "int16 b",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "array_in_array",
        text: "array a\n- int32 x\n- array b\n-- string s\n- string t\nstring u\n",
        reference: Reads(&[
            "meta array a",
            "meta string u",
            "array a",
            "  meta array b",
            "  meta string t",
            "  int32 x",
            "  array b",
            "    meta string s",
            "    string s",
            "  string t",
            "string u",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "empty_object_and_array",
        text: "object o\narray a\nint32 x\n",
        reference: Reads(&["meta array a", "array a", "int32 x"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "fixed_after_variable",
        text: "string s\nint32 a\n",
        reference: Reads(&["meta string s", "string s", "int32 a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "interleaved_consecutive",
        text: "array[interleaved] a\n- int32 x\narray<int16>[interleaved] b\n",
        reference: Reads(&[
            "meta array a",
            "meta array b",
            "array[interleaved] a",
            "  int32 x",
            "array<int16>[interleaved] b",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "interleaved_with_scalar_between",
        text: "array[interleaved] a\n- int32 x\nint32 y\narray[interleaved] b\n- int16 z\n",
        reference: Refuses("Interleaved arrays must be consecutive fields!"),
        compatible: &[W(InterleavedApart, 4)],
        strict: &[E(InterleavedApart, 4)],
        differs: None,
    },
    Row {
        id: "interleaved_with_plain_array_between",
        text: "array[interleaved] a\n- int32 x\narray c\n- byte w\narray[interleaved] b\n- int16 z\n",
        reference: Refuses("Interleaved arrays must be consecutive fields!"),
        compatible: &[W(InterleavedApart, 5)],
        strict: &[E(InterleavedApart, 5)],
        differs: None,
    },
    Row {
        id: "interleaved_with_ref_between",
        text: "ref a\nref b\narray[interleaved] a\n- int32 x\nref c\narray[interleaved] b\n- int16 z\nstring c\n",
        reference: Refuses("Interleaved arrays must be consecutive fields!"),
        compatible: &[W(InterleavedApart, 6)],
        strict: &[E(InterleavedApart, 6)],
        differs: None,
    },
    Row {
        id: "interleaved_refs_before",
        text: "ref a\nref b\nref c\narray[interleaved] a\n- int32 x\narray[interleaved] b\n- int16 z\nstring c\n",
        reference: Reads(&[
            "meta array a",
            "meta array b",
            "meta string c",
            "array[interleaved] a",
            "  int32 x",
            "array[interleaved] b",
            "  int16 z",
            "string c",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "interleaved_level_and_object",
        text: "array[interleaved] a\n- int32 x\nobject o\n- array[interleaved] b\n-- int16 z\n",
        reference: Reads(&[
            "meta array a",
            "meta array o.b",
            "array[interleaved] a",
            "  int32 x",
            "array[interleaved] o.b",
            "  int16 z",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "interleaved_in_object",
        text: "object o\n- array[interleaved] a\n-- int32 x\n- array[interleaved] b\n-- int16 z\n",
        reference: Reads(&[
            "meta array o.a",
            "meta array o.b",
            "array[interleaved] o.a",
            "  int32 x",
            "array[interleaved] o.b",
            "  int16 z",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "interleaved_in_object_declared_twice",
        text: "object o\n- array[interleaved] a\n-- int32 x\nobject o\n- array[interleaved] b\n-- int16 z\n",
        reference: Reads(&[
            "meta array o.a",
            "meta array o.b",
            "array[interleaved] o.a",
            "  int32 x",
            "array[interleaved] o.b",
            "  int16 z",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "interleaved_string_array",
        text: "array<string>[interleaved] a\n",
        reference: Refuses("serializers is not a function"),
        compatible: &[W(InterleavedStrings, 1)],
        strict: &[E(InterleavedStrings, 1)],
        differs: None,
    },
    Row {
        id: "interleaved_string_array_with_other",
        text: "array[interleaved] a\n- int32 x\narray<string>[interleaved] b\n",
        reference: Refuses("serializers is not a function"),
        compatible: &[W(InterleavedStrings, 3)],
        strict: &[E(InterleavedStrings, 3)],
        differs: None,
    },
    Row {
        id: "interleaved_single",
        text: "array[interleaved] a\n- int32 x\nint16 y\n",
        reference: Reads(&[
            "meta array a",
            "array[interleaved] a",
            "  int32 x",
            "int16 y",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "interleaved_in_element",
        text: "array a\n- array[interleaved] b\n-- int32 x\n- array[interleaved] c\n-- int16 y\n",
        reference: Reads(&[
            "meta array a",
            "array a",
            "  meta array b",
            "  meta array c",
            "  array[interleaved] b",
            "    int32 x",
            "  array[interleaved] c",
            "    int16 y",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "interleaved_scalar_between_in_element",
        text: "array a\n- array[interleaved] b\n-- int32 x\n- int32 q\n- array[interleaved] c\n-- int16 y\n",
        reference: Refuses("Interleaved arrays must be consecutive fields!"),
        compatible: &[W(InterleavedApart, 5)],
        strict: &[E(InterleavedApart, 5)],
        differs: None,
    },
    Row {
        id: "name_escape",
        text: "int32 a\\u0062\n",
        reference: ReadsBut(
            &["int32 a\\u0062"],
            "decodes {\"ab\":7}: the escape is read by JavaScript",
        ),
        compatible: &[W(NameNotIdentifier, 1)],
        strict: &[E(NameNotIdentifier, 1)],
        differs: None,
    },
    Row {
        id: "name_zwj",
        text: "int32 a\u{200d}b\n",
        reference: Reads(&["int32 a\u{200d}b"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "name_nbsp_inside",
        text: "int32 a\u{a0}b\nint16 c\n",
        reference: Reads(&["int16 c"]),
        compatible: &[W(MalformedLine, 1)],
        strict: &[E(MalformedLine, 1)],
        differs: None,
    },
    Row {
        id: "name_hash",
        text: "int32 a#b\nint16 c\n",
        reference: Reads(&["int32 a", "int16 c"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "ignored_children_unknown_type",
        text: "array<int32> a\n- int33 x\n",
        reference: Reads(&["meta array a", "array<int32> a"]),
        compatible: &[W(ChildrenIgnored, 2)],
        strict: &[E(ChildrenIgnored, 2)],
        differs: None,
    },
    Row {
        id: "ignored_children_ref_switches_mode",
        text: "string s\narray<int32> a\n- ref q\n",
        reference: Reads(&["meta string s", "meta array a"]),
        compatible: &[E(MissingRef, 1), E(MissingRef, 2), W(ChildrenIgnored, 3)],
        strict: &[E(ChildrenIgnored, 3)],
        differs: Some(
            "a ref line, even one the reference never compiles, makes the whole file explicit; `string s` and `array<int32> a` have none, and the reference turns them into metadata slots: an error in both modes",
        ),
    },
    Row {
        id: "array_of_bool",
        text: "array<bool> a\n",
        reference: Reads(&["meta array a", "array<bool> a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "array_of_customize",
        text: "array<customize> a\n",
        reference: Reads(&["meta array a", "array<customize> a"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "escaped_path_clash_string",
        text: "object o\n- string b\nstring o_b\n",
        reference: Refuses("Identifier 'offset_result_o_b' has already been declared"),
        compatible: &[W(JsVariableClash, 3)],
        strict: &[E(JsVariableClash, 3)],
        differs: None,
    },
    Row {
        id: "escaped_path_clash_objects",
        text: "object o_x\n- int32 a\nobject o\n- object x\n-- int32 b\n",
        reference: Refuses("Identifier 'tmpelem_offset_result_o_x' has already been declared"),
        compatible: &[W(JsVariableClash, 4)],
        strict: &[E(JsVariableClash, 4)],
        differs: None,
    },
    Row {
        id: "escaped_path_object_and_string",
        text: "object o_x\n- int32 a\nobject o\n- string x\n",
        reference: Reads(&["meta string o.x", "int32 o_x.a", "string o.x"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "escaped_path_array_and_object",
        text: "array o_x\n- int32 a\nobject o\n- object x\n-- int32 b\n",
        reference: Refuses("Identifier 'tmpelem_offset_result_o_x' has already been declared"),
        compatible: &[W(JsVariableClash, 4)],
        strict: &[E(JsVariableClash, 4)],
        differs: None,
    },
    Row {
        id: "escaped_path_in_elements",
        text: "array a\n- string s\nstring a_s\n",
        reference: Reads(&[
            "meta array a",
            "meta string a_s",
            "array a",
            "  meta string s",
            "  string s",
            "string a_s",
        ]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "escaped_path_scalars",
        text: "object o\n- int32 b\nint32 o_b\n",
        reference: Reads(&["int32 o.b", "int32 o_b"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "ref_object_declared_twice",
        text: "ref o.s\nobject o\n- int32 a\nobject o\n- string s\n",
        reference: Reads(&["meta string o.s", "int32 o.a", "string o.s"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "name_combining_accent",
        text: "int32 cafe\u{301}\n",
        reference: Reads(&["int32 cafe\u{301}"]),
        compatible: &[],
        strict: &[],
        differs: None,
    },
    Row {
        id: "interleaved_with_count_and_malformed_between",
        text: "array[interleaved] a\n- int32 x\ncount b\nnot a field line\narray[interleaved] b\n- int16 z\n",
        reference: Reads(&[
            "meta array a",
            "meta array b",
            "array[interleaved] a",
            "  int32 x",
            "array[interleaved] b",
            "  int16 z",
        ]),
        compatible: &[W(LegacyLine, 3), W(MalformedLine, 4)],
        strict: &[E(LegacyLine, 3), E(MalformedLine, 4)],
        differs: None,
    },
    Row {
        id: "interleaved_with_object_between",
        text: "array[interleaved] a\n- int32 x\nobject o\n- int32 y\narray[interleaved] b\n- int16 z\n",
        reference: Refuses("Interleaved arrays must be consecutive fields!"),
        compatible: &[W(InterleavedApart, 5)],
        strict: &[E(InterleavedApart, 5)],
        differs: None,
    },
    Row {
        id: "interleaved_with_empty_object_between",
        text: "array[interleaved] a\n- int32 x\nobject o\narray[interleaved] b\n- int16 z\n",
        reference: Refuses("Interleaved arrays must be consecutive fields!"),
        compatible: &[W(InterleavedApart, 4)],
        strict: &[E(InterleavedApart, 4)],
        differs: None,
    },
    Row {
        id: "array_subtype_of_brackets_only",
        text: "array<<>> a\n- int32 x\n",
        reference: Reads(&["meta array a", "array a", "  int32 x"]),
        compatible: &[W(StrayBracket, 1)],
        strict: &[E(StrayBracket, 1)],
        differs: None,
    },
    Row {
        id: "array_subtype_of_spaces_and_brackets",
        text: "array< <> > a\n- int32 x\n",
        reference: Reads(&["meta array a", "array a", "  int32 x"]),
        compatible: &[W(StrayBracket, 1)],
        strict: &[E(StrayBracket, 1)],
        differs: None,
    },
];

fn diagnostics(text: &str, mode: Mode) -> (Option<def_parser::Layout>, Vec<D>) {
    let (layout, report) = match compile_str("T_GRAMMAR.1.def", text, mode) {
        Ok(c) => (Some(c.layout), c.warnings),
        Err(r) => (None, r),
    };
    let d = report
        .diagnostics
        .iter()
        .map(|d| {
            if d.is_error() {
                E(d.code, d.line)
            } else {
                W(d.code, d.line)
            }
        })
        .collect();
    (layout, d)
}

/// The layout as the listing the reference's rows are written in.
fn listing(level: &Level, indent: &str, out: &mut Vec<String>) {
    for step in &level.steps {
        let vars: Vec<usize> = match step {
            Step::Fixed(run) => {
                for (_, f) in &run.fields {
                    out.push(match *f {
                        Fixed::Meta { slot, kind } => {
                            let kind = match kind {
                                MetaKind::Array => "array",
                                MetaKind::Bytes => "bytes",
                                MetaKind::String => "string",
                            };
                            format!("{indent}meta {kind} {}", level.slot_name(slot))
                        }
                        Fixed::Value { slot, ty } => {
                            format!("{indent}{} {}", ty.keyword(), level.slot_name(slot))
                        }
                    });
                }
                continue;
            }
            Step::Var(slot) => vec![*slot],
            Step::Interleaved(slots) => slots.clone(),
        };
        for slot in vars {
            let m = level.slot_member(slot);
            let name = level.slot_name(slot);
            let flag = if m.interleaved { "[interleaved]" } else { "" };
            match &m.kind {
                MemberKind::String => out.push(format!("{indent}string {name}")),
                MemberKind::Bytes => out.push(format!("{indent}bytes {name}")),
                MemberKind::ArrayOf(e) => {
                    let e = match e {
                        def_parser::ast::ElemType::String => "string",
                        def_parser::ast::ElemType::Scalar(s) => s.keyword(),
                    };
                    out.push(format!("{indent}array<{e}>{flag} {name}"));
                }
                MemberKind::Array(inner) => {
                    out.push(format!("{indent}array{flag} {name}"));
                    listing(inner, &format!("{indent}  "), out);
                }
                other => unreachable!("{other:?} has no data of its own"),
            }
        }
    }
}

fn listing_of(layout: &def_parser::Layout) -> Vec<String> {
    let mut out = Vec::new();
    listing(&layout.root, "", &mut out);
    out
}

#[test]
fn every_row() {
    let mut failures = Vec::new();
    for row in ROWS {
        let (compatible, c) = diagnostics(row.text, Mode::Compatible);
        let (strict, s) = diagnostics(row.text, Mode::Strict);
        let mut fail = |what: String| failures.push(format!("{}: {what}", row.id));
        if c != row.compatible {
            fail(format!(
                "compatible mode gives {c:?}, the table says {:?}",
                row.compatible
            ));
        }
        if s != row.strict {
            fail(format!(
                "strict mode gives {s:?}, the table says {:?}",
                row.strict
            ));
        }
        if s.iter().any(|d| matches!(d, W(..))) || (strict.is_some() != s.is_empty()) {
            fail(format!(
                "strict mode must refuse exactly what it reports: {s:?}"
            ));
        }
        if c.iter().any(|d| matches!(d, W(..))) && strict.is_some() {
            fail("strict mode accepts what compatible mode warns about".into());
        }
        let warned = !c.is_empty();
        match (&row.reference, row.differs) {
            (Reads(want), None) => match &compatible {
                Some(l) if listing_of(l) == *want => {}
                Some(l) => fail(format!(
                    "we read {:?}, the reference {want:?}",
                    listing_of(l)
                )),
                None => {
                    fail("we refuse what the reference reads, and the row gives no reason".into())
                }
            },
            (ReadsBut(want, what), None) => {
                if !warned {
                    fail(format!(
                        "the reference loses data here ({what}): compatible mode must warn"
                    ));
                }
                if let Some(l) = &compatible
                    && listing_of(l) != *want
                {
                    fail(format!(
                        "we read {:?}, the reference {want:?}",
                        listing_of(l)
                    ));
                }
            }
            (Refuses(why), _) | (ReadsBut(_, why), Some(_)) => {
                if !warned {
                    fail(format!(
                        "the reference refuses this ({why}): compatible mode must not accept it silently"
                    ));
                }
            }
            (Reads(_), Some(_)) => {
                if !warned {
                    fail("we differ from the reference here: compatible mode must say so".into());
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_table_names_every_row_and_only_rows() {
    // docs/grammar.md names the rows of this file in italics in the last column of its tables.
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/grammar.md"))
        .expect("docs/grammar.md");
    let mut named = std::collections::HashSet::new();
    for line in doc.lines().filter(|l| l.starts_with("| ")) {
        let last = line.trim_end_matches('|').rsplit('|').next().unwrap_or("");
        for (k, piece) in last.split('*').enumerate() {
            if k % 2 == 1 {
                assert!(
                    ROWS.iter().any(|r| r.id == piece),
                    "docs/grammar.md names `{piece}`, which is no row"
                );
                named.insert(piece.to_string());
            }
        }
    }
    for row in ROWS {
        assert!(
            named.contains(row.id),
            "row `{}` is not in docs/grammar.md",
            row.id
        );
    }
}
