/** The ACP discovery document (`/.well-known/acp.json`): stable, public, the same for every merchant on this server. */
import { ACP_VERSION, SUPPORTED_ACP_VERSIONS } from './versions.ts';

/** Builds the document for the server reachable at `publicUrl` (ACP paths are served at the origin root). */
export function discoveryDocument(publicUrl: string) {
  return {
    protocol: {
      name: 'acp' as const,
      version: ACP_VERSION,
      supported_versions: [...SUPPORTED_ACP_VERSIONS],
      documentation_url: `${publicUrl}/docs`,
    },
    api_base_url: publicUrl,
    transports: ['rest', 'mcp'],
    capabilities: { services: ['checkout', 'delegate_payment'] },
  };
}
