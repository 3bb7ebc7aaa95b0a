// The help texts of arena-sim and of each command (`arena-sim help <command>`, `<command> --help`); the command
// list is the keys of HELP.
import { availableParallelism } from "node:os";
import { MAP_NAMES } from "../rules.ts";
import { VERSIONS } from "../versions.ts";
import { houseBotNames } from "./seats.ts";

export const HELP: Record<string, string> = {
  main: `arena-sim ${VERSIONS.release}: the ladder's match engine, offline (engine ${VERSIONS.engine}, rules ${VERSIONS.rules})

usage: arena-sim <command> [options]

commands:
  play      play matches between two bots and print a summary
  verify    re-simulate replay files and check them line by line
  fork      rebuild a replay at a tick and play on from there with other seats
  observe   print the observation a fighter got at a tick of a replay
  league    run a round of games among local bots and rate them as the ladder does
  check     compare this simulator with a ladder's running release and rules
  version   print the versions as JSON
  rules     print the rules table as JSON
  help      show help for a command (arena-sim help play)

exit codes: 0 ok, 1 a replay failed to verify, 2 usage or network error, 3 outdated (check)
docs: /docs/simulator on any ladder
`,
  play: `usage: arena-sim play --a <bot> --b <bot> [options]

Plays matches between two bots with the ladder's engine and prints a summary: results with a Wilson 95 %
interval, end reasons, ticks, stat averages, and each bot's errors (crashes, hangs, refused turns).

bots:
  <house bot>           ${houseBotNames().join(", ")}
  module:<path>         a .mjs/.js module (.ts with tsx) exporting createDecide(hello) or decide(obs),
                        or a default export of either; runs in a worker thread
  cmd:<command line>    a program speaking the JSON protocol over stdin/stdout, one message per line

options:
  --a <bot>             first bot (required)
  --b <bot>             second bot (required)
  --matches <n>         matches to play (default 10); seats swap every other match
  --map <name>          ${MAP_NAMES.join(", ")} or all (default all: rotate the maps)
  --seed <s>            seed of the first match (default 1); match i uses seed s+i
  --replays <dir>       write each replay to <dir>/<match_id>.jsonl.gz
  --tick-ms <ms>        per-turn deadline (default 1000, as on the ladder)
  --startup-ms <ms>     window to send ready (default 10000)
  --json                print the summary as JSON
  --quiet               no progress, no bot stderr
  -h, --help            this help
`,
  verify: `usage: arena-sim verify <replay.jsonl.gz>...

Re-simulates each replay with this engine and requires every line to match; prints
"ok <match_id>: <ticks> ticks, <winner>, <reason>" or "FAIL <file>: <what differs>". Exit 1 if any fails.
Only replays recorded with the same engine version (${VERSIONS.engine}) can be re-simulated.
`,
  fork: `usage: arena-sim fork <replay.jsonl.gz> --tick <n> --a <seat> --b <seat> [options]

Re-simulates the replay's recorded inputs up to tick n, checks every rebuilt line against the replay, then
plays on from tick n with the given seats and writes the fork's replay. --a sits in fighter 0, --b in
fighter 1 (as in the replay). A seat is a bot (as for play) or "replay", which keeps that fighter's recorded
turns (and stands still if the match outlasts the recording). Both seats "replay" rebuild the recording
byte for byte.

seats:
  replay                the fighter's recorded inputs
  <house bot>           ${houseBotNames().join(", ")}
  module:<path>         a .mjs/.js module, as for play
  cmd:<command line>    a program speaking the JSON protocol, as for play

options:
  --tick <n>            the tick to fork at (required): the first tick the new seats answer
  --a <seat>            fighter 0 from tick n (required)
  --b <seat>            fighter 1 from tick n (required)
  --out <file>          where to write the fork's replay (default <match_id>-fork-<n>.jsonl.gz)
  --json                print the result as JSON
  --quiet               no bot stderr
  -h, --help            this help

exit codes: 0 played, 1 the replay cannot be read or does not re-simulate, 2 usage error
`,
  observe: `usage: arena-sim observe <replay.jsonl.gz> --tick <n> --seat <fighter> [--pretty]

Re-simulates the replay up to tick n (checking it line by line) and prints the observation message fighter
<fighter> (0, 1, a, b or its name) was sent at tick n, as one JSON line. The replay holds no reply times, so
tick_ms and budget_ms_left are given as if every earlier reply had taken 0 ms; every other field is exact.

options:
  --tick <n>            the tick (required)
  --seat <fighter>      0 or a (fighter 0), 1 or b (fighter 1), or a fighter's name (required)
  --pretty              indent the JSON
  -h, --help            this help
`,
  league: `usage: arena-sim league --bots <bot> <bot> [<bot>...] --games <n> [options]

Plays a round of games among local bots and rates them with the ladder's own code: every pair plays n games,
each on the pair's least-played map with seats balanced (the ladder's rules), on worker threads (one per
core by default). Results go to a file as they finish; run the same command again to resume a stopped league.
Prints the ladder's table: rating, deviation, leaderboard score, 95 % interval, record.

bots: as for play (house bots, module:<path>, cmd:<command line>); at least two, each once.

options:
  --bots <bot>...       the bots (or repeat --bots <bot>)
  --games <n>           games per pair of bots (required)
  --seed <s>            seed of the first game (default 1); game i uses seed s+i
  --results <file>      results file, JSON Lines (default league-results.jsonl); resumed when it exists
  --workers <n>         worker threads (default: one per core, ${availableParallelism()} here)
  --replays <dir>       write each game's replay to <dir>/<match_id>.jsonl.gz
  --tick-ms <ms>        per-turn deadline (default 1000)
  --startup-ms <ms>     window to send ready (default 10000)
  --json                print the table as JSON
  --quiet               no progress, no bot stderr
  -h, --help            this help
`,
  check: `usage: arena-sim check --ladder <base_url>
       arena-sim check --release <release> --rules-hash <hash>

Compares this simulator (release ${VERSIONS.release}) with a ladder's running release and rules hash, fetched
from <base_url>/api, or with values you give. Prints "current" (exit 0) or "outdated: ..." with where to
download the current simulator (exit 3). A ladder that cannot be reached is exit 2.
`,
  version: `usage: arena-sim version

Prints release, engine, protocol, rules and rules_hash as JSON.
`,
  rules: `usage: arena-sim rules

Prints the rules table (the same JSON as hello.rules and /docs/rules.json).
`,
};
HELP.help = HELP.main!;
