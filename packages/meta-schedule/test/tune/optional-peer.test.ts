/** The report's optional peer dependencies: a missing one gives an error that says what to install. */
import { describe, expect, it } from "vitest";
import { MissingPeerDependencyError } from "../../src/errors.js";
import { importOptionalPeer, requireOptionalPeer } from "../../src/report/optional-peer.js";

function notFound(code: string): Error {
  return Object.assign(new Error("Cannot find package 'vega'"), { code });
}

describe("optional peer dependencies", () => {
  it("an ESM package that is not installed asks for it, naming what it is for", async () => {
    const load = () => Promise.reject(notFound("ERR_MODULE_NOT_FOUND"));
    const err = await importOptionalPeer(load, ["vega", "vega-lite"], "draw tuning curves").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MissingPeerDependencyError);
    expect((err as Error).message).toBe("install vega and vega-lite to draw tuning curves (optional peer dependencies of @tessera/meta-schedule)");
    expect((err as MissingPeerDependencyError).packages).toEqual(["vega", "vega-lite"]);
  });

  it("a CommonJS package that is not installed asks for it", () => {
    const require = () => {
      throw notFound("MODULE_NOT_FOUND");
    };
    expect(() => requireOptionalPeer("cli-progress", "draw a progress bar", require)).toThrow(/^install cli-progress to draw a progress bar/);
  });

  it("any other failure to load is passed on unchanged", async () => {
    const broken = new SyntaxError("Unexpected token");
    await expect(importOptionalPeer(() => Promise.reject(broken), ["vega"], "draw tuning curves")).rejects.toBe(broken);
    expect(() =>
      requireOptionalPeer("cli-progress", "draw a progress bar", () => {
        throw broken;
      }),
    ).toThrow(broken);
  });

  it("an installed package loads", async () => {
    expect(await importOptionalPeer(() => Promise.resolve(42), ["vega"], "draw tuning curves")).toBe(42);
    expect(requireOptionalPeer<{ MultiBar: unknown }>("cli-progress", "draw a progress bar").MultiBar).toBeTypeOf("function");
  });
});
