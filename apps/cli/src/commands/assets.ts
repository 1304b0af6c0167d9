import type { Command } from 'commander';
import { Option } from 'commander';
import { printJson, type CliIo } from '../io';
import { sdkClient, withApiKey } from '../sdk-client';

// `weft assets upload|download`.

export function registerAssetsCommands(program: Command, io: CliIo): void {
  const assets = withApiKey(program.command('assets').description('files: uploads and run outputs'));

  assets
    .command('upload')
    .description('upload files (their type is read from their bytes); prints the assets as JSON')
    .argument('<files...>')
    .addOption(new Option('--visibility <v>', 'who may read them').choices(['private', 'shared', 'public']))
    .option('--external-id <id>', 'idempotency key (one file only): uploading again returns the same asset')
    .action(
      async (
        files: string[],
        opts: { visibility?: 'private' | 'shared' | 'public'; externalId?: string },
        cmd: Command,
      ) => {
        if (opts.externalId && files.length > 1) throw new Error('--external-id names one upload: give one file');
        const client = sdkClient(cmd, io);
        const uploaded = [];
        for (const file of files) {
          uploaded.push(
            await client.upload(file, {
              ...(opts.visibility ? { visibility: opts.visibility } : {}),
              ...(opts.externalId ? { externalId: opts.externalId } : {}),
            }),
          );
        }
        printJson(io, files.length === 1 ? uploaded[0] : uploaded);
      },
    );

  assets
    .command('download')
    .description('download an asset’s file into a directory (keeping its name) or to a file path')
    .argument('<asset-id>')
    .option('-o, --out <path>', 'directory or file path', '.')
    .action(async (assetId: string, opts: { out: string }, cmd: Command) => {
      const saved = await sdkClient(cmd, io).download(assetId, opts.out);
      printJson(io, { id: assetId, path: saved.path, bytes: saved.bytes, content_type: saved.contentType });
    });
}
