/**
 * A small, seeded request generator over an OpenAPI 3.1 document (SEC-3, SEC-8): values that
 * follow the JSON schema most of the time, and hostile ones otherwise (wrong types, missing and
 * extra fields, option-like and traversing strings, shell metacharacters, NUL, lone surrogates,
 * huge strings). Reproducible: the same seed gives the same requests.
 */

/** mulberry32: tiny, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
};

export class Gen {
  readonly rand: () => number;
  constructor(
    seed: number,
    /** Hostile strings to mix in (the test adds paths of its sandbox, valid ids…). */
    readonly pool: string[],
  ) {
    this.rand = prng(seed);
  }

  int(n: number): number {
    return Math.floor(this.rand() * n);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  chance(p: number): boolean {
    return this.rand() < p;
  }

  string(s: Schema = {}): string {
    if (this.chance(0.5)) return this.pick(this.pool);
    const min = s.minLength ?? 0;
    const max = Math.min(s.maxLength ?? 40, 40);
    const len = min + this.int(Math.max(1, max - min + 1));
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_./ ~^:?*[\\@{}$`;|&<>'\"\u00e9\u4e2d\u0000\uD800\uDFFF\u202e";
    let out = "";
    for (let i = 0; i < len; i++) out += this.chance(0.85) ? alphabet[this.int(36)]! : alphabet[this.int(alphabet.length)]!;
    return out;
  }

  /** Anything at all: what a schema-blind client might send. */
  junk(depth = 0): unknown {
    switch (this.int(depth > 2 ? 6 : 8)) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick([0, -1, 1.5, 2 ** 53, -(2 ** 31), 1e308]);
      case 3:
        return this.string();
      case 4:
        return "x".repeat(this.pick([0, 1, 10_000, 300_000]));
      case 5:
        return this.pick(this.pool);
      case 6:
        return Array.from({ length: this.int(4) }, () => this.junk(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: this.int(4) }, () => [this.string(), this.junk(depth + 1)]));
    }
  }

  /** A value for `schema`: conforming with probability ~0.8 at each level, hostile otherwise. */
  value(schema: Schema | undefined, depth = 0): unknown {
    if (!schema || depth > 6 || this.chance(0.12)) return this.junk(depth);
    const alts = schema.anyOf ?? schema.oneOf;
    if (alts) return this.value(this.pick(alts), depth);
    if (schema.enum) return this.chance(0.9) ? this.pick(schema.enum) : this.string();
    if (schema.const !== undefined) return schema.const;
    const type = Array.isArray(schema.type) ? this.pick(schema.type) : schema.type;
    switch (type) {
      case "string":
        return this.string(schema);
      case "boolean":
        return this.chance(0.5);
      case "null":
        return null;
      case "integer":
      case "number": {
        const lo = schema.minimum ?? -5;
        const hi = schema.maximum ?? 1000;
        return this.chance(0.8) ? lo + this.int(Math.max(1, Math.min(hi, lo + 1000) - lo + 1)) : this.pick([-1, 0, 0.5, 2 ** 31, Number.MAX_SAFE_INTEGER]);
      }
      case "array": {
        const n = (schema.minItems ?? 0) + this.int(Math.min(4, (schema.maxItems ?? 4) - (schema.minItems ?? 0) + 1));
        return Array.from({ length: n }, () => this.value(schema.items, depth + 1));
      }
      case "object": {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(schema.properties ?? {})) {
          const required = schema.required?.includes(k) ?? false;
          if ((required && this.chance(0.93)) || (!required && this.chance(0.5))) out[k] = this.value(v, depth + 1);
        }
        if (this.chance(0.08)) out[this.string()] = this.junk(depth + 1);
        return out;
      }
      default:
        return this.junk(depth);
    }
  }
}
