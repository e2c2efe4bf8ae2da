/**
 * The data-driven conformance runner: parse `before`, apply the schedule calls, and compare the
 * result (names included) with `expected`, or check that the expected ScheduleError is thrown and
 * leaves the schedule untouched.
 */
import { parsePrimFunc, structuralDiff, structuralEqual } from "@tessera/ir";
import { Schedule, ScheduleError, ScheduleUsageError } from "../../src/index.js";

export interface ExpectedError {
  /** TVM's error class name (informational: only `ScheduleError` ancestry is enforced). */
  error: string;
  /** A case-insensitive fragment of TVM's message ("" accepts any ScheduleError). */
  messageIncludes: string;
}

export interface ConformanceCase {
  name: string;
  primitive: string;
  before: string;
  apply: (sch: Schedule) => void;
  expected: string | ExpectedError;
  /**
   * Compare without names (and check these fragments of `sch.script()` instead): for cases whose
   * TVM names are not valid identifiers (rfactor's `B.rf`).
   */
  scriptIncludes?: string[];
}

export interface CaseOutcome {
  ok: boolean;
  message: string;
}

export function runCase(c: ConformanceCase): CaseOutcome {
  const before = parsePrimFunc(c.before);
  const sch = new Schedule(before);
  if (typeof c.expected === "string") {
    const expected = parsePrimFunc(c.expected);
    try {
      c.apply(sch);
    } catch (err) {
      const e = err as Error;
      return { ok: false, message: `threw ${e?.name}: ${e?.message?.split("\n").slice(-1)[0] ?? String(err)}` };
    }
    const byNames = c.scriptIncludes === undefined;
    const diff = structuralDiff(sch.func, expected, { compareNames: byNames });
    if (diff !== undefined) {
      return { ok: false, message: `structural difference: ${diff.message}\n--- actual ---\n${sch.script()}` };
    }
    const script = sch.script();
    for (const frag of c.scriptIncludes ?? []) {
      if (!script.includes(frag)) return { ok: false, message: `script lacks ${JSON.stringify(frag)}\n${script}` };
    }
    return { ok: true, message: "" };
  }
  // Error case: every call before the failing one must succeed; the failing call must throw a
  // ScheduleError and leave func and trace as they were.
  let lastFunc = sch.func;
  let lastLen = sch.trace.instructions.length;
  const proxy = new Proxy(sch, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        lastFunc = target.func;
        lastLen = target.trace.instructions.length;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  try {
    c.apply(proxy);
  } catch (err) {
    if (!(err instanceof ScheduleError) || (err instanceof ScheduleUsageError && c.expected.error !== "ScheduleUsageError")) {
      const e = err as Error;
      return { ok: false, message: `expected a ScheduleError, got ${e?.name}: ${e?.message}` };
    }
    const frag = c.expected.messageIncludes.toLowerCase();
    if (!err.message.toLowerCase().includes(frag)) {
      return { ok: false, message: `message lacks ${JSON.stringify(c.expected.messageIncludes)}: ${err.detail}` };
    }
    if (!structuralEqual(sch.func, lastFunc, { compareNames: true })) {
      return { ok: false, message: "the failed call changed the function" };
    }
    if (sch.trace.instructions.length !== lastLen) {
      return { ok: false, message: "the failed call changed the trace" };
    }
    return { ok: true, message: err.name === c.expected.error ? "" : `(class ${err.name}, TVM: ${c.expected.error})` };
  }
  return { ok: false, message: `expected ${c.expected.error}, but every call succeeded` };
}
