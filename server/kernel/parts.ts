// Response parts (issue 32): fields a feature adds to another feature's resource, declared by the adding feature
// rather than written into the owner's handler. The owner names its resource and what a part is given (by module
// augmentation of `PartOf`, like `Services`) and merges `parts.fill(resource, of)` into its answer; a feature
// that adds fields declares `parts` in its definition (kernel/feature.ts). So the account resource answers the
// insight feature's `regressions` without the accounts knowing the insight feature exists.

/** Each resource other features may add fields to, with what its parts are given; its owner adds the entry. */
// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation in each resource owner's folder
export interface PartOf {}

/** The fields one part adds. */
export type Fields = Record<string, unknown>;

export type PartFill<R extends keyof PartOf> = (of: PartOf[R]) => Fields | Promise<Fields>;

export class ResponseParts {
  private readonly fills = new Map<keyof PartOf, PartFill<never>[]>();

  /** A feature's part of `resource` (composeFeatures adds each feature's `parts` as it builds it). */
  add<R extends keyof PartOf>(resource: R, fill: PartFill<R>): void {
    const list = this.fills.get(resource) ?? [];
    list.push(fill as PartFill<never>);
    this.fills.set(resource, list);
  }

  /** Every part's fields for one resource, asked together and merged in feature-list order. */
  async fill<R extends keyof PartOf>(resource: R, of: PartOf[R]): Promise<Fields> {
    const list = (this.fills.get(resource) ?? []) as PartFill<R>[];
    const got = await Promise.all(list.map((f) => f(of)));
    return Object.assign({}, ...got) as Fields;
  }
}
