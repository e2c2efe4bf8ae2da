/**
 * Stack frames from the isolate point into the bundle (`bundle.js:LINE:COL`). The host maps them
 * back through the bundle's inline source map and keeps only the frames in the student's files,
 * written as `<workDir>/submission/<file>:LINE:COL` (the grader shows them relative to the submission).
 */
import { SourceMap } from "node:module";
import { join } from "node:path";

const FRAME = /^(\s*at\s+)(?:(.*?)\s+\()?[^\s()]*?(\d+):(\d+)\)?\s*$/;
const INLINE_MAP = "//# sourceMappingURL=data:application/json;base64,";

export class StackMapper {
  private map: SourceMap | null | undefined;

  constructor(
    private readonly bundleText: string,
    private readonly bundleFile: string,
    private readonly workDir: string,
  ) {}

  /** The frames of `stack` that lie in the submission, mapped; undefined when there are none. */
  studentFrames(stack: string): string | undefined {
    const frames: string[] = [];
    for (const line of stack.split("\n")) {
      if (!line.includes(this.bundleFile)) continue;
      const m = FRAME.exec(line);
      if (m === null) continue;
      const found = this.sourceMap()?.findEntry(Number(m[3]) - 1, Number(m[4]) - 1);
      const entry = found !== undefined && "originalSource" in found ? found : undefined;
      const source = entry?.originalSource;
      if (entry === undefined || source === undefined || !source.startsWith("submission/")) continue;
      const where = `${join(this.workDir, source)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
      frames.push(m[2] === undefined ? `${m[1]}${where}` : `${m[1]}${m[2]} (${where})`);
    }
    return frames.length > 0 ? frames.join("\n") : undefined;
  }

  private sourceMap(): SourceMap | undefined {
    if (this.map === undefined) {
      const at = this.bundleText.lastIndexOf(INLINE_MAP);
      try {
        const encoded = this.bundleText.slice(at + INLINE_MAP.length).trim();
        this.map = at < 0 ? null : new SourceMap(JSON.parse(Buffer.from(encoded, "base64").toString("utf8")));
      } catch {
        this.map = null;
      }
    }
    return this.map ?? undefined;
  }
}
