import { request } from "node:http";
import { OPERATIONS } from "../../src/api/openapi.js";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON body, or undefined. */
  body: any;
}

/**
 * One HTTP request with exactly the headers given (node:http, so `Host` can be forged as a
 * DNS-rebinding page would send it; fetch forbids that).
 */
export function rawRequest(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<RawResponse> {
  const u = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path,
        headers: { ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}), ...headers },
        setHost: !("host" in headers),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Every operation of the route table with its path parameters filled by `fill`. */
export function everyOperation(fill: (param: string) => string = () => "x"): { method: string; path: string }[] {
  return OPERATIONS.map((op) => ({
    method: op.method.toUpperCase(),
    path: "/api/v1" + op.path.replace(/\{([A-Za-z]+)\}/g, (_, p: string) => encodeURIComponent(fill(p))),
  }));
}

/** `host:port` of a server URL. */
export function hostOf(url: string): string {
  return new URL(url).host;
}
