import { nodeDefinitions } from '../registry';
import { NODE_NOTES } from './node-notes';
import { paramsJsonSchema } from '../node-params';
import { ANY_KIND, outputKinds, type NodeDefinition, type PortSpec } from '../definition';

// docs/nodes.md, written from the definitions (npm run docs:nodes), so that
// the reference for flow authors cannot drift from what the gateway checks.

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
}

const code = (value: unknown) =>
  `\`${typeof value === 'string' && value.trim() !== '' ? value : JSON.stringify(value)}\``;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function typeOf(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map(code).join(', ');
  if (schema.const !== undefined) return code(schema.const);
  const options = schema.anyOf ?? schema.oneOf;
  if (options) {
    const kinds = options.filter((o) => o.type !== 'null').map(typeOf);
    return kinds.length > 3 ? 'object (one of several shapes)' : kinds.join(' or ');
  }
  if (schema.type === 'array') return `list of ${schema.items ? typeOf(schema.items) : 'values'}`;
  const type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any');
  const bounds: string[] = [];
  if (schema.minimum !== undefined) bounds.push(`≥ ${schema.minimum}`);
  if (schema.exclusiveMinimum !== undefined) bounds.push(`> ${schema.exclusiveMinimum}`);
  if (schema.maximum !== undefined) bounds.push(`≤ ${schema.maximum}`);
  return bounds.length ? `${type} (${bounds.join(', ')})` : type;
}

function paramsTable(type: string): string {
  const schema = paramsJsonSchema(type) as JsonSchema;
  const rows = Object.entries(schema.properties ?? {})
    .filter(([name]) => name !== 'timeout_ms')
    .map(([name, p]) => {
      const required = schema.required?.includes(name) && p.default === undefined;
      const fallback = p.default !== undefined ? code(p.default) : required ? 'required' : '—';
      return `| \`${name}\` | ${cell(typeOf(p))} | ${fallback} | ${cell(p.description ?? '')} |`;
    });
  if (rows.length === 0) return 'Params: none of its own.\n';
  return ['| param | type | default | |', '|---|---|---|---|', ...rows].join('\n') + '\n';
}

function portRow(name: string, port: PortSpec): string {
  const how = `${port.required ? 'required' : 'optional'}${port.many ? ', several nodes' : ''}`;
  return `| \`${name}\` | ${port.accepts.join(', ')} | ${how} | ${cell(port.description)} |`;
}

function portsTable(definition: NodeDefinition): string {
  const rows = Object.entries(definition.inputs).map(([name, port]) => portRow(name, port));
  if (definition.otherInputs) rows.push(portRow('(any name)', definition.otherInputs));
  if (rows.length === 0) return 'Inputs: none (its value comes from the run).\n';
  return ['| input | takes | | |', '|---|---|---|---|', ...rows].join('\n') + '\n';
}

function outputText(definition: NodeDefinition): string {
  const { output } = definition;
  const possible = outputKinds(definition);
  const kinds = ANY_KIND.every((k) => possible.includes(k)) ? 'any kind' : possible.join(' or ');
  if ('kinds' in output) return kinds;
  const also = output.also?.length ? `, or ${output.also.join(' or ')}` : '';
  return `${kinds} (the kind of what feeds \`${output.sameAs}\`${also})`;
}

const SERVING: Record<NodeDefinition['serving'], string> = {
  built_in: 'built in',
  provider: 'a provider adapter',
  local_or_provider: 'built in (local route), or a provider adapter',
};

function section(definition: NodeDefinition): string {
  const seconds = (ms: number) => (ms >= 60_000 ? `${ms / 60_000} min` : `${ms / 1000} s`);
  return [
    `### \`${definition.type}\``,
    '',
    definition.description,
    '',
    `Served by ${SERVING[definition.serving]}${definition.localRoute ? ` (${definition.localRoute.model})` : ''}; ` +
      `${definition.lane} lane; timeout ${seconds(definition.defaultTimeoutMs)} by default, at most ` +
      `${seconds(definition.maxTimeoutMs)}. Output: ${outputText(definition)}.`,
    '',
    portsTable(definition),
    paramsTable(definition.type),
    ...(NODE_NOTES[definition.type] ? [NODE_NOTES[definition.type]] : []),
  ].join('\n');
}

const INTRO = `# Node reference

<!-- Written by \`npm run docs:nodes\` from the node types' definitions
(packages/nodes/src/node-types) and notes (packages/nodes/src/docs/node-notes.ts);
edit those, not this file. -->

A flow is a list of nodes and the outputs a run reports:

\`\`\`json
{
  "nodes": [
    {"id": "photo", "type": "image_input", "description": "Product photo", "required": true},
    {"id": "logo", "type": "image_input", "description": "Logo", "required": true},
    {"id": "square", "type": "change_aspect_ratio", "inputs": {"image": "photo"}, "params": {"aspect_ratio": "1:1"}},
    {"id": "check", "type": "human_review", "inputs": {"value": "square"}},
    {"id": "branded", "type": "add_logo", "inputs": {"image": "check", "logo": "logo"}, "params": {"position": "top-right"}}
  ],
  "outputs": [{"id": "branded", "type": "images", "description": "The branded image"}]
}
\`\`\`

- \`inputs\` maps each input port to the id of the node that feeds it, or a list of
  ids for a port that takes several nodes. A \`router\` node's routes are referred to
  as \`<node id>.<port>\`.
- Values passed between nodes have a kind: \`text\`, \`data\` (JSON: a list of text,
  a brand...), \`images\`, \`videos\`, \`audio\`, \`files\` (each a list of asset ids).
  A port takes the kinds listed below; a flow that feeds it something else is
  refused when it is published (422 with \`loc\` into the flow).
- \`params\` are checked against the type's schema (\`GET /node-types/{type}\`
  serves it as JSON Schema); unknown params are refused. Every type also takes
  \`timeout_ms\`, up to its maximum.
- Types served by a provider adapter fail with \`provider_auth_required\` in a
  deployment that has none configured for them.
`;

/** The whole of docs/nodes.md. */
export function nodeReference(): string {
  const groups: [string, (d: NodeDefinition) => boolean][] = [
    ['Inputs', (d) => d.type.endsWith('_input')],
    ['Built in', (d) => !d.type.endsWith('_input') && d.serving !== 'provider'],
    ['Provider adapters', (d) => d.serving === 'provider'],
  ];
  const definitions = nodeDefinitions();
  const parts = [INTRO];
  for (const [title, belongs] of groups) {
    parts.push(`## ${title}\n`);
    for (const definition of definitions.filter(belongs)) parts.push(section(definition));
  }
  parts.push(
    '## `comment`, `group`\n\nCarry no behaviour and are never executed: notes and frames for people reading the flow. They take no inputs and cannot be linked to.\n',
  );
  return parts.join('\n');
}
