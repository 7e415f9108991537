//! Go to definition, find references, document highlight and rename, for tensors,
//! registers, loop variables and kernels (SPEC §10). All are lookups in the def/use table
//! name resolution builds ([`FileItems::definitions`], [`FileItems::references`]).

use syntax::ast::{TextRange, TextSize};

use crate::db::{Db, SourceFile, file_items};
use crate::ide::contains_inclusive;
use crate::resolve::{DefKind, Definition, FileItems};

/// The definition index of the name (definition or use) under `offset` (a definition of
/// an earlier chunk, [`Definition::prelude`], is not under any offset).
pub(crate) fn def_at(items: &FileItems, offset: TextSize) -> Option<usize> {
    items
        .definitions
        .iter()
        .position(|d| !d.prelude && contains_inclusive(d.range, offset))
        .or_else(|| {
            items
                .references
                .iter()
                .find(|(r, _)| contains_inclusive(*r, offset))
                .map(|(_, d)| *d)
        })
}

/// The range of the defining name of the symbol under `offset`.
pub fn definition(db: &dyn Db, file: SourceFile, offset: TextSize) -> Option<TextRange> {
    let items = file_items(db, file);
    Some(items.definitions.get(def_at(items, offset)?)?.range)
}

/// A use or the definition of a symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The name token (sigil included).
    pub range: TextRange,
    /// Whether this is the definition.
    pub is_definition: bool,
}

/// The uses of definition `def` of `items` (not the definition), in source order.
pub(crate) fn uses(items: &FileItems, def: usize) -> impl Iterator<Item = Reference> + '_ {
    items
        .references
        .iter()
        .filter(move |(_, d)| *d == def)
        .map(|(r, _)| Reference {
            range: *r,
            is_definition: false,
        })
}

/// Every reference to the symbol under `offset`, in source order; the definition first
/// when `include_declaration`.
pub fn references(
    db: &dyn Db,
    file: SourceFile,
    offset: TextSize,
    include_declaration: bool,
) -> Vec<Reference> {
    let items = file_items(db, file);
    let Some(def) = def_at(items, offset) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if include_declaration && let Some(d) = items.definitions.get(def) {
        out.push(Reference {
            range: d.range,
            is_definition: true,
        });
    }
    out.extend(uses(items, def));
    out
}

/// The name under `offset` if it can be renamed: its range without the sigil, and the
/// current name as the placeholder.
pub fn prepare_rename(
    db: &dyn Db,
    file: SourceFile,
    offset: TextSize,
) -> Option<(TextRange, String)> {
    let items = file_items(db, file);
    let def = items.definitions.get(def_at(items, offset)?)?;
    let range = references(db, file, offset, true)
        .into_iter()
        .map(|r| r.range)
        .find(|r| contains_inclusive(*r, offset))?;
    Some((without_sigil(range), def.name.clone()))
}

/// The edits renaming the symbol under `offset` to `new_name` (with or without its sigil):
/// `(range, replacement)` pairs, each replacing a name token after its sigil.
///
/// Errors: not on a renameable name; `new_name` not an identifier; a name that another
/// definition of the same kernel (or another kernel, for kernels) already uses.
pub fn rename(
    db: &dyn Db,
    file: SourceFile,
    offset: TextSize,
    new_name: &str,
) -> Result<Vec<(TextRange, String)>, String> {
    let references = references(db, file, offset, true);
    rename_references(db, file, offset, new_name, &[], references)
}

/// [`rename`] of the symbol under `offset` whose references are `references` (its
/// document's, maybe beyond `file`), `taken` the names its kernel's other chunks define
/// (with their kinds): a rename to one of those clashes too.
pub(crate) fn rename_references(
    db: &dyn Db,
    file: SourceFile,
    offset: TextSize,
    new_name: &str,
    taken: &[(String, DefKind)],
    references: Vec<Reference>,
) -> Result<Vec<(TextRange, String)>, String> {
    let items = file_items(db, file);
    let def_index = def_at(items, offset)
        .ok_or("there is no tensor, register, loop variable or kernel here")?;
    let def = &items.definitions[def_index];
    let sigil = if def.kind == DefKind::Kernel {
        '@'
    } else {
        '%'
    };
    let name = new_name.strip_prefix(sigil).unwrap_or(new_name);
    if !is_identifier(name) {
        return Err(format!(
            "`{new_name}` is not a valid name: use letters, digits and `_`, not starting with a digit"
        ));
    }
    if name == def.name {
        return Ok(Vec::new());
    }
    let clash = items
        .definitions
        .iter()
        .find(|d| !d.prelude && clashes(def, d, name))
        .map(|d| d.kind)
        .or_else(|| {
            taken
                .iter()
                .find(|(taken, _)| def.kind != DefKind::Kernel && taken == name)
                .map(|(_, kind)| *kind)
        });
    if let Some(kind) = clash {
        return Err(format!("`{sigil}{name}` is already defined (as a {kind:?})").to_lowercase());
    }
    Ok(references
        .into_iter()
        .map(|r| (without_sigil(r.range), name.to_string()))
        .collect())
}

/// Whether renaming `def` to `name` would collide with `other`.
fn clashes(def: &Definition, other: &Definition, name: &str) -> bool {
    if other.name != name {
        return false;
    }
    match (def.kind == DefKind::Kernel, other.kind == DefKind::Kernel) {
        (true, true) => true,
        (false, false) => {
            // Same kernel: the scopes of a kernel's names all lie within the kernel's range;
            // compare by overlapping scopes, which holds for every pair in one kernel.
            def.scope.intersect(other.scope).is_some()
        }
        _ => false,
    }
}

fn without_sigil(range: TextRange) -> TextRange {
    TextRange::new(
        range.start() + TextSize::from(1),
        range.end().max(range.start() + TextSize::from(1)),
    )
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::fixture::with_cursor;

    const KERNEL: &str = "kernel @k(%x: hbm f32[128, 4]) {\n  tensor %t : sbuf f32[128, 4]\n  for %i in 0..2 {\n    DmaCopyOp { dst = %t, src = %x }\n  }\n  DmaCopyOp { dst = %x, src = %t }\n}\n";

    fn covered(text: &str, range: TextRange) -> &str {
        &text[usize::from(range.start())..usize::from(range.end())]
    }

    #[test]
    fn definition_of_a_use() {
        let (db, file, offset) = with_cursor(&KERNEL.replacen("src = %t", "src = %<|>t", 1));
        let range = definition(&db, file, offset).expect("a definition");
        assert_eq!(covered(file.text(&db), range), "%t");
        assert_eq!(usize::from(range.start()), KERNEL.find("%t :").unwrap());
    }

    #[test]
    fn references_and_rename() {
        let (db, file, offset) = with_cursor(&KERNEL.replacen("tensor %t", "tensor %<|>t", 1));
        let refs = references(&db, file, offset, true);
        assert_eq!(refs.len(), 3);
        assert!(refs[0].is_definition);
        let edits = rename(&db, file, offset, "%tile").expect("renames");
        assert_eq!(edits.len(), 3);
        let mut text = file.text(&db).clone();
        for (range, new) in edits.iter().rev() {
            text.replace_range(usize::from(range.start())..usize::from(range.end()), new);
        }
        assert_eq!(text.matches("%tile").count(), 3);
        assert!(
            rename(&db, file, offset, "x")
                .unwrap_err()
                .contains("already defined")
        );
        assert!(rename(&db, file, offset, "9lives").is_err());
        let (range, placeholder) = prepare_rename(&db, file, offset).expect("renameable");
        assert_eq!(
            (covered(file.text(&db), range), placeholder.as_str()),
            ("t", "t")
        );
    }

    #[test]
    fn nothing_to_rename_on_an_op() {
        let (db, file, offset) = with_cursor(&KERNEL.replacen("DmaCopyOp", "Dma<|>CopyOp", 1));
        assert!(prepare_rename(&db, file, offset).is_none());
        assert!(rename(&db, file, offset, "y").is_err());
    }
}
