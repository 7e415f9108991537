// Renders .pir files to HTML with the extension's TextMate grammar and the token colours of
// VS Code's Dark+ theme, tokenized the way VS Code does (vscode-textmate + vscode-oniguruma).
// Used for the screenshot in editors/screenshots (see editors/screenshots/make.sh):
//   node scripts/highlight-html.mjs FILE.pir [--lines A-B] > out.html
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import vsctm from 'vscode-textmate';
import oniguruma from 'vscode-oniguruma';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const grammarPath = path.join(here, '..', 'syntaxes', 'penguin-ir.tmLanguage.json');

// The rules of VS Code's Dark+ theme (dark_vs + dark_plus) that the grammar's scopes meet.
const DARK_PLUS = {
  name: 'Dark+',
  settings: [
    { settings: { foreground: '#D4D4D4', background: '#1E1E1E' } },
    { scope: 'comment', settings: { foreground: '#6A9955' } },
    { scope: 'string', settings: { foreground: '#CE9178' } },
    { scope: 'constant.numeric', settings: { foreground: '#B5CEA8' } },
    { scope: ['variable.other.constant', 'variable.other.enummember'], settings: { foreground: '#4FC1FF' } },
    { scope: 'constant.language', settings: { foreground: '#569CD6' } },
    { scope: ['constant.character', 'constant.other.option'], settings: { foreground: '#569CD6' } },
    { scope: 'constant.character.escape', settings: { foreground: '#D7BA7D' } },
    { scope: 'entity.name.tag', settings: { foreground: '#569CD6' } },
    { scope: 'invalid', settings: { foreground: '#F44747' } },
    { scope: ['storage', 'storage.type', 'storage.modifier'], settings: { foreground: '#569CD6' } },
    { scope: 'keyword', settings: { foreground: '#569CD6' } },
    { scope: 'keyword.control', settings: { foreground: '#C586C0' } },
    { scope: 'keyword.operator', settings: { foreground: '#D4D4D4' } },
    { scope: 'variable.language', settings: { foreground: '#569CD6' } },
    { scope: ['entity.name.function', 'support.function'], settings: { foreground: '#DCDCAA' } },
    { scope: ['support.class', 'support.type', 'entity.name.type', 'entity.name.class'], settings: { foreground: '#4EC9B0' } },
    { scope: ['variable', 'meta.definition.variable.name', 'support.variable', 'entity.name.variable'], settings: { foreground: '#9CDCFE' } },
  ],
};

// vscode-textmate's encoded token metadata (EncodedTokenAttributes).
const FONT_STYLE = (m) => (m >>> 11) & 0b1111;
const FOREGROUND = (m) => (m >>> 15) & 0b111111111;

async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    theme: DARK_PLUS,
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) =>
      scopeName === 'source.penguin-ir'
        ? vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath)
        : null,
  });
  return { grammar: await registry.loadGrammar('source.penguin-ir'), colors: registry.getColorMap() };
}

const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
const range = args.includes('--lines') ? args[args.indexOf('--lines') + 1].split('-').map(Number) : null;
if (!file) {
  console.error('usage: node scripts/highlight-html.mjs FILE.pir [--lines A-B]');
  process.exit(2);
}
const { grammar, colors } = await loadGrammar();
const lines = fs.readFileSync(file, 'utf8').replace(/\n$/, '').split(/\r?\n/);
let state = vsctm.INITIAL;
const rows = [];
lines.forEach((line, i) => {
  const r = grammar.tokenizeLine2(line, state);
  state = r.ruleStack;
  if (range && (i + 1 < range[0] || i + 1 > range[1])) return;
  let html = '';
  for (let k = 0; k < r.tokens.length; k += 2) {
    const start = r.tokens[k];
    const end = k + 2 < r.tokens.length ? r.tokens[k + 2] : line.length;
    const meta = r.tokens[k + 1];
    const style = [`color:${colors[FOREGROUND(meta)]}`];
    if (FONT_STYLE(meta) & 1) style.push('font-style:italic');
    if (FONT_STYLE(meta) & 2) style.push('font-weight:bold');
    html += `<span style="${style.join(';')}">${escape(line.slice(start, end))}</span>`;
  }
  rows.push(`<div class="l"><span class="n">${i + 1}</span>${html || ' '}</div>`);
});
process.stdout.write(`<!doctype html>
<html><head><meta charset="utf-8"><style>
  body { margin: 0; background: #1E1E1E; }
  .tab { font: 13px 'DejaVu Sans', sans-serif; color: #FFFFFF; background: #1E1E1E;
         border-top: 1px solid #0078D4; display: inline-block; padding: 7px 14px; }
  .bar { background: #252526; }
  pre { margin: 0; padding: 8px 0 12px 0; font: 14px/20px 'DejaVu Sans Mono', monospace;
        color: #D4D4D4; background: #1E1E1E; }
  .n { display: inline-block; width: 3.2em; padding-right: 1.6em; text-align: right; color: #858585; }
</style></head><body>
<div class="bar"><span class="tab">${escape(path.basename(file))}</span></div>
<pre>${rows.join('')}</pre>
</body></html>
`);
