/**
 * @tessera/sdk: the typed REST client for Node and the browser (the consent view's entry point is
 * `@tessera/sdk/browser`).
 */
export { attestKey, createClient, jitteredDelay } from './client.ts';
export type {
  AttestKey,
  CallOptions,
  ClientOptions,
  InputOf,
  IsAttest,
  MintInput,
  OutputOf,
  RetryOptions,
  TesseraClient,
  TesseraResponse,
} from './client.ts';
export { isTesseraError, TesseraError } from './error.ts';
export type { ClientErrorCode, TesseraErrorInit } from './error.ts';
export { OPERATIONS } from './operations.generated.ts';
export type * from './operations.generated.ts';
