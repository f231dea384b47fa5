/**
 * The official ACP schemas the conformance command validates with (Ajv, JSON Schema 2020-12): the JSON Schema bundles,
 * and the webhook OpenAPI's `WebhookEvent`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { ACP_VERSION, type Bundle } from './context.ts';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** The directory holding the bundles: `<dir>/spec/<version>/json-schema`, or `<dir>` itself. */
export function schemaDir(arg: string | undefined): string {
  if (!arg)
    throw new Error(
      'usage: npm run conformance:acp -- <schema dir> (the ACP reference root, or its spec/<version>/json-schema)',
    );
  const dir = resolve(arg);
  for (const candidate of [dir, join(dir, 'spec', ACP_VERSION, 'json-schema')]) {
    if (existsSync(join(candidate, 'schema.agentic_checkout.json'))) return candidate;
  }
  throw new Error(`no schema.agentic_checkout.json in ${dir} or ${join(dir, 'spec', ACP_VERSION, 'json-schema')}`);
}

/** Validators of `$defs/<def>` of each bundle, each bundle read once, when first needed. */
export function validators(dir: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const ids = new Map<Bundle, string>();
  return (bundle: Bundle, def: string) => {
    if (!ids.has(bundle)) {
      const schema = JSON.parse(readFileSync(join(dir, bundle), 'utf8')) as { $id: string };
      ajv.addSchema(schema);
      ids.set(bundle, schema.$id);
    }
    const validate = ajv.getSchema(`${ids.get(bundle)}#/$defs/${def}`);
    if (!validate) throw new Error(`no $defs/${def} in ${bundle}`);
    return validate;
  };
}

/**
 * The webhook OpenAPI's `WebhookEvent` as a JSON Schema: its components, with the cross-file reference to the
 * checkout OpenAPI's `Order` pointed at the same `Order` of the checkout JSON Schema bundle.
 */
export function webhookValidator(dir: string) {
  const yamlPath = join(dir, '..', 'openapi', 'openapi.agentic_checkout_webhook.yaml');
  const doc = parseYaml(readFileSync(yamlPath, 'utf8')) as { components: { schemas: Record<string, unknown> } };
  const checkout = JSON.parse(readFileSync(join(dir, 'schema.agentic_checkout.json'), 'utf8')) as { $id: string };
  const text = JSON.stringify(doc.components.schemas)
    .replaceAll('./openapi.agentic_checkout.yaml#/components/schemas/', `${checkout.$id}#/$defs/`)
    .replaceAll('#/components/schemas/', 'https://tessera.invalid/acp-webhook.json#/$defs/');
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(checkout);
  ajv.addSchema({ $id: 'https://tessera.invalid/acp-webhook.json', $defs: JSON.parse(text) });
  const validate = ajv.getSchema('https://tessera.invalid/acp-webhook.json#/$defs/WebhookEvent');
  if (!validate) throw new Error(`no WebhookEvent in ${yamlPath}`);
  return validate;
}
