// The language client: runs `pir lsp` over stdio for documents of language `penguin-ir`.
import * as vscode from 'vscode';
import {
  LanguageClient,
  type LanguageClientOptions,
  type ServerCapabilities,
  type ServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import type { InitializationOptions } from './config';

export const LANGUAGE_ID = 'penguin-ir';

/** `pir/showBir` `{textDocument, position?}` → `{bir}` (SPEC §10). */
export const SHOW_BIR_REQUEST = 'pir/showBir';
/** `pir/profile` → `{svg}`: each kernel's profile drawing (engines against the bound, occupancy). */
export const PROFILE_REQUEST = 'pir/profile';

export interface ShowBirParams {
  textDocument: { uri: string };
  position?: { line: number; character: number };
}

/**
 * The server advertises `pir.showBir` as a `workspace/executeCommand` command, and
 * vscode-languageclient would register a VS Code command of that name for it. The extension
 * registers its own `pir.showBir` (which opens the result beside the source, and exists even
 * when the server is not running), so this hides the server's from the client's
 * ExecuteCommandFeature, which runs after every feature's `preInitialize`.
 */
class OwnCommands implements StaticFeature {
  constructor(private readonly commands: readonly string[]) {}
  fillClientCapabilities(): void {}
  preInitialize(capabilities: ServerCapabilities): void {
    const provider = capabilities.executeCommandProvider;
    if (provider) {
      provider.commands = provider.commands.filter((c) => !this.commands.includes(c));
    }
  }
  initialize(): void {}
  getState() {
    return { kind: 'static' as const };
  }
  clear(): void {}
}

export function createClient(
  serverPath: string,
  initializationOptions: InitializationOptions,
  outputChannel: vscode.LogOutputChannel,
  ownCommands: readonly string[],
): LanguageClient {
  // No `transport`: an executable without one is spoken to on stdio as it is, whereas
  // `TransportKind.stdio` would append `--stdio` to the command line.
  const serverOptions: ServerOptions = { command: serverPath, args: ['lsp'] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: LANGUAGE_ID }],
    initializationOptions,
    // `pir.target` and `pir.inlayHints.cost` change without a restart: the client sends
    // `workspace/didChangeConfiguration` with the section `pir` (SPEC §10 [3]).
    synchronize: { configurationSection: 'pir' },
    outputChannel,
  };
  // The id `pir` makes the client read the `pir.trace.server` setting.
  const client = new LanguageClient('pir', 'Penguin IR language server', serverOptions, clientOptions);
  client.registerFeature(new OwnCommands(ownCommands));
  return client;
}
