/** The webhook tests' shared set-up: a harness whose dispatch loop is off (tests call dispatchOnce) and a receiver. */
import { startHarness, type Harness } from '../support/harness.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

/** Starts a harness with WEBHOOK_DISPATCH_MS=0 and a webhook receiver; close both in `after`. */
export async function startWebhookHarness(): Promise<{ h: Harness; rx: Receiver }> {
  const h = await startHarness({ WEBHOOK_DISPATCH_MS: '0', WEBHOOK_ALLOW_LOOPBACK: 'true' });
  try {
    return { h, rx: await startReceiver() };
  } catch (err) {
    await h.close();
    throw err;
  }
}
