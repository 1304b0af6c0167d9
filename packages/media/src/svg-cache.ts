/**
 * A least-recently-used map of traced SVGs, bounded by their total length
 * (which for noise-like images runs to megabytes) and by age.
 */
export class SvgCache {
  private readonly entries = new Map<string, { svg: string; expires: number }>();
  private total = 0;

  constructor(
    /** Total length of the SVGs kept (characters: traced SVG is ASCII, so bytes). */
    readonly maxChars: number,
    readonly ttlMs: number,
    readonly now: () => number = Date.now,
  ) {}

  get(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expires <= this.now()) {
      this.total -= entry.svg.length;
      return undefined;
    }
    this.entries.set(key, entry); // most recently used last
    return entry.svg;
  }

  set(key: string, svg: string): void {
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.total -= previous.svg.length;
    }
    // One SVG may take at most a quarter: a few large ones must not flush the rest.
    if (svg.length > this.maxChars / 4) return;
    this.entries.set(key, { svg, expires: this.now() + this.ttlMs });
    this.total += svg.length;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxChars) break;
      this.entries.delete(oldest);
      this.total -= entry.svg.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
