/**
 * Web Crypto, wherever the client runs: `globalThis.crypto` in browsers, edge
 * runtimes and Node >= 19; Node 18 has it only as `node:crypto`'s `webcrypto`.
 */
let cached: Promise<Crypto> | undefined;

export function webCrypto(): Promise<Crypto> {
  cached ??= (async () => {
    if (globalThis.crypto?.subtle) return globalThis.crypto;
    // A variable specifier, so bundlers for browsers leave this Node-only branch alone.
    const nodeCrypto = "node:crypto";
    const mod = (await import(/* webpackIgnore: true */ /* @vite-ignore */ nodeCrypto)) as { webcrypto: Crypto };
    return mod.webcrypto;
  })();
  return cached;
}

export async function randomUUID(): Promise<string> {
  return (await webCrypto()).randomUUID();
}
