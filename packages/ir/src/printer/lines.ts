/**
 * Collects indented output lines and, for highlighted nodes, the `^^^^` line TVM draws beneath
 * the header of a located statement in error messages.
 */
import { visibleLength } from "./style.js";

export const INDENT = "    ";

export class LineWriter {
  private readonly lines: string[] = [];

  constructor(private readonly highlight: ReadonlySet<object>) {}

  /** Appends one line; when any of `nodes` is highlighted, underlines it with carets. */
  line(indent: number, text: string, ...nodes: readonly (object | undefined)[]): void {
    const pad = INDENT.repeat(indent);
    this.lines.push(pad + text);
    if (nodes.some((n) => n !== undefined && this.highlight.has(n))) {
      this.lines.push(pad + "^".repeat(Math.max(1, visibleLength(text))));
    }
  }

  blank(): void {
    this.lines.push("");
  }

  text(): string {
    return this.lines.join("\n");
  }
}
