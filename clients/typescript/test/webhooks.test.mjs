// verifyWebhook against deliveries signed by the Standard Webhooks reference
// implementation (Python's `standardwebhooks`): tests/clients/test_typescript_client.py
// signs them and passes them in GITLOOM_TEST_WEBHOOK_VECTORS, each with that
// implementation's own verdict, which this one must share.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { WebhookVerificationError, signWebhook, verifyWebhook } from "gitloom-client";

const VECTORS = process.env.GITLOOM_TEST_WEBHOOK_VECTORS;
const skip = VECTORS ? false : "needs vectors: run tests/clients/test_typescript_client.py";

describe("verifyWebhook", { skip }, () => {
  const vectors = VECTORS ? JSON.parse(VECTORS) : [];

  test("agrees with the reference implementation on every delivery", async () => {
    assert.ok(vectors.length >= 5);
    for (const vector of vectors) {
      const outcome = await verifyWebhook(vector.secret, vector.body, vector.headers).then(
        (payload) => ({ ok: true, payload }),
        (error) => ({ ok: false, error }),
      );
      assert.equal(outcome.ok, vector.valid, `${vector.name}: ${outcome.error ?? "verified"}`);
      if (vector.valid) {
        assert.deepEqual(outcome.payload, JSON.parse(vector.body), vector.name);
      } else {
        assert.ok(outcome.error instanceof WebhookVerificationError, `${vector.name}: ${outcome.error}`);
        assert.equal(outcome.error.code, vector.code, `${vector.name}: ${outcome.error}`);
      }
    }
  });

  test("takes the body as bytes and Headers in any case, as receivers get them", async () => {
    const vector = vectors.find((v) => v.name === "valid");
    const headers = new Headers(Object.entries(vector.headers).map(([k, v]) => [k.toUpperCase(), v]));
    const payload = await verifyWebhook(vector.secret, new TextEncoder().encode(vector.body), headers);
    assert.deepEqual(payload, JSON.parse(vector.body));
  });

  test("signWebhook signs as the reference does", async () => {
    const vector = vectors.find((v) => v.name === "valid");
    const { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature } = vector.headers;
    assert.equal(await signWebhook(vector.secret, id, Number(timestamp), vector.body), signature);
  });

  test("a delivery replayed after the tolerance is refused even with its real signature", async () => {
    const vector = vectors.find((v) => v.name === "valid");
    const later = new Date((Number(vector.headers["webhook-timestamp"]) + 301) * 1000);
    const error = await verifyWebhook(vector.secret, vector.body, vector.headers, { now: later }).catch((e) => e);
    assert.equal(error.code, "timestamp_out_of_tolerance");
    const payload = await verifyWebhook(vector.secret, vector.body, vector.headers, { now: later, toleranceSeconds: 600 });
    assert.deepEqual(payload, JSON.parse(vector.body));
  });

  test("missing headers are refused", async () => {
    const error = await verifyWebhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "{}", {}).catch((e) => e);
    assert.equal(error.code, "missing_headers");
  });
});
