import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LruMap } from "../../src/support/lru-map.js";

describe("LruMap", () => {
  it("agrees with a model: at most capacity entries, the least recently used forgotten first", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("get" as const), key: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ kind: fc.constant("set" as const), key: fc.integer({ min: 0, max: 6 }), value: fc.integer() }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4 }), fc.array(op, { maxLength: 40 }), (capacity, ops) => {
        const lru = new LruMap<number, number>(capacity);
        const model: [number, number][] = []; // oldest first
        for (const o of ops) {
          const at = model.findIndex(([k]) => k === o.key);
          if (o.kind === "get") {
            expect(lru.get(o.key)).toBe(at < 0 ? undefined : model[at]![1]);
            if (at >= 0) model.push(...model.splice(at, 1));
          } else {
            lru.set(o.key, o.value);
            if (capacity === 0) continue;
            if (at >= 0) model.splice(at, 1);
            else if (model.length >= capacity) model.shift();
            model.push([o.key, o.value]);
          }
          expect(lru.size).toBe(model.length);
          for (const [k] of model) expect(lru.has(k)).toBe(true);
        }
      }),
    );
  });

  it("refuses a capacity that is not a non-negative integer", () => {
    expect(() => new LruMap(-1)).toThrow(/capacity must be a non-negative integer, got -1/);
    expect(() => new LruMap(1.5)).toThrow(RangeError);
  });
});
