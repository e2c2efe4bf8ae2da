/** The sandbox host's channel to the grader (file descriptor 3), read as JSON lines. */
import { type ChildMessage, ChildMessageSchema } from "./protocol.js";

/** The longest message line accepted on fd 3 (a result carries a trace of at most 8 MB). */
const MAX_MESSAGE_CHARS = 9 * 1024 * 1024;

/** JSON lines from fd 3: a line beyond MAX_MESSAGE_CHARS is dropped as it arrives, never buffered whole. */
export class MessageChannelReader {
  private pending = "";
  private skipping = false;

  /** `onMessage` gets each valid message, `onInvalid` is called for each line that is not one (or too long to be). */
  constructor(
    private readonly onMessage: (message: ChildMessage) => void,
    private readonly onInvalid: () => void,
  ) {}

  push(chunk: Buffer): void {
    let text = chunk.toString("utf8");
    for (;;) {
      const nl = text.indexOf("\n");
      if (nl < 0) break;
      this.endLine(text.slice(0, nl));
      text = text.slice(nl + 1);
    }
    if (this.skipping) return;
    this.pending += text;
    if (this.pending.length > MAX_MESSAGE_CHARS) {
      this.pending = "";
      this.skipping = true;
    }
  }

  private endLine(tail: string): void {
    const line = this.pending + tail;
    this.pending = "";
    if (this.skipping || line.length > MAX_MESSAGE_CHARS) {
      this.skipping = false;
      this.onInvalid();
      return;
    }
    const parsed = safeParse(line);
    if (parsed === undefined) this.onInvalid();
    else this.onMessage(parsed);
  }
}

function safeParse(line: string): ChildMessage | undefined {
  try {
    const r = ChildMessageSchema.safeParse(JSON.parse(line));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}
