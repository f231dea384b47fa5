/** What one call answered, on any surface (REST, MCP, A2A): the output, or the refusal's code and message. */

/**
 * One call's outcome. `replayed`: the answer was stored under the idempotency key and sent again. `status`: the HTTP
 * status, where the surface has one (REST). `Answered` and `Refused` add what a surface carries beside (A2A: the task
 * or the message holding the answer).
 */
export type Outcome<Answered = unknown, Refused = unknown> =
  | ({ ok: true; output: any; replayed: boolean; status?: number } & Answered)
  | ({ ok: false; code: string; message: string; error: any; replayed?: boolean; status?: number } & Refused);
