/**
 * Trace documents in our format go through a hand-written check before zod (trace/quick-check.ts).
 * On real traces with random parts replaced by random values — valid or not, including values
 * JSON cannot hold (NaN, ±Infinity, unsafe integers, objects with extra keys, class instances) —
 * reading must give the same trace, or throw the same error, as zod alone; and the trace read must
 * not share arrays with the document.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { floordiv, floormod } from "@tessera/ir";
import { Trace, type TraceJSON } from "../src/index.js";
import { TRACE_FORMAT, TRACE_VERSION, parseTraceJSON, withZodOnly } from "../src/trace/json.js";
import { quickTrace } from "../src/trace/quick-check.js";
import { manualSchedule } from "./course-schedules.js";
import { scheduleGemm } from "./trace-fixtures.js";

/** A schedule whose trace has attributes that are objects (TransformLayout's index map), as every postprocessed trace of a space that stages a layout. */
function withLayout(): TraceJSON {
  const sch = scheduleGemm(5);
  const shared = sch.cacheRead(sch.getBlock("gemm"), 1, "shared");
  sch.transformLayout(shared, ["write", 0], (r, c) => [floordiv(c, 4), r, floormod(c, 4)]);
  return sch.trace.toJSON();
}

const documents: TraceJSON[] = [scheduleGemm(7).trace.toJSON(), manualSchedule(64).trace.toJSON(), new Trace().toJSON(), withLayout()];

class Boxed {
  constructor(readonly kind = "Split") {}
}

const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(NaN, Infinity, -Infinity, 2 ** 60, -0, 1.5, -1, undefined, "", "None", new Boxed(), Object.create(null) as unknown),
  fc.array(fc.oneof(fc.integer(), fc.double(), fc.string()), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom("kind", "inputs", "attrs", "outputs", "extra"), fc.jsonValue(), { maxKeys: 5 }),
  fc.dictionary(fc.constantFrom("params", "results", "__proto__", "constructor", "x"), fc.oneof(fc.jsonValue(), fc.constantFrom(NaN, undefined, new Boxed())), {
    maxKeys: 3,
  }),
  fc.constantFrom(JSON.parse('{"__proto__": ["v0"], "params": []}') as unknown, Object.assign(Object.create(null) as object, { params: ["v0"] })),
);

/** Replaces the value at a random path of `doc` (a deep copy) with `value`. */
function mutate(doc: unknown, choices: readonly number[], value: unknown): unknown {
  const copy = structuredClone(doc) as unknown;
  let parent: unknown;
  let key: string | number | undefined;
  let node = copy;
  for (const c of choices) {
    if (node === null || typeof node !== "object") break;
    const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    parent = node;
    key = keys[c % keys.length]!;
    node = (node as Record<string | number, unknown>)[key];
  }
  if (parent === undefined || key === undefined) return value;
  (parent as Record<string | number, unknown>)[key] = value;
  return copy;
}

type Outcome = { ok: true; json: unknown } | { ok: false; error: string };

function read(doc: unknown): Outcome {
  try {
    const { instructions, decisions } = parseTraceJSON(doc);
    return { ok: true, json: new Trace(instructions, decisions).toJSON() };
  } catch (err) {
    return { ok: false, error: `${(err as Error).name}: ${(err as Error).message}` };
  }
}

describe("the quick check of trace documents", () => {
  it("reads every document as zod alone does", () => {
    fc.assert(
      fc.property(fc.nat(documents.length - 1), fc.array(fc.nat(), { maxLength: 6 }), oddValue, fc.boolean(), (d, path, value, intact) => {
        const doc = intact ? structuredClone(documents[d]) : mutate(documents[d], path, value);
        expect(read(doc)).toEqual(withZodOnly(() => read(doc)));
      }),
      { numRuns: 1000 },
    );
  });

  it("reads documents with numbers JSON cannot hold where every kind of value sits as zod alone does", () => {
    // The random paths above reach an input, attribute or decision only now and then: each place here, every time.
    const odd: unknown[] = [NaN, Infinity, -Infinity, 2 ** 60, 1.5, -1];
    const places: Array<(doc: TraceJSON, v: unknown) => boolean> = [
      (doc, v) => {
        const inst = doc.instructions.find((i) => i.inputs.length > 0);
        if (inst === undefined) return false;
        (inst.inputs as unknown[])[0] = v;
        return true;
      },
      (doc, v) => {
        const inst = doc.instructions.find((i) => i.attrs.length > 0);
        if (inst === undefined) return false;
        (inst.attrs as unknown[])[0] = v;
        return true;
      },
      (doc, v) => {
        const inst = doc.instructions.find((i) => i.attrs.some(Array.isArray));
        if (inst === undefined) return false;
        (inst.attrs.find(Array.isArray) as unknown[])[0] = v;
        return true;
      },
      (doc, v) => {
        const entry = doc.decisions[0] as unknown[] | undefined;
        if (entry === undefined) return false;
        entry[1] = v;
        return true;
      },
      (doc, v) => {
        const map = objectAttrOf(doc);
        if (map === undefined) return false;
        map["params"] = v;
        return true;
      },
      (doc, v) => {
        const map = objectAttrOf(doc);
        if (map === undefined) return false;
        (map["results"] as unknown[])[0] = v;
        return true;
      },
      (doc, v) => {
        const entry = doc.decisions[0] as unknown[] | undefined;
        if (entry === undefined) return false;
        entry[0] = v;
        return true;
      },
    ];
    let tried = 0;
    const objectAttrOf = (doc: TraceJSON): Record<string, unknown> | undefined =>
      (doc.instructions.flatMap((i) => i.attrs) as unknown[]).find(
        (a): a is Record<string, unknown> => typeof a === "object" && a !== null && !Array.isArray(a),
      );
    for (const original of documents) {
      for (const place of places) {
        for (const v of odd) {
          const doc = structuredClone(original);
          if (!place(doc, v)) continue;
          tried++;
          expect(read(doc)).toEqual(withZodOnly(() => read(doc)));
        }
      }
    }
    expect(tried).toBeGreaterThanOrEqual(odd.length * places.length);
  });

  it("reads attributes that are objects without zod, and copies them", () => {
    const doc = withLayout();
    const map = doc.instructions.find((i) => i.kind === "TransformLayout")!.attrs.find((a) => typeof a === "object" && !Array.isArray(a)) as {
      params: string[];
    };
    expect(map.params.length).toBeGreaterThan(0);
    expect(quickTrace(doc, TRACE_FORMAT, TRACE_VERSION)).toBeDefined();
    const { instructions, decisions } = parseTraceJSON(doc);
    const before = JSON.stringify(new Trace(instructions, decisions).toJSON());
    expect(before).toBe(JSON.stringify(doc));
    map.params.push("v9");
    expect(JSON.stringify(new Trace(instructions, decisions).toJSON())).toBe(before);
  });

  it("copies the document's arrays", () => {
    const doc = structuredClone(scheduleGemm(3).trace.toJSON());
    const { instructions, decisions } = parseTraceJSON(doc);
    const trace = new Trace(instructions, decisions);
    const before = JSON.stringify(trace.toJSON());
    let nested = 0;
    for (const inst of doc.instructions) {
      for (const a of inst.attrs) {
        if (Array.isArray(a)) {
          a.push(99);
          nested++;
        }
      }
    }
    for (const [, decision] of doc.decisions) {
      if (Array.isArray(decision)) {
        decision.push(5);
        nested++;
      }
    }
    expect(nested).toBeGreaterThan(0);
    expect(JSON.stringify(trace.toJSON())).toBe(before);
  });
});
