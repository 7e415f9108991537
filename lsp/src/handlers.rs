//! Request handlers: convert the request in, make one analysis call, convert the answer
//! out. All alike: `fn(&Snapshot, params) -> Result<response>`, run on a blocking thread.

use analysis::{Cancellable, Diagnostic, TextRange, TextSize};
use lower::Severity;
use serde::Deserialize;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{
    self as lsp, DiagnosticRelatedInformation, DocumentDiagnosticParams, DocumentDiagnosticReport,
    DocumentDiagnosticReportResult, FullDocumentDiagnosticReport, Hover, HoverContents,
    HoverParams, InlayHint, InlayHintLabel, InlayHintParams, Location, MarkupContent, MarkupKind,
    NumberOrString, Position, RelatedFullDocumentDiagnosticReport,
    RelatedUnchangedDocumentDiagnosticReport, TextDocumentIdentifier,
    UnchangedDocumentDiagnosticReport, Uri,
};

use ropey::Rope;

use crate::convert;
use crate::state::{Doc, Snapshot, document_key};
use crate::tokens::SentTokens;

/// The open document `uri`. Errors: not open (`InvalidParams`); lost — its text is
/// unknown until the editor sends it whole (`state::Doc::lost`) — or too big to analyse
/// (`state::Doc::too_big`): `ContentModified`.
fn doc<'s>(snap: &'s Snapshot, uri: &Uri) -> Result<&'s Doc> {
    let doc = snap
        .docs
        .get(&document_key(uri))
        .ok_or_else(|| Error::invalid_params(format!("document not open: {}", uri.as_str())))?;
    if doc.lost || doc.too_big {
        return Err(crate::server::content_modified());
    }
    Ok(doc)
}

/// An analysis answer, or `ContentModified` when an edit made it stale.
fn cancellable<T>(answer: Cancellable<T>) -> Result<T> {
    answer.map_err(|_| crate::server::content_modified())
}

/// A document's rope (the text of the snapshot, lines as LSP counts them: a lone `\r`
/// ends a line, SPEC §1 [2]) and the negotiated encoding: what converts its byte offsets
/// to LSP positions and back, O(log n) each.
///
/// `crs`: the document's lone `\r`s for a client that ends lines at `\n` only (its lines,
/// `convert::lf`), else empty.
struct View<'s> {
    rope: &'s Rope,
    crs: &'s [usize],
    encoding: convert::Encoding,
}

impl View<'_> {
    fn range(&self, range: TextRange) -> lsp::Range {
        if self.crs.is_empty() {
            convert::range(self.rope, range, self.encoding)
        } else {
            convert::lf::range(self.rope, self.crs, range, self.encoding)
        }
    }

    fn position(&self, offset: TextSize) -> Position {
        if self.crs.is_empty() {
            convert::position(self.rope, offset, self.encoding)
        } else {
            convert::lf::position(self.rope, self.crs, offset, self.encoding)
        }
    }

    /// The byte offset of a request's position. Errors: a line past the last one.
    fn offset(&self, pos: Position) -> Result<TextSize> {
        if self.crs.is_empty() {
            convert::offset(self.rope, pos, self.encoding)
        } else {
            convert::lf::offset(self.rope, self.crs, pos, self.encoding)
        }
        .map_err(|e| Error::invalid_params(e.0))
    }

    /// The byte range of a request's range, a line past the last one meaning the end.
    fn text_range_clamped(&self, range: lsp::Range) -> Result<TextRange> {
        if self.crs.is_empty() {
            convert::text_range_clamped(self.rope, range, self.encoding)
        } else {
            convert::lf::text_range_clamped(self.rope, self.crs, range, self.encoding)
        }
        .map_err(|e| Error::invalid_params(e.0))
    }

    fn diagnostic(&self, d: &Diagnostic, uri: &Uri) -> lsp::Diagnostic {
        to_lsp_diagnostic(d, uri, self)
    }
}

fn view<'s>(snap: &Snapshot, doc: &'s Doc) -> View<'s> {
    View {
        rope: &doc.rope,
        crs: &doc.lone_crs,
        encoding: snap.encoding,
    }
}

/// The longest hover sent (bytes of Markdown): 64 KiB, about a thousand lines, more than
/// any hover of a real op (the BIR of an op with a few hundred operands). An op with
/// 1,000,000 operands made a 295 MB hover, which no editor can show.
pub(crate) const MAX_HOVER_BYTES: usize = 64 << 10;

/// `markdown` cut to [`MAX_HOVER_BYTES`] at a line end, a code block left open closed, with
/// a last line saying how much was left out and where all of it is.
fn cap_hover(markdown: String) -> String {
    if markdown.len() <= MAX_HOVER_BYTES {
        return markdown;
    }
    let mut cut = MAX_HOVER_BYTES;
    while !markdown.is_char_boundary(cut) {
        cut -= 1;
    }
    let cut = markdown[..cut].rfind('\n').unwrap_or(cut);
    let left_out = markdown.len() - cut;
    let mut shown = markdown[..cut].to_string();
    if shown
        .lines()
        .filter(|l| l.trim_start().starts_with("```"))
        .count()
        % 2
        == 1
    {
        shown.push_str("\n```");
    }
    shown.push_str(&format!(
        "\n\n*… {left_out} more bytes of this hover left out (at most {} KiB are shown); \
         `pir lower` writes the whole BIR.*",
        MAX_HOVER_BYTES >> 10
    ));
    shown
}

/// `textDocument/hover`.
pub fn hover(snap: &Snapshot, params: HoverParams) -> Result<Option<Hover>> {
    let position = params.text_document_position_params;
    let doc = doc(snap, &position.text_document.uri)?;
    let view = view(snap, doc);
    let at = view.offset(position.position)?;
    let Some(h) = cancellable(snap.analysis.hover(doc.file, at))? else {
        return Ok(None);
    };
    let markdown = if snap.config.markdown_tables {
        h.markdown
    } else {
        tables_as_text(&h.markdown)
    };
    Ok(Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: cap_hover(markdown),
        }),
        range: Some(view.range(h.range)),
    }))
}

/// `markdown` with each Markdown table (a run of lines starting with `|`, its second the
/// alignment row `|:--|--:|`) written as aligned text in a ```` ```text ```` block, for a
/// client that renders no tables: each column as wide as its widest cell (in chars),
/// right-aligned where the alignment row says `--:`.
pub fn tables_as_text(markdown: &str) -> String {
    fn cells(line: &str) -> Vec<String> {
        let inner = line.trim().trim_start_matches('|');
        let inner = inner.strip_suffix('|').unwrap_or(inner);
        inner
            .split('|')
            .map(|c| c.trim().replace('`', ""))
            .collect()
    }
    let lines: Vec<&str> = markdown.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(line) = lines.get(i) {
        let run = lines
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|l| l.trim_start().starts_with('|'))
            .count();
        let aligned = lines.get(i + 1).is_some_and(|l| {
            l.contains('-') && l.chars().all(|c| matches!(c, '|' | ':' | '-' | ' '))
        });
        if run < 2 || !aligned {
            out.push((*line).to_string());
            i += 1;
            continue;
        }
        let rows: Vec<Vec<String>> = lines
            .get(i..i + run)
            .unwrap_or_default()
            .iter()
            .enumerate()
            .filter(|(k, _)| *k != 1)
            .map(|(_, l)| cells(l))
            .collect();
        let right: Vec<bool> = cells(lines.get(i + 1).copied().unwrap_or_default())
            .iter()
            .map(|c| c.ends_with(':'))
            .collect();
        let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..columns)
            .map(|c| {
                rows.iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| s.chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        out.push("```text".to_string());
        for row in &rows {
            let text: Vec<String> = (0..columns)
                .map(|c| {
                    let cell = row.get(c).map_or("", String::as_str);
                    let width = widths.get(c).copied().unwrap_or(0);
                    if right.get(c).copied().unwrap_or(false) {
                        format!("{cell:>width$}")
                    } else {
                        format!("{cell:<width$}")
                    }
                })
                .collect();
            out.push(text.join("  ").trim_end().to_string());
        }
        out.push("```".to_string());
        i += run;
    }
    out.join("\n")
}

/// `textDocument/codeLens`: above each kernel, its resources (SPEC §10.1): engine counts
/// and SBUF/PSUM peaks. The lens runs no command (its command id is empty).
pub fn code_lenses(
    snap: &Snapshot,
    params: lsp::CodeLensParams,
) -> Result<Option<Vec<lsp::CodeLens>>> {
    let doc = doc(snap, &params.text_document.uri)?;
    let view = view(snap, doc);
    let lenses = cancellable(snap.analysis.code_lenses(doc.file))?
        .into_iter()
        .map(|lens| lsp::CodeLens {
            range: view.range(lens.range),
            command: Some(lsp::Command {
                title: lens.title,
                command: String::new(),
                arguments: None,
            }),
            data: None,
        })
        .collect();
    Ok(Some(lenses))
}

/// `textDocument/inlayHint`: only the hints inside the requested range.
pub fn inlay_hints(snap: &Snapshot, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
    if !snap.config.inlay_hints {
        return Ok(Some(Vec::new()));
    }
    let doc = doc(snap, &params.text_document.uri)?;
    let view = view(snap, doc);
    let range = view.text_range_clamped(params.range)?;
    let hints = cancellable(snap.analysis.inlay_hints(doc.file, Some(range)))?
        .into_iter()
        .map(|h| InlayHint {
            position: view.position(h.offset),
            label: InlayHintLabel::String(match h.cost.filter(|_| snap.config.inlay_cost) {
                Some(cost) => h.label + &cost,
                None => h.label,
            }),
            kind: None,
            text_edits: None,
            tooltip: None,
            padding_left: Some(true),
            padding_right: None,
            data: None,
        })
        .collect();
    Ok(Some(hints))
}

/// The most diagnostics sent for one document: 10,000. Beyond them a last diagnostic
/// (Information, at the first one left out) says how many more there are; `pir check` lists
/// them all. A file with an error on every line of a few thousand is still shown whole; a
/// flood of 1,000,000 (300 MB of JSON) is not sent.
pub(crate) const MAX_DIAGNOSTICS: usize = 10_000;

/// The LSP diagnostics of an open document (at most [`MAX_DIAGNOSTICS`] and the note). A
/// document whose text looks like UTF-16 read as UTF-8 (a NUL every other character, in
/// its first 4 KiB) has one P103 saying so, as the file on disk would
/// ([`crate::files::utf16_diagnostic`]), not an error per NUL.
///
/// A document too big to analyse (`state::Doc::too_big`) has one Warning at its start
/// saying so.
pub fn diagnostics(snap: &Snapshot, uri: &Uri) -> Result<Vec<lsp::Diagnostic>> {
    if let Some(doc) = snap.docs.get(&document_key(uri))
        && doc.too_big
    {
        return Ok(vec![too_big_diagnostic(doc.rope.len_bytes(), snap.config)]);
    }
    let doc = doc(snap, uri)?;
    let view = view(snap, doc);
    let head: Vec<u8> = doc.rope.bytes().take(4096).collect();
    if let Some(only) = crate::files::utf16_diagnostic(&head) {
        return Ok(vec![view.diagnostic(&only, uri)]);
    }
    let all = cancellable(snap.analysis.capped_diagnostics(doc.file))?;
    Ok(to_lsp_diagnostics(&all, uri, &view))
}

/// The one diagnostic of an open document of `bytes` bytes, over the limit `config` sets.
fn too_big_diagnostic(bytes: usize, config: crate::state::Config) -> lsp::Diagnostic {
    lsp::Diagnostic {
        range: lsp::Range::default(),
        severity: Some(lsp::DiagnosticSeverity::WARNING),
        source: Some("pir".to_string()),
        message: format!(
            "this document is not analysed: it is {:.1} MB, over pir's limit of {:.1} MB \
             (the `maxDocumentBytes` setting); its diagnostics, hints and hovers come back \
             when it is smaller, and `pir check` checks a file of any size",
            bytes as f64 / 1e6,
            config.max_document_bytes as f64 / 1e6
        ),
        ..lsp::Diagnostic::default()
    }
}

/// `all`, diagnostics of the text of `rope`, as LSP diagnostics of `uri` (capped at
/// [`MAX_DIAGNOSTICS`]): for files read from disk.
pub(crate) fn lsp_diagnostics(
    all: &analysis::CappedDiagnostics,
    uri: &Uri,
    rope: &Rope,
    encoding: convert::Encoding,
) -> Vec<lsp::Diagnostic> {
    to_lsp_diagnostics(
        all,
        uri,
        &View {
            rope,
            crs: &[],
            encoding,
        },
    )
}

/// `all` as LSP diagnostics of `uri`, capped at [`MAX_DIAGNOSTICS`], with a last
/// diagnostic (Information, at the first one left out) for the cost warnings the analysis
/// left out ([`analysis::MAX_COST_WARNINGS`]) and one for those past [`MAX_DIAGNOSTICS`].
fn to_lsp_diagnostics(
    all: &analysis::CappedDiagnostics,
    uri: &Uri,
    view: &View<'_>,
) -> Vec<lsp::Diagnostic> {
    let kept = &all.diagnostics;
    let mut out: Vec<lsp::Diagnostic> = kept
        .iter()
        .take(MAX_DIAGNOSTICS)
        .map(|d| view.diagnostic(d, uri))
        .collect();
    // What was left out, said at the first diagnostic left out (Information).
    let note = |first: TextRange, message: String| lsp::Diagnostic {
        range: view.range(first),
        severity: Some(lsp::DiagnosticSeverity::INFORMATION),
        source: Some("pir".to_string()),
        message,
        ..lsp::Diagnostic::default()
    };
    if let Some(left_out) = all.cost_left_out {
        out.push(note(
            left_out.first,
            format!(
                "{} more cost warnings (P420, P421) from here on are not shown (pir sends at \
                 most {} per file); `pir check` lists them all",
                left_out.count,
                analysis::MAX_COST_WARNINGS
            ),
        ));
    }
    if let Some(first) = kept.get(MAX_DIAGNOSTICS) {
        let more = kept.len() - MAX_DIAGNOSTICS;
        out.push(note(
            first.range,
            format!(
                "{more} more diagnostics from here on are not shown (pir sends at most \
                 {MAX_DIAGNOSTICS} per file); `pir check` lists them all"
            ),
        ));
    }
    out
}

fn to_lsp_diagnostic(d: &Diagnostic, uri: &Uri, view: &View<'_>) -> lsp::Diagnostic {
    let related: Vec<DiagnosticRelatedInformation> = d
        .related
        .iter()
        .map(|(range, message)| DiagnosticRelatedInformation {
            location: Location {
                uri: uri.clone(),
                range: view.range(*range),
            },
            message: message.clone(),
        })
        .collect();
    lsp::Diagnostic {
        range: view.range(d.range),
        severity: Some(match d.severity {
            Severity::Error => lsp::DiagnosticSeverity::ERROR,
            Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.as_str().to_string())),
        code_description: None,
        source: Some("pir".to_string()),
        message: d.message.clone(),
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

/// `textDocument/diagnostic` (pull). The result id is a digest of the diagnostics as sent
/// (LSP positions included), so a client that sends back the id of what it shows gets
/// `unchanged` when an edit changed nothing it would see (a comment typed, an edit undone),
/// and a full report otherwise.
pub fn pull_diagnostics(
    snap: &Snapshot,
    params: DocumentDiagnosticParams,
) -> Result<DocumentDiagnosticReportResult> {
    let lost = snap
        .docs
        .get(&document_key(&params.text_document.uri))
        .is_some_and(|doc| doc.lost);
    // A lost document's diagnostics are withdrawn (there is no text to compute them on).
    let items = if lost {
        Vec::new()
    } else {
        diagnostics(snap, &params.text_document.uri)?
    };
    let result_id = result_id(&items);
    let report = if params.previous_result_id.as_deref() == Some(result_id.as_str()) {
        DocumentDiagnosticReport::Unchanged(RelatedUnchangedDocumentDiagnosticReport {
            related_documents: None,
            unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport { result_id },
        })
    } else {
        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: Some(result_id),
                items,
            },
        })
    };
    Ok(DocumentDiagnosticReportResult::Report(report))
}

/// A digest of diagnostics as sent: 16 hex digits of a 64-bit hash of their JSON.
pub(crate) fn result_id(items: &[lsp::Diagnostic]) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(items)
        .unwrap_or_default()
        .hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

/// The parameters of `pir/showBir` and of the `pir.showBir` command.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShowBirParams {
    /// The document.
    pub text_document: TextDocumentIdentifier,
    /// A position inside an op: show only that op.
    #[serde(default)]
    pub position: Option<Position>,
}

/// `pir/showBir` → `{"bir": …, "text": …}` (SPEC §10): `text` is the same JSON written as
/// `pir lower` writes it (key order kept, `1.0` not `1`), for clients whose JSON decoding
/// loses both (Neovim's Lua tables).
pub fn show_bir(snap: &Snapshot, params: ShowBirParams) -> Result<serde_json::Value> {
    let doc = doc(snap, &params.text_document.uri)?;
    let view = view(snap, doc);
    let at = params.position.map(|p| view.offset(p)).transpose()?;
    let bir = cancellable(snap.analysis.show_bir(doc.file, at))?;
    let (bir, text) = cap_bir(bir);
    Ok(serde_json::json!({ "bir": bir, "text": text }))
}

/// The parameters of `pir/profile`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileParams {
    /// The document.
    pub text_document: TextDocumentIdentifier,
}

/// `pir/profile` → `{"svg": …}`: the profile drawing of each kernel of the document on the
/// server's target (what `pir stats --plot` writes; the editors' "Show Kernel Profile").
pub fn profile(snap: &Snapshot, params: ProfileParams) -> Result<serde_json::Value> {
    let doc = doc(snap, &params.text_document.uri)?;
    let view = view(snap, doc);
    let kernels = cancellable(snap.analysis.kernel_stats(doc.file))?;
    let occupancy = cancellable(snap.analysis.kernel_occupancy(doc.file))?;
    let path = params.text_document.uri.path().as_str();
    let name = path.rsplit('/').next().unwrap_or(path).to_string();
    let lines: Vec<[Option<u32>; 2]> = kernels
        .iter()
        .map(|k| {
            k.peaks().map(|p| {
                p.op.as_ref()
                    .map(|op| view.position(op.range.start()).line + 1)
            })
        })
        .collect();
    let panels: Vec<crate::plot::Panel<'_>> = kernels
        .iter()
        .zip(&occupancy)
        .zip(&lines)
        .map(|((stats, occupancy), lines)| crate::plot::Panel {
            file: &name,
            stats,
            occupancy,
            peak_lines: *lines,
        })
        .collect();
    Ok(serde_json::json!({ "svg": crate::plot::svg(&panels) }))
}

/// The longest Show BIR answer's text: 16 MiB (a whole file's page of 2,000 ops is about
/// 10 MB). One op with 1,000,000 operands lowered to hundreds of megabytes.
pub(crate) const MAX_SHOW_BIR_BYTES: usize = 16 << 20;

/// The BIR shown and its text, within [`MAX_SHOW_BIR_BYTES`]: when over, every list longer
/// than 1,000 (then 100, then 10) elements keeps its first ones and a last string saying
/// how many were left out, and the object gets a `"capped"` entry saying so. Still JSON, as
/// both editors show it.
fn cap_bir(bir: serde_json::Value) -> (serde_json::Value, String) {
    let text = serde_json::to_string_pretty(&bir).unwrap_or_default();
    if text.len() <= MAX_SHOW_BIR_BYTES {
        return (bir, text);
    }
    let full = text.len();
    for keep in [1000, 100, 10] {
        let mut capped = bir.clone();
        let left_out = shorten(&mut capped, keep);
        if let serde_json::Value::Object(map) = &mut capped {
            map.insert(
                "capped".into(),
                serde_json::json!(format!(
                    "{full} bytes of BIR JSON, over the {} MiB shown: lists are cut to \
                     their first {keep} elements ({left_out} elements left out); \
                     `pir lower` writes all of it",
                    MAX_SHOW_BIR_BYTES >> 20
                )),
            );
        }
        let text = serde_json::to_string_pretty(&capped).unwrap_or_default();
        if text.len() <= MAX_SHOW_BIR_BYTES || keep == 10 {
            return (capped, text);
        }
    }
    unreachable!("the last cut returns")
}

/// Cuts every list in `value` to its first `keep` elements and a note; the number of
/// elements left out.
fn shorten(value: &mut serde_json::Value, keep: usize) -> usize {
    match value {
        serde_json::Value::Array(items) => {
            let mut left_out = 0;
            if items.len() > keep {
                let more = items.len() - keep;
                items.truncate(keep);
                items.push(serde_json::json!(format!("… {more} more left out")));
                left_out += more;
            }
            left_out + items.iter_mut().map(|v| shorten(v, keep)).sum::<usize>()
        }
        serde_json::Value::Object(map) => map.values_mut().map(|v| shorten(v, keep)).sum(),
        _ => 0,
    }
}

/// `textDocument/definition`.
pub fn definition(
    snap: &Snapshot,
    params: lsp::GotoDefinitionParams,
) -> Result<Option<lsp::GotoDefinitionResponse>> {
    let p = params.text_document_position_params;
    let doc = doc(snap, &p.text_document.uri)?;
    let view = view(snap, doc);
    let at = view.offset(p.position)?;
    Ok(
        cancellable(snap.analysis.definition(doc.file, at))?.map(|r| {
            lsp::GotoDefinitionResponse::Scalar(Location {
                uri: p.text_document.uri.clone(),
                range: view.range(r),
            })
        }),
    )
}

/// `textDocument/references`.
pub fn references(snap: &Snapshot, params: lsp::ReferenceParams) -> Result<Option<Vec<Location>>> {
    let p = params.text_document_position;
    let doc = doc(snap, &p.text_document.uri)?;
    let view = view(snap, doc);
    let at = view.offset(p.position)?;
    let refs = cancellable(snap.analysis.references(
        doc.file,
        at,
        params.context.include_declaration,
    ))?;
    Ok(Some(
        refs.into_iter()
            .map(|r| Location {
                uri: p.text_document.uri.clone(),
                range: view.range(r.range),
            })
            .collect(),
    ))
}

/// `textDocument/documentHighlight`: the symbol's uses (`Read`) and definition (`Write`).
pub fn document_highlight(
    snap: &Snapshot,
    params: lsp::DocumentHighlightParams,
) -> Result<Option<Vec<lsp::DocumentHighlight>>> {
    let p = params.text_document_position_params;
    let doc = doc(snap, &p.text_document.uri)?;
    let view = view(snap, doc);
    let at = view.offset(p.position)?;
    let refs = cancellable(snap.analysis.references(doc.file, at, true))?;
    Ok(Some(
        refs.into_iter()
            .map(|r| lsp::DocumentHighlight {
                range: view.range(r.range),
                kind: Some(if r.is_definition {
                    lsp::DocumentHighlightKind::WRITE
                } else {
                    lsp::DocumentHighlightKind::READ
                }),
            })
            .collect(),
    ))
}

/// `textDocument/prepareRename`.
pub fn prepare_rename(
    snap: &Snapshot,
    params: lsp::TextDocumentPositionParams,
) -> Result<Option<lsp::PrepareRenameResponse>> {
    let doc = doc(snap, &params.text_document.uri)?;
    let view = view(snap, doc);
    let at = view.offset(params.position)?;
    Ok(
        cancellable(snap.analysis.prepare_rename(doc.file, at))?.map(|(r, placeholder)| {
            lsp::PrepareRenameResponse::RangeWithPlaceholder {
                range: view.range(r),
                placeholder,
            }
        }),
    )
}

/// `textDocument/rename`.
pub fn rename(snap: &Snapshot, params: lsp::RenameParams) -> Result<Option<lsp::WorkspaceEdit>> {
    let p = params.text_document_position;
    let doc = doc(snap, &p.text_document.uri)?;
    let view = view(snap, doc);
    let at = view.offset(p.position)?;
    let edits = cancellable(snap.analysis.rename(doc.file, at, &params.new_name))?
        .map_err(Error::invalid_params)?;
    let edits = edits
        .into_iter()
        .map(|(r, new_text)| lsp::TextEdit {
            range: view.range(r),
            new_text,
        })
        .collect();
    Ok(Some(lsp::WorkspaceEdit {
        changes: Some(std::iter::once((p.text_document.uri, edits)).collect()),
        ..lsp::WorkspaceEdit::default()
    }))
}

fn symbol_kind(kind: analysis::ide::SymbolKind) -> lsp::SymbolKind {
    use analysis::ide::SymbolKind as K;
    match kind {
        K::Kernel => lsp::SymbolKind::FUNCTION,
        K::Param => lsp::SymbolKind::VARIABLE,
        K::Tensor => lsp::SymbolKind::ARRAY,
        K::Register => lsp::SymbolKind::VARIABLE,
        K::Loop => lsp::SymbolKind::NAMESPACE,
        K::Op => lsp::SymbolKind::OPERATOR,
    }
}

/// `textDocument/documentSymbol`: kernels › loops › ops, with tensors.
pub fn document_symbols(
    snap: &Snapshot,
    params: lsp::DocumentSymbolParams,
) -> Result<Option<lsp::DocumentSymbolResponse>> {
    let doc = doc(snap, &params.text_document.uri)?;
    let view = view(snap, doc);
    #[allow(deprecated)]
    fn convert(view: &View<'_>, s: analysis::ide::Symbol) -> lsp::DocumentSymbol {
        lsp::DocumentSymbol {
            name: s.name.to_string(),
            detail: s.detail.map(|d| d.to_string()),
            kind: symbol_kind(s.kind),
            tags: None,
            deprecated: None,
            range: view.range(s.range),
            selection_range: view.range(s.selection_range),
            children: Some(s.children.into_iter().map(|c| convert(view, c)).collect()),
        }
    }
    let symbols = cancellable(snap.analysis.document_symbols(doc.file))?;
    Ok(Some(lsp::DocumentSymbolResponse::Nested(
        symbols.into_iter().map(|s| convert(&view, s)).collect(),
    )))
}

#[allow(deprecated)]
pub(crate) fn symbol_information(
    s: analysis::ide::Symbol,
    location: Location,
) -> lsp::SymbolInformation {
    lsp::SymbolInformation {
        name: s.name.to_string(),
        kind: symbol_kind(s.kind),
        tags: None,
        deprecated: None,
        location,
        container_name: s.detail.map(|d| d.to_string()),
    }
}

/// `workspace/symbol` of the open documents: their kernels, tensors, registers and
/// parameters matching `query` (the files on disk are `workspace::Workspace::symbols`').
pub fn open_workspace_symbols(snap: &Snapshot, query: &str) -> Result<Vec<lsp::SymbolInformation>> {
    let mut out = Vec::new();
    let mut docs: Vec<&Doc> = snap.docs.values().filter(|d| !d.lost).collect();
    docs.sort_by(|a, b| a.uri.cmp(&b.uri));
    for doc in docs {
        let view = view(snap, doc);
        for (_, s) in cancellable(snap.analysis.workspace_symbols(&[doc.file], query))? {
            let range = view.range(s.selection_range);
            out.push(symbol_information(
                s,
                Location {
                    uri: doc.uri.clone(),
                    range,
                },
            ));
        }
    }
    Ok(out)
}

/// The workspace-diagnostic reports of the open documents under the folders `roots`, from
/// their live text: `unchanged` where `previous` (result ids by document key) holds the id
/// of what would be sent; a lost document's report is empty.
pub fn open_workspace_reports(
    snap: &Snapshot,
    roots: &[std::path::PathBuf],
    previous: &std::collections::HashMap<String, String>,
) -> Result<Vec<lsp::WorkspaceDocumentDiagnosticReport>> {
    let mut docs: Vec<(&Uri, &Doc)> = snap
        .docs
        .iter()
        .filter(|(_, doc)| {
            doc.uri
                .to_file_path()
                .is_some_and(|path| roots.iter().any(|root| path.starts_with(root)))
        })
        .collect();
    docs.sort_by(|a, b| a.1.uri.cmp(&b.1.uri));
    let mut out = Vec::new();
    for (key, doc) in docs {
        let items = if doc.lost {
            Vec::new()
        } else {
            diagnostics(snap, &doc.uri)?
        };
        out.push(workspace_report(
            doc.uri.clone(),
            Some(doc.version),
            items,
            previous.get(key.as_str()),
        ));
    }
    Ok(out)
}

/// One document's workspace-diagnostic report: `unchanged` when `previous` is the id of
/// `items`, else full with that id.
pub(crate) fn workspace_report(
    uri: Uri,
    version: Option<i32>,
    items: Vec<lsp::Diagnostic>,
    previous: Option<&String>,
) -> lsp::WorkspaceDocumentDiagnosticReport {
    let id = result_id(&items);
    workspace_report_with_id(uri, version, items, id, previous)
}

/// [`workspace_report`] with the result id already known (kept for files on disk).
pub(crate) fn workspace_report_with_id(
    uri: Uri,
    version: Option<i32>,
    items: Vec<lsp::Diagnostic>,
    result_id: String,
    previous: Option<&String>,
) -> lsp::WorkspaceDocumentDiagnosticReport {
    let version = version.map(i64::from);
    if previous == Some(&result_id) {
        lsp::WorkspaceDocumentDiagnosticReport::Unchanged(
            lsp::WorkspaceUnchangedDocumentDiagnosticReport {
                uri,
                version,
                unchanged_document_diagnostic_report: UnchangedDocumentDiagnosticReport {
                    result_id,
                },
            },
        )
    } else {
        lsp::WorkspaceDocumentDiagnosticReport::Full(lsp::WorkspaceFullDocumentDiagnosticReport {
            uri,
            version,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: Some(result_id),
                items,
            },
        })
    }
}

/// `textDocument/completion`.
pub fn completion(
    snap: &Snapshot,
    params: lsp::CompletionParams,
) -> Result<Option<lsp::CompletionResponse>> {
    use analysis::ide::CompletionKind as K;
    let p = params.text_document_position;
    let doc = doc(snap, &p.text_document.uri)?;
    let view = view(snap, doc);
    let at = view.offset(p.position)?;
    // A space asks only for what follows it in a body (fields, values, types), not for
    // the op classes a statement may start with: indenting a line lists nothing.
    let by_space = params
        .context
        .as_ref()
        .and_then(|c| c.trigger_character.as_deref())
        == Some(" ");
    let items = cancellable(snap.analysis.completions(doc.file, at))?
        .into_iter()
        .filter(|c| !(by_space && matches!(c.kind, K::OpClass | K::Keyword)))
        .map(|c| {
            let range = view.range(c.replace);
            let snippet = c.snippet.filter(|_| snap.config.snippets);
            lsp::CompletionItem {
                kind: Some(match c.kind {
                    K::OpClass => lsp::CompletionItemKind::CLASS,
                    K::Field => lsp::CompletionItemKind::FIELD,
                    K::EnumValue => lsp::CompletionItemKind::ENUM_MEMBER,
                    K::Dtype => lsp::CompletionItemKind::TYPE_PARAMETER,
                    K::Memory => lsp::CompletionItemKind::MODULE,
                    K::Tensor | K::Register | K::LoopVar => lsp::CompletionItemKind::VARIABLE,
                    K::Keyword => lsp::CompletionItemKind::KEYWORD,
                }),
                detail: c.detail,
                documentation: c.documentation.map(|value| {
                    lsp::Documentation::MarkupContent(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value,
                    })
                }),
                sort_text: Some(format!("{}{}", if c.preferred { 0 } else { 1 }, c.label)),
                filter_text: Some(c.label.clone()),
                insert_text_format: Some(if snippet.is_some() {
                    lsp::InsertTextFormat::SNIPPET
                } else {
                    lsp::InsertTextFormat::PLAIN_TEXT
                }),
                text_edit: Some(lsp::CompletionTextEdit::Edit(lsp::TextEdit {
                    range,
                    new_text: snippet.or(c.insert).unwrap_or_else(|| c.label.clone()),
                })),
                // After `field = `, the values (VS Code's command; other clients ignore it).
                command: (c.retrigger && snap.config.vscode_commands).then(|| lsp::Command {
                    title: "values".into(),
                    command: "editor.action.triggerSuggest".into(),
                    arguments: None,
                }),
                label: c.label,
                ..lsp::CompletionItem::default()
            }
        })
        .collect();
    Ok(Some(lsp::CompletionResponse::Array(items)))
}

/// `textDocument/signatureHelp`: inside an op body, its fields (the one being written
/// active).
pub fn signature_help(
    snap: &Snapshot,
    params: lsp::SignatureHelpParams,
) -> Result<Option<lsp::SignatureHelp>> {
    let p = params.text_document_position_params;
    let doc = doc(snap, &p.text_document.uri)?;
    let view = view(snap, doc);
    let at = view.offset(p.position)?;
    let Some(help) = cancellable(snap.analysis.signature_help(doc.file, at))? else {
        return Ok(None);
    };
    let active = help.active.and_then(|a| u32::try_from(a).ok());
    let signature = lsp::SignatureInformation {
        label: help.label,
        documentation: Some(lsp::Documentation::MarkupContent(MarkupContent {
            kind: MarkupKind::Markdown,
            value: help.documentation,
        })),
        parameters: Some(
            help.parameters
                .into_iter()
                .map(|(label, doc)| lsp::ParameterInformation {
                    label: lsp::ParameterLabel::Simple(label),
                    documentation: Some(lsp::Documentation::MarkupContent(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: doc,
                    })),
                })
                .collect(),
        ),
        active_parameter: active,
    };
    Ok(Some(lsp::SignatureHelp {
        signatures: vec![signature],
        active_signature: Some(0),
        active_parameter: active,
    }))
}

/// The legend `semantic_tokens` encodes against.
pub fn semantic_tokens_legend() -> lsp::SemanticTokensLegend {
    lsp::SemanticTokensLegend {
        token_types: analysis::ide::TokenType::ALL
            .iter()
            .map(|t| lsp::SemanticTokenType::new(t.lsp_name()))
            .collect(),
        token_modifiers: analysis::ide::MODIFIERS
            .iter()
            .map(|m| lsp::SemanticTokenModifier::new(m))
            .collect(),
    }
}

/// `textDocument/semanticTokens/full`: the whole document's tokens, with a result id (kept
/// in `sent` for the next `…/full/delta`); `null` for a document of more than
/// [`crate::tokens::MAX_WHOLE_DOCUMENT_BYTES`] (its visible lines through `…/range`).
pub fn semantic_tokens(
    snap: &Snapshot,
    params: lsp::SemanticTokensParams,
    sent: &SentTokens,
) -> Result<Option<lsp::SemanticTokensResult>> {
    let uri = &params.text_document.uri;
    if too_big_for_whole_tokens(snap, uri)? {
        return Ok(None);
    }
    let (doc, chunks) = token_chunks(snap, uri)?;
    let tokens = sent.full(
        document_key(uri),
        &doc.rope,
        &doc.lone_crs,
        &chunks,
        snap.encoding,
    );
    Ok(Some(lsp::SemanticTokensResult::Tokens(tokens)))
}

/// Whether the open document `uri` is past [`crate::tokens::MAX_WHOLE_DOCUMENT_BYTES`]: no
/// whole-document semantic tokens (decision, docs/decisions.md).
fn too_big_for_whole_tokens(snap: &Snapshot, uri: &Uri) -> Result<bool> {
    Ok(doc(snap, uri)?.rope.len_bytes() > crate::tokens::MAX_WHOLE_DOCUMENT_BYTES)
}

/// The open document `uri` and its semantic tokens, chunk by chunk.
fn token_chunks<'s>(
    snap: &'s Snapshot,
    uri: &Uri,
) -> Result<(&'s Doc, Vec<analysis::ide::ChunkTokens>)> {
    let doc = doc(snap, uri)?;
    Ok((
        doc,
        cancellable(snap.analysis.semantic_token_chunks(doc.file))?,
    ))
}

/// `textDocument/semanticTokens/full/delta`: one edit of the answer whose result id the
/// client sends back, when it is the last one `sent` for the document; else the whole
/// document's tokens.
pub fn semantic_tokens_delta(
    snap: &Snapshot,
    params: lsp::SemanticTokensDeltaParams,
    sent: &SentTokens,
) -> Result<Option<lsp::SemanticTokensFullDeltaResult>> {
    let uri = &params.text_document.uri;
    if too_big_for_whole_tokens(snap, uri)? {
        return Ok(None);
    }
    let (doc, chunks) = token_chunks(snap, uri)?;
    Ok(Some(sent.delta(
        document_key(uri),
        &doc.rope,
        &doc.lone_crs,
        &chunks,
        snap.encoding,
        &params.previous_result_id,
    )))
}

/// `textDocument/semanticTokens/range`: the tokens that overlap the range (what an editor
/// asks for the visible lines of a large file; the end is exclusive), at the cost of the
/// lines it touches.
pub fn semantic_tokens_range(
    snap: &Snapshot,
    params: lsp::SemanticTokensRangeParams,
) -> Result<Option<lsp::SemanticTokensRangeResult>> {
    let doc = doc(snap, &params.text_document.uri)?;
    let range = view(snap, doc).text_range_clamped(params.range)?;
    let tokens = cancellable(snap.analysis.semantic_tokens(doc.file, Some(range)))?;
    let data = convert::semantic_tokens(&doc.rope, &doc.lone_crs, &tokens, snap.encoding);
    Ok(Some(lsp::SemanticTokensRangeResult::Tokens(
        lsp::SemanticTokens {
            result_id: None,
            data,
        },
    )))
}

/// `textDocument/codeAction`: quick fixes for the diagnostics in the range.
pub fn code_actions(
    snap: &Snapshot,
    params: lsp::CodeActionParams,
) -> Result<Option<lsp::CodeActionResponse>> {
    let uri = params.text_document.uri;
    let doc = doc(snap, &uri)?;
    let view = view(snap, doc);
    let range = view.text_range_clamped(params.range)?;
    let actions = cancellable(snap.analysis.fixes(doc.file, range))?
        .into_iter()
        .map(|fix| {
            let edits = fix
                .edits
                .into_iter()
                .map(|(r, new_text)| lsp::TextEdit {
                    range: view.range(r),
                    new_text,
                })
                .collect();
            lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
                title: fix.title,
                kind: Some(lsp::CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![view.diagnostic(&fix.diagnostic, &uri)]),
                edit: Some(lsp::WorkspaceEdit {
                    changes: Some(std::iter::once((uri.clone(), edits)).collect()),
                    ..lsp::WorkspaceEdit::default()
                }),
                is_preferred: Some(true),
                ..lsp::CodeAction::default()
            })
        })
        .collect();
    Ok(Some(actions))
}

/// `textDocument/formatting`: one edit replacing the whole text, or none when the text is
/// already formatted or has syntax errors.
pub fn formatting(
    snap: &Snapshot,
    params: lsp::DocumentFormattingParams,
) -> Result<Option<Vec<lsp::TextEdit>>> {
    let doc = doc(snap, &params.text_document.uri)?;
    let view = view(snap, doc);
    if has_syntax_errors(snap, doc)? {
        return Ok(None);
    }
    // Formatting the whole document is the whole text's work: its copy is made here, on
    // demand, never on the keystroke path.
    let text = doc.rope.to_string();
    let formatted = analysis::ide::format_parsed(&text);
    if formatted == text {
        return Ok(Some(Vec::new()));
    }
    let whole = analysis::TextRange::up_to(TextSize::of(text.as_str()));
    Ok(Some(vec![lsp::TextEdit {
        range: view.range(whole),
        new_text: formatted,
    }]))
}

/// Whether the document has syntax errors (P100–P103), from its diagnostics (each chunk's
/// parse, memoized), not from a parse of the whole text again: the formatter formats only
/// a text without them (`analysis::ide::format`).
fn has_syntax_errors(snap: &Snapshot, doc: &Doc) -> Result<bool> {
    let all = cancellable(snap.analysis.capped_diagnostics(doc.file))?;
    Ok(all.diagnostics.iter().any(|d| d.code.is_syntax()))
}

/// `textDocument/rangeFormatting`: the formatting edits that touch the lines of the range
/// (none when the text has syntax errors), so that Neovim's `gq` (its `formatexpr` is the
/// server's when it offers this) formats instead of wrapping text.
pub fn range_formatting(
    snap: &Snapshot,
    params: lsp::DocumentRangeFormattingParams,
) -> Result<Option<Vec<lsp::TextEdit>>> {
    let doc = doc(snap, &params.text_document.uri)?;
    let view = view(snap, doc);
    let range = view.text_range_clamped(params.range)?;
    if has_syntax_errors(snap, doc)? {
        return Ok(None);
    }
    // The formatter formats the whole text (and keeps the edits on the range's lines): a
    // copy of the text on demand, as for `formatting`.
    let text = doc.rope.to_string();
    let formatted = analysis::ide::format_parsed(&text);
    let edits = analysis::ide::range_edits(&text, &formatted, range);
    Ok(Some(
        edits
            .into_iter()
            .map(|(r, new_text)| lsp::TextEdit {
                range: view.range(r),
                new_text,
            })
            .collect(),
    ))
}

/// `textDocument/foldingRange` (line folds; ranges on one line are dropped).
pub fn folding_ranges(
    snap: &Snapshot,
    params: lsp::FoldingRangeParams,
) -> Result<Option<Vec<lsp::FoldingRange>>> {
    let doc = doc(snap, &params.text_document.uri)?;
    let view = view(snap, doc);
    let folds = cancellable(snap.analysis.folding_ranges(doc.file))?
        .into_iter()
        .filter_map(|f| {
            let r = view.range(f.range);
            (r.end.line > r.start.line).then_some(lsp::FoldingRange {
                start_line: r.start.line,
                start_character: None,
                end_line: r.end.line,
                end_character: None,
                kind: Some(match f.kind {
                    analysis::ide::FoldKind::Region => lsp::FoldingRangeKind::Region,
                    analysis::ide::FoldKind::Comment => lsp::FoldingRangeKind::Comment,
                }),
                collapsed_text: None,
            })
        })
        .collect();
    Ok(Some(folds))
}

/// `textDocument/selectionRange`.
pub fn selection_ranges(
    snap: &Snapshot,
    params: lsp::SelectionRangeParams,
) -> Result<Option<Vec<lsp::SelectionRange>>> {
    let doc = doc(snap, &params.text_document.uri)?;
    let view = view(snap, doc);
    let mut out = Vec::new();
    for p in params.positions {
        let at = view.offset(p)?;
        let chain = cancellable(snap.analysis.selection_ranges(doc.file, at))?;
        let mut parent: Option<Box<lsp::SelectionRange>> = None;
        for r in chain.into_iter().rev() {
            parent = Some(Box::new(lsp::SelectionRange {
                range: view.range(r),
                parent,
            }));
        }
        out.push(parent.map_or(
            lsp::SelectionRange {
                range: lsp::Range::new(p, p),
                parent: None,
            },
            |b| *b,
        ));
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    #[test]
    fn tables_become_aligned_text() {
        let markdown = "kernel `@k`\n\n| engine | static | executed |\n|:--|--:|--:|\n| Activation | 1 | 4 |\n| DVE | 12 | 1,024 |\n| total | 13 | 1,028 |\n\n**SBUF** peak 16";
        expect![[r#"
            kernel `@k`

            ```text
            engine      static  executed
            Activation       1         4
            DVE             12     1,024
            total           13     1,028
            ```

            **SBUF** peak 16"#]]
        .assert_eq(&super::tables_as_text(markdown));
        // Text without a table is left as it is.
        let plain = "a | b\n| not a table";
        assert_eq!(super::tables_as_text(plain), plain);
    }
}
