/** Where a stage is computed (the innermost consumer loop enclosing it), and where a check wants it. */
import type { For } from "@tessera/ir";
import type { AttachPoint } from "../manifest/index.js";
import { axisLoops, isThreadIdx } from "./loop-roles.js";
import { type BlockSite, describeLoop } from "./program-view.js";

/** The innermost loop of `consumer` that also encloses `stage`; undefined at the root. */
export function attachLoop(stage: BlockSite, consumer: BlockSite): For | undefined {
  return stage.loops.filter((l) => consumer.loops.includes(l)).at(-1);
}

/** The consumer's loop a stage should be computed at; undefined when it has no such loop (another check names that). */
export function wantedAttachLoop(consumer: BlockSite, at: AttachPoint): For | undefined {
  switch (at) {
    case "k-chunk":
      return axisLoops(consumer, "k")[0];
    case "innermost-k":
      return axisLoops(consumer, "k").at(-1);
    case "innermost-thread":
      return consumer.loops.filter(isThreadIdx).at(-1);
    case "thread-y":
      return consumer.loops.find((l) => l.threadTag === "threadIdx.y");
  }
}

export function describeAttachPoint(at: AttachPoint): string {
  switch (at) {
    case "k-chunk":
      return "the k-chunk loop";
    case "innermost-k":
      return "the innermost k loop";
    case "innermost-thread":
      return "the innermost thread loop";
    case "thread-y":
      return "the thread loop bound to threadIdx.y";
  }
}

/** "at j_0 (extent 32, bound to blockIdx.y)" or "at the root, outside every loop of \"matmul\"". */
export function describeAttachment(loop: For | undefined, consumer: string): string {
  return loop === undefined ? `at the root, outside every loop of "${consumer}"` : `at ${describeLoop(loop)}`;
}
