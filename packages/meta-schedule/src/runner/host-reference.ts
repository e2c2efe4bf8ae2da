/**
 * A reference for checking CPU candidates: the unscheduled workload (`RunnerInput.workload`)
 * compiled by the C target and run in this process on the runner's seeded random arguments — fast
 * at sizes where the JS executor is not, and code without a schedule does not crash. Its loops are
 * in the order of reference-loop-order.ts (each element summed in the naive order, in a fraction of
 * the time). Computed once per workload and argument list.
 */
import type { PrimFunc } from "@tessera/ir";
import { type AnyTypedArray, buildHost } from "@tessera/runtime";
import { argInfoToJSON } from "../arg-info.js";
import { type CheckTolerance, type RunnerChecker, compareDigests, dtypesOf } from "./checker.js";
import { digestOf } from "./output-digest.js";
import { randomArgsFor } from "./random-args.js";
import { referenceLoopOrder } from "./reference-loop-order.js";
import type { RunnerInput } from "../interfaces/runner.js";

async function referenceOutputs(func: PrimFunc, input: RunnerInput, seed: number): Promise<readonly AnyTypedArray[]> {
  const mod = await buildHost(referenceLoopOrder(func), "c");
  try {
    const args = randomArgsFor(input.argsInfo, seed);
    mod(...args);
    return args;
  } finally {
    mod.dispose();
  }
}

export function hostReferenceChecker(tol: CheckTolerance = {}): RunnerChecker {
  const computing = new WeakMap<PrimFunc, Map<string, Promise<readonly AnyTypedArray[]>>>();
  const done = new WeakMap<PrimFunc, Map<string, readonly AnyTypedArray[]>>();
  const keyOf = (input: RunnerInput, seed: number): string => JSON.stringify([seed, input.argsInfo.map(argInfoToJSON)]);
  const mapOf = <V>(m: WeakMap<PrimFunc, Map<string, V>>, func: PrimFunc): Map<string, V> => {
    let inner = m.get(func);
    if (inner === undefined) m.set(func, (inner = new Map()));
    return inner;
  };
  let lastKey = "";
  return {
    name: "host-reference",
    async prepare(input, seed) {
      const func = input.workload;
      if (func === undefined) throw new Error("the runner input names no workload to compute the reference from");
      const key = keyOf(input, seed);
      lastKey = key;
      const finished = mapOf(done, func);
      if (finished.has(key)) return;
      const pending = mapOf(computing, func);
      let outputs = pending.get(key);
      if (outputs === undefined) {
        outputs = referenceOutputs(func, input, seed);
        // A failure is this candidate's; the next one tries again.
        outputs.catch(() => pending.delete(key));
        pending.set(key, outputs);
      }
      finished.set(key, await outputs);
    },
    check(outputs, _inputs, input) {
      const want = input.workload === undefined ? undefined : done.get(input.workload)?.get(lastKey);
      if (want === undefined) return "the reference was not computed (the runner did not await prepare())";
      return compareDigests(
        outputs,
        want.map((w, k) => (outputs[k]?.indices === undefined ? digestOf(w, "all") : digestOf(w, outputs[k]!.indices!.length))),
        tol,
        dtypesOf(input),
      );
    },
  };
}
