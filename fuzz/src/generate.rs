//! A structure-aware generator: fuzz bytes → a well-formed-ish `.pir` program. Raw bytes
//! mutated by libFuzzer rarely parse (the formatter only formats error-free files, and the
//! lowering only sees the ops that resolve), so the `format` target reads every input, and
//! the `analysis` target each input that starts with a 0 byte, as the choices of this
//! generator: kernels, tensor and register declarations, loops, and ops of the catalog
//! with fields of their kinds, and between any two tokens a choice of whitespace (spaces,
//! tabs, newlines, blank lines, comments, `\r\n`, form feeds). Running out of bytes picks
//! the first choice everywhere, so any input gives a program.

use lower::catalog::{Kind, Mems};

/// The choices, read one byte at a time (0 once exhausted).
struct Src<'a>(&'a [u8]);

impl Src<'_> {
    fn byte(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }

    fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n.max(1)
    }

    fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }

    fn more(&self) -> bool {
        !self.0.is_empty()
    }
}

/// Whitespace between tokens other than one space (three bytes in four choose that):
/// anything the lexer skips, or a line break, which may or may not be allowed there.
const SPACES: &[&str] = &[
    "", "  ", "\t", "\n", "\n\n", "\n\n\n", " // c\n", "\r\n", "\x0c", "    ", " \n  ", "\n// c\n",
    " \t ", "\u{FEFF}", "\n    ", "\n\t",
];

const DTYPES: &[&str] = &[
    "f32", "bf16", "f16", "i32", "u8", "f8e4m3", "f32r", "fp", "e8m0",
];
const MEMS: &[&str] = &["sbuf", "psum", "hbm", "sbuf", "sbuf", "reg", "dram"];
const DIMS: &[&str] = &[
    "128", "64", "1", "512", "4", "2048", "0", "129", "32", "2", "3",
];
const INTS: &[&str] = &[
    "0",
    "1",
    "2",
    "4",
    "32",
    "128",
    "0",
    "1",
    "2",
    "64",
    "-1",
    "0x10",
    "1_000",
    "99999999999",
    "-9223372036854775808",
];
const FLOATS: &[&str] = &[
    "1.0", "0.5", "-2.5", "1e-6", "inf", "-inf", "nan", "3", "1e309",
];

struct Gen<'a> {
    src: Src<'a>,
    out: String,
    /// The tensors declared so far in the current kernel.
    tensors: Vec<String>,
    /// The loop variables in scope.
    loops: Vec<String>,
    /// The registers declared so far.
    regs: Vec<String>,
    names: usize,
    /// The open brackets: `true` for the braces of an op or record body, where a newline
    /// separates fields (SPEC §2), so whitespace there has none (separators are tokens).
    open: Vec<bool>,
}

impl Gen<'_> {
    /// Whitespace, then `token`.
    fn tok(&mut self, token: &str) {
        if !self.out.is_empty() {
            let b = self.src.byte();
            let ws = if b < 192 {
                " "
            } else {
                SPACES[usize::from(b) % SPACES.len()]
            };
            let in_fields = self.open.last() == Some(&true);
            self.out
                .push_str(if in_fields && ws.contains('\n') && b != 255 {
                    " "
                } else {
                    ws
                });
        }
        self.out.push_str(token);
        match token {
            "[" | "(" => self.open.push(false),
            "]" | ")" | "}" => {
                self.open.pop();
            }
            _ => {}
        }
    }

    /// `{`, opening a body of fields (`true`) or of statements.
    fn brace(&mut self, fields: bool) {
        self.tok("{");
        self.open.push(fields);
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn ty(&mut self) {
        let mem = *self.src.pick(MEMS);
        let dtype = *self.src.pick(DTYPES);
        self.tok(mem);
        self.tok(dtype);
        self.tok("[");
        let rank = 1 + self.src.below(3);
        for k in 0..rank {
            if k > 0 {
                self.tok(",");
            }
            let d = *self.src.pick(DIMS);
            self.tok(d);
        }
        self.tok("]");
    }

    fn expr(&mut self, depth: usize) {
        match self.src.below(if depth > 2 { 2 } else { 6 }) {
            0 => {
                let i = *self.src.pick(INTS);
                self.tok(i);
            }
            1 => match self.loops.len() {
                0 => self.tok("0"),
                n => {
                    let l = self.loops[self.src.below(n)].clone();
                    self.tok(&l);
                }
            },
            2 => {
                self.expr(depth + 1);
                let op = *self.src.pick(&["+", "-", "*"]);
                self.tok(op);
                self.expr(depth + 1);
            }
            3 => {
                self.tok("(");
                self.expr(depth + 1);
                self.tok(")");
            }
            4 => {
                self.tok("-");
                self.expr(depth + 1);
            }
            _ => self.tok("$0"),
        }
    }

    fn access(&mut self) {
        let name = match self.tensors.len() {
            0 => "%nope".to_string(),
            n => self.tensors[self.src.below(n)].clone(),
        };
        self.tok(&name);
        if self.src.below(3) == 0 {
            return;
        }
        self.tok("[");
        let n = 1 + self.src.below(3);
        for k in 0..n {
            if k > 0 {
                self.tok(",");
            }
            match self.src.below(4) {
                0 => self.tok(":"),
                1 => self.expr(0),
                2 => {
                    self.expr(0);
                    self.tok(":");
                    self.expr(0);
                }
                _ => {
                    self.expr(0);
                    self.tok(":");
                    self.expr(0);
                    self.tok(":");
                    let i = *self.src.pick(INTS);
                    self.tok(i);
                }
            }
        }
        self.tok("]");
    }

    fn value(&mut self, kind: &Kind, depth: usize) {
        // Sometimes a value of another kind, to reach the type errors.
        let kind = if self.src.below(10) == 0 {
            *self.src.pick(&[
                Kind::Int,
                Kind::Float,
                Kind::Bool,
                Kind::Str,
                Kind::Record,
                Kind::Acc(Mems::ON_CHIP, lower::catalog::Dir::In),
                Kind::List(&Kind::Int),
            ])
        } else {
            *kind
        };
        match kind {
            Kind::Acc(..) | Kind::Imm(_) | Kind::KernelOperand(_) | Kind::IntAccReg => {
                match self.src.below(6) {
                    0 if matches!(kind, Kind::KernelOperand(_)) => {
                        let call = *self.src.pick(&["full", "subtensor", "tile", "opaque", "f"]);
                        self.tok(call);
                        self.tok("(");
                        self.access();
                        self.tok(")");
                    }
                    1 if matches!(kind, Kind::Imm(_) | Kind::IntAccReg) => {
                        let f = *self.src.pick(FLOATS);
                        self.tok(f);
                    }
                    2 if matches!(kind, Kind::IntAccReg) && !self.regs.is_empty() => {
                        let r = self.regs[self.src.below(self.regs.len())].clone();
                        self.tok(&r);
                    }
                    _ => self.access(),
                }
            }
            Kind::Bool => {
                let b = *self.src.pick(&["true", "false", "1"]);
                self.tok(b);
            }
            Kind::Int => {
                let i = *self.src.pick(INTS);
                self.tok(i);
            }
            Kind::Float => {
                let f = *self.src.pick(FLOATS);
                self.tok(f);
            }
            Kind::Str => {
                let s = *self
                    .src
                    .pick(&["\"relu\"", "\"\"", "\"a\\n\\u{1F980}\"", "\"x\""]);
                self.tok(s);
            }
            Kind::Bytes => {
                let b = *self.src.pick(&["x\"de ad be ef\"", "x\"\"", "x\"0\""]);
                self.tok(b);
            }
            Kind::Dtype => {
                let d = *self.src.pick(DTYPES);
                self.tok(d);
            }
            Kind::Reg => match self.regs.len() {
                0 => self.tok("%r"),
                n => {
                    let r = self.regs[self.src.below(n)].clone();
                    self.tok(&r);
                }
            },
            Kind::Pred => {
                self.expr(0);
                let op = *self.src.pick(&[">=", ">", "<=", "<", "==", "!="]);
                self.tok(op);
                self.expr(0);
            }
            Kind::Record => {
                self.brace(true);
                if depth < 2 {
                    let n = self.src.below(3);
                    for k in 0..n {
                        if k > 0 {
                            self.tok(",");
                        }
                        let name = *self.src.pick(&["a", "step", "scale", "b"]);
                        self.tok(name);
                        self.tok("=");
                        self.value(&Kind::Int, depth + 1);
                    }
                }
                self.tok("}");
            }
            Kind::Enum(e) => {
                let v = match e.values.len() {
                    0 => "none",
                    n => e.values[self.src.below(n + 1).min(n - 1)].text,
                };
                self.tok(v);
            }
            Kind::List(inner) => {
                self.tok("[");
                if depth < 2 {
                    let n = self.src.below(4);
                    for k in 0..n {
                        if k > 0 {
                            self.tok(",");
                        }
                        self.value(inner, depth + 1);
                    }
                }
                self.tok("]");
            }
        }
    }

    fn op(&mut self) {
        let spec = *self.src.pick(lower::CATALOG);
        self.tok(spec.class);
        if self.src.below(4) == 0 {
            let id = *self.src.pick(&["#1", "#2", "#99999999999"]);
            self.tok(id);
        }
        self.brace(true);
        let mut first = true;
        for field in spec.fields {
            // Leave out some optional fields (and sometimes a required one).
            let keep = self.src.below(8);
            if keep == 0 || (keep < 4 && !field.is_required()) {
                continue;
            }
            if !first {
                let sep = *self.src.pick(&[",", ",", "\n", ",\n"]);
                self.tok(sep);
            }
            first = false;
            let name = if self.src.below(20) == 0 {
                "bogus_field"
            } else {
                field.name
            };
            self.tok(name);
            self.tok("=");
            self.value(&field.kind, 0);
        }
        self.tok("}");
    }

    fn stmts(&mut self, depth: usize) {
        let n = 1 + self.src.below(6);
        for _ in 0..n {
            if !self.src.more() && n > 1 {
                break;
            }
            match self.src.below(8) {
                0 => {
                    let name = self.fresh("%t");
                    self.tok("tensor");
                    self.tok(&name);
                    self.tok(":");
                    self.ty();
                    self.tensors.push(name);
                }
                1 => {
                    let name = self.fresh("%r");
                    self.tok("reg");
                    self.tok(&name);
                    self.tok(":");
                    let d = *self.src.pick(DTYPES);
                    self.tok(d);
                    self.regs.push(name);
                }
                2 if depth < 3 => {
                    let name = self.fresh("%i");
                    self.tok("for");
                    self.tok(&name);
                    self.tok("in");
                    let lo = *self.src.pick(&["0", "1", "0", "-1"]);
                    self.tok(lo);
                    self.tok("..");
                    let hi = *self.src.pick(&["2", "4", "1", "0", "128"]);
                    self.tok(hi);
                    if self.src.below(3) == 0 {
                        self.tok("step");
                        let s = *self.src.pick(&["2", "1", "0", "3"]);
                        self.tok(s);
                    }
                    self.brace(false);
                    self.loops.push(name);
                    self.stmts(depth + 1);
                    self.loops.pop();
                    self.tok("}");
                }
                _ => self.op(),
            }
        }
    }

    fn params(&mut self) {
        self.tok("(");
        let n = self.src.below(4);
        for k in 0..n {
            if k > 0 {
                self.tok(",");
            }
            let name = self.fresh("%p");
            self.tok(&name);
            self.tok(":");
            self.ty();
            self.tensors.push(name);
        }
        self.tok(")");
    }

    fn kernel(&mut self) {
        self.tensors.clear();
        self.regs.clear();
        self.tok("kernel");
        let name = *self.src.pick(&["@k", "@k2", "@k"]);
        self.tok(name);
        self.params();
        if self.src.below(2) == 0 {
            self.tok("->");
            self.params();
        }
        self.brace(false);
        self.stmts(0);
        self.tok("}");
    }
}

/// The program that `data` chooses.
pub fn program(data: &[u8]) -> String {
    let mut g = Gen {
        src: Src(data),
        out: String::new(),
        tensors: Vec::new(),
        loops: Vec::new(),
        regs: Vec::new(),
        names: 0,
        open: Vec::new(),
    };
    if g.src.below(4) == 0 {
        g.out.push_str("// a comment\n\n");
    }
    loop {
        g.kernel();
        if !g.src.more() || g.out.len() > 16 * 1024 {
            break;
        }
    }
    let end = *g.src.pick(&["\n", "", "\n\n", "  \n", "\r\n"]);
    g.out.push_str(end);
    g.out
}

#[cfg(test)]
mod tests {
    /// Many programs of random choices parse (and all of them when the choices run out).
    #[test]
    fn generated_programs_mostly_parse() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        assert!(syntax::parse(&super::program(&[])).errors.is_empty());
        let mut ok = 0;
        for n in 0..200 {
            let bytes: Vec<u8> = (0..n * 4)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 24) as u8
                })
                .collect();
            let text = super::program(&bytes);
            if syntax::parse(&text).errors.is_empty() {
                ok += 1;
            }
        }
        assert!(ok > 60, "{ok}/200 parse");
    }
}
