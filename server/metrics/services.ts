// The operator's meters as a service: made before the store (so every statement is timed from the first), and
// handed to the features that count (ticks, matchmaker passes); null when metrics are off.
import type { Metrics } from "./metrics.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** The Prometheus meters (--metrics-token or --metrics-listen), or null when metrics are off. */
    meters: Metrics | null;
  }
}
