import { toArray } from '@weft/sdk';
import { flows, startCliStack, type CliStack } from '../testing/cli-stack';
import { inTerminal as openTerminal } from '../testing/terminal';

// `weft run` on a terminal: the installed command in a pseudo-terminal
// (util-linux `script`), driven by keystrokes as a person would: the progress
// bar, then the review prompt (retry, then edit the proposed prompt).

const DOWN = '\x1b[B';
const ENTER = '\r';

let cli: CliStack;
beforeAll(async () => {
  cli = await startCliStack();
});
afterAll(() => cli?.close());

const inTerminal = (args: string[]) => openTerminal(cli, args);

test('shows progress, asks the review in the terminal, and finishes with the edited prompt', async () => {
  const agent = await cli.agent('Post idea (terminal)', flows.review());
  const term = inTerminal(['run', 'Post idea (terminal)', '--input', 'topic=tea']);
  try {
    // The proposal, then the choices.
    let at = await term.waitFor('Your decision');
    expect(term.screen()).toMatch(/run \S+ of agent "Post idea \(terminal\)" started/);
    expect(term.screen()).toMatch(/proposes these prompts:\s+1\. tea \/ friendly/);
    expect(term.screen()).toMatch(/Approve as is[\s\S]*Edit the prompts[\s\S]*Retry[\s\S]*Decide later/);
    // Retry: the third choice.
    term.type(DOWN);
    term.type(DOWN);
    at = await term.waitFor(/❯ Retry/, at);
    term.type(ENTER);
    // A new proposal (the same text: nothing upstream can change), asked again; edit it this time.
    at = await term.waitFor('Your decision', at);
    term.type(DOWN);
    at = await term.waitFor(/❯ Edit the prompts/, at);
    term.type(ENTER);
    await term.waitFor('Prompt 1', at);
    term.type(', edited');
    term.type(ENTER);
    expect(await term.exited).toBe(0);
  } finally {
    term.kill();
  }
  // The bar: progress, the node that waits, elapsed time.
  expect(term.screen()).toMatch(/\d+% \| check: waiting for review \| \d\d:\d\d/);
  expect(term.screen()).toContain('check: tea / friendly, edited');
  const runs = (await toArray(cli.client.runs.list())).filter((r) => r.agent_id === agent.id);
  expect(runs).toHaveLength(1);
  expect(await cli.client.runs.get(runs[0]!.id)).toMatchObject({
    status: 'completed',
    results: [{ id: 'check', value: 'tea / friendly, edited' }],
  });
});

test('keeps the subset of a proposal the reviewer ticks', async () => {
  const agent = await cli.agent('Lines (terminal)', flows.reviewLines());
  const term = inTerminal(['run', agent.id, '--input', 'text=alpha\nbeta\ngamma', '--json']);
  // --json: no prompt even on a terminal; the command stops for the review.
  expect(await term.exited).toBe(4);
  const [parked] = (await toArray(cli.client.runs.list())).filter((r) => r.agent_id === agent.id);

  const watch = inTerminal(['runs', 'watch', parked!.id]);
  try {
    let at = await watch.waitFor('Your decision');
    expect(watch.screen()).toMatch(/1\. alpha\s+2\. beta\s+3\. gamma/);
    watch.type(DOWN.repeat(2));
    at = await watch.waitFor(/❯ Keep a subset/, at);
    watch.type(ENTER);
    at = await watch.waitFor('Keep', at);
    watch.type(DOWN); // to beta
    watch.type(' '); // untick it
    await watch.waitFor(/◯ beta/, at);
    watch.type(ENTER);
    expect(await watch.exited).toBe(0);
  } finally {
    watch.kill();
  }
  expect(watch.screen()).toContain('check: ["alpha","gamma"]');
});

test('"decide later" stops with exit status 4 and leaves the run waiting', async () => {
  const agent = await cli.agent('Later (terminal)', flows.review());
  const term = inTerminal(['run', agent.id, '--input', 'topic=later']);
  try {
    const at = await term.waitFor('Your decision');
    term.type(DOWN.repeat(3));
    await term.waitFor(/❯ Decide later/, at);
    term.type(ENTER);
    expect(await term.exited).toBe(4);
  } finally {
    term.kill();
  }
  expect(term.screen()).toMatch(/waits for review "check".*Decide it later/s);
  const [run] = (await toArray(cli.client.runs.list())).filter((r) => r.agent_id === agent.id);
  expect(run).toMatchObject({ status: 'in_progress', awaiting_human_review: true });
});
