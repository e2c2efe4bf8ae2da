/**
 * What the student's code prints, kept by the host up to a size: beyond it the rest is counted, not
 * kept, so a flood of output costs neither the host's memory nor the grader's.
 */
export class CapturedOutput {
  private readonly chunks: Record<"out" | "err", string[]> = { out: [], err: [] };
  private kept = 0;
  private dropped = 0;

  constructor(private readonly limitBytes: number) {}

  write(stream: "out" | "err", text: string): void {
    const line = `${text}\n`;
    const room = this.limitBytes - this.kept;
    if (room <= 0) {
      this.dropped += line.length;
      return;
    }
    const kept = line.length <= room ? line : line.slice(0, room);
    this.chunks[stream].push(kept);
    this.kept += kept.length;
    this.dropped += line.length - kept.length;
  }

  /** The text of one stream, with a closing line saying how much was left out (once, on stdout). */
  text(stream: "out" | "err"): string {
    const body = this.chunks[stream].join("");
    if (stream === "out" && this.dropped > 0) return `${body}\n… (${this.dropped} more characters of output not kept)\n`;
    return body;
  }
}
