//! Prints the text that a target reads from an input file (a generated program for the
//! `format` target and for `analysis` inputs starting with a 0 byte):
//! `cargo run --example show -- TARGET FILE`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [target, file] = args.as_slice() else {
        eprintln!("usage: show parse|analysis|format FILE");
        std::process::exit(2);
    };
    let data = std::fs::read(file).expect("readable input");
    print!("{}", pir_fuzz::text_of(target, &data));
}
