import type { NodeType } from '@weft/contracts';

// What docs/nodes.md says of a type beyond its definition: how it behaves
// where a flow author would otherwise have to guess (markdown, after the
// type's ports and params).

export const NODE_NOTES: Partial<Record<NodeType, string>> = {
  screen_mockup: `The screenshot is never scaled: the device is drawn around it, to the size that makes
its screen hold the whole screenshot at 1:1, and the mockup is that device with 8 % of its
longer side of \`background\` around it, always larger than the screenshot. A \`phone\` or a
\`tablet\` is turned on its side (camera on the left) for a landscape screenshot; a \`laptop\`
and a \`browser\` stay landscape. A screenshot of another shape than the screen is centred on
it, with the screen's colour (black; white in a \`browser\`) on the sides left over: a
portrait screenshot on a laptop or in a browser is pillarboxed, a wide one on a phone
letterboxed. Rounded screens (phone, tablet) keep a thin black rim so that their corners
cut nothing. A mockup that would be over \`ASSET_MAX_IMAGE_PIXELS\` or 16383 pixels on a
side fails with \`invalid_input\` rather than shrink the screenshot.
`,
  video_subtitle: `Sizes follow the video's: unless \`font_size\` is given (it is then the line's height in
pixels, on any video), a line is 5 % of the video's height, or a twelfth of its width when
that is less (90 pixels on a 1080×1920 clip, 54 on 1920×1080), and stands 5 % of the height
from the edge, 10 % on a portrait video, clear of the controls short-form players draw
over its bottom. The text is bold, in a black outline (a twelfth of the size) with a soft
shadow, so that it reads on any picture. A frame of the catalog's "Vertical cut-down with
subtitles" (1080×1920, shown at a third; \`npm run docs:subtitle-frame\` renders it):

![Two lines of white subtitles, outlined in black, over yellow and blue](images/video-subtitle-vertical.png)
`,
};
