// The fork ships no types; its API is the original package's (see @types/edmonds-blossom).
declare module "edmonds-blossom-fixed" {
  /** Maximum-weight matching: edges as [i, j, weight]; returns each vertex's mate, or -1. */
  export default function blossom(edges: number[][], maxCardinality?: boolean): number[];
}
