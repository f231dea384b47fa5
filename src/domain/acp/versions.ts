/** The ACP (Agentic Commerce Protocol) versions this server speaks, and the API-Version check every ACP call passes. */
import { ToolError } from '../../kernel/errors.ts';

/** The ACP version implemented (the reference files of 2026-04-17). */
export const ACP_VERSION = '2026-04-17';
/** Every accepted API-Version, oldest first (the discovery document's order; the last is the current one). */
export const SUPPORTED_ACP_VERSIONS: readonly string[] = [ACP_VERSION];

/** Throws `missing_api_version` or `unsupported_api_version` (both 400, naming the supported versions). */
export function checkAcpVersion(version: string | undefined): string {
  const supported_versions = [...SUPPORTED_ACP_VERSIONS].reverse();
  if (!version?.trim()) {
    throw new ToolError(
      'missing_api_version',
      'The API-Version header is required (e.g. API-Version: ' + ACP_VERSION + ').',
      {
        supported_versions,
      },
    );
  }
  const v = version.trim();
  if (!SUPPORTED_ACP_VERSIONS.includes(v)) {
    throw new ToolError('unsupported_api_version', `API version '${v.slice(0, 40)}' is not supported.`, {
      supported_versions,
    });
  }
  return v;
}
