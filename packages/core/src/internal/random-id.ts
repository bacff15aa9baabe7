/** A fresh id for a request, a recovery or an attempt (Web Crypto: Node 20 and browsers alike). */
export function createRandomId(): string {
  return globalThis.crypto.randomUUID();
}
