#!/usr/bin/env node
// Builds the native addon (build/Release/tessera_cuda.node) with node-gyp, using the Node
// headers already on this machine: it never downloads anything. Runs as this package's
// `install` script, so `pnpm install` builds it in a fresh clone and `npm install` builds it in
// a project that installs the published package.
//
// A package may ship prebuilt addons, prebuilds/<platform>-<arch>/tessera_cuda.node (N-API, so
// one binary serves every Node version of a platform): when the one for this platform loads, the
// install uses it and compiles nothing (TESSERA_NATIVE_FROM_SOURCE=1 compiles anyway).
// `--prebuild` builds and copies the result there.
//
// A failed build never fails the install: the error is written to build/native-build-error.txt
// and the runtime then reports CUDA as unavailable with that text as the reason.
// `--force` rebuilds even when the stamp says the build is current (and ignores prebuilds);
// `--strict` exits non-zero on failure.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const buildDir = join(pkgDir, "build");
const addonPath = join(buildDir, "Release", "tessera_cuda.node");
const errorFile = join(buildDir, "native-build-error.txt");
const stampFile = join(buildDir, "native-build.stamp");
const prebuiltPath = join(pkgDir, "prebuilds", `${process.platform}-${process.arch}`, "tessera_cuda.node");
const prebuild = process.argv.includes("--prebuild");
const force = process.argv.includes("--force");
const strict = process.argv.includes("--strict");

const prebuiltSourcesFile = `${prebuiltPath}.sources-sha256`;

/** What the addon is built from: binding.gyp and every file in native/ (a new source needs no list updated). */
function nativeSourceFiles() {
  return [
    "binding.gyp",
    ...readdirSync(join(pkgDir, "native"))
      .sort()
      .map((f) => `native/${f}`),
  ];
}

function nativeSourcesHash() {
  const h = createHash("sha256");
  for (const f of nativeSourceFiles()) {
    h.update(f);
    h.update(readFileSync(join(pkgDir, f)));
  }
  return h;
}

/**
 * The build stamp: the native sources (binding.gyp pins NAPI_VERSION) and the platform, not the
 * Node version nor its headers. The addon is N-API only, so one build serves every Node version
 * that offers that N-API version, as a prebuilt does; a Node 24 install of a checkout built on
 * Node 20 reuses the build (it only checks that the sources compile against its headers:
 * `headersChecked`).
 */
function buildStamp() {
  return `${nativeSourcesHash().digest("hex")} ${process.platform}-${process.arch}`;
}

/** Node headers (include/node/node_api.h) without downloading: npm_config_nodedir, /usr, the node prefix. */
function findNodedir() {
  const candidates = [process.env.npm_config_nodedir, process.env.TESSERA_NODEDIR, join(dirname(process.execPath), ".."), "/usr", "/usr/local"].filter(
    (c) => typeof c === "string" && c.length > 0,
  );
  for (const dir of candidates) {
    if (existsSync(join(dir, "include", "node", "node_api.h")) && existsSync(join(dir, "include", "node", "common.gypi"))) return dir;
  }
  return undefined;
}

function fail(message) {
  mkdirSync(buildDir, { recursive: true });
  writeFileSync(errorFile, message);
  rmSync(stampFile, { force: true });
  const first = message.split("\n").find((l) => l.trim().length > 0) ?? message;
  console.warn(`@tessera/runtime: native addon not built (CUDA and C-target support disabled): ${first.trim()}`);
  console.warn(`@tessera/runtime: full log in ${errorFile}`);
  process.exit(strict ? 1 : 0);
}

/**
 * Whether the prebuilt addon for this platform is there, was built from the native sources beside
 * it (a stale one is not used), and loads (one for another libc does not).
 */
function prebuiltLoads() {
  if (!existsSync(prebuiltPath)) return false;
  const builtFrom = existsSync(prebuiltSourcesFile) ? readFileSync(prebuiltSourcesFile, "utf8").trim() : "(unknown)";
  if (builtFrom !== nativeSourcesHash().digest("hex")) {
    console.warn(`@tessera/runtime: the prebuilt ${prebuiltPath} was built from other native sources; building from source`);
    return false;
  }
  try {
    createRequire(import.meta.url)(prebuiltPath);
    return true;
  } catch (e) {
    console.warn(`@tessera/runtime: the prebuilt ${prebuiltPath} does not load here (${e instanceof Error ? e.message : String(e)}); building from source`);
    return false;
  }
}

function main() {
  const fromSource = force || prebuild || process.env.TESSERA_NATIVE_FROM_SOURCE === "1";
  if (!fromSource && prebuiltLoads()) {
    console.log(`@tessera/runtime: using the prebuilt native addon ${prebuiltPath}`);
    return;
  }
  if (process.env.TESSERA_SKIP_NATIVE_BUILD === "1") {
    fail("native build skipped (TESSERA_SKIP_NATIVE_BUILD=1)");
  }
  const nodedir = findNodedir();
  if (nodedir === undefined) {
    fail(
      "Node.js headers not found (looked for include/node/node_api.h under npm_config_nodedir, the node prefix, /usr, /usr/local); " +
        "set npm_config_nodedir. The build never downloads headers.",
    );
  }
  const stamp = buildStamp();
  const headers = nodeApiHeadersHash(nodedir);
  if (!force && existsSync(addonPath) && existsSync(stampFile) && readFileSync(stampFile, "utf8").split("\n")[0] === stamp) {
    if (headersChecked(nodedir, headers)) {
      copyToPrebuilds();
      return; // up to date
    }
  }
  const require = createRequire(import.meta.url);
  let gypBin;
  try {
    gypBin = require.resolve("node-gyp/bin/node-gyp.js");
  } catch (e) {
    fail(`node-gyp is not installed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const started = Date.now();
  const jobs = process.env.JOBS ?? "max";
  const res = spawnSync(process.execPath, [gypBin, "rebuild", `--nodedir=${nodedir}`, `--jobs=${jobs}`, "--loglevel=warn"], {
    cwd: pkgDir,
    encoding: "utf8",
    env: { ...process.env, npm_config_nodedir: nodedir, npm_config_loglevel: "warn" },
    maxBuffer: 64 * 1024 * 1024,
  });
  const log = `${res.stdout ?? ""}${res.stderr ?? ""}`;
  if (res.error !== undefined || res.status !== 0 || !existsSync(addonPath)) {
    const why = res.error !== undefined ? `${res.error.message}\n` : `node-gyp exited with status ${res.status}\n`;
    fail(`native build failed: ${why}${log}`);
  }
  rmSync(errorFile, { force: true });
  writeFileSync(stampFile, `${stamp}\n${headers}\n`);
  if (process.env.TESSERA_NATIVE_BUILD_VERBOSE === "1") process.stdout.write(log);
  console.log(`@tessera/runtime: built ${addonPath} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  copyToPrebuilds();
}

/** The N-API headers the build compiles against (they differ between Node versions; the ABI they declare does not). */
function nodeApiHeadersHash(nodedir) {
  const h = createHash("sha256");
  const dir = join(nodedir, "include", "node");
  for (const f of readdirSync(dir)
    .filter((n) => /^(node_api|js_native_api).*\.h$/.test(n))
    .sort()) {
    h.update(f);
    h.update(readFileSync(join(dir, f)));
  }
  return `node-api-headers ${h.digest("hex")}`;
}

/**
 * Whether the current build may be kept with `nodedir`'s headers: it was built or checked against
 * the same N-API headers (the stamp's other lines), or its sources compile against these
 * (`g++ -fsyntax-only` with binding.gyp's defines and flags, a few CPU seconds against a full
 * build's fifteen); a checked set of headers is added to the stamp. A source that does not compile
 * against them is rebuilt, so that the build's own error is what the install reports.
 */
function headersChecked(nodedir, headers) {
  const lines = readFileSync(stampFile, "utf8").split("\n");
  if (lines.slice(1).includes(headers)) return true;
  const started = Date.now();
  let target;
  let addonApi;
  try {
    // binding.gyp is written as JSON (gyp also reads Python literals: one that is not JSON is rebuilt instead).
    target = JSON.parse(readFileSync(join(pkgDir, "binding.gyp"), "utf8")).targets[0];
    addonApi = dirname(createRequire(join(pkgDir, "package.json")).resolve("node-addon-api/package.json"));
  } catch {
    return false;
  }
  const flags = [
    `-DNODE_GYP_MODULE_NAME=${target.target_name}`,
    "-DBUILDING_NODE_EXTENSION",
    ...(target.defines ?? []).map((d) => `-D${d}`),
    ...(target.cflags_cc ?? []),
    "-fPIC",
    `-I${join(nodedir, "include", "node")}`,
    `-I${addonApi}`,
  ];
  for (const source of target.sources) {
    const res = spawnSync(process.env.CXX ?? "g++", [...flags, "-fsyntax-only", join(pkgDir, source)], { encoding: "utf8" });
    if (res.error !== undefined || res.status !== 0) {
      console.warn(`@tessera/runtime: ${source} does not compile against ${nodedir}'s headers; rebuilding`);
      return false;
    }
  }
  writeFileSync(stampFile, `${lines.filter((l) => l.length > 0).join("\n")}\n${headers}\n`);
  console.log(
    `@tessera/runtime: kept ${addonPath} (N-API, built for these sources); its sources compile against ${nodedir}'s headers (checked in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  return true;
}

function copyToPrebuilds() {
  if (!prebuild) return;
  mkdirSync(dirname(prebuiltPath), { recursive: true });
  copyFileSync(addonPath, prebuiltPath);
  writeFileSync(prebuiltSourcesFile, `${nativeSourcesHash().digest("hex")}\n`);
  console.log(`@tessera/runtime: copied ${addonPath} to ${prebuiltPath} (shipped in the package's tarball)`);
}

main();
