// The VS Code extension end to end in a real VS Code: code-server (VS Code 1.139.1) with the
// built .vsix installed, driven in Debian's headless Chromium by playwright-core, against the
// real `pir` binary. Run by tests/editors.rs (`vscode_end_to_end`); see README.md.
//
// Environment:
//   PIR_BIN       the `pir` binary (set as `pir.server.path` in the Machine settings)
//   PIR_VSIX      the packaged extension
//   PIR_CORPUS    tests/corpus (files copied into the workspace)
//   PIR_SCRATCH   an empty directory for code-server's state, the workspace and the artifacts
//   PIR_CHROMIUM  the browser (default /usr/bin/chromium)
//   PIR_LARGE     a large file (the 100,000-op benchmark file) and PIR_LARGE_LINE a 1-based
//                 line in its middle: inlay hints must show there (issue 24); unset: not checked
//
// Each check is one entry of CHECKS, run in order against one window; the first failure
// stops the run. Artifacts (screenshots, the page's text, the client's output channel,
// code-server's log) go to $PIR_SCRATCH/artifacts; `vscode-e2e.png` there is the picture
// of diagnostics, inlay hints and hover, and `vscode-codelens.png` the code lens and the
// kernel-name hover (SPEC §10.1), that editors/screenshots/ keeps.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const PIR_BIN = path.resolve(env('PIR_BIN'));
const VSIX = env('PIR_VSIX');
const CORPUS = env('PIR_CORPUS');
const SCRATCH = env('PIR_SCRATCH');
const CHROMIUM = process.env.PIR_CHROMIUM || '/usr/bin/chromium';
const CODE_SERVER = path.join(HERE, 'node_modules/code-server/out/node/entry.js');

/** Issue 24's large file (copied into the workspace as LARGE_FILE) and a line in its middle. */
const LARGE = process.env.PIR_LARGE;
const LARGE_LINE = Number(process.env.PIR_LARGE_LINE || 1);
const LARGE_FILE = 'large.pir';
/** The whole run ends (red) after this long, whatever a step waits for (the large file's
 *  analysis by a debug server takes a minute or two of it). */
const RUN_LIMIT_MS = LARGE ? 480_000 : 240_000;
/** The workbench and the server's first answers, on a loaded 2-core machine. */
const SLOW_MS = 90_000;
/** One UI reaction (a widget opening, a diagnostic after an edit). */
const STEP_MS = 30_000;

const DATA = path.join(SCRATCH, 'data');
const EXTENSIONS = path.join(SCRATCH, 'extensions');
const WORKSPACE = path.join(SCRATCH, 'workspace');
const ARTIFACTS = path.join(SCRATCH, 'artifacts');
const FILE = 'matmul_basic.pir';
/** The 1-based line of FILE's `kernel @matmul_basic`. */
const KERNEL_LINE = 10;
const WORKSPACE_FILES = [FILE, 'topk.pir', 'rmsnorm.pir', 'tensor_add.pir'];
/** tests/rules/rule_P416_psum_peak.pir: P416 on its kernel name, line 9, column 8. */
const OVER_FILE = 'rule_P416_psum_peak.pir';
/** One kernel of 2,000 copies (about 160 KB, which the server cuts into chunks), each
 *  reading the tensor the copy before it wrote, the writer of `%t1500` left out: P501 at
 *  its read, line 3004, column 38, chunks after the kernel's header. */
const BIG_FILE = 'big_kernel.pir';
/** 30 kernels of 500 copies (about 1.2 MB): opening it, `pir lsp` reports work-done
 *  progress (from 1 MiB), which VS Code shows in the status bar. */
const HUGE_FILE = 'huge.pir';
/** A file of the workspace that no check opens, with a P200 at line 2, column 34: in the
 *  Problems panel only with `pir.workspaceDiagnostics` on. */
const UNOPENED_FILE = 'never_opened.pir';
const UNOPENED_TEXT =
  'kernel @never(%x: sbuf f32[128, 128]) -> (%y: sbuf f32[128, 128]) {\n' +
  '  TensorCopyOp { dst = %y, src = %nope }\n' +
  '}\n';

function bigKernel() {
  const lines = ['kernel @big(%x: sbuf f32[128, 128]) -> (%y: sbuf f32[128, 128]) {'];
  let previous = '%x';
  for (let i = 0; i < 2000; i++) {
    lines.push(`  tensor %t${i} : sbuf f32[128, 128]`);
    if (i !== 1500) lines.push(`  TensorCopyOp { dst = %t${i}, src = ${previous} }`);
    previous = `%t${i}`;
  }
  lines.push(`  TensorCopyOp { dst = %y, src = ${previous} }`, '}', '');
  return lines.join('\n');
}

function hugeFile() {
  const lines = [];
  for (let k = 0; k < 30; k++) {
    lines.push(`kernel @k${k}(%x: sbuf f32[128, 128]) -> (%y: sbuf f32[128, 128]) {`);
    let previous = '%x';
    for (let i = 0; i < 500; i++) {
      lines.push(`  tensor %t${i} : sbuf f32[128, 128]`, `  TensorCopyOp { dst = %t${i}, src = ${previous} }`);
      previous = `%t${i}`;
    }
    lines.push(`  TensorCopyOp { dst = %y, src = ${previous} }`, '}');
  }
  return lines.join('\n') + '\n';
}

const started = Date.now();
const log = (msg) => console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${msg}`);

// ---------------------------------------------------------------------------------------
// Waiting: every wait polls, bounded.

/** What a probe returns to keep waiting while saying what it saw (for the timeout message). */
class NotYet {
  constructor(seen) {
    this.seen = seen;
  }
}
const notYet = (seen) => new NotYet(seen);

/** Polls `probe` until it returns a truthy value other than a NotYet; throws with the last
 *  value seen on timeout. A probe that throws is retried (the DOM changes under it). */
async function waitFor(what, probe, timeout = STEP_MS) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await probe();
      if (last && !(last instanceof NotYet)) return last;
    } catch (e) {
      last = `threw: ${e instanceof Error ? e.message.split('\n')[0] : e}`;
    }
    if (Date.now() > deadline) {
      const seen = last instanceof NotYet ? last.seen : last;
      throw new Error(`timed out after ${timeout / 1000}s waiting for ${what}; last seen: ${show(seen)}`);
    }
    await sleep(250);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const show = (v) => (typeof v === 'string' ? JSON.stringify(v.slice(0, 600)) : JSON.stringify(v));
/** Text as the page renders it: U+00A0 (Monaco's spaces) as spaces. */
const plain = (s) => (s ?? '').replace(/\u00a0/g, ' ');

// ---------------------------------------------------------------------------------------
// code-server

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

function prepare() {
  for (const d of [DATA, EXTENSIONS, WORKSPACE, ARTIFACTS]) fs.mkdirSync(d, { recursive: true });
  // The corpus files without their `//>` and `//!` expectations (for check_corpus.py; the
  // inlay hints and diagnostics show the same), so lines and columns are unchanged.
  for (const f of WORKSPACE_FILES) {
    const text = fs.readFileSync(path.join(CORPUS, f), 'utf8').replace(/[ \t]*\/\/[>!].*$/gm, '');
    fs.writeFileSync(path.join(WORKSPACE, f), text);
  }
  // A kernel over PSUM capacity, worked out in its header (tests/rules/).
  const over = fs.readFileSync(path.join(HERE, '../rules', OVER_FILE), 'utf8').replace(/[ \t]*\/\/[>!].*$/gm, '');
  fs.writeFileSync(path.join(WORKSPACE, OVER_FILE), over);
  fs.writeFileSync(path.join(WORKSPACE, BIG_FILE), bigKernel());
  if (LARGE) fs.copyFileSync(LARGE, path.join(WORKSPACE, LARGE_FILE));
  fs.writeFileSync(path.join(WORKSPACE, HUGE_FILE), hugeFile());
  fs.writeFileSync(path.join(WORKSPACE, UNOPENED_FILE), UNOPENED_TEXT);
  // A remote window (code-server is one) reads the machine-overridable `pir.server.path`
  // from the Machine settings (or the workspace's), never from User settings.
  writeJson(path.join(DATA, 'Machine/settings.json'), { 'pir.server.path': PIR_BIN });
  writeJson(path.join(DATA, 'User/settings.json'), {
    'workbench.colorTheme': 'Default Dark Modern',
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.disableAIFeatures': true,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'security.workspace.trust.enabled': false,
    'window.restoreWindows': 'none',
    'editor.minimap.enabled': false,
    'editor.fontSize': 14,
    // The colours checked are the TextMate grammar's, not the server's semantic tokens.
    'editor.semanticHighlighting.enabled': false,
    'editor.inlayHints.enabled': 'on',
    'editor.hover.delay': 300,
    // Completion is not checked here; a suggestion popping up while the test types would
    // only get in the way.
    'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' },
    'editor.suggestOnTriggerCharacters': false,
    'files.autoSave': 'off',
  });
}

/** The environment of code-server: its state in the scratch directory, never in ~. */
function serverEnv() {
  return {
    ...process.env,
    XDG_CONFIG_HOME: path.join(SCRATCH, 'xdg/config'),
    XDG_DATA_HOME: path.join(SCRATCH, 'xdg/data'),
    XDG_CACHE_HOME: path.join(SCRATCH, 'xdg/cache'),
    XDG_STATE_HOME: path.join(SCRATCH, 'xdg/state'),
  };
}

function installExtension() {
  const out = execFileSync(
    process.execPath,
    [CODE_SERVER, '--user-data-dir', DATA, '--extensions-dir', EXTENSIONS, '--install-extension', VSIX],
    { env: serverEnv(), encoding: 'utf8', timeout: SLOW_MS, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  log(`install: ${out.trim().split('\n').pop()}`);
  if (!/successfully installed/i.test(out)) throw new Error(`the .vsix did not install:\n${out}`);
}

/** Starts code-server in its own process group; resolves to its port. */
function startCodeServer() {
  const logFile = fs.openSync(path.join(ARTIFACTS, 'code-server.log'), 'w');
  const child = spawn(
    process.execPath,
    [
      CODE_SERVER,
      '--auth', 'none',
      '--bind-addr', '127.0.0.1:0',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--user-data-dir', DATA,
      '--extensions-dir', EXTENSIONS,
      WORKSPACE,
    ],
    { env: serverEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  codeServer = child;
  codeServerPid = child.pid;
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`code-server did not listen within ${SLOW_MS / 1000}s:\n${seen}`)), SLOW_MS);
    const onData = (chunk) => {
      fs.writeSync(logFile, chunk);
      seen += chunk.toString();
      const m = seen.match(/HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited (${code ?? signal}):\n${seen}`));
    });
  });
}

let codeServer;
/** code-server's pid, kept after it is stopped. */
let codeServerPid;
/** Ends code-server's process group: SIGTERM, then SIGKILL for what is left after 3 s. */
async function stopCodeServer() {
  if (!codeServer) return;
  const group = -codeServer.pid;
  codeServer = undefined;
  const signal = (s) => {
    try {
      process.kill(group, s);
      return true;
    } catch {
      return false; // the group is gone
    }
  };
  if (!signal('SIGTERM')) return;
  for (let i = 0; i < 30 && signal(0); i++) await sleep(100);
  signal('SIGKILL');
}

// ---------------------------------------------------------------------------------------
// The workbench

/** The text of the page. */
const pageText = (page) => page.evaluate(() => document.body.innerText);

/** The CSS selector of the source editor (of FILE) and of its Show BIR editor. */
const SOURCE = `.monaco-editor[data-uri$="/${FILE}"]:not([data-uri^="pir-bir:"])`;
const BIR = '.monaco-editor[data-uri^="pir-bir:"]';

/** The rendered text of an editor's visible lines (inlay hints included), one per line;
 *  null when there is no such editor. */
async function viewLines(page, selector) {
  return page.evaluate((selector) => {
    const editor = document.querySelector(selector);
    if (!editor) return null;
    const lines = [...editor.querySelectorAll('.view-lines .view-line')];
    lines.sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top));
    return lines.map((l) => l.textContent.replace(/\u00a0/g, ' '));
  }, selector);
}

/** Searches the Show BIR editor (the second editor group) for `text` with its find widget
 *  (which sees the whole document, not only the lines in the DOM); how many matches it
 *  counts. The source editor has the focus again afterwards. */
async function countInBir(page, text) {
  const selector = BIR;
  await focusTab(page, `${FILE}.bir.json`);
  await page.keyboard.press('Control+F');
  const input = page.locator(`${selector} .find-widget .find-part .input`).first();
  await input.waitFor({ state: 'visible', timeout: STEP_MS });
  await input.fill(text);
  const count = await waitFor(`the find widget's count of ${text}`, async () => {
    const t = plain(await page.locator(`${selector} .find-widget .matchesCount`).first().textContent({ timeout: 1000 })).trim();
    return /^No results$|of \d+$/.test(t) ? t : notYet(t);
  });
  await page.keyboard.press('Escape');
  await focusEditor(page);
  return count === 'No results' ? 0 : Number(count.match(/of (\d+)$/)[1]);
}

/** Opens the quick input with `key` (F1, Control+P, Control+G), pressing it again if the
 *  workbench did not react (it may still be starting); the input box. */
async function openQuickInput(page, key) {
  const input = page.locator('.quick-input-widget .quick-input-box input');
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press(key);
    try {
      await input.waitFor({ state: 'visible', timeout: attempt < 4 ? 5000 : STEP_MS });
      return input;
    } catch (e) {
      if (attempt === 4) throw e;
      await page.keyboard.press('Escape');
    }
  }
}

/** Runs a command by its palette title (F1, type, Enter on the matching row). */
async function runCommand(page, title) {
  const input = await openQuickInput(page, 'F1');
  await input.fill(`>${title}`);
  await waitFor(`the palette to offer "${title}"`, async () => {
    const label = await page
      .locator('.quick-input-widget .monaco-list-row.focused .label-name')
      .first()
      .textContent({ timeout: 1000 });
    return plain(label).trim() === title ? label : notYet(label);
  });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: STEP_MS });
}

/** Moves the cursor to 1-based `line`, `column` (Go to Line) and checks the status bar. */
async function goTo(page, line, column) {
  const input = await openQuickInput(page, 'Control+G');
  await input.fill(`:${line}:${column}`);
  await sleep(200);
  await page.keyboard.press('Enter');
  await waitFor(`the cursor at Ln ${line}, Col ${column}`, async () => {
    const text = plain(await page.locator('[id="status.editor.selection"]').first().textContent({ timeout: 1000 }));
    return text.includes(`Ln ${line}, Col ${column}`) ? text : notYet(text);
  });
}

/** The rows of the Problems panel (opened if need be) as text. */
async function problems(page) {
  const panel = page.locator('.markers-panel');
  if (!(await panel.isVisible())) {
    await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
    await panel.waitFor({ state: 'visible', timeout: STEP_MS });
    await focusEditor(page);
  }
  return page.evaluate(() => {
    const rows = [...document.querySelectorAll('.markers-panel .monaco-list-row')];
    return rows.map((r) => (r.innerText || '').replace(/\u00a0/g, ' ').replace(/\s+/g, ' ').trim());
  });
}

/** The Problems panel's rows for a diagnostic (not the file rows). */
const markerRows = (rows) => rows.filter((r) => /\[Ln \d+, Col \d+\]/.test(r));

/** Opens the workspace file `name` with Quick Open (Ctrl+P) and waits for its editor;
 *  returns the editor's selector. `large`: the file is over the remote window's
 *  `workbench.editorLargeFileConfirmation` (10 MB): its "Open Anyway" is clicked first, as
 *  the user would, and the editor waited for longer. */
async function quickOpen(page, name, large = false) {
  const input = await openQuickInput(page, 'Control+P');
  await input.fill(name);
  await waitFor(`Quick Open to offer ${name}`, async () => {
    const label = await page.locator('.quick-input-widget .monaco-list-row.focused .label-name').first().textContent({ timeout: 1000 });
    return plain(label).trim() === name || notYet(label);
  });
  await page.keyboard.press('Enter');
  if (large) {
    const anyway = page.getByRole('button', { name: 'Open Anyway' });
    await anyway.waitFor({ state: 'visible', timeout: STEP_MS });
    await anyway.click();
  }
  const editor = `.monaco-editor[data-uri$="/${name}"]`;
  await page.locator(editor).first().waitFor({ state: 'visible', timeout: large ? SLOW_MS : STEP_MS });
  return editor;
}

/** Gives the editor of the tab labelled `name` the keyboard focus (a click on its tab). */
async function focusTab(page, name) {
  await page.locator(`.tabs-container .tab[data-resource-name="${name}"]`).first().click({ timeout: STEP_MS });
  await waitFor(`the focus in the editor of ${name}`, () =>
    page.evaluate(() => !!document.activeElement?.closest('.monaco-editor')),
  );
}

/** Gives the source editor the keyboard focus. */
async function focusEditor(page) {
  await focusTab(page, FILE);
}

async function squiggles(page) {
  return page.locator(`${SOURCE} .squiggly-error`).count();
}

/** The computed colour of the first token of the source editor whose text is `text`. */
async function tokenColour(page, text) {
  return page.evaluate(
    ({ selector, text }) => {
      const span = [...(document.querySelector(selector)?.querySelectorAll('.view-line span span') ?? [])].find(
        (s) => s.textContent.replace(/\u00a0/g, ' ').trim() === text,
      );
      return span ? getComputedStyle(span).color : null;
    },
    { selector: SOURCE, text },
  );
}

/** The client's output channel ("Penguin IR"), read from code-server's log folder. */
function outputChannel() {
  const found = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/Penguin IR\.log$/.test(e.name)) found.push(p);
    }
  };
  walk(path.join(DATA, 'logs'));
  return found.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
}

/** The command lines of the running processes of PIR_BIN that code-server started (from
 *  /proc; another test may run the same binary meanwhile). */
function serverCommandLines() {
  const parent = (pid) => {
    // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  };
  const underCodeServer = (pid) => {
    for (let p = pid, depth = 0; p > 1 && depth < 20; p = parent(p), depth++) {
      if (p === codeServerPid) return true;
    }
    return false;
  };
  const found = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
      if (argv[0] === PIR_BIN && underCodeServer(Number(pid))) found.push(argv);
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------
// The checks, in order; each gets the page and may leave state to the next.

const hintsOf = (lines) => (lines ?? []).filter((l) => l.includes('→'));

const CHECKS = [
  [
    'the .pir file opens in language mode Penguin IR',
    async (page) => {
      await quickOpen(page, FILE);
      const mode = await waitFor('the status bar language "Penguin IR"', async () => {
        const t = plain(await page.locator('[id="status.editor.mode"]').first().textContent({ timeout: 1000 })).trim();
        return t === 'Penguin IR' ? t : notYet(t);
      });
      log(`language mode: ${mode}`);
    },
  ],
  [
    'the TextMate grammar colours comments, keywords, ops and tensors',
    async (page) => {
      // Default Dark Modern: comments #6A9955; the other scopes only need to differ from the
      // plain foreground and from each other.
      const colours = await waitFor('coloured tokens', async () => {
        const c = {
          comment: await tokenColour(page, '// K1: matmul, basic (64 x 128 x 512).'),
          kernel: await tokenColour(page, 'kernel'),
          op: await tokenColour(page, 'MatMulOp'),
          tensor: await tokenColour(page, '%lhs_tile'),
          plain: await tokenColour(page, '='),
        };
        return Object.values(c).every(Boolean) ? c : notYet(c);
      });
      log(`colours: ${JSON.stringify(colours)}`);
      if (colours.comment !== 'rgb(106, 153, 85)') throw new Error(`comment colour ${colours.comment}`);
      const distinct = new Set([colours.kernel, colours.op, colours.tensor, colours.plain]);
      if (distinct.size < 3 || colours.kernel === colours.plain || colours.op === colours.plain) {
        throw new Error(`the grammar's scopes are not coloured apart: ${JSON.stringify(colours)}`);
      }
    },
  ],
  [
    'the server starts: inlay hints name each op\'s BIR opcode',
    async (page) => {
      const hints = await waitFor(
        'inlay hints → Matmult, DMACopy, TensorCopy',
        async () => {
          const h = hintsOf(await viewLines(page, SOURCE));
          const all = h.join('\n');
          return ['Matmult', 'DMACopy', 'TensorCopy'].every((o) => all.includes(`→ ${o}`)) ? h : notYet(h);
        },
        SLOW_MS,
      );
      log(`inlay hints:\n  ${hints.map((l) => l.trim()).join('\n  ')}`);
      // The client runs the command as configured: `pir lsp`, no transport flag appended.
      const servers = serverCommandLines();
      log(`server processes: ${JSON.stringify(servers)}`);
      if (servers.length !== 1 || servers[0].join(' ') !== `${PIR_BIN} lsp`) {
        throw new Error(`expected one \`${PIR_BIN} lsp\` process: ${JSON.stringify(servers)}`);
      }
    },
  ],
  [
    'no error notification, and the output channel is clean',
    async (page) => {
      await runCommand(page, 'Notifications: Show Notifications');
      await sleep(500);
      const centre = plain(await page.locator('.notifications-center').first().innerText({ timeout: STEP_MS }));
      await page.keyboard.press('Escape');
      const toasts = plain(await page.evaluate(() => [...document.querySelectorAll('.notification-toast')].map((t) => t.innerText).join('\n')));
      const notes = `${centre}\n${toasts}`;
      if (/\bpir\b|Penguin IR|language server|crash/i.test(notes)) throw new Error(`a notification about the server: ${notes}`);
      const channel = await waitFor('the output channel "Penguin IR"', async () => outputChannel());
      log(`output channel:\n  ${channel.trim().split('\n').join('\n  ')}`);
      if (!channel.includes(`Starting ${PIR_BIN} lsp`)) throw new Error('the channel does not say the server started');
      const bad = channel.split('\n').filter((l) => /\[(error|warning)\]|crash|exited|Error:|panicked/i.test(l));
      if (bad.length) throw new Error(`the output channel has errors:\n${bad.join('\n')}`);
      const rows = markerRows(await problems(page));
      if (rows.length) throw new Error(`the corpus file has problems: ${rows.join(' | ')}`);
      if (await squiggles(page)) throw new Error('the corpus file has squiggles');
    },
  ],
  [
    'hover on an op shows its BIR opcode',
    async (page) => {
      await focusEditor(page);
      await goTo(page, 20, 5); // MatMulOp
      await runCommand(page, 'Show or Focus Hover');
      const hover = await waitFor('a hover naming Matmult', async () => {
        const t = plain(await page.locator('.monaco-hover:not(.hidden)').first().innerText({ timeout: 1000 }));
        return t.includes('Matmult') ? t : notYet(t);
      });
      log(`hover: ${hover.slice(0, 200).replace(/\n/g, ' ⏎ ')}…`);
      if (!hover.includes('MatMulOp')) throw new Error(`the hover does not name the op: ${hover}`);
      await page.keyboard.press('Escape');
    },
  ],
  [
    'code lenses above the kernel show its engines and SBUF/PSUM peaks and its cost on the target; the kernel-name hover their table',
    async (page) => {
      await focusEditor(page);
      await goTo(page, KERNEL_LINE, 9); // on @matmul_basic
      // matmul_basic.pir by hand: Matmult on PE, TensorCopy on DVE, three DMAs; SBUF peak
      // %lhs_tile 128 + %rhs_tile 1,024 = 1,152 bytes (1.1 KiB); PSUM %result_psum 2,048.
      const want = 'PE 1 · DVE 1 · DMA 3 · SBUF 1.1/208.0 KiB · PSUM 2.0/16.0 KiB';
      const placed = await waitFor(
        `the code lens "${want}" above the kernel line`,
        async () => {
          const seen = await page.evaluate(
            ({ selector, kernel }) => {
              const editor = document.querySelector(selector);
              if (!editor) return null;
              const line = [...editor.querySelectorAll('.view-lines .view-line')].find((l) =>
                l.textContent.replace(/\u00a0/g, ' ').startsWith(kernel),
              );
              const lenses = [...editor.querySelectorAll('.codelens-decoration')].map((d) => ({
                text: d.textContent.replace(/\u00a0/g, ' '),
                bottom: d.getBoundingClientRect().bottom,
                top: d.getBoundingClientRect().top,
              }));
              return { lineTop: line?.getBoundingClientRect().top, lenses };
            },
            { selector: SOURCE, kernel: 'kernel @matmul_basic' },
          );
          // VS Code puts a line's lenses in one decoration, joined by ` | `: the resources
          // (SPEC §10.1), then the cost on the target (§10.2.9, issue 21).
          const lens = seen?.lenses.find((l) => {
            const [resources, cost] = l.text.split(' | ');
            return resources === want && /^trn2 ≥ [0-9.]+ (ns|µs|ms|s) · [A-Za-z]+-bound/.test(cost ?? '');
          });
          // Right above: its box ends where the kernel's line starts (the workbench may
          // place it before its view zone is laid out: wait for the final layout).
          const above = lens && seen.lineTop !== undefined && lens.bottom <= seen.lineTop + 1 && lens.top >= seen.lineTop - 40;
          return above ? { lens, lineTop: seen.lineTop } : notYet(seen);
        },
        SLOW_MS,
      );
      log(`code lens: ${placed.lens.text} (its bottom ${placed.lens.bottom}, the kernel line's top ${placed.lineTop})`);
      // Room for the whole hover in the picture: the panel (Problems) closed; the checks
      // that read it open it again.
      if (await page.locator('.markers-panel').isVisible()) {
        await runCommand(page, 'View: Hide Panel');
        await focusEditor(page);
      }
      // A hover is at most a quarter of the editor's height (at least 250 px): a taller
      // window shows the whole table in the picture.
      await page.setViewportSize({ width: 1280, height: 1800 });
      await page.mouse.move(150, 600); // off the tabs and their tooltips
      await runCommand(page, 'Show or Focus Hover');
      const hover = await waitFor('the kernel-name hover with the engine table', async () => {
        const t = plain(await page.locator('.monaco-hover:not(.hidden)').first().innerText({ timeout: 1000 }));
        return t.includes('executed') ? t : notYet(t);
      });
      log(`kernel hover: ${hover.slice(0, 400).replace(/\n/g, ' ⏎ ')}…`);
      for (const part of ['PE', 'DMA', 'peak 1,152 of 212,984', 'peak 2,048 of 16,384', 'MatMulOp']) {
        if (!hover.includes(part)) throw new Error(`the kernel hover lacks "${part}": ${hover}`);
      }
      await sleep(500);
      // The picture for editors/screenshots/: the lens above the kernel, its hover below
      // (the window's top 960 px).
      await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-codelens.png'), clip: { x: 0, y: 0, width: 1280, height: 960 } });
      await page.keyboard.press('Escape');
      await page.setViewportSize({ width: 1280, height: 960 });
    },
  ],
  [
    'Penguin IR: Show Kernel Profile draws one bar per engine in a webview; its screenshot shows them',
    async (page) => {
      // The engines the estimate has for the kernel, as `pir stats` gives them (SPEC §10.2.9).
      const stats = JSON.parse(
        execFileSync(PIR_BIN, ['stats', '--format', 'json', path.join(WORKSPACE, FILE)], { encoding: 'utf8' }),
      );
      const cost = stats.files[0].kernels[0].cost;
      const engines = Object.keys(cost.engines);
      if (engines.length < 2) throw new Error(`expected several engines: ${JSON.stringify(cost)}`);
      // Room for the drawing beside the source: a wider window, the side bar closed.
      await page.setViewportSize({ width: 1920, height: 1080 });
      await focusEditor(page);
      await runCommand(page, 'View: Close Primary Side Bar');
      await focusEditor(page);
      await runCommand(page, 'Penguin IR: Show Kernel Profile');
      const tab = page.locator('.tabs-container .tab', { hasText: `Kernel Profile: ${FILE}` }).first();
      await tab.waitFor({ state: 'visible', timeout: STEP_MS });
      // The webview's document is a frame (nested in the workbench's); find the one drawing
      // the kernel.
      const found = await waitFor('the profile SVG in a webview frame', async () => {
        for (const frame of page.frames()) {
          const seen = await frame
            .evaluate(() => {
              const svg = [...document.querySelectorAll('svg')].find((s) => s.textContent.includes('@matmul_basic'));
              if (!svg) return null;
              const bars = [...svg.querySelectorAll('rect.bar, rect.bound')].map((r) => ({
                engine: r.previousElementSibling?.textContent ?? '',
                bound: r.classList.contains('bound'),
                width: r.getBoundingClientRect().width,
                height: r.getBoundingClientRect().height,
              }));
              return { title: svg.querySelector('text.t')?.textContent ?? '', bars, width: svg.getBoundingClientRect().width };
            })
            .catch(() => null);
          if (seen) return { frame, seen };
        }
        return notYet(page.frames().map((f) => f.url().slice(0, 80)));
      });
      const { frame, seen } = found;
      log(`profile webview: ${seen.title}; bars ${JSON.stringify(seen.bars)}; drawn ${seen.width.toFixed(0)} px wide`);
      const want = `@${stats.files[0].kernels[0].name} — trn2 ≥ `;
      if (!seen.title.startsWith(want) || !seen.title.endsWith(`, ${cost.bottleneck}-bound`)) {
        throw new Error(`the profile's title "${seen.title}" is not "${want}…, ${cost.bottleneck}-bound"`);
      }
      const drawn = seen.bars.map((b) => b.engine);
      if (JSON.stringify(drawn) !== JSON.stringify(engines)) {
        throw new Error(`bars for ${JSON.stringify(drawn)}, the estimate has ${JSON.stringify(engines)}`);
      }
      const bound = seen.bars.filter((b) => b.bound).map((b) => b.engine);
      if (JSON.stringify(bound) !== JSON.stringify([cost.bottleneck])) {
        throw new Error(`the bound is marked on ${JSON.stringify(bound)}, not ${cost.bottleneck}`);
      }
      if (seen.bars.some((b) => b.width < 1 || b.height < 5)) throw new Error(`a bar is not drawn: ${JSON.stringify(seen.bars)}`);
      await page.mouse.move(400, 1000); // off the tabs and their tooltips (below the text)
      await sleep(1000);
      // The pictures: the window (source, lenses and profile beside), and the drawing alone,
      // whose pixels must show the bars (SPEC §10.2.9's colours: bound #e45756, others
      // #4c78a8), as the browser rendered them.
      await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-profile.png') });
      const drawing = await frame.locator('svg').first().screenshot({ path: path.join(ARTIFACTS, 'vscode-profile-svg.png') });
      const pixels = await countColours(page, drawing, { bound: [228, 87, 86], bar: [76, 120, 168] });
      log(`profile screenshot: ${drawing.length} bytes, ${pixels.width}×${pixels.height}, bound-red ${pixels.bound} px, bar-blue ${pixels.bar} px`);
      // The bound's bar spans the plot (700 of 960 units, 14 units high) at whatever scale.
      const scale = pixels.width / 960;
      if (pixels.bound < 700 * 14 * scale * scale * 0.8) throw new Error(`the bound's bar is not in the picture: ${JSON.stringify(pixels)}`);
      if (pixels.bar === 0) throw new Error(`no other engine's bar in the picture: ${JSON.stringify(pixels)}`);
      // Close the webview, give the side bar back.
      await tab.hover();
      await tab.locator('.tab-actions .action-label[aria-label^="Close"]').first().click({ timeout: STEP_MS });
      await tab.waitFor({ state: 'detached', timeout: STEP_MS });
      await runCommand(page, 'View: Toggle Primary Side Bar Visibility');
      await page.setViewportSize({ width: 1280, height: 960 });
      await focusEditor(page);
    },
  ],
  [
    'a misspelt field gives a squiggle and one P203 at its line and column; undo clears it',
    async (page) => {
      await typeMisspeltField(page);
      // The picture for editors/screenshots/: the squiggle, the Problems panel, inlay hints,
      // and the hover of the first DmaCopyOp (above it, leaving the rest of the file in view).
      await goTo(page, 17, 5);
      await page.mouse.move(150, 600); // off the tabs and their tooltips (the Explorer's blank)
      await runCommand(page, 'Show or Focus Hover');
      await waitFor('the hover', () => page.locator('.monaco-hover:not(.hidden)').first().isVisible());
      await sleep(500);
      await page.screenshot({ path: path.join(ARTIFACTS, 'vscode-e2e.png') });
      await page.keyboard.press('Escape');
      await goTo(page, 24, 17);
      // Undo until the file is as saved (typing and the new line may be separate undo stops).
      const dirty = page.locator(`.tabs-container .tab.dirty[data-resource-name="${FILE}"]`);
      for (let undos = 0; (await dirty.count()) > 0; undos++) {
        if (undos === 4) throw new Error('four undos did not restore the file');
        await page.keyboard.press('Control+Z');
        await sleep(300);
      }
      const lines = await viewLines(page, SOURCE);
      if (lines.some((l) => l.includes('is_acumulate'))) throw new Error('undo left the misspelt field');
      await waitFor('no squiggle and no problem after undo', async () => {
        const rows = markerRows(await problems(page));
        const n = await squiggles(page);
        return (rows.length === 0 && n === 0) || notYet({ rows, squiggles: n });
      });
    },
  ],
  [
    'Penguin IR: Show BIR opens the op\'s BIR JSON beside the source',
    async (page) => {
      await goTo(page, 20, 5);
      await runCommand(page, 'Penguin IR: Show BIR');
      const json = await waitFor('the BIR JSON of MatMulOp', async () => {
        const text = (await viewLines(page, BIR))?.join('\n') ?? '';
        return text.includes('"op": "MatMulOp"') && text.includes('"opcode": "Matmult"') ? text : notYet(text);
      });
      log(`BIR: ${json.slice(0, 160).replace(/\s+/g, ' ')}…`);
      const falses = await countInBir(page, '"is_accumulate": false');
      if (falses !== 1) throw new Error(`"is_accumulate": false found ${falses} times in the BIR`);
    },
  ],
  [
    'an instruction name in Show BIR links back to its op (I-<id>-0 → MatMulOp)',
    async (page) => {
      // The op's view (JSON.stringify, 2 spaces): line 8 is `      "name": "I-<id>-0",`.
      await goTo(page, 1, 1);
      await focusTab(page, `${FILE}.bir.json`);
      await goTo(page, 8, 18);
      const name = await waitFor('the instruction name in the BIR view', async () => {
        const l = (await viewLines(page, BIR)) ?? [];
        return l.find((line) => /^ {6}"name": "I-\d+-0",/.test(line)) ?? notYet(l.slice(0, 9));
      });
      log(`BIR: ${name.trim()}`);
      await runCommand(page, 'Open Link');
      // The source editor, its cursor on the op's class name (line 20, column 3).
      await waitFor('the cursor on MatMulOp in the source', async () => {
        const text = plain(await page.locator('[id="status.editor.selection"]').first().textContent({ timeout: 1000 }));
        const focused = await page.evaluate((selector) => !!document.activeElement?.closest(selector), SOURCE);
        return (focused && text.includes('Ln 20, Col 3')) || notYet({ text, focused });
      });
    },
  ],
  [
    'a quick fix applies (did you mean `is_accumulate`) and the BIR follows the edit',
    async (page) => {
      await focusEditor(page);
      await typeMisspeltField(page);
      await goTo(page, 24, 6);
      await page.keyboard.press('Control+.');
      const fix = 'Replace with `is_accumulate`';
      await waitFor(`the quick fix "${fix}"`, async () => {
        const t = plain(await page.locator('.action-widget').first().innerText({ timeout: 1000 }));
        return t.includes(fix) ? t : notYet(t);
      });
      await page.locator('.action-widget .monaco-list-row', { hasText: fix }).first().click();
      await waitFor('the fixed line and no problem', async () => {
        const lines = await viewLines(page, SOURCE);
        const fixed = lines.some((l) => /^\s+is_accumulate = true/.test(l));
        const rows = markerRows(await problems(page));
        const n = await squiggles(page);
        return (fixed && rows.length === 0 && n === 0) || notYet({ lines, rows, squiggles: n });
      });
      // The BIR document refreshes 300 ms after an edit.
      await waitFor('the BIR JSON to follow the edit ("is_accumulate": true)', async () => {
        const trues = await countInBir(page, '"is_accumulate": true');
        return trues === 1 || notYet(`${trues} matches`);
      });
    },
  ],
  [
    'completion flows from `{` to a field to a tensor without Ctrl+Space; a .pir file indents by 2',
    async (page) => {
      // Trigger characters on for this check only (the others type without suggestions).
      writeJson(path.join(DATA, 'Machine/settings.json'), {
        'pir.server.path': PIR_BIN,
        'editor.suggestOnTriggerCharacters': true,
      });
      await sleep(1500);
      await focusEditor(page);
      await waitFor('the status bar to say "Spaces: 2"', async () => {
        const items = await page.locator('.statusbar-item').allInnerTexts();
        return items.some((t) => t.trim() === 'Spaces: 2') || notYet(items);
      });
      await goTo(page, 18, 1);
      await page.keyboard.press('End');
      await page.keyboard.press('Enter');
      await page.keyboard.type('DmaCopyOp {', { delay: 40 });
      const suggest = page.locator('.editor-widget.suggest-widget.visible');
      // Nothing pops up on `{` itself: Enter there must start a new line (a list shown
      // then took the Enter: `Activate2 { … }` written into a kernel's new body).
      await sleep(1000);
      if ((await suggest.count()) > 0) {
        throw new Error(`suggestions shown right after \`{\`: ${plain(await suggest.first().innerText())}`);
      }
      await page.keyboard.type(' ', { delay: 40 });
      const fields = await waitFor('the field list after `{ `', async () => {
        const t = plain(await suggest.first().innerText({ timeout: 1000 }));
        return t.includes('dst') && t.includes('src') ? t : notYet(t);
      });
      log(`fields: ${fields.slice(0, 120).replace(/\n/g, ' ')}`);
      await page.locator('.suggest-widget.visible .monaco-list-row', { hasText: /^dst/ }).first().click();
      const tensors = await waitFor('the tensor list after `dst = `', async () => {
        const t = plain(await suggest.first().innerText({ timeout: 1000 }));
        return t.includes('%lhs_tile') ? t : notYet(t);
      });
      log(`values: ${tensors.slice(0, 120).replace(/\n/g, ' ')}`);
      await page.locator('.suggest-widget.visible .monaco-list-row', { hasText: '%lhs_tile' }).first().click();
      await waitFor('the line `DmaCopyOp {dst = %lhs_tile`', async () => {
        const lines = (await viewLines(page, SOURCE)) ?? [];
        return lines.some((l) => /^ {2}DmaCopyOp \{ ?dst = %lhs_tile/.test(l)) || notYet(lines);
      });
      await page.keyboard.press('Escape');
      writeJson(path.join(DATA, 'Machine/settings.json'), { 'pir.server.path': PIR_BIN });
      // The new line goes again (Delete Line: the quick fix before this check stays).
      await page.keyboard.press('Control+Shift+K');
      await waitFor('the typed line deleted', async () => {
        const lines = (await viewLines(page, SOURCE)) ?? [];
        return !lines.some((l) => /^ {2}DmaCopyOp \{ ?dst = %lhs_tile ?\}?\s*$/.test(l)) || notYet(lines);
      });
      await sleep(1000);
    },
  ],
  [
    'Format Document re-indents a line as `pir fmt` does',
    async (page) => {
      await focusEditor(page);
      await goTo(page, 18, 1);
      await page.keyboard.type('    ', { delay: 20 });
      const op = 'DmaCopyOp { dst = %rhs_tile, src = %rhs }';
      await waitFor('the line indented by six spaces', async () => {
        const lines = (await viewLines(page, SOURCE)) ?? [];
        return lines.some((l) => l.startsWith(`      ${op}`)) || notYet(lines);
      });
      await runCommand(page, 'Format Document');
      await waitFor('the line back at two spaces', async () => {
        const lines = (await viewLines(page, SOURCE)) ?? [];
        const back = lines.some((l) => l.startsWith(`  ${op}`));
        const moved = lines.some((l) => l.startsWith(`   ${op}`));
        return (back && !moved) || notYet(lines);
      });
    },
  ],
  [
    'a kernel over PSUM capacity gets P416 in the Problems panel, and its lens says so',
    async (page) => {
      const editor = await quickOpen(page, OVER_FILE);
      // Nine PSUM results live together at op #11: 16,388 bytes per partition > 16,384.
      const row = await waitFor('a P416 row at the kernel name', async () => {
        const rows = markerRows(await problems(page));
        const hit = rows.find((r) => r.includes('P416') && r.includes('[Ln 9, Col 8]'));
        return hit ?? notYet(rows);
      });
      if (!row.includes('16,388 bytes per partition exceeds the capacity of 16,384')) {
        throw new Error(`the P416 row: ${row}`);
      }
      log(`P416: ${row}`);
      const want = 'PE 9 · DVE 9 · DMA 3 · SBUF 2.0/208.0 KiB · PSUM 16.0/16.0 KiB (P416)';
      await waitFor(`the code lens "${want}"`, async () => {
        const lenses = await page.evaluate(
          (selector) =>
            [...(document.querySelector(selector)?.querySelectorAll('.codelens-decoration') ?? [])].map((d) =>
              d.textContent.replace(/\u00a0/g, ' '),
            ),
          editor,
        );
        // A line's lenses are one decoration joined by ` | ` (resources, then cost).
        return lenses.some((l) => l.split(' | ')[0] === want) || notYet(lenses);
      });
    },
  ],
  [
    'a big kernel cut into chunks is checked as a whole (P501 chunks after its header)',
    async (page) => {
      await quickOpen(page, BIG_FILE);
      const row = await waitFor('a P501 row at the read of %t1500', async () => {
        const rows = markerRows(await problems(page));
        const hit = rows.find((r) => r.includes('P501') && r.includes('[Ln 3004, Col 38]'));
        return hit ?? notYet(rows);
      });
      if (!row.includes('%t1500')) throw new Error(`the P501 row: ${row}`);
      // Every name an earlier chunk defines is known in the later ones: no P200.
      const unknown = markerRows(await problems(page)).filter((r) => r.includes('P200') && r.includes('%t'));
      if (unknown.length > 0) throw new Error(`names of earlier chunks unknown: ${unknown.slice(0, 3)}`);
      log(`P501: ${row}`);
    },
  ],
  [
    'the 100,000-op file shows inlay hints in its middle',
    async (page) => {
      if (!LARGE) {
        log('not checked: PIR_LARGE is not set');
        return;
      }
      const selector = await quickOpen(page, LARGE_FILE, true);
      await goTo(page, LARGE_LINE, 1);
      const hints = await waitFor(
        `inlay hints around line ${LARGE_LINE}`,
        async () => {
          const h = hintsOf(await viewLines(page, selector));
          return h.length > 0 ? h : notYet(h);
        },
        2 * SLOW_MS,
      );
      log(`inlay hints at line ${LARGE_LINE} of ${LARGE_FILE}:\n  ${hints.slice(0, 5).map((l) => l.trim()).join('\n  ')}`);
    },
  ],
  [
    'opening a file over 1 MiB shows its progress in the status bar',
    async (page) => {
      // The window progress item (`status.progress`) shows after 150 ms for at least 150 ms:
      // an observer records every text it takes, so a short one is not missed by polling.
      await page.evaluate(() => {
        window.pirProgress = [];
        const record = () => {
          const item = document.getElementById('status.progress');
          const text = item && (item.innerText || item.textContent || '').replace(/\s+/g, ' ').trim();
          if (text && window.pirProgress.at(-1) !== text) window.pirProgress.push(text);
        };
        new MutationObserver(record).observe(document.body, { subtree: true, childList: true, characterData: true });
      });
      const size = fs.statSync(path.join(WORKSPACE, HUGE_FILE)).size;
      if (size <= 1 << 20) throw new Error(`${HUGE_FILE} is ${size} bytes, not over 1 MiB`);
      await quickOpen(page, HUGE_FILE);
      const seen = await waitFor('"Opening huge.pir" in the status bar', async () => {
        const texts = await page.evaluate(() => window.pirProgress);
        return texts.some((t) => t.includes(`Opening ${HUGE_FILE}`)) ? texts : notYet(texts);
      }, SLOW_MS);
      // And it goes when the server ends it.
      await waitFor('the progress to leave the status bar', async () => {
        const item = page.locator('[id="status.progress"]');
        return (await item.count()) === 0 || !(await item.first().isVisible()) || notYet(await item.first().innerText());
      }, SLOW_MS);
      log(`status bar progress of a ${(size / 1e6).toFixed(1)} MB file: ${show(seen)}`);
    },
  ],
  [
    'pir.workspaceDiagnostics puts the problems of a file never opened in the Problems panel',
    async (page) => {
      const rowOf = (rows) => markerRows(rows).find((r) => r.includes('P200') && r.includes('%nope'));
      const before = await problems(page);
      if (rowOf(before)) throw new Error(`a problem of ${UNOPENED_FILE} before the setting: ${show(before)}`);
      // The setting restarts the server with the initialization option on.
      writeJson(path.join(DATA, 'Machine/settings.json'), {
        'pir.server.path': PIR_BIN,
        'pir.workspaceDiagnostics': true,
      });
      const row = await waitFor(`the P200 of ${UNOPENED_FILE}`, async () => {
        const rows = await problems(page);
        return (rows.some((r) => r.includes(UNOPENED_FILE)) && rowOf(rows)) || notYet(rows);
      }, SLOW_MS);
      if (!row.includes('[Ln 2, Col 34]')) throw new Error(`the P200 is not at Ln 2, Col 34: ${row}`);
      log(`workspace problem: ${row}`);
      log(`status bar progress since: ${show(await page.evaluate(() => window.pirProgress))}`);
    },
  ],
  [
    'a missing server binary gives an error naming pir.server.path and the remote settings',
    async (page) => {
      // The extension restarts the server when the setting changes (here: the Machine
      // settings file, as a user would edit it).
      const missing = path.join(SCRATCH, 'no-such-dir/pir');
      writeJson(path.join(DATA, 'Machine/settings.json'), { 'pir.server.path': missing });
      const message = await waitFor('the error notification', async () => {
        await runCommand(page, 'Notifications: Show Notifications');
        const t = plain(await page.locator('.notifications-center').first().innerText({ timeout: 1000 }));
        await page.keyboard.press('Escape');
        return t.includes('pir.server.path') ? t : notYet(t);
      });
      log(`notification: ${message.replace(/\s+/g, ' ').slice(0, 400)}`);
      for (const part of [missing, 'was not found', 'Remote settings', '.vscode/settings.json', 'Open Settings']) {
        if (!message.includes(part)) throw new Error(`the notification does not say "${part}": ${message}`);
      }
      const channel = await waitFor('the error in the output channel', async () => {
        const c = outputChannel();
        return /\[error\].*pir\.server\.path/.test(c) ? c : notYet(c);
      });
      await waitFor('the old server to end', () => serverCommandLines().length === 0 || notYet(serverCommandLines()));
      log(`output channel: ${channel.trim().split('\n').pop().slice(0, 200)}`);
    },
  ],
];

/** Types a new line `is_acumulate = true` after `moving = …` (line 23) and checks P203. */
async function typeMisspeltField(page) {
  await goTo(page, 23, 23);
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type('is_acumulate = true', { delay: 20 });
  await waitFor('a squiggle under is_acumulate', async () => (await squiggles(page)) > 0);
  const rows = await waitFor('one P203 in the Problems panel', async () => {
    const r = markerRows(await problems(page));
    return r.length === 1 && r[0].includes('P203') ? r : notYet(r);
  });
  log(`problem: ${rows[0]}`);
  if (!rows[0].includes('[Ln 24, Col 5]')) throw new Error(`P203 not at Ln 24, Col 5: ${rows[0]}`);
  if (!rows[0].includes('did you mean `is_accumulate`')) throw new Error(`no did-you-mean: ${rows[0]}`);
}

// ---------------------------------------------------------------------------------------

/** Counts the pixels of a PNG (a screenshot) within 8 of each RGB colour of `colours`
 *  (name → [r, g, b]), decoded by the browser in a blank page of its own; also its size. */
async function countColours(page, png, colours) {
  const blank = await page.context().browser().newPage();
  try {
    return await blank.evaluate(
      async ({ data, colours }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const cx = canvas.getContext('2d');
        cx.drawImage(image, 0, 0);
        const px = cx.getImageData(0, 0, image.width, image.height).data;
        const counts = { width: image.width, height: image.height };
        for (const [name, [r, g, b]] of Object.entries(colours)) {
          let n = 0;
          for (let i = 0; i < px.length; i += 4) {
            if (Math.abs(px[i] - r) <= 8 && Math.abs(px[i + 1] - g) <= 8 && Math.abs(px[i + 2] - b) <= 8) n++;
          }
          counts[name] = n;
        }
        return counts;
      },
      { data: png.toString('base64'), colours },
    );
  } finally {
    await blank.close();
  }
}

async function saveArtifacts(page, name) {
  try {
    await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
    fs.writeFileSync(path.join(ARTIFACTS, `${name}.txt`), await pageText(page));
    fs.writeFileSync(path.join(ARTIFACTS, `${name}.html`), await page.content());
  } catch (e) {
    log(`could not save the page: ${e}`);
  }
}

async function main() {
  const hardStop = setTimeout(() => {
    console.error(`FAILED: the run took longer than ${RUN_LIMIT_MS / 1000}s\nartifacts: ${ARTIFACTS}`);
    void stopCodeServer().finally(() => process.exit(1));
  }, RUN_LIMIT_MS);
  prepare();
  installExtension();
  const port = await startCodeServer();
  log(`code-server on port ${port}`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  let failed = null;
  const page = await browser.newPage({ viewport: { width: 1280, height: 960 } });
  const consoleLines = [];
  page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
  try {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(WORKSPACE)}`, { timeout: SLOW_MS });
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: SLOW_MS });
    await page.locator('.explorer-folders-view, .explorer-viewlet').first().waitFor({ timeout: SLOW_MS });
    log('workbench loaded');
    for (const [name, check] of CHECKS) {
      const t = Date.now();
      try {
        await check(page);
        log(`ok: ${name} (${((Date.now() - t) / 1000).toFixed(1)}s)`);
      } catch (e) {
        failed = `${name}: ${e instanceof Error ? e.message : e}`;
        await saveArtifacts(page, 'failure');
        break;
      }
    }
  } catch (e) {
    failed = `loading the workbench: ${e instanceof Error ? e.message : e}`;
    await saveArtifacts(page, 'failure');
  } finally {
    fs.writeFileSync(path.join(ARTIFACTS, 'browser-console.txt'), consoleLines.join('\n'));
    try {
      fs.writeFileSync(path.join(ARTIFACTS, 'output-penguin-ir.log'), outputChannel());
    } catch {}
    await browser.close().catch(() => {});
    await stopCodeServer();
    clearTimeout(hardStop);
  }
  if (failed) {
    console.error(`FAILED: ${failed}\nartifacts: ${ARTIFACTS}`);
    process.exit(1);
  }
  log(`all ${CHECKS.length} checks passed`);
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => void stopCodeServer().finally(() => process.exit(1)));
}
main().catch((e) => {
  console.error(`FAILED: ${e instanceof Error ? e.stack : e}\nartifacts: ${ARTIFACTS}`);
  void stopCodeServer().finally(() => process.exit(1));
});
