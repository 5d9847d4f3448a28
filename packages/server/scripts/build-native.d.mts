/** Types of build-native.mjs for the TypeScript that imports it (the suite's global setup). */
/** Where the compiled addon lives (git/fast-spawn.ts loads it from there). */
export declare const NATIVE_SPAWN: string;
/** Builds the addon when it is missing or older than its source; returns whether it is there. */
export declare function buildNative(): boolean;
