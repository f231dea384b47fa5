/** A tiny REST client over real HTTP for tests. */
export interface RestResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export function restClient(baseUrl: string, token?: string) {
  const call = async <T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RestResponse<T>> => {
    const h: Record<string, string> = { accept: 'application/json', ...headers };
    if (token) h.authorization = `Bearer ${token}`;
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(new URL(path, baseUrl), {
      method,
      headers: h,
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  };
  return {
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>('GET', path, undefined, headers),
    post: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('POST', path, body ?? {}, headers),
    put: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('PUT', path, body ?? {}, headers),
    patch: <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
      call<T>('PATCH', path, body ?? {}, headers),
    delete: <T = any>(path: string, headers?: Record<string, string>) => call<T>('DELETE', path, undefined, headers),
    call,
  };
}
