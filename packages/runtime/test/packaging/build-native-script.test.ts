/**
 * scripts/build-native.mjs, the runtime's install script, run on a copy of the package's native
 * sources: it takes a prebuilt addon that loads, falls back to compiling when the prebuilt does
 * not load, and never fails an install when it cannot build (unless --strict).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { copyFile, cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { childEnv, packageDir } from "./published-packages.js";

const runtimeDir = packageDir("runtime");
const workspaceAddon = join(runtimeDir, "build", "Release", "tessera_cuda.node");
const platformDir = `${process.platform}-${process.arch}`;

let pkg = "";

beforeEach(async () => {
  pkg = await mkdtemp(join(tmpdir(), "tessera-build-native-"));
  await mkdir(join(pkg, "scripts"));
  await copyFile(join(runtimeDir, "scripts", "build-native.mjs"), join(pkg, "scripts", "build-native.mjs"));
  await copyFile(join(runtimeDir, "binding.gyp"), join(pkg, "binding.gyp"));
  await cp(join(runtimeDir, "native"), join(pkg, "native"), { recursive: true });
  await mkdir(join(pkg, "prebuilds", platformDir), { recursive: true });
});

afterEach(async () => {
  await rm(pkg, { recursive: true, force: true });
});

/** Installs `addon` as this platform's prebuilt, recorded as built from `sourcesHash` (default: the copied sources). */
async function putPrebuilt(addon: string | Buffer, sourcesHash?: string): Promise<string> {
  const file = join(pkg, "prebuilds", platformDir, "tessera_cuda.node");
  await writeFile(file, addon);
  await writeFile(`${file}.sources-sha256`, `${sourcesHash ?? nativeSourcesHash()}\n`);
  return file;
}

function nativeSourcesHash(): string {
  const h = createHash("sha256");
  // The script's rule: binding.gyp, then every file of native/ in name order.
  for (const f of [
    "binding.gyp",
    ...readdirSync(join(pkg, "native"))
      .sort()
      .map((n) => `native/${n}`),
  ]) {
    h.update(f);
    h.update(readFileSync(join(pkg, f)));
  }
  return h.digest("hex");
}

function runScript(args: string[], env: Record<string, string> = {}) {
  return execa(process.execPath, [join(pkg, "scripts", "build-native.mjs"), ...args], { cwd: pkg, reject: false, all: true, env: childEnv(env) });
}

describe("the runtime's install script", () => {
  it.runIf(existsSync(workspaceAddon))("uses a prebuilt addon that loads, compiling nothing", async () => {
    await putPrebuilt(readFileSync(workspaceAddon));
    const res = await runScript([]);
    expect(res.exitCode).toBe(0);
    expect(res.all).toContain("using the prebuilt native addon");
    expect(existsSync(join(pkg, "build"))).toBe(false);
  });

  it("falls back to a source build when the prebuilt does not load, and a failed build does not fail the install", async () => {
    await putPrebuilt("not a shared object");
    const res = await runScript([], { TESSERA_SKIP_NATIVE_BUILD: "1" });
    expect(res.exitCode).toBe(0);
    expect(res.all).toMatch(/the prebuilt .* does not load here \(.+\); building from source/);
    const log = readFileSync(join(pkg, "build", "native-build-error.txt"), "utf8");
    expect(log).toContain("TESSERA_SKIP_NATIVE_BUILD=1");
  });

  it.runIf(existsSync(workspaceAddon))("ignores a prebuilt made from other native sources", async () => {
    await putPrebuilt(readFileSync(workspaceAddon), "0".repeat(64));
    const res = await runScript([], { TESSERA_SKIP_NATIVE_BUILD: "1" });
    expect(res.exitCode).toBe(0);
    expect(res.all).toContain("was built from other native sources; building from source");
    expect(existsSync(join(pkg, "build", "native-build-error.txt"))).toBe(true);
  });

  it("--strict makes a failed build fail", async () => {
    const res = await runScript(["--strict"], { TESSERA_SKIP_NATIVE_BUILD: "1" });
    expect(res.exitCode).toBe(1);
    expect(res.all).toContain("native addon not built");
  });
});
