// What a bot strategy is to the engine's own tools: a factory that, given the match's hello, returns a
// function from observation to turn. House bots, the starters and user modules in the simulator all share it.
import type { HelloMessageT, ObservationT, Turn } from "../protocol.ts";

export type Decide = (obs: ObservationT) => Turn;

export interface Strategy {
  /** Ladder name, e.g. `kiter`. */
  name: string;
  display_name: string;
  /** Lobby difficulty label (SPEC 2 "Status and lobby"). */
  difficulty: "Easy" | "Medium" | "Hard" | "Very hard" | null;
  version: string;
  create(hello: HelloMessageT): Decide;
}
