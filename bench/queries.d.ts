/** Types of bench/queries.js (plain JS, for TypeScript tests). */
export interface BenchQuery { name: string; text: string }
export const MIX_SEQUENCE: number[];
export function queriesDir(): string;
export function formatParam(name: string, value: unknown): string;
export function instantiate(template: string, params: Record<string, unknown>): string;
export function loadQueries(params: string | Record<string, unknown>, dir?: string): { core: BenchQuery[]; explore: BenchQuery[]; mix: BenchQuery[] };
