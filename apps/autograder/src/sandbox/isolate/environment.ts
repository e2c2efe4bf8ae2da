/**
 * Shapes the isolate's global scope before any student code runs. A fresh V8 isolate already has
 * none of Node's objects (no `process`, `require`, timers, network or file system); this adds the
 * little a submission may use (a `console` the host captures, `performance.now`) and takes away
 * what it has no use for: code generation from strings, WebAssembly and shared memory. It then
 * freezes the packages the submission shares with the harness, so student code cannot rewrite the
 * schedule or trace classes the harness reads back.
 */
import { CONSOLE_SINK_GLOBAL, RUNTIME_GLOBAL } from "./globals.js";

type ConsoleSink = (stream: "out" | "err", text: string) => void;

export function prepareIsolate(sharedPackages: readonly object[]): void {
  const global = globalThis as Record<string, unknown>;
  const sink = global[CONSOLE_SINK_GLOBAL] as ConsoleSink | undefined;
  delete global[CONSOLE_SINK_GLOBAL];
  delete global[RUNTIME_GLOBAL];
  global.console = makeConsole(sink ?? (() => undefined));
  global.performance = Object.freeze({ now: () => Date.now() });
  for (const name of ["WebAssembly", "SharedArrayBuffer", "Atomics", "eval"]) delete global[name];
  // The bundler's fallback for a `require`/`import()` it could not resolve calls this one.
  global.require = refuseModule;
  blockCodeGeneration();
  for (const pkg of sharedPackages) deepFreeze(pkg);
}

function refuseModule(name: unknown): never {
  throw new Error(
    `a submission may not load "${String(name)}": the grading sandbox has no modules but @tessera/ir, @tessera/schedule and the submission's own files`,
  );
}

/** `console.log` and friends as text for the host; objects are shown as JSON where they can be. */
function makeConsole(sink: ConsoleSink): Record<string, (...args: unknown[]) => void> {
  const write =
    (stream: "out" | "err") =>
    (...args: unknown[]) =>
      sink(stream, args.map(describe).join(" "));
  const out = write("out");
  const err = write("err");
  return Object.freeze({ log: out, info: out, debug: out, trace: err, warn: err, error: err, dir: out, table: out });
}

function describe(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
  if (typeof value === "object" && value !== null) {
    try {
      return JSON.stringify(value) ?? String(value);
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
  return String(value);
}

/**
 * `Function`, and the constructors reachable from any function's prototype chain (async,
 * generator), compile strings: each is replaced by one that refuses. `instanceof Function` keeps
 * working because the stand-in shares the real prototype.
 */
function blockCodeGeneration(): void {
  const refuse = function (): never {
    throw new EvalError("code generation from strings is not available in the grading sandbox");
  };
  const prototypes = [
    Function.prototype,
    Object.getPrototypeOf(async function () {}) as object,
    Object.getPrototypeOf(function* () {}) as object,
    Object.getPrototypeOf(async function* () {}) as object,
  ];
  refuse.prototype = Function.prototype;
  for (const proto of prototypes) Object.defineProperty(proto, "constructor", { value: refuse, writable: false, configurable: false });
  Object.defineProperty(globalThis, "Function", { value: refuse, writable: false, configurable: false });
}

/**
 * Freezes an object graph: the packages' namespaces, their classes and the classes' prototypes.
 * The language's own objects (Error, Map, Object.prototype, …) are not followed: they are the
 * student's as much as ours.
 */
function deepFreeze(root: object): void {
  const builtins = builtinObjects();
  const pending: object[] = [root];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const value = pending.pop()!;
    if (seen.has(value) || builtins.has(value)) continue;
    seen.add(value);
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) {
      const desc = Object.getOwnPropertyDescriptor(value, key);
      // A bundled namespace exposes each export through a getter: follow what it returns too.
      const got = desc?.get === undefined ? undefined : readExport(value, key);
      for (const v of [desc?.value, desc?.get, desc?.set, got]) {
        if ((typeof v === "object" && v !== null) || typeof v === "function") pending.push(v as object);
      }
    }
    const proto = Object.getPrototypeOf(value) as object | null;
    if (proto !== null) pending.push(proto);
  }
}

function readExport(holder: object, key: PropertyKey): unknown {
  try {
    return Reflect.get(holder, key);
  } catch {
    return undefined;
  }
}

/** The global object, every global value and its prototype, and the prototypes of functions. */
function builtinObjects(): Set<object> {
  const global = globalThis as Record<string, unknown>;
  const found = new Set<object>([globalThis]);
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    const value = global[name];
    if ((typeof value === "object" && value !== null) || typeof value === "function") {
      found.add(value);
      const proto = (value as { prototype?: unknown }).prototype;
      if (typeof proto === "object" && proto !== null) found.add(proto);
    }
  }
  for (const fn of [async function () {}, function* () {}, async function* () {}]) found.add(Object.getPrototypeOf(fn) as object);
  return found;
}
