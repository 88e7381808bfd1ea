/** Types of scripts/duckshop.mjs, for the TypeScript tests that call it. */
export declare const DUCKSHOP: string;
export declare function dbtVenv(options?: { quiet?: boolean }): { bin: string; reason?: undefined } | { bin: null; reason: string };
export declare function dbtEnv(project: string, bin: string): Record<string, string>;
export declare function copyDuckshop(dir: string): string;
export declare function commitAll(project: string, message: string): void;
export declare function loadSources(project: string, bin: string, args?: string[]): void;
