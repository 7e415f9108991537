//! Tests of [`super`]: fixtures with cursor markers and snapshots.

use crate::ide::fixture::with_cursor;

fn labels(fixture: &str) -> Vec<String> {
    let (db, doc, offset) = with_cursor(fixture);
    super::completions(&db, &doc, offset)
        .into_iter()
        .map(|c| c.label)
        .collect()
}

const HEAD: &str = "kernel @k(%x: hbm f32[128, 512]) {\n  tensor %t : sbuf f32[128, 512]\n  tensor %p : psum f32[128, 512]\n";

#[test]
fn op_classes_at_a_statement_start() {
    let got = labels(&format!("{HEAD}  Mat<|>\n}}\n"));
    assert!(
        got.contains(&"MatMulOp".to_string()) && got.contains(&"tensor".to_string()),
        "{got:?}"
    );
}

#[test]
fn remaining_fields_in_an_op_body() {
    let got = labels(&format!("{HEAD}  MatMulOp {{ dst = %p, <|> }}\n}}\n"));
    assert!(
        got.contains(&"stationary".to_string()) && !got.contains(&"dst".to_string()),
        "{got:?}"
    );
    let got = labels(&format!(
        "{HEAD}  MatMulOp {{\n    dst = %p\n    mov<|>\n  }}\n}}\n"
    ));
    assert!(got.contains(&"moving".to_string()), "{got:?}");
}

#[test]
fn pir_spec_2_fields_are_offered() {
    // pir-spec/2 §6.1, §6.3, §6.7: the new fields come from the catalog.
    for (op, field) in [
        ("MatMulMXOp", "dst_scale"),
        ("TensorScalarPtrOp", "fill_value"),
        ("TensorScalarPtrOp", "reverse_pred"),
        ("DropoutMaskInst", "is_keep_rate"),
    ] {
        let got = labels(&format!("{HEAD}  {op} {{ dst = %t, <|> }}\n}}\n"));
        assert!(got.contains(&field.to_string()), "{op}: {got:?}");
    }
}

#[test]
fn enum_values_and_tensors_after_equals() {
    let got = labels(&format!(
        "{HEAD}  MatMulOp {{ dst = %<|>, moving = %t }}\n}}\n"
    ));
    assert_eq!(got, ["%x", "%t", "%p"]);
    assert!(labels(&format!("{HEAD}  NoOp {{}} // Mat<|>\n}}\n")).is_empty());
    let got = labels(&format!("{HEAD}  MatMulOp {{ perf_mode = <|> }}\n}}\n"));
    assert_eq!(got, ["none", "double_row"]);
    let got = labels(&format!("{HEAD}  ActivationOp {{ func = ex<|> }}\n}}\n"));
    assert!(got.contains(&"exp".to_string()), "{got:?}");
    let (db, doc, offset) = with_cursor(&format!("{HEAD}  MatMulOp {{ dst = <|> }}\n}}\n"));
    let items = super::completions(&db, &doc, offset);
    let preferred: Vec<&str> = items
        .iter()
        .filter(|c| c.preferred)
        .map(|c| c.label.as_str())
        .collect();
    assert_eq!(preferred, ["%p"]);
    assert_eq!(items.len(), 3);
}

#[test]
fn list_values_and_indices() {
    let got = labels(&format!(
        "{HEAD}  ActivationOp {{ func_outs = [%p, <|>] }}\n}}\n"
    ));
    assert!(got.contains(&"%t".to_string()), "{got:?}");
    let got = labels(&format!(
        "{HEAD}  for %i in 0..2 {{\n    DmaCopyOp {{ dst = %t, src = %x[<|>] }}\n  }}\n}}\n"
    ));
    assert_eq!(got, ["%i"]);
}

#[test]
fn memory_and_dtype_in_types() {
    let got = labels("kernel @k(%x: hbm f32[4]) {\n  tensor %t : <|>\n}\n");
    assert_eq!(got, ["hbm", "sbuf", "psum"]);
    let got = labels("kernel @k(%x: hbm f32[4]) {\n  tensor %t : sbuf b<|>\n}\n");
    assert!(got.contains(&"bf16".to_string()), "{got:?}");
    assert_eq!(labels("<|>"), ["kernel"]);
}

mod window_tests {
    use syntax::ast::TextSize;

    use crate::db::RootDatabase;

    /// Reading the context from the statement around the cursor gives the completions that
    /// reading it from the whole file gives, at every offset of every corpus file.
    #[test]
    fn the_statement_around_the_cursor_is_context_enough() {
        let labels = |items: Vec<super::super::CompletionItem>| {
            items
                .into_iter()
                .map(|i| (i.label, i.replace))
                .collect::<Vec<_>>()
        };
        for (name, text) in test_utils::corpus_files() {
            let db = RootDatabase::default();
            let doc = crate::ide::fixture::document(&db, &text);
            let file = doc.chunks[0].source;
            let (whole, _) = syntax::lex(&text);
            for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o)) {
                let offset = TextSize::from(offset as u32);
                let want = labels(super::super::completions_from(
                    &db,
                    file,
                    offset,
                    &whole,
                    &super::super::Earlier::none(),
                ));
                let got = labels(super::super::completions(&db, &doc, offset));
                assert_eq!(got, want, "{name} at {offset:?}");
            }
        }
    }
}
