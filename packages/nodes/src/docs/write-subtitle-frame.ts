import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assScript, burnSubtitlesArgs, parseSubtitles } from '@weft/media';
import { paramsSchemaOf } from '../registry';

// npm run docs:subtitle-frame (needs ffmpeg): docs/images/video-subtitle-vertical.png,
// a frame of the catalog's "Vertical cut-down with subtitles" with its
// video_subtitle params, burnt by the node's own filter graph onto ffmpeg's
// test pattern cut to 1080×1920 as the example's video_edit cuts it, then
// scaled to a third so that the page stays light.

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const TARGET = path.join(ROOT, 'docs', 'images', 'video-subtitle-vertical.png');
const [WIDTH, HEIGHT] = [1080, 1920];
const TEXT = 'Three easy ways\nto brew better tea';

interface CatalogNode {
  type: string;
  params?: Record<string, unknown>;
}

function exampleParams(): { font_size?: number; color: string; position: 'bottom' | 'top' } {
  const example = JSON.parse(fs.readFileSync(path.join(ROOT, 'catalog', 'vertical-cutdown.json'), 'utf8')) as {
    flow: { nodes: CatalogNode[] };
  };
  const node = example.flow.nodes.find((n) => n.type === 'video_subtitle');
  if (!node) throw new Error('catalog/vertical-cutdown.json has no video_subtitle node');
  return paramsSchemaOf('video_subtitle').parse(node.params ?? {}) as ReturnType<typeof exampleParams>;
}

const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-nostdin', '-hide_banner', '-v', 'error', '-y', ...args]);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weft-subtitle-frame-'));
try {
  const params = exampleParams();
  const script = path.join(dir, 'subtitles.ass');
  const style = { fontSize: params.font_size, color: params.color, position: params.position };
  fs.writeFileSync(script, assScript(parseSubtitles(TEXT), { ...style, width: WIDTH, height: HEIGHT }));
  const args = burnSubtitlesArgs({ video: { url: 'unused', stream: 0 }, scriptPath: script, output: 'unused' });
  const graph = args[args.indexOf('-filter_complex') + 1]!;
  const full = path.join(dir, 'frame.png');
  const source = `testsrc2=size=1920x1080:duration=1,crop=608:1080:656:0,scale=${WIDTH}:${HEIGHT}`;
  ffmpeg(['-f', 'lavfi', '-i', source, '-filter_complex', graph, '-map', '[v]', '-frames:v', '1', full]);
  fs.mkdirSync(path.dirname(TARGET), { recursive: true });
  ffmpeg(['-i', full, '-vf', `scale=${WIDTH / 3}:-1:flags=lanczos`, TARGET]);
  console.log(`wrote ${path.relative(process.cwd(), TARGET)}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
