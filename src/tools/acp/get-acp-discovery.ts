/** get_acp_discovery: the ACP discovery document, also served without authentication at /.well-known/acp.json. */
import { z } from 'zod';
import { discoveryDocument } from '../../domain/acp/discovery.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const getAcpDiscovery = defineTool({
  name: 'get_acp_discovery',
  title: 'ACP discovery document',
  area: 'acp',
  description:
    'Public. The ACP discovery document (GET /.well-known/acp.json): protocol name, current and supported API ' +
    'versions, the REST base URL (/checkout_sessions at the origin root), the transports (rest; mcp on /mcp with ' +
    'the checkout tools) and the services (checkout, delegate_payment).',
  input: z.strictObject({}),
  output: z.object({
    protocol: z.object({
      name: z.literal('acp'),
      version: z.string().max(20),
      supported_versions: z.array(z.string().max(20)),
      documentation_url: z.string(),
    }),
    api_base_url: z.string(),
    transports: z.array(z.string().max(10)),
    capabilities: z.object({ services: z.array(z.string().max(50)) }),
  }),
  errors: [],
  auth: { public: true, listed: ['anonymous', 'api_key'] }, // the ACP caller's discovery
  http: { method: 'GET', path: '/v1/acp/discovery' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return discoveryDocument(ctx.services.publicUrl());
  },
});
