import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type { SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm';
import { type PgTarget, quoteIdent, withClient, withDatabase } from './pg-url';

// Prisma's schema engine compiled to WebAssembly (@prisma/schema-engine-wasm),
// talking to PostgreSQL through @prisma/adapter-pg: no native engine binary.

type WasmExports = Record<string, unknown>;
type EngineModule = typeof import('@prisma/schema-engine-wasm') & {
  __wbg_set_wasm(exports: WasmExports): void;
};
/** The part of the WebAssembly global used here (this tsconfig has no DOM lib, @types/node 20 none either). */
interface WasmApi {
  instantiate(bytes: Uint8Array, imports: Record<string, unknown>): Promise<{ instance: { exports: WasmExports } }>;
}

export const NO_FILTER: SchemaFilter = { externalTables: [], externalEnums: [] };

let modulePromise: Promise<EngineModule> | undefined;

/**
 * The package's entry point imports the .wasm file as an ES module, which
 * Node 20 cannot do, so we compile `schema_engine_bg.wasm` ourselves and hand
 * the instance to the wasm-bindgen glue (`schema_engine_bg.js`) through its
 * `__wbg_set_wasm`, as the entry point would.
 */
export function loadSchemaEngineModule(): Promise<EngineModule> {
  modulePromise ??= (async () => {
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const glue = evaluateGlue(gluePath);
    const g = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown; WebAssembly?: WasmApi };
    g.PRISMA_WASM_PANIC_REGISTRY ??= new PanicRegistry();
    if (!g.WebAssembly) throw new Error('WebAssembly is not available in this runtime');
    const bytes = await readFile(path.join(path.dirname(gluePath), 'schema_engine_bg.wasm'));
    const { instance } = await g.WebAssembly.instantiate(bytes, { './schema_engine_bg.js': glue });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports['__wbindgen_start'] as () => void)();
    return glue;
  })();
  modulePromise.catch(() => (modulePromise = undefined));
  return modulePromise;
}

/**
 * The glue is an ES module made only of top-level `export function|class`
 * declarations, with no imports. Node's require() of ESM is not available
 * everywhere this runs (jest's module registry refuses ES modules from
 * node_modules), so the exports are turned into a returned object and the
 * file is evaluated as a function body, in strict mode like a module.
 *
 * Its `setTimeout` is replaced by one whose timers do not keep the process
 * alive: the engine never clears the timers it races against (e.g. its 10 s
 * advisory-lock timeout), which would otherwise hold a finished process or
 * jest run open. While the engine works, its database sockets keep it alive.
 */
function evaluateGlue(gluePath: string): EngineModule {
  const names: string[] = [];
  const body = readFileSync(gluePath, 'utf8').replace(
    /^export (function|class|const|let) ([A-Za-z_$][\w$]*)/gm,
    (_match, kind: string, name: string) => {
      names.push(name);
      return `${kind} ${name}`;
    },
  );
  if (/^\s*(import|export)\b/m.test(body) || !names.includes('__wbg_set_wasm') || !names.includes('SchemaEngine')) {
    throw new Error(`Unexpected shape of ${gluePath}: update packages/db/src/migrations/wasm-engine.ts`);
  }
  const source = `'use strict';\n${body}\nreturn { ${names.join(', ')} };\n//# sourceURL=${gluePath}`;
  return new Function('setTimeout', source)(unrefSetTimeout) as EngineModule;
}

function unrefSetTimeout(fn: () => void, ms: number): NodeJS.Timeout {
  return setTimeout(fn, ms).unref();
}

/** Receives the message of a Rust panic (the CLI keeps the same global). */
class PanicRegistry {
  private message = '';
  get(): string {
    return this.message;
  }
  set_message(message: string): void {
    this.message = `RuntimeError: ${message}`;
  }
}

export interface OpenEngine {
  engine: SchemaEngine;
  /** Frees the engine and ends its connections (releasing the engine's advisory lock). */
  close(): Promise<void>;
}

/**
 * An engine connected to `target` (its schema decides where `_prisma_migrations`
 * and the migrations' unqualified DDL go). No datamodel is given at
 * construction: the commands used here take the schema or migrations as input.
 */
export async function openSchemaEngine(target: PgTarget): Promise<OpenEngine> {
  const glue = await loadSchemaEngineModule();
  const pools: pg.Pool[] = [];
  const factory = migrationAdapterFactory(target, pools);
  const log = process.env['WEFT_SCHEMA_ENGINE_DEBUG']
    ? (line: string) => process.stderr.write(`[schema-engine] ${line}\n`)
    : () => undefined;
  const endPools = () => Promise.all(pools.map((p) => p.end().catch(() => undefined))).then(() => undefined);
  let engine: SchemaEngine;
  try {
    engine = await glue.SchemaEngine.new({ datamodels: undefined }, log, bindMigrationAwareSqlAdapterFactory(factory));
  } catch (err) {
    await endPools();
    throw err;
  }
  let closed = false;
  return {
    engine,
    async close() {
      if (closed) return;
      closed = true;
      engine.free();
      await endPools();
    },
  };
}

/**
 * PrismaPg's own factory is close but not enough here:
 * - its result sets fail on pg's internal `"char"` type (oid 18), which the
 *   engine's schema describer selects from pg_catalog; it is reported as text;
 * - its shadow database is dropped while its pool still holds a connection to
 *   it, so the DROP fails and the database is left behind;
 * - its executeScript splits scripts on every `;` (even inside strings and
 *   function bodies) and runs the pieces one by one, outside any transaction;
 *   a migration is sent whole instead, as one simple query, the way Prisma's
 *   native engine does: PostgreSQL then runs it all-or-nothing;
 * - the engine never disposes the main connection, so its pool is ended by
 *   `close()`.
 */
function migrationAdapterFactory(target: PgTarget, pools: pg.Pool[]): SqlMigrationAwareDriverAdapterFactory {
  const makePool = (config: pg.PoolConfig) => {
    const pool = new pg.Pool({ ...config, max: 4 });
    pool.on('connect', reportCharAsText);
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };
  const mainPool = makePool(target.config);
  const main = new PrismaPg(mainPool, { schema: target.schema });
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: async () => runScriptsWhole(await main.connect(), mainPool),
    async connectToShadowDb(): Promise<SqlDriverAdapter> {
      const name = `prisma_migrate_shadow_db_${randomUUID()}`;
      await withClient(target.plain, (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`));
      const pool = makePool(withDatabase(target.plain, name));
      const drop = async () => {
        await pool.end().catch(() => undefined);
        // FORCE (PostgreSQL 13+) also ends sessions the engine may have left open.
        await withClient(target.plain, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
      };
      let shadow: SqlDriverAdapter;
      try {
        shadow = runScriptsWhole(await new PrismaPg(pool).connect(), pool);
      } catch (err) {
        await drop().catch(() => undefined);
        throw err;
      }
      const dispose = shadow.dispose.bind(shadow);
      shadow.dispose = async () => {
        try {
          await dispose();
        } finally {
          await drop();
        }
      };
      return shadow;
    },
  };
}

function runScriptsWhole(adapter: SqlDriverAdapter, pool: pg.Pool): SqlDriverAdapter {
  // PrismaPg's own error mapping (to DriverAdapterError), which the engine understands.
  const onError = (adapter as { onError?: (err: unknown) => never }).onError?.bind(adapter);
  adapter.executeScript = async (script: string) => {
    try {
      await pool.query(script);
    } catch (err) {
      if (onError) onError(err);
      throw err;
    }
  };
  return adapter;
}

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

function charAsText<T>(result: T): T {
  const fields = (result as { fields?: { dataTypeID: number }[] } | undefined)?.fields;
  if (Array.isArray(fields)) {
    for (const field of fields) if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
  }
  return result;
}

function isThenable(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function reportCharAsText(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const cbIndex = args.findIndex((a) => typeof a === 'function');
    if (cbIndex >= 0) {
      const cb = args[cbIndex] as (err: unknown, res: unknown) => void;
      args[cbIndex] = (err: unknown, res: unknown) => cb(err, err ? res : charAsText(res));
      return query(...args);
    }
    const out = query(...args);
    return isThenable(out) ? out.then(charAsText) : out;
  };
}
