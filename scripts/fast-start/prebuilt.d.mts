/** Types of prebuilt.mjs for the TypeScript tests that import it. */
export interface PrebuiltBundle {
  /** Absolute path of the entry's `.mjs`. */
  readonly entry: string;
  /** Absolute path of each further entry's `.mjs`, by module name. */
  readonly workers: Readonly<Record<string, string>>;
}

export function prebuiltBundle(opts: {
  readonly name: string;
  readonly entry: string;
  readonly workers?: Readonly<Record<string, string>>;
}): Promise<PrebuiltBundle>;

/** The bundle of app `name` of apps.mjs (`grade`, `tessera`): the very bundle `pnpm grade` / `pnpm tessera` start from. */
export function prebuiltApp(name: string): Promise<PrebuiltBundle>;
