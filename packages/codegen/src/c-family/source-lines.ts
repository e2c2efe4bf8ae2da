/**
 * The indented lines of a kernel body, shared by the CUDA, WGSL and Metal kernel emitters: each
 * statement emitter writes lines at the current depth, nests a body one level deeper, and may
 * insert a declaration before lines it wrote earlier (an allocation declared once its body has
 * shown how it is accessed).
 */
const INDENT = "  ";

export class SourceLines {
  private readonly written: string[] = [];
  private depth: number;

  /** `depth`: the indentation of the first line (1 inside a function body). */
  constructor(depth = 1) {
    this.depth = depth;
  }

  /** Writes `text` at the current depth. */
  line(text: string): void {
    this.written.push(INDENT.repeat(this.depth) + text);
  }

  /** Runs `body` one level deeper. */
  nested(body: () => void): void {
    this.depth++;
    try {
      body();
    } finally {
      this.depth--;
    }
  }

  /** Where the next line goes: a position for `insert`. */
  get position(): number {
    return this.written.length;
  }

  /** Writes `text` at the current depth before the line at `position`. */
  insert(position: number, text: string): void {
    this.written.splice(position, 0, INDENT.repeat(this.depth) + text);
  }

  get lines(): readonly string[] {
    return this.written;
  }
}
