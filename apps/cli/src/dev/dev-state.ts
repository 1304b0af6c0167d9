import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { newKeyEntry } from '@weft/credentials';
import { z } from 'zod';

// `.weft/dev.json`: what the launcher generated once and must find again on
// the next start — secrets the gateway needs, and the development organization
// with its API key (shown once by the gateway, so it can only be kept here).
const DevStateSchema = z.object({
  adminToken: z.string().min(16),
  jwtSecret: z.string().min(32),
  /** CREDENTIALS_KEY: seals the provider keys organizations store (added to older files on load). */
  credentialsKey: z
    .string()
    .min(1)
    .default(() => newKeyEntry(1)),
  organization: z.object({ id: z.string(), name: z.string(), apiKey: z.string() }).optional(),
  /** catalog file (relative path) → SHA-256 of the content last published to `organization`. */
  published: z.record(z.string(), z.string()).default({}),
});

export type DevState = z.output<typeof DevStateSchema>;

export function devStateFile(dataDir: string): string {
  return path.join(dataDir, 'dev.json');
}

/** Reads dev.json, or generates fresh secrets when it is missing or unreadable. */
export function loadDevState(file: string, warn: (line: string) => void): DevState {
  let raw: string;
  try {
    raw = fs.readFileSync(file, 'utf8');
  } catch {
    return generateDevState();
  }
  const parsed = DevStateSchema.safeParse(safeJson(raw));
  if (parsed.success) return parsed.data;
  warn(`${file} is not valid (${parsed.error.issues[0]?.message}); generating new secrets and a new organization.`);
  return generateDevState();
}

export function saveDevState(file: string, state: DevState): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Write then rename, so an interrupted save never leaves half a file; 0600: it holds secrets.
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, file);
}

function generateDevState(): DevState {
  return {
    adminToken: randomBytes(24).toString('base64url'),
    jwtSecret: randomBytes(48).toString('base64url'),
    credentialsKey: newKeyEntry(1),
    published: {},
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
