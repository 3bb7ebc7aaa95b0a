// AssemblyScript's integer and boolean types as TypeScript sees them, for the one file both compile
// (engine/assembly/geometry.ts, imported by the house bots). A script (no import or export), so the names are
// global in the TypeScript program only; the AssemblyScript compiler never reads this file.
type i32 = number;
type bool = boolean;
