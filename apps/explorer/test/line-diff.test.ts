/** The line diff: applying it to the first text gives the second, and it keeps every common line it can. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineDiff } from "../src/diff/line-diff.js";

const lines = fc.array(fc.constantFrom("a", "b", "c", "for i in range(4):", ""), { maxLength: 12 });

describe("lineDiff", () => {
  it("marks a split's new loop as added and the old one as removed", () => {
    expect(
      lineDiff("def f():\n    for i in range(64):\n        body", "def f():\n    for i_0 in range(4):\n        for i_1 in range(16):\n        body"),
    ).toEqual([
      { kind: "same", text: "def f():" },
      { kind: "added", text: "    for i_0 in range(4):" },
      { kind: "added", text: "        for i_1 in range(16):" },
      { kind: "removed", text: "    for i in range(64):" },
      { kind: "same", text: "        body" },
    ]);
  });

  it("rebuilds both texts, with as many unchanged lines as the longest common subsequence", () => {
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const diff = lineDiff(a.join("\n"), b.join("\n"));
        expect(diff.filter((d) => d.kind !== "added").map((d) => d.text)).toEqual(a.join("\n").split("\n"));
        expect(diff.filter((d) => d.kind !== "removed").map((d) => d.text)).toEqual(b.join("\n").split("\n"));
        if (a.join("\n") === b.join("\n")) expect(diff.every((d) => d.kind === "same")).toBe(true);
      }),
    );
  });
});
