//! What the highlighter knows about each language: comment and string
//! delimiters, keywords, constants and type names. Only what a light
//! colouring needs; grammar is left to real tools.

/// One kind of string literal.
pub(super) struct StrDelim {
    pub(super) open: &'static str,
    pub(super) close: &'static str,
    /// Whether `\` escapes the next character.
    pub(super) escapes: bool,
    /// Whether the literal may continue on the next line.
    pub(super) multiline: bool,
}

/// The lexical facts of one language.
pub(super) struct Spec {
    pub(super) line_comments: &'static [&'static str],
    /// Opening and closing markers, and whether comments nest (Rust).
    pub(super) block_comment: Option<(&'static str, &'static str, bool)>,
    /// Tried in order: longer openers first.
    pub(super) strings: &'static [StrDelim],
    pub(super) keywords: &'static [&'static str],
    pub(super) constants: &'static [&'static str],
    pub(super) types: &'static [&'static str],
    /// A `#` comment starts only at the line start or after whitespace
    /// (shell, YAML), so `$#` and `a#b` are not comments.
    pub(super) hash_needs_space: bool,
    /// Characters allowed inside (not at the start of) an identifier
    /// besides letters, digits and `_`.
    pub(super) ident_extra: &'static [u8],
    /// Capitalised identifiers are type names (Rust, Java, JS/TS).
    pub(super) caps_are_types: bool,
    /// `@name` is a decorator or annotation.
    pub(super) at_attrs: bool,
    /// `$name`, `${...}`, `$1` are variables (shell).
    pub(super) dollar_vars: bool,
    /// `#name` at the line start is a preprocessor directive (C, C++).
    pub(super) preprocessor: bool,
    /// A string followed by `:` is a key (JSON).
    pub(super) string_keys: bool,
    /// Rust's char literals, lifetimes and raw strings.
    pub(super) rust_quotes: bool,
}

const fn s(open: &'static str, close: &'static str, escapes: bool, multiline: bool) -> StrDelim {
    StrDelim {
        open,
        close,
        escapes,
        multiline,
    }
}

const BASE: Spec = Spec {
    line_comments: &[],
    block_comment: None,
    strings: &[],
    keywords: &[],
    constants: &[],
    types: &[],
    hash_needs_space: false,
    ident_extra: &[],
    caps_are_types: false,
    at_attrs: false,
    dollar_vars: false,
    preprocessor: false,
    string_keys: false,
    rust_quotes: false,
};

pub(super) const RUST: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/", true)),
    strings: &[s("\"", "\"", true, true)],
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
        "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "type",
        "unsafe", "use", "where", "while", "yield",
    ],
    constants: &["true", "false", "None", "Some", "Ok", "Err"],
    types: &[
        "bool", "char", "str", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
        "i64", "i128", "isize", "f32", "f64",
    ],
    caps_are_types: true,
    rust_quotes: true,
    ..BASE
};

pub(super) const PYTHON: Spec = Spec {
    line_comments: &["#"],
    strings: &[
        s("\"\"\"", "\"\"\"", true, true),
        s("'''", "'''", true, true),
        s("\"", "\"", true, false),
        s("'", "'", true, false),
    ],
    keywords: &[
        "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
        "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with",
        "yield", "match", "case", "self",
    ],
    constants: &["True", "False", "None"],
    types: &[
        "int", "float", "str", "bool", "bytes", "list", "dict", "set", "tuple", "object",
    ],
    at_attrs: true,
    ..BASE
};

pub(super) const JAVASCRIPT: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/", false)),
    strings: &[
        s("`", "`", true, true),
        s("\"", "\"", true, false),
        s("'", "'", true, false),
    ],
    keywords: &[
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "let",
        "new",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "async",
        "await",
        "of",
        "static",
        "get",
        "set",
        "from",
        "as",
        "interface",
        "type",
        "enum",
        "implements",
        "private",
        "public",
        "protected",
        "readonly",
        "abstract",
        "declare",
        "namespace",
        "keyof",
        "satisfies",
    ],
    constants: &["true", "false", "null", "undefined", "NaN", "Infinity"],
    types: &[
        "string", "number", "boolean", "any", "unknown", "never", "void", "object", "bigint",
    ],
    ident_extra: b"$",
    caps_are_types: true,
    at_attrs: true,
    ..BASE
};

pub(super) const GO: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/", false)),
    strings: &[
        s("`", "`", false, true),
        s("\"", "\"", true, false),
        s("'", "'", true, false),
    ],
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "type",
        "var",
    ],
    constants: &["true", "false", "nil", "iota"],
    types: &[
        "int",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "uintptr",
        "float32",
        "float64",
        "complex64",
        "complex128",
        "string",
        "bool",
        "byte",
        "rune",
        "error",
        "any",
    ],
    ..BASE
};

pub(super) const C: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/", false)),
    strings: &[s("\"", "\"", true, false), s("'", "'", true, false)],
    keywords: &[
        "auto",
        "break",
        "case",
        "const",
        "continue",
        "default",
        "do",
        "else",
        "enum",
        "extern",
        "for",
        "goto",
        "if",
        "inline",
        "register",
        "restrict",
        "return",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "volatile",
        "while",
        "class",
        "namespace",
        "template",
        "typename",
        "public",
        "private",
        "protected",
        "virtual",
        "override",
        "final",
        "new",
        "delete",
        "this",
        "throw",
        "try",
        "catch",
        "using",
        "constexpr",
        "noexcept",
        "operator",
        "friend",
        "explicit",
        "mutable",
        "static_cast",
        "dynamic_cast",
        "reinterpret_cast",
        "const_cast",
        "decltype",
        "concept",
        "requires",
        "co_await",
        "co_return",
        "co_yield",
    ],
    constants: &["true", "false", "NULL", "nullptr"],
    types: &[
        "void", "char", "short", "int", "long", "float", "double", "bool", "size_t", "int8_t",
        "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    ],
    preprocessor: true,
    ..BASE
};

pub(super) const JAVA: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/", false)),
    strings: &[
        s("\"\"\"", "\"\"\"", true, true),
        s("\"", "\"", true, false),
        s("'", "'", true, false),
    ],
    keywords: &[
        "abstract",
        "assert",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "default",
        "do",
        "else",
        "enum",
        "extends",
        "final",
        "finally",
        "for",
        "goto",
        "if",
        "implements",
        "import",
        "instanceof",
        "interface",
        "native",
        "new",
        "package",
        "private",
        "protected",
        "public",
        "return",
        "static",
        "strictfp",
        "super",
        "switch",
        "synchronized",
        "this",
        "throw",
        "throws",
        "transient",
        "try",
        "volatile",
        "while",
        "var",
        "record",
        "yield",
        "sealed",
        "permits",
    ],
    constants: &["true", "false", "null"],
    types: &[
        "boolean", "byte", "char", "double", "float", "int", "long", "short", "void",
    ],
    caps_are_types: true,
    at_attrs: true,
    ..BASE
};

pub(super) const SHELL: Spec = Spec {
    line_comments: &["#"],
    strings: &[s("\"", "\"", true, true), s("'", "'", false, true)],
    keywords: &[
        "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
        "in", "function", "select", "return", "local", "export", "readonly", "declare", "unset",
        "shift", "exit", "break", "continue", "source", "alias", "set", "trap", "eval", "exec",
    ],
    constants: &["true", "false"],
    hash_needs_space: true,
    ident_extra: b"-",
    dollar_vars: true,
    ..BASE
};

pub(super) const JSON: Spec = Spec {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/", false)),
    strings: &[s("\"", "\"", true, false)],
    constants: &["true", "false", "null"],
    string_keys: true,
    ..BASE
};

pub(super) const TOML: Spec = Spec {
    line_comments: &["#"],
    strings: &[
        s("\"\"\"", "\"\"\"", true, true),
        s("'''", "'''", false, true),
        s("\"", "\"", true, false),
        s("'", "'", false, false),
    ],
    constants: &["true", "false", "inf", "nan"],
    ..BASE
};

pub(super) const YAML: Spec = Spec {
    line_comments: &["#"],
    strings: &[s("\"", "\"", true, false), s("'", "'", false, false)],
    constants: &[
        "true", "false", "True", "False", "TRUE", "FALSE", "null", "Null", "NULL", "yes", "no",
        "on", "off",
    ],
    hash_needs_space: true,
    ident_extra: b"-",
    string_keys: true,
    ..BASE
};
