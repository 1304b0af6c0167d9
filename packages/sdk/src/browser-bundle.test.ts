import path from 'node:path';
import { build, type BuildFailure } from 'esbuild';

// A web page's bundler (Vite, Rollup, esbuild) cannot resolve node:* modules,
// and a browser has no Buffer or require: @weft/sdk/browser must need none.

const bundleForBrowser = (entry: string) =>
  build({
    entryPoints: [path.resolve(__dirname, entry)],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });

it('bundles the browser entry for a browser, with no Node.js built-in in its graph', async () => {
  const result = await bundleForBrowser('browser.ts');
  expect(result.errors).toEqual([]);
  const code = result.outputFiles[0]!.text;
  expect(code).not.toMatch(/\bBuffer\b/);
  expect(code).not.toMatch(/\brequire\(/);
  expect(Object.keys(result.metafile.inputs)).toEqual(expect.arrayContaining([expect.stringMatching(/core\.ts$/)]));
});

it('fails for the Node.js entry, which reads files: the check above can fail', async () => {
  const failure = (await bundleForBrowser('index.ts').catch((err: unknown) => err)) as BuildFailure;
  expect(failure.errors.map((e) => e.text)).toEqual(expect.arrayContaining([expect.stringMatching(/"node:fs"/)]));
});
