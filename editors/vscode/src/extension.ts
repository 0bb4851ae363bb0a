// The VS Code face of `evalkit lsp`: starts the server for YAML files and passes the user's settings.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from "vscode-languageclient/node";

import { initializationOptions, readSettings, serverCommand, Settings } from "./settings";

let client: LanguageClient | undefined;

function settings(): Settings {
  const section = vscode.workspace.getConfiguration("evalkit");
  return readSettings((key, fallback) => section.get(key, fallback));
}

function start(): Promise<void> {
  const current = settings();
  const { command, args } = serverCommand(current);
  const serverOptions: ServerOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "yaml" }],
    initializationOptions: initializationOptions(current),
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{yaml,yml,json,jsonl}") },
  };
  client = new LanguageClient("evalkit", "evalkit", serverOptions, clientOptions);
  return client.start();
}

async function restart(): Promise<void> {
  if (client) {
    await client.stop();
  }
  await start();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand("evalkit.restartServer", restart),
    vscode.workspace.onDidChangeConfiguration((change) => {
      if (change.affectsConfiguration("evalkit")) {
        void restart(); // the options are initialization options: a new server takes them
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
