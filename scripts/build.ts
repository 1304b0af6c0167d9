import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';

// `npm run build`: bundles each process into dist/ for the container images
// (docs/adr/0007-images-run-bundled-javascript.md). The same command runs by
// hand, in the Dockerfile's build stage and in `.ci/run` (infra/validate/boot-dist.ts).
//
// dist/ mirrors the source tree (dist/apps/gateway/src/main.js, ...) so that
// code locating files relative to itself still finds them: the migration CLI
// reads `<4 levels up>/prisma/migrations`, which is dist/prisma/migrations.
// The web console (apps/console, a Vite app) is built last into dist/console,
// which the gateway serves at /console/.

export const ROOT = path.resolve(__dirname, '..');
export const DIST = path.join(ROOT, 'dist');
const ROOT_NODE_MODULES = path.join(ROOT, 'node_modules') + path.sep;

/** Processes whose third-party packages stay in node_modules (installed by `npm ci --omit=dev`). */
export const SERVER_ENTRIES = [
  'apps/gateway/src/main.ts',
  'apps/worker/src/main.ts',
  'packages/db/src/migrations/cli.ts',
];
/** The `weft` command: pure JavaScript, bundled whole so the image needs none of apps/cli's dependencies. */
export const CLI_ENTRY = 'apps/cli/src/main.ts';

/**
 * Third-party packages stay external for the servers: native addons (sharp),
 * WebAssembly loaded from the package folder (Prisma's query compiler and
 * schema engine), and OpenTelemetry's instrumentations, which patch modules
 * as Node's require() loads them and see nothing inside a bundle.
 *
 * Except a package installed in a workspace's own node_modules (a version
 * that conflicts with the hoisted one, e.g. apps/gateway/node_modules/lru-cache):
 * a require() from dist/ would find the root's other version, so it is bundled.
 */
function externalHoistedPackages(): Plugin {
  return {
    name: 'external-hoisted-packages',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path.startsWith('@weft/') || args.pluginData === 'resolving') return undefined;
        if (args.path.startsWith('node:')) return { path: args.path, external: true };
        const resolved = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: 'resolving',
        });
        if (resolved.errors.length > 0) return { errors: resolved.errors };
        if (resolved.external || resolved.path.startsWith(ROOT_NODE_MODULES)) {
          return { path: args.path, external: true };
        }
        return resolved;
      });
    },
  };
}

const common = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  outbase: '.',
  outdir: 'dist',
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
} as const;

export async function buildAll(): Promise<void> {
  fs.rmSync(DIST, { recursive: true, force: true });
  const servers = await build({ ...common, entryPoints: SERVER_ENTRIES, plugins: [externalHoistedPackages()] });
  const cli = await build({ ...common, entryPoints: [CLI_ENTRY] });
  // Read by infra/validate (every external import must be a production dependency).
  fs.writeFileSync(path.join(DIST, 'meta.json'), JSON.stringify(servers.metafile));
  fs.writeFileSync(path.join(DIST, 'meta-cli.json'), JSON.stringify(cli.metafile));
  fs.cpSync(path.join(ROOT, 'prisma'), path.join(DIST, 'prisma'), { recursive: true });
  buildConsole();
}

const CONSOLE_CONFIG = 'apps/console/vite.config.mts';

function buildConsole(): void {
  const outDir = path.join(DIST, 'console');
  execFileSync(
    process.execPath,
    ['node_modules/vite/bin/vite.js', 'build', '--config', CONSOLE_CONFIG, '--outDir', outDir, '--emptyOutDir'],
    { cwd: ROOT, stdio: 'inherit' },
  );
}

if (require.main === module) {
  const started = Date.now();
  buildAll().then(
    () => console.log(`dist/ built in ${Date.now() - started} ms`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
