// Entry point of the Penguin IR extension: starts the `pir lsp` client and provides the
// `Penguin IR: Show BIR` command. All language logic lives in the server; highlighting is the
// TextMate grammar in syntaxes/, which works without the server.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { LANGUAGE_ID, PROFILE_REQUEST, SHOW_BIR_REQUEST, type ShowBirParams, createClient } from './client';
import { affectsServer, readConfig, resolveServer } from './config';

const SHOW_BIR_COMMAND = 'pir.showBir';
const RESTART_COMMAND = 'pir.restartServer';
/** Reveals a position of a source document in the editor already showing it (the target
 *  of the Show BIR view's instruction links). */
const GO_TO_OP_COMMAND = 'pir.goToOp';
const PROFILE_COMMAND = 'pir.showProfile';
/** Virtual read-only documents `pir-bir:/<file>.bir.json?<source uri>` holding the BIR JSON. */
const BIR_SCHEME = 'pir-bir';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('Penguin IR', { log: true });
  const bir = new BirDocuments();
  context.subscriptions.push(
    output,
    vscode.workspace.registerTextDocumentContentProvider(BIR_SCHEME, bir),
    bir,
    vscode.languages.registerDocumentLinkProvider({ scheme: BIR_SCHEME }, new InstructionLinks()),
    vscode.commands.registerCommand(SHOW_BIR_COMMAND, (arg?: ShowBirParams) => bir.show(arg)),
    vscode.commands.registerCommand(RESTART_COMMAND, () => restart()),
    vscode.commands.registerCommand(GO_TO_OP_COMMAND, (uri: string, line: number, character: number) =>
      goToOp(uri, line, character),
    ),
    vscode.commands.registerCommand(PROFILE_COMMAND, () => showProfile()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affectsServer(e)) void restart();
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

async function start(): Promise<void> {
  const config = readConfig();
  const server = resolveServer(config.serverPath);
  if (!server) {
    const open = 'Open Settings';
    // `pir.server.path` is machine-overridable: a remote window (Remote-SSH, WSL, Dev
    // Containers, code-server) ignores it in User settings.
    const remote = vscode.env.remoteName
      ? ` This is a remote window (${vscode.env.remoteName}): set it in the Remote settings or ` +
        "the workspace's .vscode/settings.json, not in User settings."
      : '';
    const message =
      `Penguin IR: the language server \`${config.serverPath}\` was not found ` +
      (config.serverPath.includes('/') || config.serverPath.includes('\\') ? '' : 'on PATH ') +
      '(setting `pir.server.path`). Build it with `cargo build --release -p pir` and set ' +
      `\`pir.server.path\` to the path of target/release/pir.${remote} Highlighting works without ` +
      'it; diagnostics, hover, inlay hints and Show BIR need it.';
    output.error(message);
    void vscode.window
      .showErrorMessage(message, open)
      .then((choice) => {
        if (choice === open) {
          void vscode.commands.executeCommand('workbench.action.openSettings', 'pir.server.path');
        }
      });
    return;
  }
  output.info(`Starting ${server} lsp`);
  client = createClient(server, config.initializationOptions, output, [SHOW_BIR_COMMAND]);
  try {
    await client.start();
  } catch (e) {
    // vscode-languageclient has already shown the failure and logged it to the output channel.
    output.error(`pir lsp failed to start: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c?.isRunning()) await c.stop();
}

/** The webview of "Penguin IR: Show Kernel Profile", reused while it is open. */
let profilePanel: vscode.WebviewPanel | undefined;

/**
 * "Penguin IR: Show Kernel Profile": the active file's kernels drawn by the server
 * (`pir/profile`, the SVG `pir stats --plot` writes) in a webview beside the editor.
 */
async function showProfile(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor?.document.languageId !== LANGUAGE_ID) {
    void vscode.window.showWarningMessage('Penguin IR: open a .pir file to show its kernel profile.');
    return;
  }
  if (!client?.isRunning()) {
    void vscode.window.showWarningMessage('Penguin IR: the language server is not running (see Output › Penguin IR).');
    return;
  }
  const result = await client.sendRequest<{ svg: string }>(PROFILE_REQUEST, {
    textDocument: { uri: editor.document.uri.toString() },
  });
  if (!profilePanel) {
    profilePanel = vscode.window.createWebviewPanel(
      'pirProfile',
      'Kernel Profile',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: false },
    );
    profilePanel.onDidDispose(() => (profilePanel = undefined));
  }
  profilePanel.title = `Kernel Profile: ${editor.document.uri.path.split('/').pop() ?? ''}`;
  // The SVG is the server's own drawing (text escaped there); no script runs.
  profilePanel.webview.html =
    '<!DOCTYPE html><html><head><meta charset="utf-8">' +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">` +
    // The drawing is 960 units wide: scaled down to the panel, never up.
    '<style>svg{max-width:100%;height:auto}</style>' +
    `</head><body style="background:white;margin:0">${result.svg}</body></html>`;
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

/**
 * The `pir-bir:` documents: one per source file, showing the BIR of the op under the cursor
 * when the command was run (the file's when the cursor is outside every op), refreshed as the
 * source changes.
 */
class BirDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** Source uri → the position asked for (kept on its op as lines are added above it). */
  private readonly positions = new Map<string, vscode.Position | undefined>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly listeners = [
    vscode.workspace.onDidChangeTextDocument((e) => this.sourceChanged(e)),
    vscode.workspace.onDidCloseTextDocument((d) => {
      if (d.uri.scheme === BIR_SCHEME) this.positions.delete(sourceOf(d.uri));
    }),
  ];

  dispose(): void {
    this.listeners.forEach((l) => l.dispose());
    this.changed.dispose();
    this.timers.forEach((t) => clearTimeout(t));
  }

  async show(arg?: ShowBirParams): Promise<void> {
    let source: vscode.Uri;
    let position: vscode.Position | undefined;
    const editor = vscode.window.activeTextEditor;
    if (arg?.textDocument?.uri) {
      source = vscode.Uri.parse(arg.textDocument.uri);
      position = arg.position && new vscode.Position(arg.position.line, arg.position.character);
    } else if (editor?.document.languageId === LANGUAGE_ID) {
      source = editor.document.uri;
      position = editor.selection.active;
    } else {
      void vscode.window.showWarningMessage('Penguin IR: open a .pir file to show its BIR.');
      return;
    }
    const key = source.toString();
    this.positions.set(key, position);
    const uri = birUri(source);
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'json');
    await vscode.window.showTextDocument(doc, {
      viewColumn: vscode.ViewColumn.Beside,
      preserveFocus: true,
      preview: false,
    });
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const source = sourceOf(uri);
    if (!client?.isRunning()) {
      return JSON.stringify({ error: 'the pir language server is not running (see Output › Penguin IR)' }, null, 2);
    }
    const pos = this.positions.get(source);
    const params: ShowBirParams = {
      textDocument: { uri: source },
      ...(pos ? { position: { line: pos.line, character: pos.character } } : {}),
    };
    try {
      const result = await client.sendRequest<{ bir: unknown }>(SHOW_BIR_REQUEST, params, token);
      return JSON.stringify(result?.bir ?? null, null, 2) + '\n';
    } catch (e) {
      return JSON.stringify({ error: e instanceof Error ? e.message : String(e) }, null, 2);
    }
  }

  private sourceChanged(e: vscode.TextDocumentChangeEvent): void {
    const key = e.document.uri.toString();
    if (e.document.languageId !== LANGUAGE_ID || e.contentChanges.length === 0) return;
    const pos = this.positions.get(key);
    if (pos) {
      // Keep the position on its op: shift it by the lines added or removed above it.
      let line = pos.line;
      for (const c of e.contentChanges) {
        if (c.range.end.line < pos.line) {
          line += (c.text.match(/\n/g)?.length ?? 0) - (c.range.end.line - c.range.start.line);
        }
      }
      this.positions.set(key, new vscode.Position(Math.max(0, line), pos.character));
    }
    const uri = birUri(e.document.uri);
    if (!vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) return;
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.changed.fire(uri);
      }, 300),
    );
  }
}

/** The source document's uri (as the language client names it) of a `pir-bir:` uri. */
function sourceOf(bir: vscode.Uri): string {
  return vscode.Uri.parse(bir.query).toString();
}

function birUri(source: vscode.Uri): vscode.Uri {
  const name = source.path.split('/').pop() || 'untitled';
  return vscode.Uri.from({ scheme: BIR_SCHEME, path: `/${name}.bir.json`, query: source.toString() });
}

/** A link on an instruction's name in a `pir-bir:` document, to its op in the source. */
class InstructionLink extends vscode.DocumentLink {
  constructor(
    range: vscode.Range,
    readonly name: string,
    readonly source: string,
  ) {
    super(range);
    this.tooltip = `Go to the op of ${name}`;
  }
}

/**
 * Each instruction name of the Show BIR view (`"name": "I-3-0"`) links back to its op: the
 * server resolves the name through `workspace/symbol` (which answers instruction names with
 * their op), when the link is followed.
 */
class InstructionLinks implements vscode.DocumentLinkProvider<InstructionLink> {
  provideDocumentLinks(doc: vscode.TextDocument): InstructionLink[] {
    const source = sourceOf(doc.uri);
    const links: InstructionLink[] = [];
    const text = doc.getText();
    const pattern = /"name": "(I-\d+-\d+)"/g;
    for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
      const start = m.index + m[0].indexOf(m[1]);
      const range = new vscode.Range(doc.positionAt(start), doc.positionAt(start + m[1].length));
      links.push(new InstructionLink(range, m[1], source));
    }
    return links;
  }

  async resolveDocumentLink(
    link: InstructionLink,
    token: vscode.CancellationToken,
  ): Promise<InstructionLink | undefined> {
    if (!client?.isRunning()) return undefined;
    const symbols = await client.sendRequest<
      { name: string; location: { uri: string; range: { start: { line: number; character: number } } } }[] | null
    >('workspace/symbol', { query: link.name }, token);
    const found = symbols?.find(
      (s) => s.name === link.name && vscode.Uri.parse(s.location.uri).toString() === link.source,
    );
    if (!found) return undefined;
    const { line, character } = found.location.range.start;
    const args = encodeURIComponent(JSON.stringify([link.source, line, character]));
    link.target = vscode.Uri.parse(`command:${GO_TO_OP_COMMAND}?${args}`);
    return link;
  }
}

/** Shows `line`, `character` (0-based) of the source `uri` in the editor group that already
 *  shows it (the first group otherwise), not in the Show BIR view's group. */
async function goToOp(uri: string, line: number, character: number): Promise<void> {
  const source = vscode.Uri.parse(uri);
  const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === source.toString());
  const doc = shown?.document ?? (await vscode.workspace.openTextDocument(source));
  const at = new vscode.Position(line, character);
  await vscode.window.showTextDocument(doc, {
    viewColumn: shown?.viewColumn ?? vscode.ViewColumn.One,
    selection: new vscode.Range(at, at),
    preserveFocus: false,
  });
}
