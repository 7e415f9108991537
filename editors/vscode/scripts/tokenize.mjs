// Tokenizes .pir files with the extension's TextMate grammar, the way VS Code does
// (vscode-textmate + vscode-oniguruma), for debugging the grammar:
//   node scripts/tokenize.mjs FILE.pir      prints each token with its scopes
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import vsctm from 'vscode-textmate';
import oniguruma from 'vscode-oniguruma';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
export const grammarPath = path.join(here, '..', 'syntaxes', 'penguin-ir.tmLanguage.json');

export async function loadGrammar() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) =>
      scopeName === 'source.penguin-ir'
        ? vsctm.parseRawGrammar(fs.readFileSync(grammarPath, 'utf8'), grammarPath)
        : null,
  });
  return registry.loadGrammar('source.penguin-ir');
}

/** [{line, tokens: [{text, scopes}]}] for the text. */
export function tokenize(grammar, text) {
  let state = vsctm.INITIAL;
  return text.split(/\r?\n/).map((line) => {
    const r = grammar.tokenizeLine(line, state);
    state = r.ruleStack;
    return {
      line,
      tokens: r.tokens.map((t) => ({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes })),
    };
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const grammar = await loadGrammar();
  for (const file of process.argv.slice(2)) {
    for (const { line, tokens } of tokenize(grammar, fs.readFileSync(file, 'utf8'))) {
      console.log(line);
      for (const t of tokens) {
        if (t.text.trim() !== '') console.log(`    ${JSON.stringify(t.text)}  ${t.scopes.slice(1).join(' ')}`);
      }
    }
  }
}
