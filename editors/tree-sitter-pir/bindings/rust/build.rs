//! Compiles the generated C parser (`src/parser.c`, from `grammar.js` by `tree-sitter
//! generate`) and the external scanner (`src/scanner.c`) into the crate with the `cc`
//! crate: no tree-sitter CLI is needed to build.

fn main() {
    let src_dir = std::path::Path::new("src");
    let mut c_config = cc::Build::new();
    c_config.std("c11").include(src_dir);
    #[cfg(target_env = "msvc")]
    c_config.flag("-utf-8");
    let parser_path = src_dir.join("parser.c");
    let scanner_path = src_dir.join("scanner.c");
    c_config.file(&parser_path).file(&scanner_path);
    println!("cargo:rerun-if-changed={}", parser_path.display());
    println!("cargo:rerun-if-changed={}", scanner_path.display());
    println!("cargo:rerun-if-changed=src/tree_sitter/parser.h");
    c_config.compile("tree-sitter-pir");
}
