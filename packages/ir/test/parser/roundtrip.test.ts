/**
 * Round trips with the printer and structural equality: printing a parsed corpus sample and
 * parsing it again gives the same IR, and the printed text is a fixed point.
 */
import { describe, expect, it } from "vitest";
import { parseTVMScript } from "../../src/parser/index.js";
import { printTVMScript } from "../../src/printer/index.js";
import { assertStructuralEqual } from "../../src/structural/index.js";
import { corpusFiles, readCorpus } from "./helpers.js";

describe("TVMScript round trip", () => {
  it.each(corpusFiles())("print(parse(%s)) is a fixed point", (file) => {
    const once = printTVMScript(parseTVMScript(readCorpus(file), { fileName: file }));
    const twice = printTVMScript(parseTVMScript(once, { fileName: `printed-${file}` }));
    expect(twice).toBe(once);
  });

  it.each(corpusFiles())("parse(print(f)) is structurally equal to f for every function of %s", (file) => {
    const mod = parseTVMScript(readCorpus(file), { fileName: file });
    const reparsed = parseTVMScript(printTVMScript(mod));
    expect([...reparsed.functions.keys()]).toEqual([...mod.functions.keys()]);
    for (const [name, f] of mod.functions) {
      assertStructuralEqual(reparsed.functions.get(name)!, f);
      // Printed as a lone function too (the `def` takes the given name).
      const alone = parseTVMScript(printTVMScript(f, { funcName: name }));
      assertStructuralEqual(alone.functions.get(name)!, f);
    }
  });
});
