import { checkbox, input, select } from '@inquirer/prompts';
import type { AnyRun, PendingReview, ReviewDecision, WeftClient } from '@weft/sdk';
import type { CliIo } from '../io';

// A review decided in the terminal: the proposal shown, then approve it as it
// is, edit its prompts, keep a subset, retry, or leave it for later.

/** What the user chose: a decision to send, or to stop following and decide later. */
export type ReviewAnswer = ReviewDecision | { decision: 'later' };

export async function askReview(
  io: CliIo,
  client: WeftClient,
  review: PendingReview,
  run: AnyRun,
  signal?: AbortSignal,
): Promise<ReviewAnswer> {
  const terminal = io.terminal!;
  const context = { input: terminal.input, output: terminal.output, signal };
  const proposal = review.proposed_output;
  const items = 'prompts' in proposal ? proposal.prompts : proposal.asset_ids;
  const isText = 'prompts' in proposal;
  // Assets are shown with a link a browser opens without credentials (time-limited).
  const shown = isText ? items : await Promise.all(items.map((id) => describeAsset(client, id, signal)));
  terminal.output.write(
    `\nReview "${review.node_id}" of run ${run.id} proposes ${isText ? 'these prompts' : 'these assets'}:\n` +
      shown.map((item, i) => `  ${i + 1}. ${item}`).join('\n') +
      '\n',
  );
  const choice = await select(
    {
      message: 'Your decision',
      choices: [
        { name: 'Approve as is', value: 'approve' },
        ...(isText ? [{ name: 'Edit the prompts', value: 'edit' }] : []),
        ...(items.length > 1 ? [{ name: 'Keep a subset', value: 'subset' }] : []),
        { name: 'Retry: ask for another proposal', value: 'retry' },
        { name: 'Decide later: stop here, the run keeps waiting', value: 'later' },
      ],
    },
    context,
  );
  if (choice === 'approve') return { decision: 'approve', output: proposal };
  if (choice === 'retry') return { decision: 'retry' };
  if (choice === 'later') return { decision: 'later' };
  if (choice === 'edit') {
    const edited: string[] = [];
    for (const [i, prompt] of items.entries()) {
      edited.push(
        await input({ message: `Prompt ${i + 1}`, default: prompt, prefill: 'editable', required: true }, context),
      );
    }
    return { decision: 'approve', output: { prompts: edited } };
  }
  const kept = await checkbox(
    {
      message: 'Keep',
      choices: items.map((item, i) => ({ name: shown[i]!, value: item, checked: true })),
      validate: (chosen) => chosen.length > 0 || 'Keep at least one',
    },
    context,
  );
  return { decision: 'approve', output: isText ? { prompts: kept } : { asset_ids: kept } };
}

async function describeAsset(client: WeftClient, assetId: string, signal?: AbortSignal): Promise<string> {
  try {
    const asset = await client.assets.get(assetId, { signal });
    return `${assetId} (${asset.media_type}, ${asset.media_extension}) ${asset.large_url ?? asset.url}`;
  } catch {
    return assetId;
  }
}
