/**
 * The Metal golden files compiled as C++ by g++ against a stand-in for <metal_stdlib>
 * (cxx-shim/): a check of syntax and types where no Metal compiler exists. Skipped without g++.
 */
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const golden = join(here, "golden");

function gxxMissing(): string | undefined {
  try {
    execFileSync("g++", ["--version"], { stdio: "ignore" });
    return undefined;
  } catch {
    return "g++ is not installed";
  }
}

const missing = gxxMissing();

describe.skipIf(missing !== undefined)(`Metal golden files compile as C++${missing === undefined ? "" : ` (skipped: ${missing})`}`, () => {
  it("every .metal golden file, in one g++ run", { timeout: 60_000 }, () => {
    const files = readdirSync(golden)
      .filter((f) => f.endsWith(".metal"))
      .map((f) => join(golden, f));
    expect(files.length).toBeGreaterThan(10);
    const run = () =>
      execFileSync("g++", ["-std=c++17", "-fsyntax-only", "-Wno-attributes", "-I", join(here, "cxx-shim"), "-x", "c++", ...files], { stdio: "pipe" });
    expect(run).not.toThrow();
  });
});
