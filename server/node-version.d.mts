// Types of server/node-version.mjs (plain JavaScript, so an unsupported Node can run it).
export declare const SUPPORTED_NODE: string;
export declare function satisfies(version: string, range: string): boolean;
export declare function nodeVersionProblem(version: string, range?: string): string | null;
