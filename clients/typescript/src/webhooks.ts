/**
 * Verifying a webhook delivery, per the Standard Webhooks spec
 * (https://www.standardwebhooks.com): the signature is HMAC-SHA256, keyed by the
 * endpoint's secret (`whsec_` + base64), over `${webhook-id}.${webhook-timestamp}.${body}`,
 * sent as `webhook-signature: v1,<base64>` (several, space-separated, while a secret
 * rotates); a timestamp more than 5 minutes from now is refused, so a captured
 * delivery cannot be replayed later. Web Crypto only: runs in Node, browsers and edge
 * runtimes.
 */
import { WebhookVerificationError } from "./errors.js";
import { webCrypto } from "./crypto.js";

export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = "whsec_";

export type WebhookHeaders =
  | Headers
  | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Seconds a timestamp may be from `now`, either way; default 300. */
  toleranceSeconds?: number;
  /** The time to check the timestamp against; default the clock's. */
  now?: Date;
}

const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === "string") return value;
    if (Array.isArray(value)) return value.join(" ");
  }
  return undefined;
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function secretBytes(secret: string): Uint8Array {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  try {
    const bytes = fromBase64(encoded);
    if (bytes.length > 0) return bytes;
  } catch {
    // fall through
  }
  throw new WebhookVerificationError("The webhook secret is not `whsec_` followed by base64.", "invalid_secret");
}

function bodyBytes(body: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof body === "string") return encoder.encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}

function signedContent(id: string, timestamp: string, body: Uint8Array): Uint8Array {
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const content = new Uint8Array(prefix.length + body.length);
  content.set(prefix);
  content.set(body, prefix.length);
  return content;
}

async function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  const crypto = await webCrypto();
  return crypto.subtle.importKey("raw", secretBytes(secret) as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

/**
 * Check a delivery's signature and timestamp and return its JSON payload. Pass the
 * body exactly as received (a string or its bytes, before any JSON parsing) and the
 * request's headers (a `Headers`, or Node's `req.headers`). Throws
 * `WebhookVerificationError` (its `code` says why) when the delivery is not genuine.
 *
 * ```js
 * const event = await verifyWebhook(process.env.GITLOOM_WEBHOOK_SECRET, await req.text(), req.headers);
 * ```
 */
export async function verifyWebhook(
  secret: string,
  body: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  options: VerifyWebhookOptions = {},
): Promise<unknown> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError(
      "A webhook delivery needs webhook-id, webhook-timestamp and webhook-signature headers.",
      "missing_headers",
    );
  }
  if (!/^\d+$/.test(timestamp.trim())) {
    throw new WebhookVerificationError("webhook-timestamp is not whole seconds since the epoch.", "invalid_timestamp");
  }
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const sent = Number(timestamp.trim());
  if (Math.abs(now - sent) > tolerance) {
    throw new WebhookVerificationError(
      `webhook-timestamp is ${now - sent} s from now, beyond the ${tolerance} s tolerance.`,
      "timestamp_out_of_tolerance",
    );
  }
  const bytes = bodyBytes(body);
  const content = signedContent(id, timestamp.trim(), bytes);
  const key = await hmacKey(secret, "verify");
  const crypto = await webCrypto();
  for (const entry of signatures.split(" ")) {
    const [version, signature] = entry.split(",", 2);
    if (version !== "v1" || !signature) continue;
    let expected: Uint8Array;
    try {
      expected = fromBase64(signature);
    } catch {
      continue;
    }
    // subtle.verify compares in constant time.
    if (await crypto.subtle.verify("HMAC", key, expected as BufferSource, content as BufferSource)) {
      return JSON.parse(new TextDecoder().decode(bytes));
    }
  }
  throw new WebhookVerificationError("No webhook-signature matches the body.", "invalid_signature");
}

/**
 * The `webhook-signature` value GitLoom sends for a delivery (`v1,<base64>`): for a
 * receiver's own tests. `timestamp` is seconds since the epoch.
 */
export async function signWebhook(
  secret: string,
  id: string,
  timestamp: number,
  body: string | Uint8Array | ArrayBuffer,
): Promise<string> {
  const key = await hmacKey(secret, "sign");
  const crypto = await webCrypto();
  const content = signedContent(id, String(timestamp), bodyBytes(body));
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", key, content as BufferSource));
  return `v1,${toBase64(signature)}`;
}
