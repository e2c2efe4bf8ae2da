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

function sourcesHash(nodedir) {
  const h = nativeSourcesHash();
  h.update(process.version);
  h.update(process.arch);
  h.update(String(nodedir));
  return h.digest("hex");
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
  const stamp = sourcesHash(nodedir);
  if (!force && existsSync(addonPath) && existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp) {
    copyToPrebuilds();
    return; // up to date
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
  writeFileSync(stampFile, stamp);
  if (process.env.TESSERA_NATIVE_BUILD_VERBOSE === "1") process.stdout.write(log);
  console.log(`@tessera/runtime: built ${addonPath} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  copyToPrebuilds();
}

function copyToPrebuilds() {
  if (!prebuild) return;
  mkdirSync(dirname(prebuiltPath), { recursive: true });
  copyFileSync(addonPath, prebuiltPath);
  writeFileSync(prebuiltSourcesFile, `${nativeSourcesHash().digest("hex")}\n`);
  console.log(`@tessera/runtime: copied ${addonPath} to ${prebuiltPath} (shipped in the package's tarball)`);
}

main();
