/**
 * Trace JSON (see docs/trace-format.md). Our own, versioned format:
 *
 *   { "format": "tessera-trace", "version": 1,
 *     "instructions": [{ "kind": "Split", "inputs": ["l1", "v4", null], "attrs": [true, false],
 *                        "outputs": ["l8", "l9"] }, …],
 *     "decisions": [[2, [2, 4, 2, 8]], …] }
 *
 * and TVM's own array format `[[[kind, inputs, attrs, outputs], …], [[index, decision], …]]` are
 * both read; inputs name handles symbolically (`b0`, `l1`, `v4`), string literals are wrapped in
 * double quotes as in TVM (`"\"SSRSSR\""`), `null` (or TVM's `"None"`) is None.
 * Documents are validated with zod; every problem is reported as a `TraceFormatError` naming the
 * instruction index and field.
 */
import { z } from "zod";
import { BlockRV, ExprRV, LoopRV, type RV, isRV } from "../handles.js";
import type { Decision, Instruction, InstructionAttr, InstructionInput } from "../instruction.js";
import { allInstructionKinds } from "../instruction.js";
import { TraceFormatError } from "./errors.js";
import { traceKind, validInstructions } from "./kinds.js";
import { MAX_TRACE_NESTING, tooDeeplyNested } from "./nesting.js";
import { quickTrace } from "./quick-check.js";
import { INLINE_MARK_NAME, ROOT_MARK_NAME, TraceNames, undefinedHandleMessage } from "./names.js";
import type { TraceLike } from "./trace-like.js";

export const TRACE_FORMAT = "tessera-trace";
export const TRACE_VERSION = 1;

export type JSONInput = string | number | boolean | null | JSONInput[];
export type JSONAttr = string | number | boolean | null | JSONAttr[] | { [key: string]: JSONAttr };
export type JSONDecision = number | number[];

export interface TraceInstructionJSON {
  kind: string;
  inputs: JSONInput[];
  attrs: JSONAttr[];
  outputs: string[];
}

export interface TraceJSON {
  format: typeof TRACE_FORMAT;
  version: typeof TRACE_VERSION;
  instructions: TraceInstructionJSON[];
  decisions: Array<[number, JSONDecision]>;
}

/** TVM's `Trace.as_json()`: `[instructions, decisions]`. */
export type TVMTraceJSON = [Array<[string, JSONInput[], JSONAttr[], string[]]>, Array<[number, JSONDecision]>];

// ---- schemas -------------------------------------------------------------------------------

const inputSchema: z.ZodType<JSONInput> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(inputSchema)], {
    error: "expected a handle name, a quoted string, a number, a boolean, null or a list of those",
  }),
);
const attrSchema: z.ZodType<JSONAttr> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(attrSchema), z.record(z.string(), attrSchema)], {
    error: "expected a string, a number, a boolean, null, a list or an object",
  }),
);
const decisionSchema = z.union([z.number().int(), z.array(z.number().int())], {
  error: "expected an integer or a list of integers",
});
const decisionEntrySchema = z.tuple([z.number().int().nonnegative(), decisionSchema]);

const traceSchema = z
  .object({
    format: z.literal(TRACE_FORMAT),
    version: z.literal(TRACE_VERSION),
    instructions: z.array(
      z
        .object({
          kind: z.string().min(1),
          inputs: z.array(inputSchema),
          attrs: z.array(attrSchema),
          outputs: z.array(z.string()),
        })
        .strict(),
    ),
    decisions: z.array(decisionEntrySchema),
  })
  .strict();

const tvmTraceSchema = z.tuple([
  z.array(z.tuple([z.string().min(1), z.array(inputSchema), z.array(attrSchema), z.array(z.string())])),
  z.array(decisionEntrySchema),
]);

// ---- writing -------------------------------------------------------------------------------

export function traceToJSON(trace: TraceLike, opts: { removePostproc?: boolean } = {}): TraceJSON {
  const { insts, decisions } = encode(trace, opts.removePostproc === true, false);
  return {
    format: TRACE_FORMAT,
    version: TRACE_VERSION,
    instructions: insts.map(([kind, inputs, attrs, outputs]) => ({ kind, inputs, attrs, outputs })),
    decisions,
  };
}

export function traceToTVMJSON(trace: TraceLike, opts: { removePostproc?: boolean } = {}): TVMTraceJSON {
  const { insts, decisions } = encode(trace, opts.removePostproc === true, true);
  return [insts, decisions];
}

function encode(trace: TraceLike, removePostproc: boolean, tvm: boolean) {
  const names = new TraceNames();
  const insts: Array<[string, JSONInput[], JSONAttr[], string[]]> = [];
  const decisions: Array<[number, JSONDecision]> = [];
  validInstructions(trace.instructions, removePostproc).forEach((inst, index) => {
    const enc = (x: InstructionInput): JSONInput => {
      if (isRV(x)) {
        const name = names.nameOf(x);
        if (name === undefined) throw new TraceFormatError(`instructions[${index}]`, undefinedHandleMessage(x, index, inst));
        return name;
      }
      if (Array.isArray(x)) return x.map(enc);
      if (x === null) return tvm ? "None" : null;
      if (typeof x === "string") return `"${x}"`;
      return x as number | boolean;
    };
    const inputs = inst.inputs.map(enc);
    insts.push([inst.kind.name, inputs, inst.attrs.map(cloneAttr), names.define(inst.outputs)]);
    const d = trace.decisions.get(inst);
    if (d !== undefined) decisions.push([index, typeof d === "number" ? d : [...d]]);
  });
  return { insts, decisions };
}

function cloneAttr(a: InstructionAttr): JSONAttr {
  if (a === null || typeof a !== "object") return a;
  if (Array.isArray(a)) return a.map(cloneAttr);
  return Object.fromEntries(Object.entries(a as Record<string, InstructionAttr>).map(([k, v]) => [k, cloneAttr(v)]));
}

// ---- reading -------------------------------------------------------------------------------

export interface ParsedTrace {
  readonly instructions: Instruction[];
  readonly decisions: Map<Instruction, Decision>;
}

interface RawInstruction {
  kind: string;
  inputs: JSONInput[];
  attrs: JSONAttr[];
  outputs: string[];
}

/** Whether documents in our format go through `quickTrace` before zod (tests compare both). */
let quickChecks = true;

/** For tests: runs `f` with every document checked by zod alone. */
export function withZodOnly<T>(f: () => T): T {
  const previous = quickChecks;
  quickChecks = false;
  try {
    return f();
  } finally {
    quickChecks = previous;
  }
}

/** Before zod (recursive): a document nested deeper than any trace is refused by where it is. */
function refuseTooDeep(doc: unknown): void {
  const at = tooDeeplyNested(doc);
  if (at !== undefined) throw new TraceFormatError(at, `nested more than ${MAX_TRACE_NESTING} levels deep (no trace is)`);
}

/** Reads either format (a JSON text or an already parsed value). */
export function parseTraceJSON(json: unknown): ParsedTrace {
  let doc = json;
  if (typeof json === "string") {
    try {
      doc = JSON.parse(json) as unknown;
    } catch (err) {
      throw new TraceFormatError("", `not valid JSON (${(err as Error).message})`);
    }
  }
  if (Array.isArray(doc)) {
    refuseTooDeep(doc);
    const r = tvmTraceSchema.safeParse(doc);
    if (!r.success) throw zodProblem(r.error, tvmPath);
    const [insts, decisions] = r.data;
    return build(
      insts.map(([kind, inputs, attrs, outputs]) => ({ kind, inputs, attrs, outputs })),
      decisions,
      true,
    );
  }
  if (typeof doc !== "object" || doc === null) {
    throw new TraceFormatError("", `expected a trace object {"format": "${TRACE_FORMAT}", …} or TVM's [instructions, decisions] array`);
  }
  const header = doc as { format?: unknown; version?: unknown };
  if (header.format === TRACE_FORMAT && header.version !== TRACE_VERSION && typeof header.version === "number") {
    throw new TraceFormatError("version", `unsupported trace format version ${header.version} (this build reads version ${TRACE_VERSION})`);
  }
  const quick = quickChecks ? quickTrace(doc, TRACE_FORMAT, TRACE_VERSION) : undefined;
  if (quick !== undefined) return build(quick.instructions, quick.decisions, false);
  refuseTooDeep(doc);
  const r = traceSchema.safeParse(doc);
  if (!r.success) throw zodProblem(r.error, ourPath);
  return build(r.data.instructions, r.data.decisions, false);
}

function build(raw: readonly RawInstruction[], rawDecisions: ReadonlyArray<readonly [number, JSONDecision]>, tvm: boolean): ParsedTrace {
  const names = new Map<string, RV>();
  const instructions: Instruction[] = [];
  raw.forEach((r, i) => {
    const at = `instructions[${i}]`;
    const kind = traceKind(r.kind);
    if (kind === undefined) {
      const known = allInstructionKinds()
        .map((k) => k.name)
        .join(", ");
      throw new TraceFormatError(`${at}.kind`, `unknown instruction kind "${r.kind}" (known kinds: ${known})`);
    }
    if (r.attrs.length !== kind.attrNames.length) {
      const expected = kind.attrNames.length === 0 ? "no attributes" : `${kind.attrNames.length} (${kind.attrNames.join(", ")})`;
      throw new TraceFormatError(`${at}.attrs`, `${kind.name} takes ${expected}, got ${r.attrs.length}`);
    }
    const inputs = r.inputs.map((x, j) => decodeInput(x, `${at}.inputs[${j}]`, names));
    const attrs = r.attrs.map((a, j) => (tvm ? normalizeTVMAttr(kind.attrNames[j]!, a) : a));
    const outputs = r.outputs.map((name, j) => {
      const path = `${at}.outputs[${j}]`;
      if (names.has(name)) throw new TraceFormatError(path, `the name "${name}" is already defined by an earlier output`);
      const rv = placeholder(name, path);
      names.set(name, rv);
      return rv;
    });
    instructions.push({ kind, inputs, attrs, outputs });
  });
  const decisions = new Map<Instruction, Decision>();
  rawDecisions.forEach(([index, decision], j) => {
    const inst = instructions[index];
    if (inst === undefined) {
      throw new TraceFormatError(`decisions[${j}][0]`, `instruction index ${index} is out of range (the trace has ${instructions.length} instructions)`);
    }
    if (decisions.has(inst)) throw new TraceFormatError(`decisions[${j}][0]`, `instruction ${index} has more than one decision`);
    decisions.set(inst, decision);
  });
  return { instructions, decisions };
}

function decodeInput(x: JSONInput, path: string, names: ReadonlyMap<string, RV>): InstructionInput {
  if (x === null || typeof x === "number" || typeof x === "boolean") return x;
  if (Array.isArray(x)) return x.map((y, j) => decodeInput(y, `${path}[${j}]`, names));
  if (x === "None") return null;
  if (x.length >= 2 && x.startsWith('"') && x.endsWith('"')) return x.slice(1, -1);
  if (x === ROOT_MARK_NAME) return LoopRV.ROOT;
  if (x === INLINE_MARK_NAME) return LoopRV.INLINE;
  const rv = names.get(x);
  if (rv === undefined) {
    throw new TraceFormatError(path, `"${x}" is not a handle defined by an earlier instruction (string literals are written in quotes: "\\"${x}\\"")`);
  }
  return rv;
}

let nextPlaceholderUid = -1000;

/** A handle standing for a trace output before replay (never resolvable in a schedule). */
function placeholder(name: string, path: string): RV {
  if (name === "_") throw new TraceFormatError(path, 'null outputs ("_") are not supported');
  switch (name[0]) {
    case "b":
      return new BlockRV(nextPlaceholderUid--, name);
    case "l":
      return new LoopRV(nextPlaceholderUid--, name);
    case "v":
      return new ExprRV(name);
    default:
      throw new TraceFormatError(path, `output names start with b (block), l (loop) or v (value), got "${name}"`);
  }
}

/** TVM writes boolean attributes (preserve_unit_loops, …) as 1/0; our kinds take booleans. */
function normalizeTVMAttr(name: string, a: JSONAttr): InstructionAttr {
  if ((a === 0 || a === 1) && /^(preserve|disable|enable)_/.test(name)) return a === 1;
  return a;
}

// ---- zod issues as readable messages ---------------------------------------------------------

type PathFormatter = (path: readonly PropertyKey[]) => string;

function zodProblem(error: z.ZodError, format: PathFormatter): TraceFormatError {
  const issues = error.issues.slice(0, 3);
  const first = issues[0]!;
  const more = issues
    .slice(1)
    .map((i) => `; ${format(i.path)}: ${i.message}`)
    .join("");
  const extra = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more problems)` : "";
  return new TraceFormatError(format(first.path), `${first.message}${more}${extra}`);
}

function ourPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : `${out === "" ? "" : "."}${String(p)}`;
  return out;
}

const TVM_FIELDS = ["kind", "inputs", "attrs", "outputs"];

/** TVM's positional paths, spelled like ours: [0][3][1][2] → instructions[3].inputs[2]. */
function tvmPath(path: readonly PropertyKey[]): string {
  const [top, i, field, ...rest] = path;
  if (top === undefined) return "";
  const tail = rest.map((p) => `[${String(p)}]`).join("");
  if (top === 0) {
    if (i === undefined) return "instructions";
    if (field === undefined) return `instructions[${String(i)}]`;
    return `instructions[${String(i)}].${TVM_FIELDS[field as number] ?? String(field)}${tail}`;
  }
  if (top === 1) return `decisions${i === undefined ? "" : `[${String(i)}]`}${field === undefined ? "" : `[${String(field)}]`}${tail}`;
  return `[${String(top)}]`;
}
