/**
 * C identifiers for IR names: sanitised (`i.outer` → `i_outer`), never a C/CUDA keyword or
 * built-in, and unique within one table (`i`, `i_1`, …). Lookups are by object identity, so
 * two distinct variables both called `i` get two names.
 */

const RESERVED = new Set([
  // C/C++ keywords that are plausible variable names.
  "auto",
  "bool",
  "break",
  "case",
  "char",
  "const",
  "continue",
  "default",
  "do",
  "double",
  "else",
  "enum",
  "extern",
  "float",
  "for",
  "goto",
  "if",
  "inline",
  "int",
  "long",
  "register",
  "return",
  "short",
  "signed",
  "sizeof",
  "static",
  "struct",
  "switch",
  "typedef",
  "union",
  "unsigned",
  "void",
  "volatile",
  "while",
  "class",
  "delete",
  "new",
  "namespace",
  "operator",
  "template",
  "this",
  "true",
  "false",
  "nullptr",
  "private",
  "public",
  "protected",
  "virtual",
  "using",
  "typename",
  "friend",
  "try",
  "catch",
  "throw",
  // CUDA built-ins and runtime names a kernel or launcher relies on.
  "threadIdx",
  "blockIdx",
  "blockDim",
  "gridDim",
  "warpSize",
  "dim3",
  "min",
  "max",
  "abs",
  "stream",
  "workspace",
  "workspace_base",
  "err",
  "allocated",
  "main",
  // Functions generated code calls: a variable of the same name would shadow them.
  "tessera_floordiv",
  "tessera_floormod",
  "make_float2",
  "make_float4",
  "make_double2",
  "make_int2",
  "make_int4",
  "exp",
  "expf",
  "log",
  "logf",
  "sqrt",
  "sqrtf",
  "tanh",
  "tanhf",
  "floor",
  "floorf",
  "ceil",
  "ceilf",
  "round",
  "roundf",
  "trunc",
  "truncf",
  "fabs",
  "fabsf",
  "pow",
  "powf",
  "fmin",
  "fminf",
  "fmax",
  "fmaxf",
  "fmod",
  "fmodf",
  "llabs",
  "cudaGetLastError",
  "cudaMallocAsync",
  "cudaFreeAsync",
]);

/** True for a plain C identifier (what a kernel or launcher name must be). */
export function isCIdentifier(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !RESERVED.has(name);
}

export function sanitizeIdentifier(name: string): string {
  let id = name.replace(/[^A-Za-z0-9_]/g, "_");
  if (id.length === 0) id = "v";
  if (/^[0-9]/.test(id)) id = `v_${id}`;
  // Identifiers with a double underscore or `_Capital` are reserved for the implementation.
  id = id.replace(/__+/g, "_").replace(/^_(?=[A-Z_])/, "v_");
  return id;
}

export class NameTable {
  private readonly used: Set<string>;
  private readonly names = new Map<object, string>();

  /** `reserved`: further words no name may take (another language's keywords and built-ins). */
  constructor(reserved: Iterable<string> = []) {
    this.used = new Set<string>([...RESERVED, ...reserved]);
  }

  /** Reserves `name` (sanitised, suffixed when taken) for `key` and returns it. */
  define(key: object, name: string): string {
    const base = sanitizeIdentifier(name);
    let candidate = base;
    for (let i = 1; this.used.has(candidate); i++) candidate = `${base}_${i}`;
    this.used.add(candidate);
    this.names.set(key, candidate);
    return candidate;
  }

  /** Reserves a fresh name not bound to any object (temporaries). */
  fresh(name: string): string {
    return this.define({}, name);
  }

  lookup(key: object): string | undefined {
    return this.names.get(key);
  }
}
