import { DockerfileParser, type Instruction, type JSONInstruction } from 'dockerfile-ast';

// A Dockerfile as a list of build stages, for the lint rules (dockerfile-rules.ts)
// and for boot-dist.ts, which runs each target's CMD outside Docker.

export interface Stage {
  name: string | undefined;
  /** The base image with build arguments' defaults substituted (`node:22.23.3-bookworm-slim`, or a stage name). */
  from: string;
  instructions: Instruction[];
}

export function parseStages(text: string): Stage[] {
  const dockerfile = DockerfileParser.parse(text);
  const argDefaults = new Map<string, string>();
  for (const arg of dockerfile.getInitialARGs()) {
    const property = arg.getProperty();
    const value = property?.getValue();
    if (property && value !== null && value !== undefined) argDefaults.set(property.getName(), value);
  }
  const stages: Stage[] = [];
  for (const from of dockerfile.getFROMs()) {
    const image = (from.getImage() ?? '').replace(
      /\$\{?([A-Za-z_]\w*)\}?/g,
      (whole, name: string) => argDefaults.get(name) ?? whole,
    );
    stages.push({ name: from.getBuildStage() ?? undefined, from: image, instructions: [] });
  }
  let index = -1;
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') index += 1;
    else if (index >= 0) stages[index]!.instructions.push(instruction);
  }
  return stages;
}

export function stageNamed(stages: Stage[], name: string): Stage {
  const stage = stages.find((s) => s.name === name);
  if (!stage) throw new Error(`the Dockerfile has no stage named ${name}`);
  return stage;
}

/** The last instruction with this keyword, following the stage's ancestry (`FROM runtime AS gateway`). */
export function effective(stages: Stage[], stage: Stage, keyword: string): Instruction | undefined {
  const own = stage.instructions.filter((i) => i.getKeyword() === keyword).at(-1);
  if (own) return own;
  const parent = stages.find((s) => s.name === stage.from);
  return parent ? effective(stages, parent, keyword) : undefined;
}

/** The exec-form (JSON array) arguments of CMD/ENTRYPOINT/HEALTHCHECK CMD; undefined for shell form. */
export function execForm(instruction: Instruction | undefined): string[] | undefined {
  const strings = (instruction as JSONInstruction | undefined)?.getJSONStrings?.();
  if (!strings || strings.length === 0) return undefined;
  return strings.map((s) => s.getJSONValue());
}
