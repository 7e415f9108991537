//! Go to definition, find references, document highlight and rename, for tensors,
//! registers, loop variables and kernels (SPEC §10). All are lookups in the def/use table
//! name resolution builds ([`FileItems::definitions`], [`FileItems::references`]).

use syntax::ast::{TextRange, TextSize};

use crate::db::{Db, SourceFile, file_items};
use crate::document::Document;
use crate::document::Shift;
use crate::ide::{Site, contains_inclusive};
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

/// The range of the defining name of the symbol under `offset` (the document's): in an
/// earlier chunk for a name a kernel cut into chunks defines there. On an instruction name
/// anywhere in the text (`I-3-0` in a comment or a pasted log), the class name of its op
/// ([`super::instruction_definition`]).
pub(crate) fn definition(db: &dyn Db, doc: &Document, offset: TextSize) -> Option<TextRange> {
    let (site, at) = Site::at(doc, offset);
    if site.chunk.context.inside
        && let Some(refs) = doc.split_references(db, site.index, at, true)
        && let Some(def) = refs.first().filter(|r| r.is_definition)
    {
        return Some(def.range);
    }
    let items = file_items(db, site.source());
    match def_at(items, at).and_then(|d| items.definitions.get(d)) {
        Some(def) => Some(def.range + site.chunk.start),
        None => super::instruction_definition(db, doc, offset),
    }
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

/// Every reference to the symbol under `offset` (the document's), in source order, in the
/// document's offsets: across the chunks of a kernel cut into chunks for its parameters,
/// tensors and registers. The definition first when `include_declaration`.
pub(crate) fn references(
    db: &dyn Db,
    doc: &Document,
    offset: TextSize,
    include_declaration: bool,
) -> Vec<Reference> {
    let (site, at) = Site::at(doc, offset);
    if let Some(refs) = doc.split_references(db, site.index, at, include_declaration) {
        return refs;
    }
    site.to_document(chunk_references(db, site.source(), at, include_declaration))
}

/// [`references`] within one chunk, `file` (offsets relative to it).
fn chunk_references(
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

/// The name under `offset` (the document's) if it can be renamed: its range without the
/// sigil (the document's), and the current name as the placeholder.
pub(crate) fn prepare_rename(
    db: &dyn Db,
    doc: &Document,
    offset: TextSize,
) -> Option<(TextRange, String)> {
    let (site, at) = Site::at(doc, offset);
    let items = file_items(db, site.source());
    let def = items.definitions.get(def_at(items, at)?)?;
    let range = chunk_references(db, site.source(), at, true)
        .into_iter()
        .map(|r| r.range)
        .find(|r| contains_inclusive(*r, at))?;
    Some((without_sigil(range) + site.chunk.start, def.name.clone()))
}

/// The edits renaming the symbol under `offset` (the document's) to `new_name` (with or
/// without its sigil): `(range, replacement)` pairs in the document's offsets, each
/// replacing a name token after its sigil; across the chunks of a kernel cut into chunks.
///
/// Errors: not on a renameable name; `new_name` not an identifier; a name that another
/// definition of the same kernel (or another kernel, for kernels) already uses.
pub(crate) fn rename(
    db: &dyn Db,
    doc: &Document,
    offset: TextSize,
    new_name: &str,
) -> Result<Vec<(TextRange, String)>, String> {
    let (site, at) = Site::at(doc, offset);
    let file = site.source();
    let items = file_items(db, file);
    let taken = match def_at(items, at).and_then(|d| items.definitions.get(d)) {
        Some(def) => {
            let name = new_name.trim_start_matches(['%', '@']);
            doc.split_names_taken(db, site.index, def, name)
        }
        None => Vec::new(),
    };
    // The references in the document's offsets; each edit is a reference's name past its
    // sigil.
    let refs = references(db, doc, offset, true);
    rename_references(db, file, at, new_name, &taken, refs)
}

/// [`rename`] of the symbol under `offset` (relative to `file`) whose references are
/// `references` (in any offsets: the edits are in theirs), `taken` the names its kernel's
/// other chunks define (with their kinds): a rename to one of those clashes too.
fn rename_references(
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
    let def = items
        .definitions
        .get(def_index)
        .ok_or("there is no tensor, register, loop variable or kernel here")?;
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

impl Shift for Reference {
    fn shift(&mut self, by: TextSize) {
        self.range.shift(by);
    }
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
        let (db, doc, offset) = with_cursor(&KERNEL.replacen("src = %t", "src = %<|>t", 1));
        let range = definition(&db, &doc, offset).expect("a definition");
        assert_eq!(covered(&doc.text(&db), range), "%t");
        assert_eq!(usize::from(range.start()), KERNEL.find("%t :").unwrap());
    }

    #[test]
    fn references_and_rename() {
        let (db, doc, offset) = with_cursor(&KERNEL.replacen("tensor %t", "tensor %<|>t", 1));
        let refs = references(&db, &doc, offset, true);
        assert_eq!(refs.len(), 3);
        assert!(refs[0].is_definition);
        let edits = rename(&db, &doc, offset, "%tile").expect("renames");
        assert_eq!(edits.len(), 3);
        let mut text = doc.text(&db);
        for (range, new) in edits.iter().rev() {
            text.replace_range(usize::from(range.start())..usize::from(range.end()), new);
        }
        assert_eq!(text.matches("%tile").count(), 3);
        assert!(
            rename(&db, &doc, offset, "x")
                .unwrap_err()
                .contains("already defined")
        );
        assert!(rename(&db, &doc, offset, "9lives").is_err());
        let (range, placeholder) = prepare_rename(&db, &doc, offset).expect("renameable");
        assert_eq!(
            (covered(&doc.text(&db), range), placeholder.as_str()),
            ("t", "t")
        );
    }

    #[test]
    fn nothing_to_rename_on_an_op() {
        let (db, doc, offset) = with_cursor(&KERNEL.replacen("DmaCopyOp", "Dma<|>CopyOp", 1));
        assert!(prepare_rename(&db, &doc, offset).is_none());
        assert!(rename(&db, &doc, offset, "y").is_err());
    }
}
