//! P201: a name defined twice (SPEC §7), on the second definition, related to the first:
//! a kernel named as an earlier one of its document, or a parameter, tensor, register or
//! loop variable named as one in scope (for a tensor or register, any of its kernel).
//! Name resolution finds those within a chunk; the document, those whose first definition
//! is in another chunk ([`kernels_defined_twice`], and the earlier parts of a kernel cut
//! into chunks, `crate::diagnostic::RelatedAt::EarlierDefinition`).

use rustc_hash::FxHashMap as HashMap;

use lower::diag::Code;
use syntax::ast::TextRange;

use crate::diagnostic::{Finding, RelatedAt};

/// The note on the first definition.
pub const FIRST: &str = "first defined here";

/// The message of P201 on a kernel `@name`, led by the compiler's `identical function
/// name` (SPEC §7.1 [3]).
fn kernel_message(name: &str) -> String {
    format!(
        "{}: kernel `@{name}` is defined twice",
        lower::diag::compiler::IDENTICAL_FUNCTION_NAME
    )
}

/// P201 on the kernel `@name` at `range`, first defined at `first` (`here`: in its chunk).
pub fn kernel(name: &str, range: TextRange, first: TextRange) -> Finding {
    Finding {
        related: vec![(
            RelatedAt::FirstKernel {
                name: name.to_string(),
                here: first,
            },
            FIRST.to_string(),
        )],
        ..Finding::new(Code::P201, range, kernel_message(name))
    }
}

/// P201 on `%name` at `range`, first defined at `first`.
pub fn name(name: &str, range: TextRange, first: RelatedAt) -> Finding {
    Finding {
        related: vec![(first, FIRST.to_string())],
        ..Finding::new(
            Code::P201,
            range,
            format!("`%{name}` is already defined in this kernel"),
        )
    }
}

/// P201 on each kernel of a document named as one in an earlier chunk: `kernels` the
/// chunks' kernel names in document order, each with its range in the document (a chunk
/// lists each of its names once). Also the first definition of each name, for the
/// related note of a chunk's own P201 ([`RelatedAt::FirstKernel`]).
pub fn kernels_defined_twice<'a>(
    kernels: impl IntoIterator<Item = (&'a str, TextRange)>,
) -> (Vec<Finding>, HashMap<&'a str, TextRange>) {
    let mut first: HashMap<&str, TextRange> = HashMap::default();
    let mut out = Vec::new();
    for (name, range) in kernels {
        match first.get(name) {
            Some(&at) => out.push(
                Finding::new(Code::P201, range, kernel_message(name)).with_related(at, FIRST),
            ),
            None => {
                first.insert(name, range);
            }
        }
    }
    (out, first)
}
