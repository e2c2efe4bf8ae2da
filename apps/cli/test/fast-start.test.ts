/**
 * `pnpm tessera` and `pnpm grade` run through scripts/fast-start/run.mjs: a bundle of the
 * workspace sources, rebuilt when a source changed. These tests check that an edit is always seen
 * (a stale bundle must never run old code), on a small fixture workspace and on a copy of the
 * CLI's sources, and that the bundled CLI and grader behave as they do from the sources.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../src/index.js";
import { captureIO } from "./capture.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const launcher = join(repo, "scripts/fast-start/run.mjs");
const launchModule = pathToFileURL(join(repo, "scripts/fast-start/launch.mjs")).href;

/** The environment of a child: none of the test run's Node or pnpm settings. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(NODE_OPTIONS|VITEST.*|npm_.*|PNPM_.*|TESSERA_FAST_START.*|FORCE_COLOR|NO_COLOR)$/i.test(key)),
  );
  return { ...env, TESSERA_FAST_START_LOG: "1", ...extra };
}

interface Run {
  status: number | null;
  stdout: string;
  /** stderr without the launcher's log lines. */
  stderr: string;
  /** The launcher's log lines (TESSERA_FAST_START_LOG=1). */
  log: string;
}

function node(script: string, args: readonly string[], env: Record<string, string> = {}, cwd = repo): Run {
  const res = spawnSync(process.execPath, ["--conditions=@tessera/source", script, ...args], { cwd, encoding: "utf8", env: childEnv(env) });
  const lines = res.stderr.split(/(?<=\n)/);
  return {
    status: res.status,
    stdout: res.stdout,
    stderr: lines.filter((l) => !l.startsWith("fast-start: ")).join(""),
    log: lines.filter((l) => l.startsWith("fast-start: ")).join(""),
  };
}

/** Sets a file's times to `secondsAgo` in the past (an edit made a while before the run). */
function age(file: string, secondsAgo = 60): void {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(file, t, t);
}

function write(file: string, text: string, secondsAgo?: number): void {
  mkdirSync(dirname(file), { recursive: true });
  const created = !existsSync(file);
  writeFileSync(file, text);
  if (secondsAgo === undefined) return;
  age(file, secondsAgo);
  // A new file also changes its folder's mtime; left fresh, the folder would count as "modified during the build".
  if (created) age(dirname(file), secondsAgo);
}

function ageTree(dir: string, secondsAgo = 60): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) ageTree(path, secondsAgo);
    age(path, secondsAgo);
  }
  age(dir, secondsAgo);
}

describe("fast start on a fixture workspace: an edit is always seen", () => {
  let ws: string;
  let run: (args?: string[], env?: Record<string, string>) => Run;
  const main = () => join(ws, "app/src/main.ts");

  beforeAll(() => {
    ws = mkdtempSync(join(tmpdir(), "tessera-fast-start-"));
    write(join(ws, "package.json"), JSON.stringify({ name: "fixture", private: true, type: "module" }));
    write(join(ws, "app/package.json"), JSON.stringify({ name: "fixture-app", private: true, type: "module" }));
    write(
      join(ws, "app/src/main.ts"),
      [
        'import { Named as Other, greeting } from "./greeting.js";',
        'import { packaged } from "@tessera/fixture-pkg";',
        'import pad from "fixture-dep";',
        "class Named {}",
        'if (process.argv[2] === "throw") throw new Error("thrown on purpose");',
        "const here: string = import.meta.url;",
        'console.log(JSON.stringify({ greeting: greeting(), packaged, dep: pad("x"), url: here, argv1: process.argv[1], args: process.argv.slice(2), names: [Named.name, Other.name] }));',
        "process.exitCode = Number(process.argv[2] ?? 0) || 0;",
        "",
      ].join("\n"),
    );
    write(join(ws, "app/src/greeting.ts"), 'export class Named {}\nexport const greeting = (): string => "one";\n');
    write(
      join(ws, "packages/pkg/package.json"),
      JSON.stringify({ name: "@tessera/fixture-pkg", type: "module", exports: { ".": { "@tessera/source": "./src/index.ts", default: "./dist/index.js" } } }),
    );
    write(join(ws, "packages/pkg/src/index.ts"), 'export const packaged: string = "pkg-1";\n');
    write(join(ws, "packages/pkg/src/other.ts"), 'export const packaged: string = "pkg-other";\n');
    write(join(ws, "node_modules/fixture-dep/package.json"), JSON.stringify({ name: "fixture-dep", main: "index.js" }));
    write(join(ws, "node_modules/fixture-dep/index.js"), 'module.exports = (s) => "[" + s + "]";\n');
    mkdirSync(join(ws, "node_modules/@tessera"), { recursive: true });
    symlinkSync(join(ws, "packages/pkg"), join(ws, "node_modules/@tessera/fixture-pkg"));
    write(
      join(ws, "run.mjs"),
      `import { launch } from ${JSON.stringify(launchModule)};\n` +
        `await launch({ name: "fixture", entry: ${JSON.stringify(join(ws, "app/src/main.ts"))}, root: ${JSON.stringify(ws)}, cacheDir: ${JSON.stringify(join(ws, "cache"))}, args: process.argv.slice(2) });\n`,
    );
    // Everything was written "a while ago": a run right now may trust what it reads.
    ageTree(ws);
    run = (args = [], env = {}) => node(join(ws, "run.mjs"), args, env, ws);
  });

  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  const output = (r: Run) => {
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout) as { greeting: string; packaged: string; dep: string; url: string; argv1: string; args: string[]; names: string[] };
  };

  it("builds on the first run; the bundle sees what the sources see (import.meta.url, argv, names, packages)", () => {
    const first = run(["0", "x"]);
    expect(first.log).toMatch(/rebuilt in \d+ ms \(no bundle yet\)/);
    expect(output(first)).toEqual({
      greeting: "one",
      packaged: "pkg-1",
      dep: "[x]",
      url: pathToFileURL(main()).href,
      argv1: main(),
      args: ["0", "x"],
      names: ["Named", "Named"],
    });
    const second = run(["0", "x"]);
    expect(second.log).toMatch(/fresh bundle/);
    expect(output(second)).toEqual(output(first));
  });

  it("an edit of a source, even one that keeps its size, is seen by the next run", () => {
    write(join(ws, "app/src/greeting.ts"), 'export class Named {}\nexport const greeting = (): string => "two";\n', 30);
    const r = run();
    expect(r.log).toMatch(/rebuilt .*greeting\.ts changed/);
    expect(output(r).greeting).toBe("two");
    expect(run().log).toMatch(/fresh bundle/);
  });

  it("an edit made just before the run is seen, and the next run does not trust the build that may have missed a later one", () => {
    writeFileSync(join(ws, "app/src/greeting.ts"), 'export class Named {}\nexport const greeting = (): string => "three";\n');
    const r = run();
    expect(output(r).greeting).toBe("three");
    const manifest = JSON.parse(readFileSync(join(ws, "cache/manifest.json"), "utf8")) as { inputs: [string, number, number][] };
    const stamp = manifest.inputs.find(([p]) => p === join(ws, "app/src/greeting.ts"));
    // Modified within a moment of the build's start: recorded as unknown, so the next run rebuilds.
    if (stamp![1] === -1) expect(run().log).toMatch(/rebuilt .*modified during the last build/);
    age(join(ws, "app/src/greeting.ts"));
    expect(output(run()).greeting).toBe("three");
  });

  it("an edit of a workspace package's source is seen", () => {
    write(join(ws, "packages/pkg/src/index.ts"), 'export const packaged: string = "pkg-2";\n', 30);
    expect(output(run()).packaged).toBe("pkg-2");
  });

  it("a change of a package.json (where a package's source is) is seen", () => {
    write(
      join(ws, "packages/pkg/package.json"),
      JSON.stringify({ name: "@tessera/fixture-pkg", type: "module", exports: { ".": { "@tessera/source": "./src/other.ts" } } }),
      30,
    );
    const r = run();
    expect(r.log).toMatch(/rebuilt .*package\.json changed/);
    expect(output(r).packaged).toBe("pkg-other");
  });

  it("a file added to a source folder, or a tsconfig.json where there was none, rebuilds", () => {
    write(join(ws, "app/src/new-file.ts"), "export {};\n", 30);
    expect(run().log).toMatch(/rebuilt .*app\/src changed/);
    write(join(ws, "app/tsconfig.json"), "{}\n", 30);
    expect(run().log).toMatch(/rebuilt .*app\/tsconfig\.json appeared/);
  });

  it("a bundle file that is gone rebuilds", () => {
    const manifest = JSON.parse(readFileSync(join(ws, "cache/manifest.json"), "utf8")) as { outDir: string; entry: string };
    rmSync(join(manifest.outDir, manifest.entry));
    const r = run();
    expect(r.log).toMatch(/rebuilt .* is gone/);
    expect(output(r).greeting).toBe("three");
  });

  it("a rebuild removes builds older than an hour, and keeps recent ones (a running process may still load their chunks)", () => {
    const cache = join(ws, "cache");
    mkdirSync(join(cache, "old-build"));
    mkdirSync(join(cache, "recent-build"));
    age(join(cache, "old-build"), 2 * 3600);
    age(join(cache, "recent-build"), 10 * 60);
    age(join(ws, "app/src/greeting.ts"), 25);
    expect(run().log).toMatch(/rebuilt .*greeting\.ts changed/);
    const left = readdirSync(cache);
    expect(left).not.toContain("old-build");
    expect(left).toContain("recent-build");
  });

  it("the exit code, and a thrown error's stack in the .ts source", () => {
    expect(run(["3"]).status).toBe(3);
    const thrown = run(["throw"]);
    expect(thrown.status).toBe(1);
    expect(thrown.stderr).toContain("thrown on purpose");
    expect(thrown.stderr).toContain(`${main()}:5`);
  });

  it("a source that does not compile runs through tsx, which reports it as before; once fixed, the bundle again", () => {
    const greeting = join(ws, "app/src/greeting.ts");
    const good = readFileSync(greeting, "utf8");
    write(greeting, "export const greeting = (: string => ;\n", 30);
    const broken = run();
    expect(broken.log).toMatch(/through tsx: the bundle could not be built/);
    expect(broken.status).not.toBe(0);
    expect(broken.stderr).toContain("greeting.ts");
    write(greeting, good, 20);
    const fixed = run();
    expect(fixed.log).toMatch(/rebuilt/);
    expect(output(fixed).greeting).toBe("three");
  });

  it("an import of a name that a module does not export fails as it does in Node (esbuild only warns: no bundle, tsx)", () => {
    const file = join(ws, "app/src/main.ts");
    const good = readFileSync(file, "utf8");
    write(
      file,
      good.replace(
        'import { Named as Other, greeting } from "./greeting.js";',
        'import { Named as Other, greeting, notExported } from "./greeting.js";\nconsole.log(notExported);',
      ),
      30,
    );
    const r = run();
    expect(r.log).toMatch(/through tsx: the bundle could not be built .*notExported/);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/does not provide an export named 'notExported'/);
    write(file, good, 20);
    expect(output(run()).greeting).toBe("three");
  });

  it("TESSERA_FAST_START=0 runs the sources through tsx, with the same output", () => {
    const viaTsx = run(["0", "y"], { TESSERA_FAST_START: "0" });
    expect(viaTsx.log).toMatch(/through tsx: TESSERA_FAST_START=0/);
    expect(output(viaTsx)).toEqual(output(run(["0", "y"])));
  });
});

describe("fast start: worker threads start from entries of the same bundle", () => {
  let ws: string;
  let run: (env?: Record<string, string>) => Run;

  beforeAll(() => {
    ws = mkdtempSync(join(tmpdir(), "tessera-fast-start-workers-"));
    write(join(ws, "package.json"), JSON.stringify({ name: "fixture", private: true, type: "module" }));
    write(
      join(ws, "app/src/main.ts"),
      [
        'import { Worker } from "node:worker_threads";',
        'import { greeting } from "./greeting.js";',
        'const entry: string = process.env.TESSERA_WORKER_ENTRY_ECHO_WORKER ?? "";',
        "const worker = new Worker(entry);",
        'worker.once("message", (fromWorker: string) => console.log(JSON.stringify({ main: greeting(), worker: fromWorker, entry })));',
        "",
      ].join("\n"),
    );
    write(
      join(ws, "app/src/echo-worker.ts"),
      'import { parentPort } from "node:worker_threads";\nimport { greeting } from "./greeting.js";\nparentPort?.postMessage(greeting());\n',
    );
    write(join(ws, "app/src/greeting.ts"), 'export const greeting = (): string => "one";\n');
    write(
      join(ws, "run.mjs"),
      `import { launch } from ${JSON.stringify(launchModule)};\n` +
        `await launch({ name: "fixture", entry: ${JSON.stringify(join(ws, "app/src/main.ts"))}, workers: { "echo-worker": ${JSON.stringify(join(ws, "app/src/echo-worker.ts"))} }, root: ${JSON.stringify(ws)}, cacheDir: ${JSON.stringify(join(ws, "cache"))}, args: [] });\n`,
    );
    ageTree(ws);
    run = (env = {}) => node(join(ws, "run.mjs"), [], env, ws);
  });

  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  const output = (r: Run) => {
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    return JSON.parse(r.stdout) as { main: string; worker: string; entry: string };
  };

  it("the worker's entry is a file of the bundle, and it runs the code the sources have", () => {
    const first = output(run());
    expect(first).toMatchObject({ main: "one", worker: "one" });
    expect(first.entry.startsWith(join(ws, "cache"))).toBe(true);
    expect(first.entry).toMatch(/worker-echo-worker-\w+\.mjs$/);
  });

  it("an edit of a module the worker imports is seen by the worker on the next run", () => {
    write(join(ws, "app/src/greeting.ts"), 'export const greeting = (): string => "two";\n', 30);
    expect(output(run())).toMatchObject({ main: "two", worker: "two" });
  });

  it("a worker entry the user named is kept", () => {
    const own = join(ws, "own-worker.mjs");
    write(own, 'import { parentPort } from "node:worker_threads";\nparentPort?.postMessage("own");\n', 60);
    expect(output(run({ TESSERA_WORKER_ENTRY_ECHO_WORKER: own }))).toEqual({ main: "two", worker: "own", entry: own });
  });
});

describe("fast start on a copy of the CLI's sources", () => {
  let ws: string;

  beforeAll(() => {
    ws = mkdtempSync(join(tmpdir(), "tessera-fast-start-cli-"));
    cpSync(join(repo, "apps/cli/src"), join(ws, "apps/cli/src"), { recursive: true });
    for (const f of ["package.json", "tsconfig.json"]) cpSync(join(repo, "apps/cli", f), join(ws, "apps/cli", f));
    cpSync(join(repo, "tsconfig.base.json"), join(ws, "tsconfig.base.json"));
    // The workspace packages and dependencies as installed for the CLI.
    symlinkSync(join(repo, "apps/cli/node_modules"), join(ws, "apps/cli/node_modules"));
    write(
      join(ws, "run.mjs"),
      `import { launch } from ${JSON.stringify(launchModule)};\n` +
        `await launch({ name: "tessera", entry: ${JSON.stringify(join(ws, "apps/cli/src/main.ts"))}, root: ${JSON.stringify(ws)}, cacheDir: ${JSON.stringify(join(ws, "cache"))}, args: process.argv.slice(2) });\n`,
    );
    ageTree(join(ws, "apps"));
  });

  afterAll(() => rmSync(ws, { recursive: true, force: true }));

  it("an edited command summary shows in the next `tessera --help`", () => {
    const before = node(join(ws, "run.mjs"), ["--help"]);
    expect(before.status).toBe(0);
    expect(before.stdout).toContain("parse a TVMScript file and print it in canonical form");
    const specs = join(ws, "apps/cli/src/commands/specs.ts");
    write(
      specs,
      readFileSync(specs, "utf8").replace("parse a TVMScript file and print it in canonical form", "parse a TVMScript file, print it canonically (edited)"),
      30,
    );
    const after = node(join(ws, "run.mjs"), ["--help"]);
    expect(after.log).toMatch(/rebuilt .*specs\.ts changed/);
    expect(after.stdout).toContain("parse a TVMScript file, print it canonically (edited)");
  }, 120_000);
});

describe("pnpm tessera and pnpm grade from the bundle behave as from the sources", () => {
  let cache: string;
  const tessera = (args: string[], env: Record<string, string> = {}) => node(launcher, ["tessera", ...args], { TESSERA_FAST_START_CACHE: cache, ...env });
  const grade = (args: string[], env: Record<string, string> = {}) => node(launcher, ["grade", ...args], { TESSERA_FAST_START_CACHE: cache, ...env });
  const inProcess = async (args: string[], env: Record<string, string> = {}) => {
    const io = Object.assign(captureIO(), { env });
    const status = await runCli(args, io);
    return { status, stdout: io.out, stderr: io.err };
  };
  const plain = (r: Run) => ({ status: r.status, stdout: r.stdout, stderr: r.stderr });

  beforeAll(() => {
    cache = mkdtempSync(join(tmpdir(), "tessera-fast-start-cache-"));
  });
  afterAll(() => rmSync(cache, { recursive: true, force: true }));

  it("tessera: help, usage errors, a command, colour", async () => {
    const help = tessera(["--help"]);
    expect(help.log).toMatch(/rebuilt/);
    expect(plain(help)).toEqual(await inProcess(["--help"]));
    expect(plain(tessera([]))).toEqual(await inProcess([]));
    expect(plain(tessera(["frobnicate"]))).toEqual(await inProcess(["frobnicate"]));
    expect(plain(tessera(["tune", "--help"]))).toEqual(await inProcess(["tune", "--help"]));
    const example = join(repo, "examples/vector_add_cpu.py");
    expect(plain(tessera(["print", example]))).toEqual(await inProcess(["print", example]));
    expect(plain(tessera(["print", example], { FORCE_COLOR: "1" }))).toEqual(await inProcess(["print", example], { FORCE_COLOR: "1" }));
    expect(plain(tessera(["print", example, "--color"], { NO_COLOR: "1" }))).toEqual(await inProcess(["print", example, "--color"], { NO_COLOR: "1" }));
    expect(plain(tessera(["print", join(repo, "examples/no-such-file.py")]))).toEqual(await inProcess(["print", join(repo, "examples/no-such-file.py")]));
  }, 120_000);

  it("tessera tune --space FILE runs through tsx (the space file may be TypeScript)", () => {
    const r = tessera(["tune", join(repo, "examples/no-such-file.py"), "--space", "space.ts", "--help"]);
    expect(r.log).toMatch(/through tsx: --space imports a file of the user's/);
    expect(r.status).toBe(0);
  }, 60_000);

  it("grade: help and a usage error (grading itself: assignments/gemm-relu-add/test/assignment-scripts.test.ts)", () => {
    const help = grade(["--help"]);
    expect(help.log).toMatch(/rebuilt|fresh bundle/);
    expect(help.status).toBe(0);
    expect(help.stderr).toBe("");
    expect(help.stdout).toMatch(/^Usage: tessera-grade \[command\] \[options\]\n/);
    for (const name of ["tune", "batch", "package-gradescope", "worker"]) expect(help.stdout).toContain(`\n  ${name} `);
    const tuneHelp = grade(["tune", "--help"]);
    expect(tuneHelp.status).toBe(0);
    expect(tuneHelp.stdout).toMatch(/^Usage: tessera-grade tune \[options\]\n/);
    const bad = grade(["--no-such-option"]);
    expect(bad.status).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toMatch(/^tessera-grade: Unknown option '--no-such-option'.*\n\(see tessera-grade --help\)\n$/s);
  }, 120_000);

  it("every package left external is the file Node itself resolves for that import", () => {
    const pairs: [string, string, string][] = [];
    for (const app of ["tessera", "grade"]) {
      const manifest = JSON.parse(readFileSync(join(cache, app, "manifest.json"), "utf8")) as { externals: [string, string, string][] };
      expect(manifest.externals.length).toBeGreaterThan(0);
      pairs.push(...manifest.externals);
    }
    const script = `const pairs = ${JSON.stringify(pairs)};
      const { pathToFileURL, fileURLToPath } = await import("node:url");
      console.log(JSON.stringify(pairs.map(([from, spec]) => fileURLToPath(import.meta.resolve(spec, pathToFileURL(from).href)))));`;
    const res = spawnSync(process.execPath, ["--experimental-import-meta-resolve", "--conditions=@tessera/source", "--input-type=module", "-e", script], {
      encoding: "utf8",
      env: childEnv(),
    });
    expect(res.status, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual(pairs.map(([, , file]) => file));
  }, 60_000);
});
