/**
 * scripts/build-native.mjs, the runtime's install script, run on a copy of the package's native
 * sources: it takes a prebuilt addon that loads, falls back to compiling when the prebuilt does
 * not load, and never fails an install when it cannot build (unless --strict).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { appendFile, copyFile, cp, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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

/** This Node's headers, where the install script looks for them (npm_config_nodedir, the node prefix, /usr). */
const nodeHeaders = [process.env.npm_config_nodedir, join(dirname(process.execPath), ".."), "/usr", "/usr/local"]
  .filter((d): d is string => d !== undefined && d !== "")
  .map((d) => join(d, "include", "node"))
  .find((d) => existsSync(join(d, "node_api.h")) && existsSync(join(d, "common.gypi")));

describe.runIf(nodeHeaders !== undefined)("a build made for these sources, on another Node (N-API: one build serves every Node)", () => {
  const stampFile = () => join(pkg, "build", "native-build.stamp");
  const addonFile = () => join(pkg, "build", "Release", "tessera_cuda.node");
  /** A nodedir holding this Node's N-API headers, `extra` appended to node_api.h (other headers than the build's). */
  async function nodedirWith(extra: string): Promise<string> {
    const dir = join(pkg, `nodedir-${createHash("sha256").update(extra).digest("hex").slice(0, 8)}`);
    await mkdir(join(dir, "include", "node"), { recursive: true });
    for (const f of readdirSync(nodeHeaders!).filter((n) => /^(node_api|js_native_api).*\.h$|^common\.gypi$/.test(n)))
      await copyFile(join(nodeHeaders!, f), join(dir, "include", "node", f));
    await appendFile(join(dir, "include", "node", "node_api.h"), `\n${extra}\n`);
    return dir;
  }
  /**
   * A "built" addon stamped as the script stamps a build of its sources, against headers it never saw. The
   * sources are a small N-API module (binding.gyp's shape, the addon's defines), so that the header check
   * compiles in a fraction of a second; the real sources' check runs in every other-Node install of .ci/run.
   */
  async function builtAddon(): Promise<void> {
    await rm(join(pkg, "native"), { recursive: true, force: true });
    await mkdir(join(pkg, "native"));
    await writeFile(
      join(pkg, "native", "module.cc"),
      "#include <node_api.h>\nstatic napi_value Init(napi_env env, napi_value exports) { return exports; }\nNAPI_MODULE(NODE_GYP_MODULE_NAME, Init)\n",
    );
    const gyp = JSON.parse(readFileSync(join(runtimeDir, "binding.gyp"), "utf8")) as { targets: { sources: string[] }[] };
    gyp.targets[0]!.sources = ["native/module.cc"];
    await writeFile(join(pkg, "binding.gyp"), JSON.stringify(gyp, null, 2));
    await mkdir(dirname(addonFile()), { recursive: true });
    await writeFile(addonFile(), "built earlier");
    await writeFile(stampFile(), `${nativeSourcesHash()} ${platformDir}\nnode-api-headers of another Node\n`);
    // node-addon-api where the package's own dependencies are (the header check includes napi.h); node-gyp is not
    // there (nor on NODE_PATH: `reuse` clears it), so a rebuild fails at once instead of compiling.
    await mkdir(join(pkg, "node_modules"), { recursive: true });
    await symlink(dirname(createRequire(join(runtimeDir, "package.json")).resolve("node-addon-api/package.json")), join(pkg, "node_modules", "node-addon-api"));
  }

  const reuse = (nodedir: string) => runScript([], { npm_config_nodedir: nodedir, NODE_PATH: "" });

  it("is kept once its sources compile against this Node's headers (checked once, then recorded in the stamp)", async () => {
    await builtAddon();
    const nodedir = await nodedirWith("/* another Node's headers */");
    const first = await reuse(nodedir);
    expect(first.exitCode).toBe(0);
    expect(first.all).toContain(`its sources compile against ${nodedir}'s headers`);
    expect(readFileSync(addonFile(), "utf8")).toBe("built earlier");
    expect(existsSync(join(pkg, "build", "native-build-error.txt"))).toBe(false);
    const again = await reuse(nodedir);
    expect(again.exitCode).toBe(0);
    expect(again.all).toBe("");
    expect(readFileSync(addonFile(), "utf8")).toBe("built earlier");
  });

  it("is rebuilt when its sources do not compile against this Node's headers", async () => {
    await builtAddon();
    const nodedir = await nodedirWith("#error these headers break the addon");
    const res = await reuse(nodedir);
    expect(res.exitCode).toBe(0);
    expect(res.all).toContain(`native/module.cc does not compile against ${nodedir}'s headers; rebuilding`);
    // The rebuild ran (and failed here: no node-gyp beside the copy), so the old build is no longer stamped current.
    expect(readFileSync(join(pkg, "build", "native-build-error.txt"), "utf8")).toContain("node-gyp is not installed");
    expect(existsSync(stampFile())).toBe(false);
  });

  it("is rebuilt when it was made from other native sources", async () => {
    await builtAddon();
    await writeFile(stampFile(), `${"0".repeat(64)} ${platformDir}\n`);
    const res = await reuse(await nodedirWith(""));
    expect(res.exitCode).toBe(0);
    expect(readFileSync(join(pkg, "build", "native-build-error.txt"), "utf8")).toContain("node-gyp is not installed");
  });
});
