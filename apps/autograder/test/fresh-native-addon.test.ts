import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freshNativeAddon } from "../scripts/fresh-native-addon.js";

// A stand-in runtime package whose build script records how it was called (regression: bundle:gpu
// copied build/Release/tessera_cuda.node as the install had left it, so a launch fix merged into
// native/ afterwards never reached the GPU host).
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function runtimeWithBuildScript(body: string): string {
  const dir = mkdtempSync(join(tmpdir(), "tessera-fresh-addon-"));
  dirs.push(dir);
  mkdirSync(join(dir, "scripts"));
  writeFileSync(join(dir, "scripts", "build-native.mjs"), body);
  return dir;
}

describe("freshNativeAddon", () => {
  it("runs the package's build script (stamp-checked, never forced, from source) before returning the addon", () => {
    const dir = runtimeWithBuildScript(`
      import { mkdirSync, writeFileSync } from "node:fs";
      mkdirSync("build/Release", { recursive: true });
      writeFileSync("build/Release/tessera_cuda.node", JSON.stringify({ argv: process.argv.slice(2), fromSource: process.env.TESSERA_NATIVE_FROM_SOURCE }));
    `);
    const addon = freshNativeAddon(dir);
    expect(addon).toBe(join(dir, "build", "Release", "tessera_cuda.node"));
    expect(JSON.parse(readFileSync(addon, "utf8"))).toEqual({ argv: ["--strict"], fromSource: "1" });
  });

  it("fails with the build's own first line and the sources it could not build", () => {
    const dir = runtimeWithBuildScript(`console.error("node-gyp is not installed: nope"); process.exit(1);`);
    expect(() => freshNativeAddon(dir)).toThrow(
      `the native addon could not be brought up to date with ${join(dir, "native")}: node-gyp is not installed: nope`,
    );
  });

  it("fails when the build reports success but leaves no addon", () => {
    const dir = runtimeWithBuildScript("");
    expect(() => freshNativeAddon(dir)).toThrow(/ended without .*tessera_cuda\.node/);
  });
});
