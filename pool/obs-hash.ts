// The hash a match journal keeps of each tick's observations (cluster failover, issue 36 part 5): FNV-1a over the
// UTF-8 bytes the seat was sent, so the node that re-simulates a match can tell whether it reached the very state
// the bots saw. A 32-bit hash is enough: it checks a deterministic re-run, it does not guard against an attacker.
export function obsHash(bytes: Uint8Array | null): number {
  if (bytes === null) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0 || 1;
}
