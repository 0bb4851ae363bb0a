// The extension's client side against the real server over stdio: the command and the initialization
// options it derives from settings start `evalkit lsp`, which then checks, lenses and dry-runs a config
// folder. Run by tests/editors/test_vscode.py (npm test), with evalkit on PATH.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import * as assert from "node:assert/strict";
import { createMessageConnection, MessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";

import { DEFAULTS, initializationOptions, readSettings, serverCommand } from "../src/settings";

const REPO = path.resolve(__dirname, "..", "..", "..", "..");
let connection: MessageConnection;
let workspace: string;
let stopServer: () => void;
const diagnostics = new Map<string, Array<{ message: string; range: { start: { line: number } } }>>();

function copyFolder(from: string, to: string, only: (name: string) => boolean): void {
  fs.mkdirSync(to, { recursive: true });
  for (const name of fs.readdirSync(from).filter(only)) {
    fs.copyFileSync(path.join(from, name), path.join(to, name));
  }
}

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

before(async () => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), "evalkit-vscode-"));
  copyFolder(path.join(REPO, "config_samples"), path.join(workspace, "rules"), (n) => n.endsWith(".yaml"));
  copyFolder(path.join(REPO, "samples"), path.join(workspace, "samples"), (n) => /^0[1-3]_.*\.json$/.test(n));
  const settings = readSettings((key, fallback) => (key === "samples" ? "samples" : fallback) as typeof fallback);
  const { command, args } = serverCommand(settings);
  const server = spawn(command, args, { cwd: workspace, stdio: ["pipe", "pipe", "inherit"] });
  stopServer = () => server.kill();
  connection = createMessageConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
  connection.onNotification("textDocument/publishDiagnostics", (params) => diagnostics.set(params.uri, params.diagnostics));
  connection.onRequest("workspace/codeLens/refresh", () => null);
  connection.onRequest("workspace/configuration", () => []);
  connection.onRequest("client/registerCapability", () => null);
  connection.onRequest("window/workDoneProgress/create", () => null);
  connection.listen();
  const root = pathToFileURL(workspace).href;
  await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: root,
    workspaceFolders: [{ uri: root, name: "workspace" }],
    capabilities: { textDocument: { codeLens: {}, publishDiagnostics: {} }, workspace: { codeLens: { refreshSupport: true } } },
    initializationOptions: initializationOptions(settings),
  });
  await connection.sendNotification("initialized", {});
});

after(async () => {
  await connection.sendRequest("shutdown");
  await connection.sendNotification("exit");
  connection.dispose();
  stopServer();
  fs.rmSync(workspace, { recursive: true, force: true });
});

function open(name: string, text: string): string {
  const uri = pathToFileURL(path.join(workspace, "rules", name)).href;
  void connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "yaml", version: 1, text } });
  return uri;
}

test("settings become the server's command and initialization options", () => {
  assert.deepEqual(serverCommand({ ...DEFAULTS, path: "/venv/bin/evalkit" }), { command: "/venv/bin/evalkit", args: ["lsp"] });
  assert.deepEqual(initializationOptions({ ...DEFAULTS, samples: "corpus", journals: "reviews/*.jsonl" }), {
    dryRun: true,
    maxSamples: 500,
    impactBase: "saved",
    samples: "corpus",
    journals: "reviews/*.jsonl",
  });
  assert.equal("samples" in initializationOptions(DEFAULTS), false);
});

test("the rules get their dry run as code lenses, and the dry run command answers", async () => {
  const uri = open("rules.yaml", fs.readFileSync(path.join(workspace, "rules", "rules.yaml"), "utf8"));
  const titles = await until(async () => {
    const lenses: Array<{ command?: { title: string } }> = await connection.sendRequest("textDocument/codeLens", { textDocument: { uri } });
    const shown = lenses.map((lens) => lens.command?.title ?? "");
    return shown.some((title) => title.startsWith("dry run")) ? shown : undefined;
  }, "the dry run's lenses");
  assert.equal(titles[0], "dry run: 3 samples · neutral 3");
  assert.equal(titles.filter((title) => title.startsWith("fires on")).length, 8);
  const run: { samples: string; results: Array<{ label: string }> } = await connection.sendRequest("workspace/executeCommand", {
    command: "evalkit.dryRun",
    arguments: [uri],
  });
  assert.equal(run.samples, path.join(workspace, "samples"));
  assert.deepEqual(run.results.map((result) => result.label), ["neutral", "neutral", "neutral"]);
});

test("a misspelt key is a diagnostic at its line with the suggestion", async () => {
  const uri = open("dimensions.yaml", "scale: [0, 5]\ndimensionz:\n  accuracy: {ideal: 4}\n");
  const found = await until(async () => diagnostics.get(uri)?.find((d) => d.message.includes("dimensionz")), "the diagnostic");
  assert.equal(found.range.start.line, 1);
  assert.match(found.message, /did you mean 'dimensions'/);
});
