// Settings of the extension (`pir.*`) and where the `pir` binary is.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** The settings that are fixed when the server starts: a change restarts it. */
const SERVER_SETTINGS = [
  'pir.server.path',
  'pir.tkgSeqlenThreshold',
  'pir.inlayHints.enabled',
  'pir.workspaceDiagnostics',
];

/** The initialization options of `pir lsp` (SPEC §10). */
export interface InitializationOptions {
  tkgSeqlenThreshold?: number;
  inlayHints: { enabled: boolean; cost: boolean };
  target: string;
  /** Whether the server announces `workspace/diagnostic` (every `*.pir` of the workspace). */
  workspaceDiagnostics: boolean;
}

export interface Config {
  /** `pir.server.path` as written (for messages). */
  serverPath: string;
  initializationOptions: InitializationOptions;
}

export function readConfig(): Config {
  const c = vscode.workspace.getConfiguration('pir');
  const threshold = c.get<number>('tkgSeqlenThreshold', 0);
  return {
    serverPath: c.get<string>('server.path', 'pir').trim() || 'pir',
    initializationOptions: {
      // 0 (the default) leaves the server's own default (96) in force.
      ...(threshold > 0 ? { tkgSeqlenThreshold: Math.floor(threshold) } : {}),
      inlayHints: {
        enabled: c.get<boolean>('inlayHints.enabled', true),
        cost: c.get<boolean>('inlayHints.cost', true),
      },
      // Changed at run time too (`synchronize`, no restart): SPEC §4 [3].
      target: c.get<string>('target', 'trn2'),
      workspaceDiagnostics: c.get<boolean>('workspaceDiagnostics', false),
    },
  };
}

export function affectsServer(e: vscode.ConfigurationChangeEvent): boolean {
  return SERVER_SETTINGS.some((s) => e.affectsConfiguration(s));
}

/**
 * The absolute path of the executable that `pir.server.path` names, or undefined when there
 * is none: a path (with `~` expanded; relative to the first workspace folder) or a command
 * name looked up on PATH, as a shell would.
 */
export function resolveServer(configured: string): string | undefined {
  let p = configured;
  if (p === '~' || p.startsWith('~/') || p.startsWith('~\\')) {
    p = path.join(os.homedir(), p.slice(1));
  }
  const isWindows = process.platform === 'win32';
  const exts = isWindows ? ['', ...(process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';')] : [''];
  const candidates: string[] = [];
  if (p.includes('/') || (isWindows && p.includes('\\'))) {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const abs = path.isAbsolute(p) ? p : path.resolve(folder ?? process.cwd(), p);
    candidates.push(...exts.map((e) => abs + e));
  } else {
    for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
      if (dir) candidates.push(...exts.map((e) => path.join(dir, p + e)));
    }
  }
  return candidates.find(isExecutable);
}

function isExecutable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, process.platform === 'win32' ? fs.constants.F_OK : fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
