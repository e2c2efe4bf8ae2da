/**
 * The d2l operators with their naive GPU schedule, through WGSL on Dawn (Mesa's llvmpipe without
 * a GPU), against the JS executor on random inputs.
 */
import { d2lGpuOperators } from "@tessera/corpus";
import { describe, expect, it } from "vitest";
import { compareOnDawn, noAdapter } from "./support/dawn.js";

describe.skipIf(noAdapter !== undefined)(`d2l operators through WGSL on Dawn${noAdapter === undefined ? "" : ` (skipped: ${noAdapter})`}`, () => {
  for (const op of d2lGpuOperators()) {
    it(op.name, async () => {
      const result = await compareOnDawn(op.original, op.scheduled, 7);
      expect(result.mismatches).toBe(0);
    });
  }
});
