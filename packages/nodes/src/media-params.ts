import { z } from 'zod';

// Params that several media node types read alike.

const HEX = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** A colour as hex text: `#1a2b3c`, `1a2b3c` or `#abc`. */
export const hexColor = z.string().regex(HEX, { error: 'a colour is hex text like #1a2b3c or #abc' });

/** Seconds into a media file. */
export const seconds = z.number().min(0).max(86_400);

export const corner = z.enum(['top-left', 'top-right', 'bottom-left', 'bottom-right', 'center']);
