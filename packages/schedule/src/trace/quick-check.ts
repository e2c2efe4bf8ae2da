/**
 * A hand-written check of a trace document in our format, run before the zod schema (json.ts):
 * replaying a trace starts by reading it, and zod's generic parse costs as much as several
 * primitives. It accepts only what the schema surely accepts — plain objects, finite numbers,
 * safe integers where the schema asks for integers, attributes that are scalars, lists or plain
 * objects of those (TransformLayout's index map, in every trace of a space that stages a layout) —
 * and returns copies, as zod does (the trace must not share arrays or objects with the caller's
 * document). Anything else returns undefined and goes through zod, which then accepts it or
 * reports the problem exactly as before.
 */
import type { JSONAttr, JSONDecision, JSONInput } from "./json.js";
import { MAX_TRACE_NESTING } from "./nesting.js";

export interface QuickInstruction {
  kind: string;
  inputs: JSONInput[];
  attrs: JSONAttr[];
  outputs: string[];
}

export interface QuickTrace {
  readonly instructions: QuickInstruction[];
  readonly decisions: Array<[number, JSONDecision]>;
}

/** Thrown inside the check to give up (caught in `quickTrace`). */
const GIVE_UP = Symbol("give up");

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x) as unknown;
  return proto === Object.prototype || proto === null;
}

function array(x: unknown): readonly unknown[] {
  if (!Array.isArray(x)) throw GIVE_UP;
  return x;
}

function scalar(x: unknown): string | number | boolean | null {
  if (x === null || typeof x === "string" || typeof x === "boolean") return x;
  if (typeof x === "number" && Number.isFinite(x)) return x;
  throw GIVE_UP;
}

/** An input or an attribute without objects: a scalar or a (nested) list of those. */
function value(x: unknown, depth = 0): JSONInput {
  if (!Array.isArray(x)) return scalar(x);
  if (depth > MAX_TRACE_NESTING) throw GIVE_UP; // zod's path names the place (json.ts)
  const out: JSONInput[] = new Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = value(x[i], depth + 1);
  return out;
}

/**
 * An attribute: a scalar, or a list or plain object of attributes. A key "__proto__" goes to zod,
 * so that what it makes of one (an own property or the object's prototype) stays its call.
 */
function attr(x: unknown, depth = 0): JSONAttr {
  if (depth > MAX_TRACE_NESTING && typeof x === "object" && x !== null) throw GIVE_UP;
  if (Array.isArray(x)) {
    const out: JSONAttr[] = new Array(x.length);
    for (let i = 0; i < x.length; i++) out[i] = attr(x[i], depth + 1);
    return out;
  }
  if (!isPlainObject(x)) return scalar(x);
  const out: { [key: string]: JSONAttr } = {};
  for (const key of Object.keys(x)) {
    if (key === "__proto__") throw GIVE_UP;
    out[key] = attr(x[key], depth + 1);
  }
  return out;
}

function integer(x: unknown): number {
  if (typeof x !== "number" || !Number.isSafeInteger(x)) throw GIVE_UP;
  return x;
}

function instruction(x: unknown): QuickInstruction {
  if (!isPlainObject(x)) throw GIVE_UP;
  const keys = Object.keys(x);
  if (keys.length !== 4 || !("kind" in x && "inputs" in x && "attrs" in x && "outputs" in x)) throw GIVE_UP;
  const kind = x["kind"];
  if (typeof kind !== "string" || kind.length === 0) throw GIVE_UP;
  return {
    kind,
    inputs: array(x["inputs"]).map((v) => value(v)),
    attrs: array(x["attrs"]).map((a) => attr(a)),
    outputs: array(x["outputs"]).map((o) => {
      if (typeof o !== "string") throw GIVE_UP;
      return o;
    }),
  };
}

function decisionEntry(x: unknown): [number, JSONDecision] {
  const entry = array(x);
  if (entry.length !== 2) throw GIVE_UP;
  const index = integer(entry[0]);
  if (index < 0) throw GIVE_UP;
  const d = entry[1];
  return [index, Array.isArray(d) ? array(d).map(integer) : integer(d)];
}

/** The document's instructions and decisions, or undefined when zod must look at it. */
export function quickTrace(doc: unknown, format: string, version: number): QuickTrace | undefined {
  try {
    if (!isPlainObject(doc) || doc["format"] !== format || doc["version"] !== version) return undefined;
    return { instructions: array(doc["instructions"]).map(instruction), decisions: array(doc["decisions"]).map(decisionEntry) };
  } catch (err) {
    if (err === GIVE_UP) return undefined;
    throw err;
  }
}
