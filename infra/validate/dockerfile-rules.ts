import { type Copy, type Instruction } from 'dockerfile-ast';
import { effective, execForm, type Stage } from './dockerfile-stages';

// hadolint-style rules for infra/docker/Dockerfile, written against
// dockerfile-ast (hadolint itself is a Haskell binary we cannot install from
// npm). Each rule says why in its message.

/** The targets that become images, and the process each must run. */
export const TARGETS = {
  gateway: { healthcheck: true },
  worker: { healthcheck: true },
  migrate: { healthcheck: false },
  cli: { healthcheck: false },
} as const;

const stageLabel = (stage: Stage) => stage.name ?? stage.from;

export function checkDockerfile(stages: Stage[]): string[] {
  const problems: string[] = [];
  const names = new Set(stages.map((s) => s.name));
  for (const stage of stages) {
    const where = `stage ${stageLabel(stage)}`;
    if (!names.has(stage.from)) problems.push(...checkBaseImage(stage.from, where));
    for (const instruction of stage.instructions) problems.push(...checkInstruction(instruction, where));
  }
  for (const [target, wants] of Object.entries(TARGETS)) {
    const stage = stages.find((s) => s.name === target);
    if (!stage) {
      problems.push(`target ${target} is missing`);
      continue;
    }
    problems.push(...checkFinalStage(stages, stage, wants.healthcheck));
  }
  problems.push(...checkAptOnlyWhereNeeded(stages));
  problems.push(...checkGatewayHasConsole(stages));
  return problems;
}

export function checkBaseImage(image: string, where: string): string[] {
  if (image.includes('$')) return [`${where}: base image ${image} has an unresolved build argument`];
  const [, tag] = /^[^@]+?(?::([^/@]+))?(?:@sha256:[0-9a-f]{64})?$/.exec(image) ?? [];
  if (image.includes('@sha256:')) return [];
  if (!tag) return [`${where}: base image ${image} has no tag (DL3006: pin a version)`];
  if (tag === 'latest') return [`${where}: base image ${image} uses latest (DL3007: pin a version)`];
  if (!/\d+\.\d+/.test(tag)) return [`${where}: base image ${image}: pin at least major.minor, not a moving major tag`];
  return [];
}

function checkInstruction(instruction: Instruction, where: string): string[] {
  const keyword = instruction.getKeyword();
  const text = instruction.getArgumentsContent() ?? '';
  const problems: string[] = [];
  const line = `${where} line ${instruction.getRange().start.line + 1}`;
  if (keyword === 'RUN') {
    if (/\bapt-get\s+install\b/.test(text)) {
      if (!/\s-y\b|--yes|--assume-yes/.test(text)) problems.push(`${line}: apt-get install without -y (DL3014)`);
      if (!text.includes('--no-install-recommends')) {
        problems.push(`${line}: apt-get install without --no-install-recommends (DL3015)`);
      }
      if (!/rm -rf \/var\/lib\/apt\/lists/.test(text)) {
        problems.push(`${line}: apt lists not removed in the same RUN (DL3009)`);
      }
      if (!/apt-get update/.test(text))
        problems.push(`${line}: apt-get install without apt-get update in the same RUN`);
    }
    if (/\bapt\s+(install|update)\b/.test(text)) problems.push(`${line}: use apt-get, not apt, in scripts (DL3027)`);
    if (/\bsudo\b/.test(text)) problems.push(`${line}: sudo in RUN (DL3004)`);
    if (/(^|\s)cd\s/.test(text)) problems.push(`${line}: cd in RUN; use WORKDIR (DL3003)`);
    if (/\bnpm\s+install\b/.test(text))
      problems.push(`${line}: npm install in an image; use npm ci (reproducible from the lockfile)`);
    if (/\bcurl\b[^|]*\|\s*(ba)?sh/.test(text)) problems.push(`${line}: piping curl into a shell`);
  }
  if (keyword === 'ADD' && !/^https?:/.test(text)) problems.push(`${line}: ADD for local files; use COPY (DL3020)`);
  if (keyword === 'MAINTAINER') problems.push(`${line}: MAINTAINER is deprecated (DL4000)`);
  if (keyword === 'WORKDIR' && !text.startsWith('/')) problems.push(`${line}: WORKDIR must be absolute (DL3000)`);
  if (keyword === 'COPY') problems.push(...checkCopy(instruction as Copy, line));
  if ((keyword === 'CMD' || keyword === 'ENTRYPOINT') && execForm(instruction) === undefined) {
    problems.push(`${line}: ${keyword} in shell form; use the JSON form so signals reach the process (DL3025)`);
  }
  return problems;
}

function checkCopy(copy: Copy, line: string): string[] {
  const problems: string[] = [];
  for (const flag of copy.getFlags()) {
    // The application files stay root-owned so the `node` user cannot rewrite its own code.
    if (flag.getName() === 'chown' && /^node\b|^1000\b/.test(flag.getValue() ?? '')) {
      problems.push(`${line}: COPY --chown to the runtime user makes the code writable by the process`);
    }
  }
  const args = copy.getArgumentsContent() ?? '';
  if (/(^|\s)\.?\/?node_modules\b/.test(args) && !copy.getFromFlag()) {
    problems.push(`${line}: COPY of node_modules from the build context (install it inside the image)`);
  }
  return problems;
}

function checkFinalStage(stages: Stage[], stage: Stage, wantsHealthcheck: boolean): string[] {
  const where = `target ${stage.name}`;
  const problems: string[] = [];
  const user = effective(stages, stage, 'USER')?.getArgumentsContent()?.trim();
  if (!user) problems.push(`${where}: no USER: it would run as root (DL3002)`);
  else if (/^(root|0)(:|$)/.test(user))
    problems.push(`${where}: USER ${user}: the last USER must not be root (DL3002)`);
  const healthcheck = effective(stages, stage, 'HEALTHCHECK');
  const healthText = healthcheck?.getArgumentsContent()?.trim() ?? '';
  if (wantsHealthcheck && (!healthcheck || healthText === 'NONE')) {
    problems.push(`${where}: no HEALTHCHECK: a long-running service needs one`);
  }
  if (wantsHealthcheck && healthcheck && !healthText.includes('/healthz')) {
    problems.push(
      `${where}: HEALTHCHECK must probe /healthz (liveness, not /readyz: a dependency outage must not restart it)`,
    );
  }
  const entrypoint = execForm(effective(stages, stage, 'ENTRYPOINT'));
  if (!entrypoint?.some((part) => /(^|\/)tini$/.test(part))) {
    problems.push(`${where}: no init process (tini) as ENTRYPOINT: SIGTERM would not reach node as PID 1 reliably`);
  }
  const command = [...(entrypoint ?? []), ...(execForm(effective(stages, stage, 'CMD')) ?? [])];
  if (!command.includes('node')) problems.push(`${where}: the command does not run node`);
  if (command.some((part) => part === 'tsx' || part.includes('--import=tsx'))) {
    problems.push(`${where}: runs through tsx; images run the bundles in dist/ (docs/adr/0007)`);
  }
  return problems;
}

/** ffmpeg only in the worker image: the others do not need its hundreds of megabytes. */
function checkAptOnlyWhereNeeded(stages: Stage[]): string[] {
  const problems: string[] = [];
  for (const stage of stages) {
    const installsFfmpeg = stage.instructions.some(
      (i) => i.getKeyword() === 'RUN' && /apt-get\s+install[^&]*\bffmpeg\b/.test(i.getArgumentsContent() ?? ''),
    );
    if (installsFfmpeg && stage.name !== 'worker')
      problems.push(`stage ${stageLabel(stage)}: installs ffmpeg; only the worker needs it`);
  }
  const worker = stages.find((s) => s.name === 'worker');
  if (worker && !worker.instructions.some((i) => /\bffmpeg\b/.test(i.getArgumentsContent() ?? ''))) {
    problems.push('target worker: ffmpeg is not installed');
  }
  return problems;
}

/** The gateway serves the console from dist/console, beside its bundle: without that COPY, /console/ is a 404. */
function checkGatewayHasConsole(stages: Stage[]): string[] {
  const gateway = stages.find((s) => s.name === 'gateway');
  if (!gateway) return [];
  const copiesConsole = gateway.instructions.some(
    (i) =>
      i.getKeyword() === 'COPY' &&
      (i as Copy).getFromFlag()?.getValue() === 'build' &&
      /^\/app\/dist\/console\/?\s+dist\/console\/?$/.test(i.getArgumentsContent()?.trim() ?? ''),
  );
  return copiesConsole ? [] : ['target gateway: does not COPY --from=build /app/dist/console/ dist/console/'];
}

/**
 * The manifests stage must copy every workspace's package.json, or `npm ci`
 * in the image fails (or, with --workspace, silently installs too little).
 */
export function checkManifestsCopied(stages: Stage[], workspaces: string[]): string[] {
  const manifests = stages.find((s) => s.name === 'manifests');
  if (!manifests) return ['stage manifests is missing'];
  const run = manifests.instructions
    .filter((i) => i.getKeyword() === 'RUN')
    .map((i) => i.getArgumentsContent() ?? '')
    .join('\n');
  return ['package.json', 'package-lock.json', ...workspaces.map((w) => `${w}/package.json`)]
    .filter((file) => !run.split(/\s+/).includes(file))
    .map((file) => `stage manifests does not copy ${file}`);
}

/** The build stage runs the same command as `.ci/run`, so what CI proves is what the image holds. */
export function checkBuildCommand(stages: Stage[]): string[] {
  const build = stages.find((s) => s.name === 'build');
  const runs = build?.instructions.filter((i) => i.getKeyword() === 'RUN').map((i) => i.getArgumentsContent() ?? '');
  // scripts/npm-ci.sh is the install step .ci/run runs: npm ci, with its one documented fallback.
  if (!runs?.some((r) => /\bscripts\/npm-ci\.sh\b/.test(r))) return ['stage build does not run scripts/npm-ci.sh'];
  if (!runs.some((r) => /\bnpm run build\b/.test(r))) return ['stage build does not run npm run build'];
  return [];
}

export function checkDockerignore(text: string): string[] {
  const lines = new Set(text.split('\n').map((l) => l.trim()));
  return ['**/node_modules', '**/dist', '.git', '.env', '.weft']
    .filter((entry) => !lines.has(entry))
    .map((entry) => `.dockerignore does not exclude ${entry}`);
}
