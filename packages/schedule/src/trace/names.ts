/**
 * Symbolic names of handles in printed and serialised traces, as TVM assigns them: a handle is
 * named when it first appears as an output — `b<k>` for blocks, `l<k>` for loops, `v<k>` for
 * sampled values — where `k` counts every handle named so far (one global counter).
 *
 * Every location mark output by `sampleComputeLocation` is a fresh handle and is named like any
 * loop. A mark used without having been output (`LoopRV.ROOT` passed by hand) is written
 * `LoopRV.ROOT` / `LoopRV.INLINE`.
 */
import { BlockRV, LoopRV, type RV } from "../handles.js";
import type { Instruction } from "../instruction.js";

export const ROOT_MARK_NAME = "LoopRV.ROOT";
export const INLINE_MARK_NAME = "LoopRV.INLINE";

export class TraceNames {
  private readonly names = new Map<RV, string>();
  private count = 0;

  /** Names the outputs of an instruction, in order. */
  define(outputs: readonly RV[]): string[] {
    return outputs.map((rv) => {
      const name = `${prefixOf(rv)}${this.count++}`;
      this.names.set(rv, name);
      return name;
    });
  }

  /** The name of a handle used as an input; undefined when no earlier instruction produced it. */
  nameOf(rv: RV): string | undefined {
    const name = this.names.get(rv);
    if (name !== undefined) return name;
    if (rv instanceof LoopRV && rv.isRootMark) return ROOT_MARK_NAME;
    if (rv instanceof LoopRV && rv.isInlineMark) return INLINE_MARK_NAME;
    return undefined;
  }
}

export function prefixOf(rv: RV): "b" | "l" | "v" {
  return rv instanceof BlockRV ? "b" : rv instanceof LoopRV ? "l" : "v";
}

/** Thrown when a trace uses a handle that no earlier instruction of the trace produced. */
export function undefinedHandleMessage(rv: RV, index: number, inst: Instruction): string {
  return `instruction ${index} (${inst.kind.name}) uses ${String(rv)}, which no earlier instruction of the trace produced`;
}
