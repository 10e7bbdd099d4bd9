/**
 * The raw text of a string option. cac (through mri) turns numeric-looking values into numbers,
 * so `--api-key 0123` would arrive as `123` and `--message ""` as `0`; secrets, paths and
 * messages are read back from argv instead. The last occurrence wins.
 */
export function rawOption(argv: readonly string[], name: string): string | undefined {
  return rawOptionValues(argv, name).at(-1);
}

/** Every value of a repeatable string option, in order (`--tag a --tag=b`). */
export function rawOptionValues(argv: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") break;
    if (arg === `--${name}`) {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("-")) {
        values.push(next);
        i++;
      }
    } else if (arg?.startsWith(`--${name}=`)) {
      values.push(arg.slice(name.length + 3));
    }
  }
  return values;
}
