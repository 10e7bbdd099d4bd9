/** Types of `entries.mjs` for the tests that import it. */
export declare const ENTRIES: Record<string, string>;
export declare const SOURCE_CONDITION: string;
export declare function exportsMap(): Record<string, { "agent-serve-source": string; types: string; import: string } | string>;
export declare function tsconfigPaths(): Record<string, string[]>;
