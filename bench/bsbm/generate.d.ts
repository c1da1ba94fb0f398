/** Types of bench/bsbm/generate.js (plain JS, for TypeScript tests). */
export interface GenerateParams {
  ProductXYZ: string;
  ProductType: string;
  ProductFeature1: string;
  ProductFeature2: string;
  ProductFeature3: string;
  ProductFeatureAbsent: string;
  OfferXYZ: string;
  ReviewXYZ: string;
  x: number;
  y: number;
  y3: number;
  currentDate: string;
}
export type EntityKind = 'ProductType' | 'ProductFeature' | 'Producer' | 'Product' | 'Vendor' | 'Offer' | 'Person' | 'Review';
export interface GenerateResult {
  triples: number;
  entities: Record<EntityKind, number>;
  triplesBy: Record<EntityKind, number>;
  shape: { depth: number; fanout: number[]; types: number; leaves: number; features: number; producers: number; vendors: number; persons: number; ratingSites: number };
  params: GenerateParams;
}
export const DEFAULT_SEED: number;
export const BSBM: string;
export const INST: string;
export const CURRENT_DATE: string;
export function mulberry32(seed: number): () => number;
export function typeTreeShape(pc: number): { depth: number; fanout: number[] };
export function generate(opts: {
  products: number;
  seed?: number;
  onTriple: (s: string, p: string, o: string) => void;
  onProgress?: (fraction: number, triples: number) => void;
}): GenerateResult;
