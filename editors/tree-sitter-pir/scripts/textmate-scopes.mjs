// The TextMate scopes of .pir files as VS Code computes them (the extension's grammar,
// vscode-textmate + vscode-oniguruma from editors/vscode/node_modules), for
// tests/grammar.rs `highlights_agree_with_textmate`:
//   node editors/tree-sitter-pir/scripts/textmate-scopes.mjs FILE.pir…
// prints one JSON array per file: [[start, end, [scopes…]], …], offsets in UTF-8 bytes.
import fs from 'node:fs';
import { loadGrammar, tokenize } from '../../vscode/scripts/tokenize.mjs';

const grammar = await loadGrammar();
for (const file of process.argv.slice(2)) {
  const text = fs.readFileSync(file, 'utf8');
  const out = [];
  let lineStart = 0;
  const lines = text.split('\n');
  const tokenized = tokenize(grammar, text);
  tokenized.forEach(({ line, tokens }, i) => {
    let at = 0;
    for (const t of tokens) {
      const start = lineStart + Buffer.byteLength(line.slice(0, at));
      at += t.text.length;
      const end = lineStart + Buffer.byteLength(line.slice(0, at));
      if (t.text.trim() !== '') out.push([start, end, t.scopes.slice(1)]);
    }
    lineStart += Buffer.byteLength(lines[i] ?? '') + 1;
  });
  console.log(JSON.stringify(out));
}
