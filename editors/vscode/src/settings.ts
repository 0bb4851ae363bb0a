// What the extension sends the server, from the user's settings: kept apart from the vscode API so that
// the tests run it under plain Node against the real server (test/server.test.ts).

export interface Settings {
  path: string;
  samples: string;
  dryRun: boolean;
  maxSamples: number;
  impactBase: "saved" | "HEAD";
  journals: string;
}

export const DEFAULTS: Settings = {
  path: "evalkit",
  samples: "",
  dryRun: true,
  maxSamples: 500,
  impactBase: "saved",
  journals: "",
};

/** The command that starts the server on stdio. */
export function serverCommand(settings: Settings): { command: string; args: string[] } {
  return { command: settings.path || DEFAULTS.path, args: ["lsp"] };
}

/** The server's initialization options (README: Editors); empty settings are left to the server. */
export function initializationOptions(settings: Settings): Record<string, unknown> {
  const options: Record<string, unknown> = {
    dryRun: settings.dryRun,
    maxSamples: settings.maxSamples,
    impactBase: settings.impactBase,
  };
  if (settings.samples) {
    options.samples = settings.samples;
  }
  if (settings.journals) {
    options.journals = settings.journals;
  }
  return options;
}

/** The settings as the `evalkit.*` configuration section gives them, with defaults for what is unset. */
export function readSettings(get: <T>(key: keyof Settings, fallback: T) => T): Settings {
  return {
    path: get("path", DEFAULTS.path),
    samples: get("samples", DEFAULTS.samples),
    dryRun: get("dryRun", DEFAULTS.dryRun),
    maxSamples: get("maxSamples", DEFAULTS.maxSamples),
    impactBase: get("impactBase", DEFAULTS.impactBase),
    journals: get("journals", DEFAULTS.journals),
  };
}
